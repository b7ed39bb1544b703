/* SPDX-License-Identifier: GPL-2.0 */
/*
 * command.h - the -c command (command.c): staprun's and stapdyn's.
 * Forked at once, so that its pid can be the session's target, it execs
 * only when the probes are armed (command_start).
 */
#ifndef STAPRUN_COMMAND_H
#define STAPRUN_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command {
	const char *line;	/* -c CMD; NULL: none */
	pid_t pid;		/* forked, waiting for command_start() */
	int go_fd;		/* it execs once this is written; -1: started */
	/* Run in the child before it waits for the go: staprun drops its
	 * privileges there, stapdyn puts its module on LD_PRELOAD. */
	void (*setup)(void *arg);
	void *arg;
};

/* Fork the command, held; 0 or a negative errno. */
int command_fork(struct command *c);
/* The probes are armed: the command runs (a failure said). */
void command_start(struct command *c);
/* Whether the command's wait status is a failure (then a warning said). */
bool command_failed(int status);
/* Stops the command if it has not ended, and reaps it. */
void command_end(struct command *c);

#endif /* STAPRUN_COMMAND_H */
