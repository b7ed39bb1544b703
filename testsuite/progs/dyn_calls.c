/*
 * dyn_calls N - a dynamically linked workload for probes on a shared
 * library: N times, malloc() a block, qsort() three numbers in it (libc
 * calls back into by_value() here) and free() it.  Silent.
 */
#include <stdlib.h>

__attribute__((noinline)) int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	__asm__ volatile("" ::: "memory");
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0;

	for (long i = 0; i < n; i++) {
		int *v = malloc(3 * sizeof(*v));

		if (!v)
			return 1;
		v[0] = 3;
		v[1] = 1;
		v[2] = 2;
		qsort(v, 3, sizeof(*v), by_value);
		sum += v[0];
		free(v);
	}
	return sum != n;
}
