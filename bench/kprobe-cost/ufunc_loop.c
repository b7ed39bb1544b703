/*
 * ufunc_loop N [2] - time N calls of bench_target(), a user function for
 * the uprobe measures (with "2": of bench_target2(), whose two parameters
 * the $args measure reads); prints "ns_per_call=X".  Static, so it runs in
 * the guest; built with -g so that SystemTap can find the functions and
 * their parameters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int bench_target(int x)
{
	__asm__ volatile("" : : : "memory");	/* keep the calls */
	return x + 1;
}

__attribute__((noinline)) int bench_target2(int x, int y)
{
	__asm__ volatile("" : : : "memory");
	return x + y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec a, b;
	int two = argc > 2 && atoi(argv[2]) == 2;
	int v = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		v = two ? bench_target2(v, 1) : bench_target(v);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns_per_call=%.1f\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return v == n ? 0 : 1;
}
