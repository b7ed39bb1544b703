/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobes.h - kprobe.function("f")[.return], kernel.function and
 * kernel.statement: a table of kprobes and kretprobes that the generated
 * module declares.
 */
#ifndef CTAP_KPROBES_H
#define CTAP_KPROBES_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>

#include "ctap_runtime.h"
#include "../entry.h"

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
	/* symbol's link-time distance from sprint_symbol(), from the
	 * translator's symbol table (has_delta): its address without the
	 * kernel's lookup by name, which walks every symbol before 6.2. */
	long delta;
	bool has_delta;
	bool is_return;
	int maxactive;			/* .return.maxactive(N), 0: default */
	bool entry_args;		/* .return: save the arguments at entry */
	/* .return with @entry: run at entry, it saves saved_size bytes after
	 * the arguments (the handler's @entry values). */
	const struct ctap_probe *entry_probe;
	size_t saved_size;
	bool optional;			/* from a wildcard or "?": a failure warns */
	/* Its handler reads no register but the arguments and the stack
	 * pointer (the translator's finding): an entry through ftrace need
	 * not save the others. */
	bool args_only;
	/* The translator's callback for this probe alone through ftrace,
	 * argument registers only (CTAP_FTRACE_ONE), or NULL. */
	ftrace_func_t ftrace_one;
	const struct ctap_kloc *locs;	/* a statement's variables, read into */
	int nlocs;			/* the handler's arguments at the hit */
	unsigned long pc;		/* symbol+offset: where PCREL/ADDR count from */
	union {
		struct kprobe kp;
		struct kretprobe krp;
	} u;
	bool registered;
	bool via_ftrace;		/* an entry armed through ftrace (kprobes.c) */
	bool bare;			/* ... with no kprobe registered (kprobes.c) */
	bool deferred;			/* registered disabled, enabled last (kprobes.c) */
	/* A .return hooked by a plain kprobe, not a kretprobe of its own: the
	 * kprobe calls its table's carrier (kprobes.c). */
	bool hooked;
	struct kretprobe *carrier;
};

/* An ftrace callback: given a struct ftrace_regs, or a struct pt_regs
 * where the kernel has none (CTAP_HAVE_FTRACE_REGS). */
#ifdef CTAP_HAVE_FTRACE_REGS
#define CTAP_FTRACE_CALLBACK(name)						\
	static void notrace name(unsigned long ip, unsigned long parent_ip,	\
				 struct ftrace_ops *ops, struct ftrace_regs *fregs)
#else
#define CTAP_FTRACE_CALLBACK(name)						\
	static void notrace name(unsigned long ip, unsigned long parent_ip,	\
				 struct ftrace_ops *ops, struct pt_regs *fregs)
#endif

#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && \
    defined(CTAP_HAVE_FTRACE_REGS) && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#define CTAP_FTRACE_ARGS 1
/*
 * What an ops without FTRACE_OPS_FL_SAVE_REGS gets, as a struct pt_regs
 * (x86's ftrace_regs is one): the argument registers, ax, bp, sp and ip
 * saved, cs zero, the others not (regs_get_kernel_argument() reads only
 * what is saved).  Where the layout is behind accessors, arch_ftrace_regs()
 * gives it.  The pt_regs is at the ftrace_regs' start: NULL stays NULL.
 */
static __always_inline struct pt_regs *ctap_ftrace_args_regs(struct ftrace_regs *fregs)
{
#ifdef arch_ftrace_regs
	return &arch_ftrace_regs(fregs)->regs;
#else
	return &fregs->regs;
#endif
}

/*
 * The generated module's own callback NAME for its one probe PROBE on
 * ftrace sites, argument registers only (ctap_kprobe.ftrace_one): in the
 * module's unit, where PROBE is a constant, its handler is called
 * directly (inline) and its lock test folds away.  Everything else is
 * ctap_event_run()'s, as in kprobes.c's callbacks.
 */
#define CTAP_FTRACE_ONE(name, probe)						\
	CTAP_FTRACE_CALLBACK(name)						\
	{									\
		ctap_event_run(probe, ctap_ftrace_args_regs(fregs), NULL, 0);	\
	}									\
	NOKPROBE_SYMBOL(name)
#else
#define CTAP_FTRACE_ARGS 0
/* Never armed: all registers are saved where ftrace_regs has no other way. */
#define CTAP_FTRACE_ONE(name, probe) CTAP_FTRACE_CALLBACK(name) { } NOKPROBE_SYMBOL(name)
#endif

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
