/*
 * staprun - load a ctap module, stream its output, stop it, unload it.
 *
 *   staprun [-v] [-c CMD | -x PID] [-o FILE] [-b] [-T SECONDS] MODULE.ko [name=value ...]
 *   staprun -A NAME     attach to a module still running (after staprun died)
 *   staprun -d NAME     stop and unload a module still running
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
#include <grp.h>
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
	char *params;		/* name=value ... joined by spaces */
	const char *cmd;	/* -c */
	pid_t target;		/* -x, or the -c child */
	int go_fd;		/* -c child starts when this pipe is written */
	const char *outfile;	/* -o */
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
	unsigned long warned[MAX_WARNINGS];	/* hashes of warnings printed */
	unsigned int nwarned;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: staprun [options] MODULE.ko [name=value ...]\n"
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
		"  -A          attach to MODULE, loaded and running already\n"
		"  -d          stop and unload MODULE, loaded and running already\n"
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
	size_t plen = 1;
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
	for (int i = optind; i < argc; i++)
		plen += strlen(argv[i]) + 1;
	plen += sizeof(" ctap_bulk=1 ctap_buffer_mb=4095");
	s->params = calloc(1, plen);
	if (s->bulk)
		strcat(s->params, "ctap_bulk=1 ");
	if (s->buffer_mb)
		sprintf(s->params + strlen(s->params), "ctap_buffer_mb=%d ", s->buffer_mb);
	for (int i = optind; i < argc; i++) {
		if (!strchr(argv[i], '=')) {
			err("module parameter '%s' is not name=value\n", argv[i]);
			return -1;
		}
		strcat(s->params, argv[i]);
		if (i + 1 < argc)
			strcat(s->params, " ");
	}
	return 0;
}

/*
 * Installed setuid root (as SystemTap's packaging installs its staprun for
 * the stapusr group), staprun may load modules for a user who is not root;
 * everything else it does on that user's behalf runs as that user: the -c
 * command, system() commands, the -o file.  Run by root, nothing changes.
 */
static bool setuid_run(void)
{
	return geteuid() != getuid();
}

/* In a child about to run the user's command: become the user, for good. */
static void drop_privileges(void)
{
	gid_t gid = getgid();
	uid_t uid = getuid();

	if (!setuid_run())
		return;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "ERROR: cannot drop privileges: %s\n", strerror(errno));
		_exit(127);
	}
}

/*
 * Setuid, only a module whose file and every directory above it belong to
 * root and are writable by nobody else: the user must not be able to
 * choose what root loads.
 */
static int module_trusted(const char *path)
{
	char dir[4096];
	struct stat st;

	if (!setuid_run())
		return 0;
	if (!realpath(path, dir))
		return -errno;
	for (;;) {
		if (stat(dir, &st))
			return -errno;
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
			return -EPERM;
		if (!strcmp(dir, "/"))
			return 0;
		*strrchr(dir, '/') = '\0';
		if (!dir[0])
			strcpy(dir, "/");
	}
}

