// SPDX-License-Identifier: GPL-2.0
/*
 * child.c - the programs staprun runs for the user: the -c command
 * (command.c, with command_setup here), and the script's system()
 * commands.  Both run with the user's uid (drop_privileges, trust.c) and
 * the signal mask of an ordinary program.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "staprun.h"

/* staprun blocks its signals to read them from a signalfd: not a child. */
static void unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * In the -c child, before it waits for the go (command.c): the user's
 * uid, and stdin from /dev/null when the input probes read staprun's (the
 * command must not race them for it).
 */
void command_setup(void *arg)
{
	const bool *stdin_null = arg;
	int null;

	if (*stdin_null) {
		null = open("/dev/null", O_RDONLY);
		if (null >= 0 && null != STDIN_FILENO) {
			dup2(null, STDIN_FILENO);
			close(null);
		}
	}
	drop_privileges();
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
