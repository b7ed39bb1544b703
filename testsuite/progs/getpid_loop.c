/*
 * getpid_loop N [SLEEP_MS [DELAY_MS]] - after DELAY_MS, call getpid() N
 * times (the raw syscall, so no libc caching), then sleep SLEEP_MS.  A guest workload with a known
 * number of syscalls; silent, so that its output never races the trace
 * output it is compared with.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	long delay = argc > 3 ? atol(argv[3]) : 0;

	if (delay)
		usleep(delay * 1000);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	if (ms)
		usleep(ms * 1000);
	return 0;
}
