/*
 * dyn_dlopen N - a workload for probes in a library the program
 * dlopen()s once it runs (--runtime=dyninst puts them in when the library
 * is mapped): calls its own before(), then dlopen()s libdynplug.so from
 * argv[0]'s directory and calls its plug_work(i) for i = 1..N.  Exits 0
 * if plug_work() returned what it should; silent.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int before(void)
{
	__asm__ volatile("" ::: "memory");
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0;
	const char *slash = strrchr(argv[0], '/');
	long (*work)(long);
	char path[4096];
	void *lib;

	before();
	snprintf(path, sizeof(path), "%.*slibdynplug.so", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0]);
	lib = dlopen(path, RTLD_NOW);
	if (!lib || !(work = (long (*)(long))dlsym(lib, "plug_work")))
		return 2;
	for (long i = 1; i <= n; i++)
		sum += work(i);
	return sum != n * (n + 1);
}
