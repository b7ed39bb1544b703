/*
 * staprun - load a ctap module, stream its output, stop it, unload it.
 *
 *   staprun [-v] [-c CMD | -x PID] [-o FILE] [-b] [-T SECONDS] MODULE.ko [name=value ...]
 *   staprun -A NAME     attach to a ctap session still running (after staprun died)
 *   staprun -d NAME     stop and unload a ctap session still running
 *
 * Installed setuid root, what it may load and reach for a user is trust.c's.
 *
 * The session: load the module, send START, start the -c command once the
 * probes are armed, copy the relay output until something ends the session
 * (exit() in the script, a signal, -T, the command exiting), send EXIT so the
 * end probes run, drain the output and unload.  Every path out of main()
 * after a successful load goes through the unload.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "staprun.h"

#define DRAIN_INTERVAL_MS	100	/* relay wakes readers per sub-buffer only */
#define EXIT_REPLY_TIMEOUT_MS	10000
#define MAX_WARNINGS		256	/* distinct warnings remembered */

int verbose;

struct session {
	const char *ko_path;
	char modname[64];
	struct module_file mod;	/* opened once, checked, loaded (trust.c) */
	const char **param_args;	/* name=value, staprun's own first */
	int nparams;
	char buffer_arg[32];	/* ctap_buffer_mb=N */
	char *params;		/* for the kernel: name=value ... */
	const char *cmd;	/* -c */
	pid_t target;		/* -x, or the -c child */
	int go_fd;		/* -c child starts when this pipe is written */
	const char *outfile;	/* -o */
	int out_dir_fd;		/* -o FILE's directory, for the rotations */
	const char *out_name;	/* FILE's name in it */
	uint64_t fsize_max;	/* -S MB, as bytes */
	int fnum_max;		/* -S MB,N */
	int timeout_s;		/* -T */
	bool bulk;		/* -b: a file per CPU */
	int buffer_mb;		/* -s: relay buffer size */
	bool attach, unload;	/* -A, -d: a module already loaded */
	bool read_stdin;	/* -i: stdin goes to the input probes */
	struct input input;
	int out_fd, ctl_fd, sig_fd;
	struct relay relay;
	bool errors;
	bool exit_requested;	/* exit() ran in a begin probe */
	bool stop_sent;		/* EXIT went to the module */
	uint64_t lost_at_stop;	/* relay.lost then */
	bool failure_told;	/* the output's failure is reported */
	unsigned long warned[MAX_WARNINGS];	/* hashes of warnings printed */
	unsigned int nwarned;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: staprun [options] MODULE.ko [name=value ...]\n"
		"       staprun [options] NAME [name=value ...]\n"
		"              (NAME: /lib/modules/RELEASE/systemtap/NAME.ko)\n"
		"       staprun -A|-d NAME\n"
		"  -v          more verbose (repeat for more)\n"
		"  -c CMD      run CMD once the probes are armed; stop when it exits\n"
		"  -x PID      set target() to PID\n"
		"  -o FILE     write the output to FILE (FILE.1, FILE.2... after switch_file()\n"
		"              or SIGUSR2)\n"
		"  -S MB[,N]   with -o: go on in the next file once one is larger than MB\n"
		"              megabytes (FILE.0, FILE.1...), keeping the N newest\n"
		"  -T SECONDS  stop after SECONDS\n"
		"  -b          bulk mode: one output file per CPU (FILE_cpuN, or stpd_cpuN)\n"
		"  -s MB       output buffer size in MB (per CPU with -b)\n"
		"  -i          send stdin to the script's input.char/input.line probes\n"
		"  -A          attach to the ctap session NAME, loaded and running already\n"
		"  -d          stop and unload the ctap session NAME, loaded and running already\n"
		"  -V          print the version and exit\n"
		"  -h          this help\n"
		"  --check     (alone) report whether this kernel can run ctap's modules\n");
}

