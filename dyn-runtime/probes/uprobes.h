/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes.h - process("PATH").function("f")[.return], .statement and
 * .mark in user space: the table the generated module declares is the
 * kernel runtime's (kmod-runtime/probes/uprobes.h), field for field, so
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

enum ctap_sdt_kind { CTAP_SDT_REG, CTAP_SDT_IMM, CTAP_SDT_MEM, CTAP_SDT_RIP };

struct ctap_sdt_arg {
	enum ctap_sdt_kind kind;
	u8 size;
	bool is_signed;
	u8 shift;
	u8 reg_width;
	u8 scale;
	s16 base;
	s16 index;
	s64 disp;
};

#define CTAP_SDT_MAX_ARGS	12
#define CTAP_SDT_BIAS_ARG	(CTAP_SDT_MAX_ARGS + 2)
#define CTAP_SDT_ARGS		(CTAP_SDT_MAX_ARGS + 3)

struct ctap_sdt {
	const char *provider;
	const char *name;
	const struct ctap_sdt_arg *args;
	int nargs;
	int nentry;
};

/* The kernel runtime's fields (see there), then the engine's. */
struct ctap_uprobe {
	const struct ctap_probe *probe;
	const char *path;
	loff_t offset;
	unsigned long vaddr;
	const struct ctap_sdt *sdt;
	loff_t ref_ctr_offset;
	pid_t pid;
	unsigned long abs_addr;
	bool is_return;
	bool bias_at_entry;
	const struct ctap_probe *entry_probe;
	size_t saved_size;
	loff_t entry_offset;
	s16 entry_cfa_reg;
	s32 entry_cfa_off;
	int (*handler)(struct uprobe_consumer *uc, struct pt_regs *regs);
	/* The function around the probe (link-time address and size, from
	 * the symbol table): the engine's jump needs its bounds; 0: none
	 * known (a breakpoint, unless the dynamic symbols have it). */
	unsigned long func_vaddr;
	unsigned long func_size;
	/* At run time, in the target: where it is, its engine probe. */
	unsigned long addr;
	int id;
};

static __always_inline void ctap_uprobe_run(const struct ctap_uprobe *u, struct pt_regs *regs,
					    unsigned long *args)
{
	args[CTAP_SDT_MAX_ARGS] = (unsigned long)u->sdt->name;
	args[CTAP_SDT_MAX_ARGS + 1] = (unsigned long)u->sdt->provider;
	args[CTAP_SDT_BIAS_ARG] = instruction_pointer(regs) - u->vaddr;
	ctap_probe_run(u->probe, regs, args, CTAP_SDT_ARGS);
}

/*
 * In stapdyn (ctap_dyn_start): checks each file is there, nothing more.
 * In a target the table is armed by ctap_dyn_uprobes_table(), which the
 * generated module calls from a constructor: the module's own copy of
 * the table, in that process.
 */
int ctap_uprobes_register(struct ctap_uprobe *ups, int n);
void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n);
void ctap_dyn_uprobes_table(struct ctap_uprobe *ups, int n);

#endif /* CTAP_DYN_UPROBES_H */
