// SPDX-License-Identifier: GPL-2.0
/*
 * staprun - load a ctap module, stream its output, stop it, unload it.
 *
 *   staprun [-v] [-c CMD | -x PID] [-o FILE] [-b] [-T SECONDS] MODULE.ko [name=value ...]
 *   staprun -L MODULE.ko    start it and leave it running (the flight recorder)
 *   staprun -D -o FILE MODULE.ko    the session as a daemon (its pid printed)
 *   staprun -A NAME     attach to a ctap session still running (-L, or staprun died)
 *   staprun -d NAME     stop and unload a ctap session still running
 *
 * Installed setuid root, what it may load and reach for a user is trust.c's.
 * The command line is options.c's, the -c command command.c's.
 *
 * The session: load the module, send START, start the -c command once the
 * probes are armed, copy the relay output until something ends the session
 * (exit() in the script, a signal, -T, the command exiting), send EXIT so the
 * end probes run, drain the output and unload.  Every path out of main()
 * after a successful load goes through the unload.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "staprun.h"

#define DRAIN_INTERVAL_MS	100	/* relay wakes readers per sub-buffer only */
/* Disarming the whole kernel's probes took over 10 s in the TCG guest
 * (6.12, run/arm_whole_kernel): only a hung module should wait this out,
 * and the unload after it waits for the module anyway. */
#define EXIT_REPLY_TIMEOUT_MS	120000

struct session {
	struct options opt;
	struct monitor *monitor;	/* -M's view, or NULL */
	char modname[64];	/* the kernel's name for the module */
	struct module_file mod;	/* opened once, checked, loaded (trust.c) */
	char *params;		/* for the kernel: name=value ... */
	struct command cmd;	/* -c */
	pid_t target;		/* -x, or the -c command */
	int out_dir_fd;		/* -o FILE's directory, for the rotations */
	const char *out_name;	/* FILE's name in it */
	struct input input;
	int out_fd, ctl_fd, sig_fd;
	struct relay relay;
	bool errors;
	bool exit_requested;	/* exit() ran in a begin probe */
	bool stop_sent;		/* EXIT went to the module */
	bool detach_asked;	/* SIGQUIT: leave the module running */
	uint64_t lost_at_stop;	/* relay.lost then */
	long stop_sent_ms;	/* when (now_ms()), for -v */
	bool failure_told;	/* the output's failure is reported */
	struct warned warned;	/* the warnings printed (warned.c) */
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
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
		s->stop_sent_ms = now_ms();
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
		errmsg("cannot %s '%s': %s; stopping the session\n",
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
		errmsg("%llu bytes of output were lost after that, all printed while the session "
		       "stopped (the end probes')\n", (unsigned long long)lost);
	else if (lost > at_stop)
		errmsg("%llu bytes of output were lost after that, %llu of them printed while the "
		       "session stopped (the end probes')\n", (unsigned long long)lost,
		       (unsigned long long)(lost - at_stop));
	else
		errmsg("%llu bytes of output were lost after that\n", (unsigned long long)lost);
}

/* system() in the script, as the user. */
static void run_system(struct session *s, const char *cmd)
{
	int ret = system_run(cmd, s->out_fd);

	if (ret)
		errmsg("system(\"%s\"): %s\n", cmd, strerror(-ret));
}

/*
 * A warning or error line from the module.  As SystemTap's stapio, a
 * warning is printed once however often the script repeats it (warned.c).
 */
static void print_oob(struct session *s, const char *line)
{
	if (!strncmp(line, "ERROR", 5))
		s->errors = true;
	if (warned_before(&s->warned, line, strlen(line)))
		return;
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

/*
 * The messages handled alike while the module starts and while it runs:
 * true if hdr was one of them.
 */
static bool dispatch(struct session *s, const struct ctap_msg_hdr *hdr, const char *payload)
{
	switch (hdr->type) {
	case CTAP_MSG_OOB:
		print_oob(s, payload);
		return true;
	case CTAP_MSG_SYSTEM:
		run_system(s, payload);
		return true;
	case CTAP_MSG_SWITCH_FILE:
		ask_switch(s);
		return true;
	default:
		return false;
	}
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
		errmsg("control channel: %s\n", strerror(-ret));
		s->errors = true;
		return true;
	}
	if (dispatch(s, &hdr, payload))
		return false;
	switch (hdr.type) {
	case CTAP_MSG_REQUEST_EXIT:
		request_stop(s);	/* a failure shows when EXIT never comes */
		break;
	case CTAP_MSG_EXIT:
		return true;
	default:
		dbug("ignoring control message %u\n", hdr.type);
	}
	return false;
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
		if (si.ssi_signo == SIGQUIT) {	/* SystemTap's detach */
			s->detach_asked = true;
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
			if (s->cmd.line && pid == s->cmd.pid) {
				dbug("command exited, status 0x%x\n", status);
				if (command_failed(status))
					s->errors = true;
				stop = true;
			}
		}
	}
	return stop;
}

