/*
 * timecmd CMD [ARGS...] - run CMD and print "ns_per_call=X" on stderr, X
 * its whole run time in ns (the name keeps one parser for every measure;
 * stderr keeps it apart from CMD's output).  For the arming measure: a
 * whole staprun session with 1 or 117 probes.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "ns_per_call=%.0f\n", (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
