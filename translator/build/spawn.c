// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - the programs stap runs to their end, each with its output in
 * a log of its own: no shell between (argv as given), nothing read from
 * the terminal, and what could not be run said in the log.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

pid_t spawn_start(const char *const *argv, const char *dir, const char *log, bool append,
		  const char *const *env)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
		int out = open(log, flags, 0600), in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (out < 0 || in < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(in, 0) < 0 ||
		    (dir && chdir(dir)))
			_exit(127);
		for (; env && *env; env++)
			if (putenv((char *)*env))
				_exit(127);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "stap: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int spawn_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int spawn_logged(const char *const *argv, const char *dir, const char *log, bool append,
		 const char *const *env)
{
	return spawn_wait(spawn_start(argv, dir, log, append, env));
}

void spawn_copy_file(const char *path, int fd)
{
	char buf[65536];
	ssize_t n;
	int in = open(path, O_RDONLY | O_CLOEXEC);

	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
}
