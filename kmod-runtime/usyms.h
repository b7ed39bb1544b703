/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.h - user-space addresses named and user stacks unwound:
 * usymname(), usymdata(), umodname(), print_ubacktrace() and the rest.
 *
 * The translator reads each user module the script may meet (every
 * process("PATH") probe's file, each -d FILE, with --ldd their
 * libraries) and writes its tables into the module (translator/usyms.c):
 * its loadable segments, its function symbols, and its call frame
 * information reduced to one row per address range -- where the canonical
 * frame address is (a register plus an offset) and where the caller's
 * frame pointer was saved.  At run time an address is found in the
 * current task's mappings (mmap_lock taken only by trylock, released
 * later from irq_work: a handler may run inside the scheduler), matched
 * to a module by inode, and turned into an address of the ELF file.
 */
#ifndef CTAP_USYMS_H
#define CTAP_USYMS_H

#include "ctap_runtime.h"

/* One function symbol: addr relative to the module's base, size to the
 * next symbol (SystemTap's sizes), name an offset into the names.  The
 * key comes first, here and in struct ctap_urow (usyms.c searches both). */
struct ctap_usym {
	u32 addr;
	u32 size;
	u32 name;
};

enum { CTAP_UCFA_UNKNOWN, CTAP_UCFA_SP, CTAP_UCFA_BP };
enum { CTAP_UBP_SAME, CTAP_UBP_SAVED, CTAP_UBP_UNDEFINED };

/* From pc (relative to the base) to the next row: the CFA is cfa_reg +
 * cfa_off, the return address at CFA - 8, and the caller's rbp as
 * bp_rule says (saved at CFA + bp_off).  CTAP_UCFA_UNKNOWN: stop. */
struct ctap_urow {
	u32 pc;
	s32 cfa_off;
	s32 bp_off;
	u8 cfa_reg;
	u8 bp_rule;
};

/* From addr (relative to the base) to the next row, the code is of line
 * of files[file]; line 0: of no line. */
struct ctap_uline {
	u32 addr;
	u32 line;
	u32 file;
};

/* A PT_LOAD: file offsets [offset, offset + filesz) are at vaddr. */
struct ctap_useg {
	u64 offset;
	u64 vaddr;
	u64 filesz;
};

struct ctap_umod {
	const char *path;		/* as the target names it */
	const char *name;		/* its last component */
	u64 base;			/* the vaddr syms and rows count from */
	const struct ctap_useg *segs;
	int nsegs;
	const struct ctap_usym *syms;
	int nsyms;
	const char *names;
	const struct ctap_urow *rows;
	int nrows;
	const struct ctap_uline *lines;	/* when the script asks for lines */
	int nlines;
	const char *const *files;
	struct inode *inode;		/* while the session runs */
#ifdef CTAP_USERSPACE
	dev_t dev;			/* the file's, once stat'ed (dyn-runtime/usyms.c) */
	ino_t ino;
#endif
};

int ctap_usyms_register(struct ctap_umod *mods, int n);
#ifdef CTAP_USERSPACE
/* --runtime=dyninst: the module's tables in this process, from its
 * constructor (a target runs no family's register). */
void ctap_dyn_usyms_table(struct ctap_umod *mods, int n);
#endif
void ctap_usyms_unregister(struct ctap_umod *mods, int n);

/* The user registers of the task a probe runs in: the probe's own if it
 * interrupted user mode, else those saved at its entry to the kernel;
 * NULL in a kernel thread. */
struct pt_regs *ctap_uregs(struct ctap_context *c);

/**
 * ctap_ustack - the current task's user stack, innermost first
 * @c: the handler's context
 * @ips: where the addresses go
 * @max: at most this many
 *
 * Unwound through the modules the translator wrote tables for; the walk
 * ends at the first frame in a module without them (warned once, with
 * the -d option that would have helped).  Returns how many.
 */
int ctap_ustack(struct ctap_context *c, unsigned long *ips, int max);

/* How ctap_usym_print() writes an address. */
enum ctap_usym_form {
	CTAP_USYM_NAME,		/* usymname(): "greet", or "0x4016f0" */
	CTAP_USYM_DATA,		/* usymdata(): "greet+0x0/0x30 [/bin/prog]" */
	CTAP_USYM_SIMPLE,	/* sprint_ubacktrace(): "greet+0x0 [prog]" */
	CTAP_USYM_FRAME,	/* print_ubacktrace(): " 0x4016f0 : greet+0x0/0x30 [/bin/prog]" */
	CTAP_USYM_MODULE,	/* umodname(): "/bin/prog" */
	CTAP_USYM_FILELINE,	/* usymfileline(): "src/prog.c:42", or "0x4016f0" */
	CTAP_USYM_FILE,		/* usymfile(): "src/prog.c" */
	CTAP_USYM_LINE,		/* usymline(): "42" */
};

/* addr of the current task as form says into buf; -ENOENT if no mapped
 * file holds it (buf then holds its hex for the forms that have one). */
int ctap_usym_print(char *buf, size_t size, unsigned long addr, enum ctap_usym_form form);

#endif /* CTAP_USYMS_H */
