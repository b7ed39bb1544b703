/*
 * timeit [-s] PROGRAM [ARGS...] - run PROGRAM, then print "elapsed_ns=N" on
 * stderr (monotonic clock; under QEMU -icount, emulated time).  With -s,
 * first "start_mono_ns=N start_real_ns=N": when it started, by the clocks
 * a probe can read (bpftrace's nsecs, SystemTap's gettimeofday_ns()), for
 * the time to a first event.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		struct timespec r;

		argv++, argc--;
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &a);
		fprintf(stderr, "start_mono_ns=%lld start_real_ns=%lld\n",
			(long long)a.tv_sec * 1000000000LL + a.tv_nsec,
			(long long)r.tv_sec * 1000000000LL + r.tv_nsec);
	}
	if (argc < 2)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "elapsed_ns=%lld\n",
		(long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