void dbug(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("staprun: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ERROR: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int parse_args(struct session *s, int argc, char **argv)
{
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "+vc:x:o:S:T:s:ibAdVh")) != -1) {
		switch (opt) {
		case 'v':
			verbose++;
			break;
		case 'c':
			s->cmd = optarg;
			break;
		case 'x':
			s->target = strtol(optarg, &end, 10);
			if (*end || s->target <= 0) {
				err("invalid -x pid '%s'\n", optarg);
				return -1;
			}
			break;
		case 'o':
			s->outfile = optarg;
			break;
		case 'S':
			s->fsize_max = strtoull(optarg, &end, 10);
			if (*end == ',')
				s->fnum_max = strtol(end + 1, &end, 10);
			if (*end || !s->fsize_max || s->fsize_max > 1UL << 20 || s->fnum_max < 0) {
				err("invalid -S '%s' (MB[,N])\n", optarg);
				return -1;
			}
			s->fsize_max <<= 20;
			break;
		case 'T':
			s->timeout_s = strtol(optarg, &end, 10);
			if (*end || s->timeout_s <= 0) {
				err("invalid -T timeout '%s'\n", optarg);
				return -1;
			}
			break;
		case 'b':
			s->bulk = true;
			break;
		case 'i':
			s->read_stdin = true;
			break;
		case 's':
			s->buffer_mb = strtol(optarg, &end, 10);
			if (*end || s->buffer_mb <= 0 || s->buffer_mb > 4095) {
				err("invalid -s buffer size '%s' (MB, 1-4095)\n", optarg);
				return -1;
			}
			break;
		case 'A':
			s->attach = true;
			break;
		case 'd':
			s->unload = true;
			break;
		case 'V':
			printf("ctap staprun %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (s->fsize_max && (!s->outfile || s->bulk)) {
		err("-S needs -o FILE, without -b\n");
		return -1;
	}
	if (s->cmd && s->target) {
		err("-c and -x are mutually exclusive\n");
		return -1;
	}
	if (optind >= argc) {
		usage(stderr);
		return -1;
	}
	s->ko_path = argv[optind++];
	if (module_name_from_path(s->ko_path, s->modname, sizeof(s->modname))) {
		err("invalid module name '%s'\n", s->ko_path);
		return -1;
	}
	if ((s->attach || s->unload) && (s->cmd || optind < argc)) {
		err("-A and -d take a module name only\n");
		return -1;
	}
	/* -b and -s are parameters of the runtime's (transport.c) */
	s->param_args = calloc(argc - optind + 2, sizeof(*s->param_args));
	if (!s->param_args)
		return -1;
	if (s->bulk)
		s->param_args[s->nparams++] = "ctap_bulk=1";
	if (s->buffer_mb) {
		snprintf(s->buffer_arg, sizeof(s->buffer_arg), "ctap_buffer_mb=%d", s->buffer_mb);
		s->param_args[s->nparams++] = s->buffer_arg;
	}
	for (int i = optind; i < argc; i++)
		s->param_args[s->nparams++] = argv[i];
	return 0;
}

/*
 * Fork the -c command now, so that its pid can be the target, but let it
 * exec only when the probes are armed (start_command).  Like SystemTap, a
 * command with shell syntax runs under /bin/sh.
 */
static int fork_command(struct session *s)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		wordexp_t we;
		char c;
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		/* stdin is the input probes': the command must not race them for it */
		if (s->read_stdin) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0 && null != STDIN_FILENO) {
				dup2(null, STDIN_FILENO);
				close(null);
			}
		}
		drop_privileges();
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the session failed to start */
		if (wordexp(s->cmd, &we, WRDE_NOCMD) == 0 && we.we_wordc > 0)
			execvp(we.we_wordv[0], we.we_wordv);
		else
			execl("/bin/sh", "sh", "-c", s->cmd, (char *)NULL);
		fprintf(stderr, "ERROR: cannot run '%s': %s\n", s->cmd, strerror(errno));
		_exit(127);
	}
	close(go[0]);
	s->go_fd = go[1];
	s->target = pid;
	return 0;
}

static void start_command(struct session *s)
{
	if (s->go_fd < 0)
		return;
	if (write(s->go_fd, "g", 1) != 1)
		err("cannot start the -c command: %s\n", strerror(errno));
	close(s->go_fd);
	s->go_fd = -1;
}

/*
 * Ask the module to stop, once.  The buffers are emptied first so that the
 * end probes' output has room.  Returns 0 or -errno.
 */