/* -o FILE, opened as the user who ran staprun; never through a symlink. */
int open_output(const char *path)
{
	bool suid = setuid_run();	/* before the euid changes */
	int fd, saved;

	if (suid && seteuid(getuid()))
		return -errno;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	saved = errno;
	if (suid && seteuid(0))
		abort();	/* cannot happen: the saved uid is root */
	return fd < 0 ? -saved : fd;
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
static int request_stop(struct session *s, bool *exit_sent)
{
	int ret;

	if (*exit_sent)
		return 0;
	if (relay_drain(&s->relay) < 0)
		return -EIO;
	ret = ctl_send(s->ctl_fd, CTAP_MSG_EXIT, NULL, 0);
	if (!ret)
		*exit_sent = true;
	return ret;
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

/* Handle one control message; returns true when the module has stopped. */
/*
 * switch_file() or SIGUSR2: what the module printed so far stays in this
 * file, and the next output starts the next one (as SystemTap's stapio,
 * the switch waits for output).  Without -o there is nothing to switch.
 */
static void ask_switch(struct session *s)
{
	if (!s->relay.base)
		return;
	relay_drain(&s->relay);
	s->relay.switch_asked = true;
}

static bool handle_ctl(struct session *s, bool *exit_sent)
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
		request_stop(s, exit_sent);	/* a failure shows when EXIT never comes */
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
	bool exit_sent = false, stopped = false, stop_now = s->unload || s->exit_requested;

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
			stopped = handle_ctl(s, &exit_sent);
		if (pfd[1].revents & POLLIN)
			want_exit = handle_signal(s);
		if ((deadline && now_ms() >= deadline) || stop_now)
			want_exit = true;
		if (want_exit && request_stop(s, &exit_sent))
			return -EIO;
		if (exit_sent && !exit_deadline)
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

int main(int argc, char **argv)
{
	struct session s = { .go_fd = -1, .out_fd = STDOUT_FILENO, .ctl_fd = -1,
			     .input = { .proc_fd = -1 } };
	int ret, status;

	if (argc == 2 && !strcmp(argv[1], "--check"))
		return staprun_check();
	if (parse_args(&s, argc, argv))
		return 1;
	if (geteuid() != 0) {
		err("staprun must be run as root to load kernel modules\n");
		return 1;
	}
	if (!s.attach && !s.unload && (ret = module_trusted(s.ko_path))) {
		err("staprun runs setuid: it loads only modules in directories that root "
		    "alone owns and can write, not '%s' (%s)\n", s.ko_path, strerror(-ret));
		return 1;
	}
	if (s.outfile && !s.bulk) {
		char first[4096];

		/* -S starts at FILE.0 */
		if (relay_file_name(first, sizeof(first), s.outfile, s.fsize_max ? 0 : -1)) {
			err("output file name too long: '%s'\n", s.outfile);
			return 1;
		}
		s.out_fd = open_output(first);
		if (s.out_fd < 0) {
			err("cannot open output file '%s': %s\n", first, strerror(-s.out_fd));
			return 1;
		}
	}
	if (s.attach || s.unload) {
		if (!module_is_loaded(s.modname)) {
			err("no module named '%s' is loaded\n", s.modname);
			return 1;
		}
	} else if (module_is_loaded(s.modname)) {
		err("a module named '%s' is already loaded\n", s.modname);
		return 1;
	}
	if (setup_signals(&s) || (s.cmd && fork_command(&s))) {
		err("cannot set up the session: %s\n", strerror(errno));
		return 1;
	}

	if (!s.attach && !s.unload) {
		dbug("loading %s (%s)\n", s.ko_path, s.params);
		ret = module_load(s.ko_path, s.params);
		if (ret) {
			err("couldn't insert module '%s': %s\n", s.ko_path, strerror(-ret));
			s.errors = true;
			goto out_cmd;
		}
	}

	s.ctl_fd = ctl_open(s.modname);
	if (s.ctl_fd == -EBUSY) {
		err("module '%s' is busy: another staprun is attached to it\n", s.modname);
		s.errors = true;
		/* With -A or -d not ours to unload: the other staprun owns it. */
		if (s.attach || s.unload)
			goto out_cmd;
		goto out_unload;
	} else if (s.ctl_fd < 0) {
		err("cannot open the control channel of '%s': %s\n", s.modname,
		    strerror(-s.ctl_fd));
		s.errors = true;
		goto out_unload;
	}
	ret = relay_open_all(&s.relay, s.modname);
	if (!ret && s.bulk)
		ret = relay_output_bulk(&s.relay, s.outfile ? s.outfile : "stpd");
	else if (!ret && s.outfile)
		relay_output_rotating(&s.relay, s.out_fd, s.outfile, s.fsize_max, s.fnum_max);
	else if (!ret)
		relay_output_to(&s.relay, s.out_fd);
	if (ret) {
		err("cannot open the output of module '%s': %s\n", s.modname, strerror(-ret));
		s.errors = true;
		goto out_unload;
	}
	/* An attached module is running already: no START. */
	if (!s.attach && !s.unload && start_session(&s)) {
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
