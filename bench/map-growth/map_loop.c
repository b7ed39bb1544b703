/*
 * map_loop [-p P] [-s] PHASE... - the workload of bench/map-growth.sh
 * (static: runs in the guest).
 *
 * Each PHASE is LABEL=COUNT[:CALL][*REPEAT]: COUNT raw system calls (CALL
 * getpid, the default, or getppid), run REPEAT times (1), each timed
 * alone and reported on stderr as "RESULT LABEL VALUE" (LABEL.1, LABEL.2
 * ... when repeated), VALUE being ns per call.  The probes under test key
 * their arrays by a counter of their own, so the loop is the same for
 * every map size: no key is made here, inside the timing or outside it.
 *
 * The calls run on CPU 0.  -p P runs each phase in P processes at once,
 * process i pinned to CPU i, started together; VALUE is then the elapsed
 * time over all P * COUNT calls.  Under QEMU with -icount the vCPUs take
 * turns on one host thread and the guest clock counts the instructions
 * of both, so that is still instructions per call.
 *
 * -s stops the session's reader (the nearest ancestor named staprun,
 * stapio or bpftrace: its -c runs this program) before the first phase and lets
 * it go on after the last, so that the probes' output piles up in the
 * output buffer: a repeated phase then measures prints into a buffer ever
 * fuller, and past its end.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void calls(long n, long nr)
{
	for (long i = 0; i < n; i++)
		syscall(nr);
}

/* One timed run of n calls in p processes; ns per call over all. */
static double run(long n, long nr, int p)
{
	int go[2];
	double t0, t1;
	char c = 0;

	if (p == 1) {
		pin(0);
		t0 = now_ns();
		calls(n, nr);
		return (now_ns() - t0) / n;
	}
	if (pipe(go))
		exit(1);
	for (int i = 0; i < p; i++) {
		if (fork() == 0) {
			pin(i);
			close(go[1]);
			if (read(go[0], &c, 1) < 0)	/* 0 at EOF: everyone starts */
				_exit(1);
			calls(n, nr);
			_exit(0);
		}
	}
	close(go[0]);
	usleep(100000);			/* all children pinned and waiting */
	t0 = now_ns();
	close(go[1]);
	while (wait(NULL) > 0)
		;
	t1 = now_ns();
	return (t1 - t0) / ((double)n * p);
}

/* The pid of the nearest ancestor called staprun, stapio or bpftrace, or 0. */
static pid_t reader(void)
{
	pid_t pid = getppid();

	for (int depth = 0; pid > 1 && depth < 8; depth++) {
		char path[64], comm[64] = "", line[256];
		FILE *f;
		pid_t up = 0;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if ((f = fopen(path, "r"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = 0;
			fclose(f);
		}
		if (!strncmp(comm, "staprun", 7) || !strncmp(comm, "stapio", 6) ||
		    !strncmp(comm, "bpftrace", 8))
			return pid;
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		if (!(f = fopen(path, "r")))
			return 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %d", &up) == 1)
				break;
		fclose(f);
		pid = up;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int p = 1, opt;
	pid_t stopped = 0;

	while ((opt = getopt(argc, argv, "p:s")) != -1) {
		switch (opt) {
		case 'p':
			p = atoi(argv[optind - 1]);
			break;
		case 's':
			stopped = reader();
			if (!stopped || kill(stopped, SIGSTOP)) {
				fprintf(stderr, "map_loop: no staprun/stapio to stop\n");
				return 1;
			}
			break;
		default:
			fprintf(stderr, "usage: map_loop [-p P] [-s] LABEL=COUNT[:getpid|getppid][*REPEAT]...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		char label[64], call[16] = "getpid";
		long n, repeat = 1, nr;
		const char *rest = strchr(argv[i], '=');

		if (!rest || rest - argv[i] >= (long)sizeof(label) ||
		    sscanf(rest + 1, "%ld", &n) != 1 || n < 1) {
			fprintf(stderr, "map_loop: bad phase '%s'\n", argv[i]);
			return 2;
		}
		memcpy(label, argv[i], rest - argv[i]);
		label[rest - argv[i]] = 0;
		if (strchr(rest, ':'))
			sscanf(strchr(rest, ':') + 1, "%15[a-z]", call);
		if (strchr(rest, '*'))
			repeat = atol(strchr(rest, '*') + 1);
		nr = !strcmp(call, "getppid") ? SYS_getppid : SYS_getpid;
		for (long r = 1; r <= repeat; r++) {
			double v = run(n, nr, p);

			if (repeat > 1)
				fprintf(stderr, "RESULT %s.%ld %.1f\n", label, r, v);
			else
				fprintf(stderr, "RESULT %s %.1f\n", label, v);
		}
	}
	if (stopped)
		kill(stopped, SIGCONT);
	return 0;
}
