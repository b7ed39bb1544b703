/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls.h - kernel.syscall("NAME") and kernel.syscall("NAME").return:
 * the entry and the return of one system call, however many of them a
 * script probes, on two tracepoints (raw_syscalls:sys_enter, sys_exit)
 * dispatching by system call number.
 */
#ifndef CTAP_SYSCALLS_H
#define CTAP_SYSCALLS_H

#include <linux/tracepoint.h>

#include "ctap_runtime.h"

struct ctap_syscall {
	const struct ctap_probe *probe;
	int nr;				/* the 64-bit table's number */
	bool is_return;
	bool is_compat;			/* nr is the ia32 table's: 32-bit tasks' */
	bool as_64;			/* a 64-bit call's probe on a 32-bit call of
					 * its function: $regs has the arguments where
					 * a 64-bit call has them */
	/* A return's @entry part, run at the entry into a slot the task
	 * keeps until the return (saved_size bytes after the arguments). */
	const struct ctap_probe *entry_probe;
	size_t saved_size;
};

/* Tasks inside a system call whose return probe has @entry values at
 * once; one more is a skipped hit. */
#define CTAP_SYSCALL_SLOTS	256

/**
 * ctap_syscalls_register - attach a table of system call probes
 * @scs: the table, sorted by (is_return, is_compat, nr) (the translator
 *	sorts it)
 * @n: its length
 *
 * One tracepoint probe for the entries, one for the returns.  A probe
 * runs with the call's six arguments (int_arg(): a 32-bit task's from
 * its ia32 registers), then $regs (the
 * caller's registers) and $id (entry) or $ret (return).  Returns 0 or the
 * -errno, nothing attached (it allocates the @entry slots: process context).
 */
int ctap_syscalls_register(struct ctap_syscall *scs, int n);
void ctap_syscalls_unregister(struct ctap_syscall *scs, int n);

#endif /* CTAP_SYSCALLS_H */
