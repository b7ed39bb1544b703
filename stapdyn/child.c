// SPDX-License-Identifier: GPL-2.0
/*
 * child.c - the -c command, as staprun's: forked at once, held on a pipe
 * until the begin probes ran, then exec'd with the module on LD_PRELOAD
 * so that its constructor maps the shared segment in the target before
 * main (where process probes will run, docs/userspace.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "stapdyn.h"

static int go_fd = -1;

static void __attribute__((noreturn)) exec_command(const char *cmd, const char *module, int go)
{
	sigset_t none;
	wordexp_t we;
	char c;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (read(go, &c, 1) != 1)
		_exit(127);	/* the session did not start */
	setenv("LD_PRELOAD", module, 1);
	if (wordexp(cmd, &we, WRDE_NOCMD) == 0 && we.we_wordc > 0)
		execvp(we.we_wordv[0], we.we_wordv);
	else
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "ERROR: cannot run '%s': %s\n", cmd, strerror(errno));
	_exit(127);
}

pid_t child_fork(const char *cmd, const char *module)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(go[1]);
		exec_command(cmd, module, go[0]);
	}
	close(go[0]);
	go_fd = go[1];
	return pid;
}

void child_go(void)
{
	if (go_fd < 0)
		return;
	if (write(go_fd, "g", 1) != 1)
		fprintf(stderr, "ERROR: cannot start the -c command: %s\n", strerror(errno));
	close(go_fd);
	go_fd = -1;
}

/* As staprun's: a failed command is a warning, and exit status 1. */
bool child_failed(int status)
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
