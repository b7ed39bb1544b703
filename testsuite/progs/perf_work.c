/*
 * perf_work PAGES SPINS [DELAY_MS] - after DELAY_MS (the time a per-thread
 * counter takes to be made), touch PAGES new pages of memory (in
 * touch()), then spin SPINS times (in spin()): a guest workload for
 * per-process perf counters, with a known least number of page faults and
 * some CPU time.  Silent.
 */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) long touch(long pages)
{
	long size = sysconf(_SC_PAGESIZE);
	volatile char *p = malloc(pages * size + size);	/* volatile: the stores stay */
	long sum = 0;

	for (long i = 0; p && i < pages; i++) {
		p[i * size] = (char)i;
		sum += p[i * size];
	}
	return sum;
}

__attribute__((noinline)) long spin(long n)
{
	volatile long x = 0;

	for (long i = 0; i < n; i++)
		x += i;
	return x;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 64;
	long spins = argc > 2 ? atol(argv[2]) : 1000000;
	long delay = argc > 3 ? atol(argv[3]) : 0;

	if (delay)
		usleep(delay * 1000);
	touch(pages);
	spin(spins);
	return 0;
}
