/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - the programs stap runs to their end (make, Kbuild's recorded
 * commands, openssl and sign-file, the --vm guest harness), each with its
 * output in a log of its own.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * argv[0] (looked up in $PATH when it has no '/') run to its end: stdin
 * from /dev/null, stdout and stderr into the file log (created mode 0600,
 * or appended to with append), in dir unless NULL, with the NAME=VALUE
 * strings of env (NULL-terminated; NULL for none) added to its
 * environment.  Its exit status; -1 if it could not be run, or was killed.
 */
int spawn_logged(const char *const *argv, const char *dir, const char *log, bool append,
		 const char *const *env);

/* spawn_logged()'s program started, not waited for: its pid (-1 if it
 * could not be), for spawn_wait(). */
pid_t spawn_start(const char *const *argv, const char *dir, const char *log, bool append,
		  const char *const *env);
/* The exit status of a program spawn_start() started (-1: killed, or none). */
int spawn_wait(pid_t pid);

/* The file at path (a child's log, say) copied to the descriptor fd. */
void spawn_copy_file(const char *path, int fd);

#endif /* SPAWN_H */
