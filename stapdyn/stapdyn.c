// SPDX-License-Identifier: GPL-2.0
/*
 * stapdyn.c - run a --runtime=dyninst module (NAME.so), as SystemTap's
 * stapdyn: stapdyn MODULE.so [-c CMD] [-x PID] [-o FILE] [-T SEC] [-v]
 * [NAME=VALUE...].  As an ordinary user: nothing here needs privilege.
 *
 * The session: load the module (module.c), set -G globals, init, fork a
 * -c command (held), run the begin probes and arm the timers, let the
 * command go, then drain the shared output ring until ^C, SIGTERM,
 * exit(), the command's end or -T; then the end probes, the last output
 * and the end-of-run report, as staprun's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../staprun/command.h"
#include "../staprun/relay.h"
#include "../staprun/warned.h"
#include "stapdyn.h"

struct opts {
	const char *cmd, *output, *module;
	pid_t target;
	int verbose, timeout_s;
	uint64_t fsize_max;		/* -S MB[,N], as staprun's */
	int fnum_max;
	size_t seg_mb;
	char **params;
	int nparams;
};

static void usage(void)
{
	fputs("usage: stapdyn [-v] [-c CMD | -x PID] [-o FILE [-S MB[,N]]] [-T SEC] [-s MB] MODULE.so "
	      "[NAME=VALUE...]\n", stderr);
	exit(1);
}

/* -S MB[,N]: a new -o file past MB megabytes, the N newest kept. */
static void parse_size(struct opts *o, const char *arg)
{
	char *end;

	o->fsize_max = strtoull(arg, &end, 10);
	if (*end == ',')
		o->fnum_max = strtol(end + 1, &end, 10);
	if (*end || !o->fsize_max || o->fsize_max > 1UL << 20 || o->fnum_max < 0) {
		fprintf(stderr, "ERROR: invalid -S '%s' (MB[,N])\n", arg);
		exit(1);
	}
	o->fsize_max <<= 20;
}

