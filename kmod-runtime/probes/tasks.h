/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tasks.h - process.begin/end, process.thread.begin/end and
 * process.syscall[.return], for every user process, for process("PATH")
 * (the processes running that executable) or for process(PID): each
 * handler runs in the task itself.
 */
#ifndef CTAP_TASKS_H
#define CTAP_TASKS_H

#include <linux/kprobes.h>
#include <linux/tracepoint.h>

#include "ctap_runtime.h"

enum ctap_task_event {
	CTAP_TASK_BEGIN,
	CTAP_TASK_END,
	CTAP_TASK_THREAD_BEGIN,
	CTAP_TASK_THREAD_END,
	CTAP_TASK_SYSCALL,		/* args: nr, the six arguments */
	CTAP_TASK_SYSCALL_RETURN,	/* args: nr, the six, the result */
};

#define CTAP_TASK_SYSCALL_ARGS	8

struct ctap_task_probe {
	const struct ctap_probe *probe;
	enum ctap_task_event event;
	const char *path;		/* process("PATH"): its executable, or NULL */
	pid_t pid;			/* process(PID), or 0 */
	struct inode *inode;		/* path's, held while armed */
};

/**
 * ctap_tasks_register - arm a table of process event probes
 * @tps: the table (one per module)
 * @n: its length
 *
 * A path that does not exist is an error naming the probe point; returns
 * the -errno, nothing armed.
 */
int ctap_tasks_register(struct ctap_task_probe *tps, int n);
void ctap_tasks_unregister(struct ctap_task_probe *tps, int n);

#endif /* CTAP_TASKS_H */