/*
 * Copy output until the module reports EXIT.  The session ends from our side
 * by sending EXIT once; if the module never answers, give up after a while
 * rather than hang (the unload afterwards still cleans up).  Returns 1
 * when SIGQUIT asked to detach before that: the module runs on.
 */
static int run_session(struct session *s)
{
	long deadline = s->opt.timeout_s ? now_ms() + s->opt.timeout_s * 1000L : 0;
	long exit_deadline = 0;
	bool stopped = false, stop_now = s->opt.unload || s->exit_requested;

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
		if (monitor_tick(s->monitor))
			want_exit = true;
		if (s->detach_asked && !s->stop_sent)
			return relay_drain(&s->relay) < 0 ? -EIO : 1;
		if ((deadline && now_ms() >= deadline) || stop_now || output_failed(s))
			want_exit = true;
		if (want_exit && request_stop(s))
			return -EIO;
		if (s->stop_sent && !exit_deadline)
			exit_deadline = now_ms() + EXIT_REPLY_TIMEOUT_MS;
		if (exit_deadline && now_ms() > exit_deadline) {
			errmsg("module did not stop within %d s\n", EXIT_REPLY_TIMEOUT_MS / 1000);
			return -ETIMEDOUT;
		}
		got = relay_drain(&s->relay);
		if (got < 0)
			return -EIO;
		/* The end probes' output still coming is progress. */
		if (got > 0 && exit_deadline)
			exit_deadline = now_ms() + EXIT_REPLY_TIMEOUT_MS;
	}
	/* -v: what disarming (and the end probes) cost */
	dbug("module '%s' stopped: probes disarmed and end probes run in %ld ms\n", s->modname,
	     now_ms() - s->stop_sent_ms);
	/* Drain until the relay has nothing more: EXIT came after the flush. */
	while (relay_drain(&s->relay) > 0)
		;
	return 0;
}

