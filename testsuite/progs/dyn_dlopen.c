/*
 * dyn_dlopen N [R] - a workload for probes in a library the program
 * dlopen()s once it runs (--runtime=dyninst puts them in when the library
 * is mapped): calls its own before(), then R times (1 if not given)
 * dlopen()s libdynplug.so from argv[0]'s directory, calls its
 * plug_work(i) for i = 1..N and dlclose()s it.  From the third round
 * on, the address the library had is taken first (an anonymous mapping
 * there), so that it is mapped again elsewhere.  Silent; exits 0 if
 * plug_work() returned what it should, 3 if dlclose() did not unmap the
 * library, 4 if it came back at a taken address.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) int before(void)
{
	__asm__ volatile("" ::: "memory");
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, rounds = argc > 2 ? atol(argv[2]) : 1, sum = 0;
	const char *slash = strrchr(argv[0], '/');
	long (*work)(long);
	void *base = NULL;
	char path[4096];
	Dl_info info;

	before();
	snprintf(path, sizeof(path), "%.*slibdynplug.so", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0]);
	for (long r = 0; r < rounds; r++) {
		void *lib, *was = base;

		if (r >= 2 && mmap(base, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
				   MAP_FIXED_NOREPLACE, -1, 0) != base)
			return 4;
		lib = dlopen(path, RTLD_NOW);
		if (!lib || !(work = (long (*)(long))dlsym(lib, "plug_work")) ||
		    !dladdr((void *)work, &info))
			return 2;
		base = info.dli_fbase;
		if (r >= 2 && base == was)
			return 4;
		for (long i = 1; i <= n; i++)
			sum += work(i);
		if (rounds > 1 && (dlclose(lib) || dlopen(path, RTLD_NOW | RTLD_NOLOAD)))
			return 3;
	}
	return sum != rounds * n * (n + 1);
}
