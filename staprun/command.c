// SPDX-License-Identifier: GPL-2.0
/*
 * command.c - the -c command of staprun and stapdyn: forked when the
 * session starts, held on a pipe until the begin probes ran, then exec'd
 * with the signal mask of an ordinary program.
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

#include "command.h"

/*
 * In the child: wait for the go, then run the command.  Like SystemTap,
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
	fprintf(stderr, "ERROR: cannot run '%s': %s\n", line, strerror(errno));
	_exit(127);
}

int command_fork(struct command *c)
{
	sigset_t none;
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	if (pid == 0) {
		/* The tools block their signals to read them from a
		 * signalfd or a futex loop: not the command. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		if (c->setup)
			c->setup(c->arg);
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
		fprintf(stderr, "ERROR: cannot start the -c command: %s\n", strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
}

/* As SystemTap's stapio: a -c command that fails is a warning, and the
 * tool's exit status is 1. */
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

	if (!c->line || c->pid <= 0)
		return;
	if (c->go_fd >= 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
	if (waitpid(c->pid, &status, WNOHANG) == 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, &status, 0);
	}
}
