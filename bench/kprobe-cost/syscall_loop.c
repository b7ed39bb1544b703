/*
 * syscall_loop N [getsid] - time N raw getpid() (or getsid(0)) syscalls;
 * prints "ns_per_call=X".  The workload of the kprobe cost benchmark
 * (static: runs in the guest).  getsid is for the wildcard measure: the
 * kernel's BTF, which ctap matches wildcards against, lacks getpid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int sid = argc > 2 && !strcmp(argv[2], "getsid");
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		sid ? syscall(SYS_getsid, 0) : syscall(SYS_getpid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns_per_call=%.1f\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