static int request_stop(struct session *s)
{
	int ret;

	if (s->stop_sent)
		return 0;
	if (relay_drain(&s->relay) < 0)
		return -EIO;
	ret = ctl_send(s->ctl_fd, CTAP_MSG_EXIT, NULL, 0);
	if (!ret) {
		s->stop_sent = true;
		s->lost_at_stop = s->relay.lost;
	}
	return ret;
}

/*
 * The output could not be written (ENOSPC, a next file that cannot be
 * made): said once; the session then stops, since what it prints goes
 * nowhere, and report_lost() says how much was lost.
 */
static bool output_failed(struct session *s)
{
	const struct relay *r = &s->relay;

	if (!r->failed)
		return false;
	if (!s->failure_told)
		err("cannot %s '%s': %s; stopping the session\n",
		    r->failed_open ? "create output file" : "write the output to", r->failed_file,
		    strerror(-r->failed));
	s->failure_told = true;
	s->errors = true;
	return true;
}

static void report_lost(struct session *s)
{
	uint64_t lost = s->relay.lost, at_stop = s->stop_sent ? s->lost_at_stop : lost;

	if (!output_failed(s) || !lost)
		return;
	if (lost > at_stop && at_stop == 0)
		err("%llu bytes of output were lost after that, all printed while the session "
		    "stopped (the end probes')\n", (unsigned long long)lost);
	else if (lost > at_stop)
		err("%llu bytes of output were lost after that, %llu of them printed while the "
		    "session stopped (the end probes')\n", (unsigned long long)lost,
		    (unsigned long long)(lost - at_stop));
	else
		err("%llu bytes of output were lost after that\n", (unsigned long long)lost);
}

/* system() in the script: sh -c CMD, not waited for (SIGCHLD reaps it). */
static void run_system(struct session *s, const char *cmd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err("system(\"%s\"): %s\n", cmd, strerror(errno));
		return;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (s->out_fd >= 0 && s->out_fd != STDOUT_FILENO)
			close(s->out_fd);
		drop_privileges();
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

/*
 * A warning or error line from the module.  As SystemTap's stapio, a
 * warning is printed once however often the script repeats it (the last
 * MAX_WARNINGS distinct ones are remembered).
 */
static void print_oob(struct session *s, const char *line)
{
	if (!strncmp(line, "ERROR", 5))
		s->errors = true;
	if (!strncmp(line, "WARNING", 7)) {
		unsigned long h = 5381;

		for (const char *p = line; *p; p++)
			h = h * 33 + (unsigned char)*p;
		for (int i = 0; i < MAX_WARNINGS; i++)
			if (s->warned[i] == h)
				return;
		s->warned[s->nwarned++ % MAX_WARNINGS] = h;
	}
	fputs(line, stderr);
}

/*
 * switch_file() or SIGUSR2: what the module printed so far stays in this
 * file, and the next output starts the next one (as SystemTap's stapio,
 * the switch waits for output).  Without -o there is nothing to switch.
 */
static void ask_switch(struct session *s)
{
	if (!s->relay.path)
		return;
	relay_drain(&s->relay);
	s->relay.switch_asked = true;
}

/* Handle one control message; returns true when the module has stopped. */
static bool handle_ctl(struct session *s)
{
	struct ctap_msg_hdr hdr;
	char payload[CTAP_MSG_MAX_PAYLOAD + 1];
	int ret;

	ret = ctl_recv(s->ctl_fd, &hdr, payload, sizeof(payload));
	if (ret == -EAGAIN || ret == -EINTR)
		return false;
	if (ret) {
		err("control channel: %s\n", strerror(-ret));
		s->errors = true;
		return true;
	}
	switch (hdr.type) {
	case CTAP_MSG_OOB:
		print_oob(s, payload);
		break;
	case CTAP_MSG_REQUEST_EXIT:
		request_stop(s);	/* a failure shows when EXIT never comes */
		break;
	case CTAP_MSG_SYSTEM:
		run_system(s, payload);
		break;
	case CTAP_MSG_SWITCH_FILE:
		ask_switch(s);
		break;
	case CTAP_MSG_EXIT:
		return true;
	default:
		dbug("ignoring control message %u\n", hdr.type);
	}
	return false;
}

/* As SystemTap's stapio: a -c command that fails is a warning, and
 * staprun's exit status is 1. */
static void command_status(struct session *s, int status)
{
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		s->errors = true;
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "WARNING: Child process exited with status %d\n",
			WEXITSTATUS(status));
		s->errors = true;
	}
}