static void parse(struct opts *o, int argc, char **argv)
{
	int c;

	/* -b, -i: staprun's, which stap passes; no meaning here yet. */
	while ((c = getopt(argc, argv, "vc:x:o:T:s:bS:i")) != -1) {
		switch (c) {
		case 'v': o->verbose++; break;
		case 'c': o->cmd = optarg; break;
		case 'x': o->target = (pid_t)atoi(optarg); break;
		case 'o': o->output = optarg; break;
		case 'T': o->timeout_s = atoi(optarg); break;
		case 's': o->seg_mb = (size_t)atoi(optarg) + 64; break;
		case 'S': parse_size(o, optarg); break;
		case 'b': case 'i': break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	o->module = argv[optind++];
	o->params = argv + optind;
	o->nparams = argc - optind;
}

/* ---- the output ring's reader ---- */

/* stdout, or -o's files rotated as staprun rotates them (staprun/relay.c):
 * one CPU's relay with no files to read, written by relay_write(). */
static int out_fds[1] = { STDOUT_FILENO }, no_fds[1] = { -1 };
static struct relay out = { .ncpus = 1, .fds = no_fds, .out_fds = out_fds, .dir_fd = -1 };
static bool saw_error;

static bool ring_trylock(struct ctap_dyn_shm *h)
{
	int unlocked = 0;

	return __atomic_compare_exchange_n(&h->ring_lock, &unlocked, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void ring_read(struct ctap_dyn_shm *h, uint64_t pos, void *dst, size_t len)
{
	const char *ring = (const char *)h + h->ring_off;
	uint64_t at = pos % h->ring_size, first = h->ring_size - at;

	if (first >= len) {
		memcpy(dst, ring + at, len);
	} else {
		memcpy(dst, ring + at, first);
		memcpy((char *)dst + first, ring, len - first);
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The warnings printed: as staprun, each once (staprun/warned.c). */
static struct warned warned;

/* Everything written so far, to stdout (-o) and stderr. */
static void drain(struct ctap_dyn_shm *h)
{
	static char buf[65536];

	for (;;) {
		struct ctap_dyn_rec r;
		size_t len;

		/* The lock is held to take one record, not while it is
		 * written out: a handler that finds it held drops its record,
		 * and a write to a file or a pipe may take long. */
		for (int tries = 0; !ring_trylock(h); tries++) {
			if (tries > 1000)
				return;		/* a writer stopped holding it: next time */
			usleep(10);
		}
		if (h->tail >= h->head) {
			__atomic_store_n(&h->ring_lock, 0, __ATOMIC_RELEASE);
			return;
		}
		ring_read(h, h->tail, &r, sizeof(r));
		len = r.len < sizeof(buf) ? r.len : sizeof(buf);
		ring_read(h, h->tail + sizeof(r), buf, len);
		h->tail += sizeof(r) + ((r.len + 7) & ~7u);
		__atomic_store_n(&h->ring_lock, 0, __ATOMIC_RELEASE);
		if (r.chan == CTAP_DYN_ERR) {
			if (!strncmp(buf, "ERROR:", 6))
				saw_error = true;
			if (!warned_before(&warned, buf, len))
				write_all(STDERR_FILENO, buf, len);
		} else if (r.chan == CTAP_DYN_SWITCH) {
			out.switch_asked = out.path != NULL;	/* switch_file() */
		} else {
			relay_write(&out, buf, len);
		}
	}
}

/* Sleep until a record, an exit request or 20 ms (to look at signals). */
static void wait_wake(struct ctap_dyn_shm *h, uint32_t seen)
{
	struct timespec t = { 0, 20 * 1000 * 1000 };

	syscall(SYS_futex, &h->wake, FUTEX_WAIT, seen, &t, NULL, 0);
}

/* ---- the session ---- */

static sigset_t stops;

/* True when the session should end: a stop signal, the -c command's
 * end (*status), exit() or the time limit. */
static bool should_stop(struct ctap_dyn_shm *h, pid_t child, int *status, time_t deadline)
{
	struct timespec zero = { 0, 0 };
	int sig;

	while ((sig = sigtimedwait(&stops, NULL, &zero)) > 0) {
		if (sig == SIGUSR2) {
			/* the next -o file, after what was printed so far */
			drain(h);
			out.switch_asked = out.path != NULL;
			continue;
		}
		if (sig != SIGCHLD)
			return true;
		if (child > 0 && waitpid(child, status, WNOHANG) == child)
			return true;
	}
	if (child > 0 && waitpid(child, status, WNOHANG) == child)
		return true;
	if (__atomic_load_n(&h->exit_requested, __ATOMIC_SEQ_CST))
		return true;
	return deadline && time(NULL) >= deadline;
}

/* In the -c child: the module's constructor maps the shared segment in
 * the target before main (docs/userspace.md). */
static void preload_module(void *path)
{
	setenv("LD_PRELOAD", path, 1);
}

static int run(struct opts *o, struct dyn_module *m)
{
	struct command cmd = { .go_fd = -1 };
	char module_path[PATH_MAX];
	int status = -1, ret;
	time_t deadline = o->timeout_s ? time(NULL) + o->timeout_s : 0;

	for (int i = 0; i < o->nparams; i++) {
		char *eq = strchr(o->params[i], '=');

		if (!eq) {
			fprintf(stderr, "ERROR: '%s' is not NAME=VALUE\n", o->params[i]);
			return 1;
		}
		*eq = '\0';
		if (m->set_param(o->params[i], eq + 1))
			fprintf(stderr, "WARNING: the script has no global '%s'\n", o->params[i]);
	}
	if (m->init())
		return 1;
	if (o->cmd) {
		/* LD_PRELOAD wants the module's path as the child will see it. */
		cmd.line = o->cmd;
		cmd.setup = preload_module;
		cmd.arg = realpath(o->module, module_path) ? module_path : (char *)o->module;
		ret = command_fork(&cmd);
		if (ret) {
			fprintf(stderr, "ERROR: cannot fork the -c command: %s\n", strerror(-ret));
			return 1;
		}
	}
	ret = m->start(cmd.pid > 0 ? cmd.pid : o->target, getpid());
	if (ret) {
		drain(m->shm);
		return 1;
	}
	if (o->target && !o->cmd) {
		char abs[PATH_MAX];

		/* -x PID: the module into the running process (attach.c) */
		if (attach_load(o->target, realpath(o->module, abs) ? abs : o->module, m->fd,
				m->shm)) {
			m->stop();
			drain(m->shm);
			return 1;
		}
	}
	command_start(&cmd);
	for (;;) {
		uint32_t seen = __atomic_load_n(&m->shm->wake, __ATOMIC_SEQ_CST);

		drain(m->shm);
		if (should_stop(m->shm, cmd.pid, &status, deadline))
			break;
		wait_wake(m->shm, seen);
	}
	/* process.end of what died without running it (a signal, _exit()),
	 * the -c command reaped just now included: before the end probes */
	m->reap();
	m->stop();
	drain(m->shm);
	m->report();
	drain(m->shm);
	if (o->verbose && m->shm->attached)
		fprintf(stderr, "stapdyn: the module was mapped in %d target process%s (last pid %d)\n",
			m->shm->attached, m->shm->attached == 1 ? "" : "es", m->shm->attached_pid);
	if (cmd.pid > 0 && status == -1)
		command_end(&cmd);	/* the session ended first: the command goes with it */
	if (out.failed) {	/* as staprun says it (stapdyn goes on: the end has its say) */
		fprintf(stderr, "ERROR: cannot %s '%s': %s; %llu bytes of output were lost\n",
			out.failed_open ? "create output file" : "write the output to",
			out.failed_file, strerror(-out.failed), (unsigned long long)out.lost);
		saw_error = true;
	}
	ret = saw_error ? 1 : 0;
	if (status != -1 && command_failed(status))
		ret = 1;
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { .seg_mb = 64 };
	struct dyn_module m = { .fd = -1 };
	int ret;

	parse(&o, argc, argv);
	if (o.output) {
		const char *name;
		int dir_fd, fd = output_open_first(o.output, o.fsize_max != 0, &dir_fd, &name);

		if (fd < 0) {
			fprintf(stderr, "ERROR: cannot open %s: %s\n", o.output, strerror(-fd));
			return 1;
		}
		relay_output_rotating(&out, fd, dir_fd, o.output, name, o.fsize_max, o.fnum_max);
	}
	/* Stop signals are read, not delivered: the handlers never race them. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGQUIT);
	sigaddset(&stops, SIGCHLD);
	sigaddset(&stops, SIGUSR2);	/* the next -o file */
	sigprocmask(SIG_BLOCK, &stops, NULL);
	if (module_load(&m, o.module, o.seg_mb, o.verbose))
		return 1;
	ret = run(&o, &m);
	m.exit();
	module_unload(&m);
	return ret;
}
