/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tasks.h - process.begin and process.end in user space: the table the
 * generated module declares is the kernel runtime's
 * (kmod-runtime/probes/tasks.h); dyn-runtime/tasks.c runs it from inside
 * each process that loads the module.  Thread and system call events
 * are refused in pass 2.
 */
#ifndef CTAP_DYN_TASKS_H
#define CTAP_DYN_TASKS_H

#include "ctap_runtime.h"

enum ctap_task_event {
	CTAP_TASK_BEGIN,
	CTAP_TASK_END,
	CTAP_TASK_THREAD_BEGIN,
	CTAP_TASK_THREAD_END,
	CTAP_TASK_SYSCALL,
	CTAP_TASK_SYSCALL_RETURN,
};

struct ctap_task_probe {
	const struct ctap_probe *probe;
	enum ctap_task_event event;
	const char *path;		/* process("PATH"): its executable, or NULL */
	pid_t pid;			/* process(PID), or 0 */
	struct inode *inode;		/* the kernel's; unused here */
};

/* In stapdyn: each PATH is there.  In a target: ctap_dyn_tasks_table(),
 * from a constructor of the generated module. */
int ctap_tasks_register(struct ctap_task_probe *tps, int n);
void ctap_tasks_unregister(struct ctap_task_probe *tps, int n);
void ctap_dyn_tasks_table(struct ctap_task_probe *tps, int n);

#endif /* CTAP_DYN_TASKS_H */