/* Which signal or child exit ends the session; SIGCHLD only for our -c. */
static bool handle_signal(struct session *s)
{
	struct signalfd_siginfo si;
	bool stop = false;
	int status;

	while (read(s->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR2) {
			ask_switch(s);
			continue;
		}
		if (si.ssi_signo != SIGCHLD) {
			dbug("signal %u\n", si.ssi_signo);
			stop = true;
			continue;
		}
		/* Reap every child: the -c command ends the session; system()
		 * commands just go. */
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (s->cmd && pid == s->target) {
				dbug("command exited, status 0x%x\n", status);
				command_status(s, status);
				stop = true;
			}
		}
	}
	return stop;
}

/*
 * Copy output until the module reports EXIT.  The session ends from our side
 * by sending EXIT once; if the module never answers, give up after a while
 * rather than hang (the unload afterwards still cleans up).
 */
static int run_session(struct session *s)
{
	long deadline = s->timeout_s ? now_ms() + s->timeout_s * 1000L : 0;
	long exit_deadline = 0;
	bool stopped = false, stop_now = s->unload || s->exit_requested;

	while (!stopped) {
		struct pollfd pfd[3] = {
			{ .fd = s->ctl_fd, .events = POLLIN },
			{ .fd = s->sig_fd, .events = POLLIN },
			{ .fd = input_fd(&s->input), .events = POLLIN },
		};
		bool want_exit = false;
		long got;

		if (poll(pfd, 3, DRAIN_INTERVAL_MS) < 0 && errno != EINTR)
			return -errno;
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			input_forward(&s->input);
		if (pfd[0].revents & POLLIN)
			stopped = handle_ctl(s);
		if (pfd[1].revents & POLLIN)
			want_exit = handle_signal(s);
		if ((deadline && now_ms() >= deadline) || stop_now || output_failed(s))
			want_exit = true;
		if (want_exit && request_stop(s))
			return -EIO;
		if (s->stop_sent && !exit_deadline)
			exit_deadline = now_ms() + EXIT_REPLY_TIMEOUT_MS;
		if (exit_deadline && now_ms() > exit_deadline) {
			err("module did not stop within %d s\n", EXIT_REPLY_TIMEOUT_MS / 1000);
			return -ETIMEDOUT;
		}
		got = relay_drain(&s->relay);
		if (got < 0)
			return -EIO;
		/* The end probes' output still coming is progress. */
		if (got > 0 && exit_deadline)
			exit_deadline = now_ms() + EXIT_REPLY_TIMEOUT_MS;
	}
	/* Drain until the relay has nothing more: EXIT came after the flush. */
	while (relay_drain(&s->relay) > 0)
		;
	return 0;
}

static int start_session(struct session *s)
{
	struct ctap_msg_start start = { .target = s->target };
	struct ctap_msg_hdr hdr;
	char payload[CTAP_MSG_MAX_PAYLOAD + 1];
	time_t now = time(NULL);
	long started = now_ms();
	struct tm tm;
	int ret;

	/* The local time zone now, DST included, for tz_ctime() */
	if (localtime_r(&now, &tm)) {
		start.tz_gmtoff = -tm.tm_gmtoff;
		snprintf(start.tz_name, sizeof(start.tz_name), "%s", tm.tm_zone ? tm.tm_zone : "");
	}

	ret = ctl_send(s->ctl_fd, CTAP_MSG_START, &start, sizeof(start));
	if (ret) {
		err("cannot start module '%s': %s\n", s->modname, strerror(-ret));
		return ret;
	}
	/* The START reply comes after the begin probes; OOB may come first.
	 * A signal meanwhile gives up: the unload stops the module. */
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = s->ctl_fd, .events = POLLIN },
			{ .fd = s->sig_fd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return -errno;
		if ((pfd[1].revents & POLLIN) && handle_signal(s)) {
			err("interrupted while module '%s' was starting\n", s->modname);
			return -EINTR;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		ret = ctl_recv(s->ctl_fd, &hdr, payload, sizeof(payload));
		if (ret == -EAGAIN || ret == -EINTR)
			continue;
		if (ret)
			return ret;
		if (hdr.type == CTAP_MSG_OOB) {
			print_oob(s, payload);
			continue;
		}
		if (hdr.type == CTAP_MSG_REQUEST_EXIT) {
			s->exit_requested = true;
			continue;
		}
		if (hdr.type == CTAP_MSG_SYSTEM) {
			run_system(s, payload);
			continue;
		}
		if (hdr.type == CTAP_MSG_SWITCH_FILE) {
			ask_switch(s);
			continue;
		}
		if (hdr.type == CTAP_MSG_START && hdr.len == sizeof(int32_t)) {
			int32_t result;

			memcpy(&result, payload, sizeof(result));
			/* A stop signal during the arming ended it (the module
			 * looks at staprun's pending signals). */
			if (result == -EINTR) {
				err("interrupted while module '%s' was starting\n", s->modname);
				return -EINTR;
			}
			if (result)
				err("module '%s' failed to start: %s\n", s->modname,
				    strerror(-result));
			else	/* -v: what arming (and the begin probes) cost */
				dbug("module '%s' started: begin probes run and probes armed in "
				     "%ld ms\n", s->modname, now_ms() - started);
			return result;
		}
		dbug("ignoring control message %u before start\n", hdr.type);
	}
}

