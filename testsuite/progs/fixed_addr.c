/*
 * fixed_addr N [DELAY_MS] - after DELAY_MS, call at_fixed() N times: a
 * function linked at a known address (0x600000, its own section placed
 * there by the link), for probes at an absolute address whatever the
 * compiler makes of the rest.  Silent.
 */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline, section(".ctap_fixed"))) long at_fixed(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	long delay = argc > 2 ? atol(argv[2]) : 0;

	if (delay)
		usleep(delay * 1000);
	for (long i = 0; i < n; i++)
		sum += at_fixed(i);
	return sum == 0;
}
