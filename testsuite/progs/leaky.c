/*
 * leaky N - a dynamically linked workload for leak checks: keep() mallocs
 * N blocks of 100 bytes and frees every other one, so N/2 (rounded up)
 * stay allocated when the program exits.  Silent.
 */
#include <stdlib.h>

void *volatile blocks[1024];	/* volatile: the calls stay */

__attribute__((noinline)) void keep(long n)
{
	for (long i = 0; i < n && i < 1024; i++) {
		blocks[i] = malloc(100);
		if (i % 2)
			free(blocks[i]);
	}
}

int main(int argc, char **argv)
{
	keep(argc > 1 ? atol(argv[1]) : 10);
	return 0;
}