static int setup_signals(struct session *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);	/* stops cleanly too, rather than core */
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR2);	/* the next output file */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->sig_fd < 0 ? -errno : 0;
}

/*
 * The module to load, opened once and checked (trust.c), and its
 * parameters.  Setuid, a refusal says why.
 */
static int open_module(struct session *s)
{
	char why[PATH_MAX + 256];
	int ret;

	ret = module_open(s->ko_path, &s->mod, why, sizeof(why));
	if (!ret)
		ret = module_params(&s->mod, s->param_args, s->nparams, &s->params,
				    why, sizeof(why));
	if (ret == -EPERM && setuid_run())
		err("staprun runs setuid: %s\n", why);
	else if (ret)
		err("%s\n", why);
	if (ret)
		return ret;
	strcpy(s->modname, s->mod.name);
	return 0;
}

/* -o FILE (not -b): its directory, kept for the rotations, and the first
 * file, FILE or, under -S, FILE.0. */
static int open_first_output(struct session *s)
{
	char first[NAME_MAX + 1];
	int ret;

	s->out_dir_fd = output_dir_open(s->outfile, &s->out_name);
	ret = s->out_dir_fd < 0 ? s->out_dir_fd : 0;
	if (!ret)
		ret = output_file_name(first, sizeof(first), s->out_name, s->fsize_max ? 0 : -1);
	if (!ret) {
		s->out_fd = open_output_at(s->out_dir_fd, first);
		ret = s->out_fd < 0 ? s->out_fd : 0;
	}
	if (ret)
		err("cannot open output file '%s%s': %s\n", s->outfile, s->fsize_max ? ".0" : "",
		    strerror(-ret));
	return ret;
}

/* Why the control channel would not open (s->ctl_fd is -errno). */
static void ctl_error(const struct session *s)
{
	if (s->ctl_fd == -ENOENT)
		err("module '%s' is not a ctap session (it has no /sys/kernel/debug/%s/%s/%s)\n",
		    s->modname, CTAP_DEBUGFS_DIR, s->modname, CTAP_CMD_FILE);
	else if (s->ctl_fd == -EPERM)
		err("session '%s' was started by another user: only they and root may stop it or "
		    "attach to it\n", s->modname);
	else if (s->ctl_fd == -EBUSY)
		err("module '%s' is busy: another staprun is attached to it\n", s->modname);
	else
		err("cannot open the control channel of '%s': %s\n", s->modname,
		    strerror(-s->ctl_fd));
}

/*
 * -A and -d: only a ctap session, one with a control file; and the module
 * opens that file only to the user who loaded it, or root (EPERM).  A
 * module this refuses is left as it is, never unloaded.
 */
