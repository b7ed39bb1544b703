/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes.h - process("PATH").function("f")[.return], .statement and
 * .mark in user space: the table the generated module declares is the
 * kernel runtime's (kmod-runtime/probes/uprobe_table.h, one copy), so
 * that pass 3 emits the same C; dyn-runtime/uprobes.c puts each entry in
 * the target process with the engine (patch.h) instead of the kernel.
 * docs/userspace.md.
 */
#ifndef CTAP_DYN_UPROBES_H
#define CTAP_DYN_UPROBES_H

#include "ctap_runtime.h"

/* What the generated per-probe handlers name of the kernel's. */
struct uprobe_consumer {
	int unused;
};
#define UPROBE_HANDLER_REMOVE	1
#define task_tgid_nr(task)	((pid_t)getpid())
#ifndef __uninitialized
#define __uninitialized
#endif
#ifndef __no_stack_protector
#define __no_stack_protector	__attribute__((no_stack_protector))
#endif

/* In the target, once armed: where the entry is in this process. */
struct ctap_uprobe_rt {
	unsigned long addr;
};

#include "probes/uprobe_table.h"

/*
 * In a target the table is armed by ctap_dyn_uprobes_table(), which the
 * generated module calls from a constructor: the module's own copy of
 * the table, in that process.
 */
void ctap_dyn_uprobes_table(struct ctap_uprobe *ups, int n);

#endif /* CTAP_DYN_UPROBES_H */
