/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.h - user-space addresses named and user stacks unwound:
 * usymname(), usymdata(), umodname(), print_ubacktrace() and the rest.
 *
 * The translator reads each user module the script may meet (every
 * process("PATH") probe's file, each -d FILE, with --ldd their
 * libraries) and writes its tables into the module (core/umod.h:
 * loadable segments, function symbols, call frame information reduced
 * to one row per address range).  At run time an address is found in the
 * current task's mappings (mmap_lock taken only by trylock, released
 * later from irq_work: a handler may run inside the scheduler), matched
 * to a module by inode, and turned into an address of the ELF file.
 */
#ifndef CTAP_USYMS_H
#define CTAP_USYMS_H

#include "ctap_runtime.h"
#include "core/umod.h"

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

/* addr of the current task as form says into buf; -ENOENT if no mapped
 * file holds it (buf then holds its hex for the forms that have one). */
int ctap_usym_print(char *buf, size_t size, unsigned long addr, enum ctap_usym_form form);

/* umodaddr(): addr's offset from where the current task maps the file
 * that holds it (its first mapping's address less that mapping's file
 * offset: its load address); -ENOENT if no mapped file holds it. */
int ctap_umod_addr(unsigned long addr, unsigned long *off);

/* umodbuildid(): the GNU build id of the ELF file the current task maps
 * at addr, in hex, read from the task's copy of its notes; -ENOENT if no
 * mapped file holds addr or its notes have none. */
int ctap_umod_buildid(unsigned long addr, char *buf, size_t size);

#endif /* CTAP_USYMS_H */