static int attach_session(struct session *s)
{
	if (!module_is_loaded(s->modname)) {
		err("no module named '%s' is loaded\n", s->modname);
		return -ENOENT;
	}
	s->ctl_fd = ctl_open(s->modname);
	if (s->ctl_fd >= 0)
		return 0;
	if (s->ctl_fd == -ENOENT)
		err("module '%s' is not a ctap session (it has no /sys/kernel/debug/%s/%s/%s): "
		    "staprun leaves it alone\n", s->modname, CTAP_DEBUGFS_DIR, s->modname,
		    CTAP_CMD_FILE);
	else
		ctl_error(s);
	return s->ctl_fd;
}

/* Loads the module opened already: that descriptor, not its path again. */
static int load_module(struct session *s)
{
	int ret;

	dbug("loading %s (%s)\n", s->ko_path, s->params);
	ret = module_load(s->mod.fd, s->params);
	if (ret && module_refusal(s->mod.fd, ret))
		err("couldn't insert module '%s': %s: %s\n", s->ko_path, strerror(-ret),
		    module_refusal(s->mod.fd, ret));
	else if (ret)
		err("couldn't insert module '%s': %s\n", s->ko_path, strerror(-ret));
	module_close(&s->mod);
	return ret;
}

int main(int argc, char **argv)
{
	struct session s = { .go_fd = -1, .out_fd = STDOUT_FILENO, .ctl_fd = -1,
			     .out_dir_fd = -1, .input = { .proc_fd = -1 },
			     .relay = { .dir_fd = -1 }, .mod = { .fd = -1 } };
	bool attach;
	int ret, status;

	if (argc == 2 && !strcmp(argv[1], "--check"))
		return staprun_check();
	if (parse_args(&s, argc, argv))
		return 1;
	attach = s.attach || s.unload;
	if (geteuid() != 0) {
		err("staprun must be run as root to load kernel modules\n");
		return 1;
	}
	if (!attach && open_module(&s))
		return 1;
	if (s.outfile && !s.bulk && open_first_output(&s))
		return 1;
	if (attach && attach_session(&s))
		return 1;
	if (!attach && module_is_loaded(s.modname)) {
		err("a module named '%s' is already loaded\n", s.modname);
		return 1;
	}
	if (setup_signals(&s) || (s.cmd && fork_command(&s))) {
		err("cannot set up the session: %s\n", strerror(errno));
		return 1;
	}
	if (!attach && load_module(&s)) {
		s.errors = true;
		goto out_cmd;
	}
	/* Ours, loaded just now: if it will not talk, it is unloaded. */
	if (!attach && (s.ctl_fd = ctl_open(s.modname)) < 0) {
		ctl_error(&s);
		s.errors = true;
		goto out_unload;
	}
	ret = relay_open_all(&s.relay, s.modname);
	if (!ret && s.bulk)
		ret = relay_output_bulk(&s.relay, s.outfile ? s.outfile : "stpd");
	else if (!ret && s.outfile)
		relay_output_rotating(&s.relay, s.out_fd, s.out_dir_fd, s.outfile, s.out_name,
				      s.fsize_max, s.fnum_max);
	else if (!ret)
		relay_output_to(&s.relay, s.out_fd);
	if (ret) {
		err("cannot open the output of module '%s': %s\n", s.modname, strerror(-ret));
		s.errors = true;
		goto out_unload;
	}
	/* An attached module is running already: no START. */
	if (!attach && start_session(&s)) {
		s.errors = true;
		/* What the begin probes printed before the failure still shows. */
		while (relay_drain(&s.relay) > 0)
			;
		goto out_unload;
	}
	if (s.read_stdin && (ret = input_start(&s.input, s.modname)))
		err("cannot send stdin to %s: %s\n", s.input.path, strerror(-ret));
	start_command(&s);
	if (run_session(&s))
		s.errors = true;
	input_stop(&s.input);

out_unload:
	report_lost(&s);
	relay_close_all(&s.relay);
	if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	ret = module_unload(s.modname);
	if (ret) {
		err("couldn't remove module '%s': %s\n", s.modname, strerror(-ret));
		s.errors = true;
	}
out_cmd:
	if (s.cmd) {
		if (s.go_fd >= 0)
			close(s.go_fd);	/* the child exits without running */
		if (waitpid(s.target, &status, WNOHANG) == 0) {
			kill(s.target, SIGTERM);
			waitpid(s.target, &status, 0);
		}
	}
	return s.errors ? 1 : 0;
}
