// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - the programs stap runs to their end, each with its output in
 * a log of its own: no shell between (argv as given), nothing read from
 * the terminal, and what could not be run said in the log.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

/* environ with the NAME=VALUE strings of env in place of the same NAMEs
 * (malloc()ed array; the strings are environ's and env's). */
static char **with_env(const char *const *env)
{
	size_t n = 0, m = 0, k = 0;
	char **out;

	while (environ[n])
		n++;
	while (env && env[m])
		m++;
	out = malloc((n + m + 1) * sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < m && !replaced; j++) {
			size_t len = strcspn(env[j], "=");

			replaced = !strncmp(environ[i], env[j], len) && environ[i][len] == '=';
		}
		if (!replaced)
			out[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		out[k++] = (char *)env[j];
	out[k] = NULL;
	return out;
}

/*
 * vfork(), not fork(): a fork copies the page tables of stap's tens of
 * megabytes (BTF, kallsyms), whose pages are then copied on write, about
 * 1 ms a program, a dozen of them in a replayed pass 4.  The child shares
 * stap's memory until it execs: it only makes system calls (the
 * environment is made before, never putenv() there) and _exit()s.
 */
pid_t spawn_start(const char *const *argv, const char *dir, const char *log, bool append,
		  const char *const *env)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
	char **envp = with_env(env);
	pid_t pid;

	if (!envp)
		return -1;
	fflush(NULL);
	pid = vfork();
	if (pid == 0) {
		int out = open(log, flags, 0600), in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		const char *why;

		if (out < 0 || in < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(in, 0) < 0 ||
		    (dir && chdir(dir)))
			_exit(127);
		execvpe(argv[0], (char *const *)argv, envp);
		why = strerror(errno);
		if (write(2, "stap: cannot run ", 17) < 0 || write(2, argv[0], strlen(argv[0])) < 0 ||
		    write(2, ": ", 2) < 0 || write(2, why, strlen(why)) < 0 || write(2, "\n", 1) < 0)
			_exit(127);
		_exit(127);
	}
	free(envp);
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