static int start_session(struct session *s)
{
	struct ctap_msg_start start = { .target = s->target, .ns_pid = s->opt.ns_pid };
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
		errmsg("cannot start module '%s': %s\n", s->modname, strerror(-ret));
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
			errmsg("interrupted while module '%s' was starting\n", s->modname);
			return -EINTR;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		ret = ctl_recv(s->ctl_fd, &hdr, payload, sizeof(payload));
		if (ret == -EAGAIN || ret == -EINTR)
			continue;
		if (ret)
			return ret;
		if (dispatch(s, &hdr, payload))
			continue;
		if (hdr.type == CTAP_MSG_REQUEST_EXIT) {
			s->exit_requested = true;
			continue;
		}
		if (hdr.type == CTAP_MSG_START && hdr.len == sizeof(int32_t)) {
			int32_t result;

			memcpy(&result, payload, sizeof(result));
			/* A stop signal during the arming ended it (the module
			 * looks at staprun's pending signals). */
			if (result == -EINTR) {
				errmsg("interrupted while module '%s' was starting\n", s->modname);
				return -EINTR;
			}
			if (result)
				errmsg("module '%s' failed to start: %s\n", s->modname,
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
	sigaddset(&mask, SIGQUIT);	/* detaches, as SystemTap's */
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR2);	/* the next output file */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->sig_fd < 0 ? -errno : 0;
}

/*
 * -A and -d: only a ctap session, one with a control file; and the module
 * opens that file only to the user who loaded it, or root (EPERM).  A
 * module this refuses is left as it is, never unloaded.
 */
static int attach_session(struct session *s)
{
	if (!module_is_loaded(s->modname)) {
		errmsg("no module named '%s' is loaded\n", s->modname);
		return -ENOENT;
	}
	s->ctl_fd = ctl_open(s->modname);
	if (s->ctl_fd >= 0)
		return 0;
	if (s->ctl_fd == -ENOENT)
		errmsg("module '%s' is not a ctap session (it has no /proc/%s%s/%s): "
		       "staprun leaves it alone\n", s->modname, CTAP_PROCFS_PREFIX, s->modname,
		       CTAP_CMD_FILE);
	else
		ctl_open_failed(s->modname, s->ctl_fd);
	return s->ctl_fd;
}

/* -o FILE (not -b): the first file, and its directory for the rotations. */
static int open_first_output(struct session *s)
{
	const struct options *o = &s->opt;
	int fd = output_open_first(o->outfile, o->fsize_max, &s->out_dir_fd, &s->out_name);

	if (fd < 0) {
		errmsg("cannot open output file '%s%s': %s\n", o->outfile, o->fsize_max ? ".0" : "",
		       strerror(-fd));
		return fd;
	}
	s->out_fd = fd;
	return 0;
}

/*
 * Everything that can fail before the module is loaded: the module and
 * its parameters checked (or, -A and -d, the session found), the output
 * file, the signals, the -c command forked.  Nonzero (said) when the
 * session cannot start.
 */
static int prepare(struct session *s, bool attach)
{
	const struct options *o = &s->opt;
	int ret;

	if (geteuid() != 0) {
		errmsg("staprun must be run as root to load kernel modules\n");
		return -EPERM;
	}
	if (!attach && module_prepare(o->ko_path, o->param_args, o->nparams, &s->mod, &s->params))
		return -EPERM;
	if (!attach)
		strcpy(s->modname, s->mod.name);
	if (o->outfile && !o->bulk && open_first_output(s))
		return -EIO;
	if (attach && attach_session(s))
		return -ENOENT;
	if (!attach && module_is_loaded(s->modname)) {
		errmsg("a module named '%s' is already loaded\n", s->modname);
		return -EEXIST;
	}
	ret = setup_signals(s);
	if (!ret && s->cmd.line) {
		s->cmd.setup = command_setup;
		s->cmd.arg = (void *)&o->read_stdin;
		ret = command_fork(&s->cmd);
	}
	if (ret) {
		errmsg("cannot set up the session: %s\n", strerror(-ret));
		return ret;
	}
	if (s->cmd.line)
		s->target = s->cmd.pid;
	return 0;
}

/* The relay files to stdout, -o's file or -b's files. */
static int open_relay(struct session *s)
{
	const struct options *o = &s->opt;
	int ret = relay_open_all(&s->relay, s->modname);

	if (!ret && o->bulk)
		ret = relay_output_bulk(&s->relay, o->outfile ? o->outfile : "stpd");
	else if (!ret && o->outfile)
		relay_output_rotating(&s->relay, s->out_fd, s->out_dir_fd, o->outfile, s->out_name,
				      o->fsize_max, o->fnum_max);
	else if (!ret) {
		/* -M on a terminal: the output goes into the view. */
		int err = o->monitor ? monitor_start(s->modname, o->monitor, &s->out_fd,
						     &s->monitor) : 0;

		if (err)
			errmsg("cannot start the monitor, going on without: %s\n", strerror(-err));
		relay_output_to(&s->relay, s->out_fd);
	}
	if (ret)
		errmsg("cannot open the output of module '%s': %s\n", s->modname, strerror(-ret));
	return ret;
}

/*
 * -L, or SIGQUIT: the module runs on without staprun.  Closing the control
 * file puts its output in overwrite mode until staprun -A attaches (the
 * flight recorder); under -L what the begin probes printed is left for
 * that.  An exit() in a begin probe instead ran the session to its end.
 * A -c command goes on as it is.
 */
static int leave_running(struct session *s)
{
	relay_close_all(&s->relay);
	close(s->ctl_fd);
	detach_say(s->modname);
	return 0;
}

int main(int argc, char **argv)
{
	struct session s = { .cmd = { .go_fd = -1 }, .out_fd = STDOUT_FILENO, .ctl_fd = -1,
			     .out_dir_fd = -1, .input = { .proc_fd = -1 },
			     .relay = { .dir_fd = -1 }, .mod = { .fd = -1 } };
	long t;			/* -v: when the load and the unload started */
	bool attach;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--check"))
		return staprun_check();
	if (options_parse(&s.opt, argc, argv))
		return 1;
	strcpy(s.modname, s.opt.modname);
	s.cmd.line = s.opt.cmd;
	s.target = s.opt.target;
	attach = s.opt.attach || s.opt.unload;
	if (prepare(&s, attach))
		return 1;
	t = now_ms();
	if (!attach && module_insert(&s.mod, s.opt.ko_path, s.params)) {
		s.errors = true;
		goto out_cmd;
	}
	if (!attach)
		dbug("module '%s' loaded in %ld ms\n", s.modname, now_ms() - t);
	/* Ours, loaded just now: if it will not talk, it is unloaded. */
	if (!attach && (s.ctl_fd = ctl_open(s.modname)) < 0) {
		ctl_open_failed(s.modname, s.ctl_fd);
		s.errors = true;
		goto out_unload;
	}
	if (open_relay(&s)) {
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
	if (s.opt.load_only && !s.exit_requested)
		return leave_running(&s);
	if (s.opt.daemon && (ret = detach_daemon())) {
		errmsg("cannot go on as a daemon: %s; stopping the session\n", strerror(-ret));
		s.errors = true;
		s.exit_requested = true;
	}
	if (s.opt.read_stdin && (ret = input_start(&s.input, s.modname)))
		errmsg("cannot send stdin to %s: %s\n", s.input.path, strerror(-ret));
	command_start(&s.cmd);
	ret = run_session(&s);
	if (ret == 1) {
		input_stop(&s.input);
		return leave_running(&s);
	}
	if (ret)
		s.errors = true;
	input_stop(&s.input);

out_unload:
	report_lost(&s);
	relay_close_all(&s.relay);
	if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	t = now_ms();
	ret = module_unload(s.modname);
	dbug("module '%s' unloaded in %ld ms\n", s.modname, now_ms() - t);
	if (ret) {
		errmsg("couldn't remove module '%s': %s\n", s.modname, strerror(-ret));
		s.errors = true;
	}
out_cmd:
	command_end(&s.cmd);
	/* The module is gone: the view says so and waits for q. */
	monitor_end(s.monitor, s.out_fd);
	return s.errors ? 1 : 0;
}
