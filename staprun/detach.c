// SPDX-License-Identifier: GPL-2.0
/*
 * detach.c - leaving a session running without a terminal: -L stops
 * here and leaves the module to itself (the flight recorder, whose
 * buffers keep the newest output for staprun -A), -D goes on as a
 * daemon writing -o's file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "staprun.h"

void detach_say(const char *modname)
{
	/* SystemTap's words, which its users' scripts look for */
	fprintf(stderr, "\nDisconnecting from systemtap module.\n"
		"To reconnect, type \"staprun -A %s\"\n", modname);
}

/* stdin and stdout to /dev/null; stderr too if it is a terminal, which
 * the daemon outlives (a file or a pipe keeps the warnings). */
static void leave_terminal(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (isatty(STDERR_FILENO))
		dup2(fd, STDERR_FILENO);
	close(fd);
}

/*
 * The caller goes on in a grandchild in a session of its own (no
 * controlling terminal, not a session leader, so it never gets one);
 * the process staprun started prints the daemon's pid and exits 0.
 * Returns 0 in the daemon, or -errno in staprun when it could not fork.
 */
int detach_daemon(void)
{
	int pipefd[2], status;
	pid_t child, daemon_pid = 0;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (child == 0) {
		pid_t pid;

		close(pipefd[0]);
		setsid();
		pid = fork();
		if (pid > 0 && write(pipefd[1], &pid, sizeof(pid)) == sizeof(pid))
			_exit(0);
		if (pid != 0)
			_exit(1);
		close(pipefd[1]);
		leave_terminal();
		/* a daemon's: -o's directory and -b's files are open already */
		if (chdir("/"))
			dbug("chdir /: %s\n", strerror(errno));
		return 0;
	}
	close(pipefd[1]);
	if (read(pipefd[0], &daemon_pid, sizeof(daemon_pid)) != sizeof(daemon_pid))
		daemon_pid = 0;
	close(pipefd[0]);
	waitpid(child, &status, 0);
	if (daemon_pid <= 0)
		return -ECHILD;
	printf("%d\n", (int)daemon_pid);
	fflush(stdout);
	_exit(0);
}
