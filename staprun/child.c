// SPDX-License-Identifier: GPL-2.0
/*
 * child.c - the programs staprun runs for the user: the -c command, and
 * the script's system() commands.  Both run with the user's uid
 * (drop_privileges, trust.c) and the signal mask of an ordinary program.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/wait.h>

#include "staprun.h"

/* staprun blocks its signals to read them from a signalfd: not the child. */
static void unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the -c child: stdin is the input probes', the command must not race
 * them for it. */
static void stdin_from_null(void)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
}

/*
 * In the -c child: wait for the go, then run the command.  Like SystemTap,
 * a command with shell syntax runs under /bin/sh.
 */
static void __attribute__((noreturn)) exec_command(const char *line, int go_fd)
{
	wordexp_t we;
	char c;

	if (read(go_fd, &c, 1) != 1)
		_exit(127);	/* the session failed to start */
	if (wordexp(line, &we, WRDE_NOCMD) == 0 && we.we_wordc > 0)
		execvp(we.we_wordv[0], we.we_wordv);
	else
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
	errmsg("cannot run '%s': %s\n", line, strerror(errno));
	_exit(127);
}

/*
 * Fork the -c command now, so that its pid can be the target, but let it
 * exec only when the probes are armed (command_start).
 */
int command_fork(struct command *c, bool stdin_null)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		unblock_signals();
		close(go[1]);
		if (stdin_null)
			stdin_from_null();
		drop_privileges();
		exec_command(c->line, go[0]);
	}
	close(go[0]);
	c->go_fd = go[1];
	c->pid = pid;
	return 0;
}

void command_start(struct command *c)
{
	if (c->go_fd < 0)
		return;
	if (write(c->go_fd, "g", 1) != 1)
		errmsg("cannot start the -c command: %s\n", strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
}

/* As SystemTap's stapio: a -c command that fails is a warning, and
 * staprun's exit status is 1. */
bool command_failed(int status)
{
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return true;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "WARNING: Child process exited with status %d\n",
			WEXITSTATUS(status));
		return true;
	}
	return false;
}

/* The session is over: a command never started exits without running,
 * one still running is stopped. */
void command_end(struct command *c)
{
	int status;

	if (!c->line)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (waitpid(c->pid, &status, WNOHANG) == 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, &status, 0);
	}
}

/* system() in the script: sh -c CMD, not waited for (SIGCHLD reaps it). */
int system_run(const char *cmd, int out_fd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		unblock_signals();
		if (out_fd >= 0 && out_fd != STDOUT_FILENO)
			close(out_fd);
		drop_privileges();
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return 0;
}
