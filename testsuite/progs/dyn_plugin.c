/*
 * libdynplug.so - the library dyn_dlopen dlopen()s: plug_work(i) is 2 * i.
 */
__attribute__((noinline)) long plug_work(long i)
{
	__asm__ volatile("" ::: "memory");
	return 2 * i;
}
