/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobes.h - kprobe.function("f")[.return], kernel.function and
 * kernel.statement: a table of kprobes and kretprobes that the generated
 * module declares.
 */
#ifndef CTAP_KPROBES_H
#define CTAP_KPROBES_H

#include <linux/kprobes.h>

#include "ctap_runtime.h"

/*
 * Where a kernel.statement's variable is at the probe, as the translator
 * read the kernel's DWARF: a register, a constant, kernel memory at a
 * register plus disp, or at disp from the probed instruction (a static).
 */
/* PCREL: the value at the probe's address plus disp; ADDR: that address
 * itself (a kernel static's, for @var: KASLR moves code and data alike).
 * The probe's address is the one asked for, FUNC+OFFSET (ctap_kprobe.pc). */
enum ctap_kloc_kind { CTAP_KLOC_REG, CTAP_KLOC_IMM, CTAP_KLOC_MEM, CTAP_KLOC_PCREL, CTAP_KLOC_ADDR };

struct ctap_kloc {
	enum ctap_kloc_kind kind;
	u8 size;			/* 1, 2, 4, 8 */
	bool is_signed;
	s16 base;			/* offset in struct pt_regs, -1: none */
	s64 disp;
};

#define CTAP_KLOC_MAX	12

struct ctap_kprobe {
	const struct ctap_probe *probe;
	const char *symbol;		/* or NULL, with address */
	unsigned long offset;		/* into symbol: must stay inside it */
	unsigned long address;		/* .absolute (guru mode) */
	bool is_return;
	int maxactive;			/* .return.maxactive(N), 0: default */
	bool entry_args;		/* .return: save the arguments at entry */
	/* .return with @entry: run at entry, it saves saved_size bytes after
	 * the arguments (the handler's @entry values). */
	const struct ctap_probe *entry_probe;
	size_t saved_size;
	bool optional;			/* from a wildcard or "?": a failure warns */
	const struct ctap_kloc *locs;	/* a statement's variables, read into */
	int nlocs;			/* the handler's arguments at the hit */
	unsigned long pc;		/* symbol+offset: where PCREL/ADDR count from */
	union {
		struct kprobe kp;
		struct kretprobe krp;
	} u;
	bool registered;
	bool via_ftrace;		/* an entry armed through ftrace (kprobes.c) */
};

/**
 * ctap_kprobes_register - register a table of kprobes
 * @kps: the table
 * @n: its length
 *
 * A probe the kernel refuses is a warning if it is optional (one function
 * of a wildcard, as SystemTap's), else an error: returns the -errno after
 * unregistering the others.  Either message names the probe point.
 */
int ctap_kprobes_register(struct ctap_kprobe *kps, int n);
void ctap_kprobes_unregister(struct ctap_kprobe *kps, int n);

#endif /* CTAP_KPROBES_H */
