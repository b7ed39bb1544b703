/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdt.h - the static probe markers of <sys/sdt.h> (DTRACE_PROBE,
 * STAP_PROBE) in an ELF file: its .note.stapsdt notes, one per marker.
 *
 * A note gives the marker's address, the address of its semaphore (a
 * counter the program tests before it prepares a costly argument; zero
 * when it has none), its provider and name, and how to find each
 * argument at the marker: "-4@%edi 8@-16(%rbp) 8@$5", size (negative:
 * signed) at an assembler operand.
 */
#ifndef SDT_H
#define SDT_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

#define SDT_MAX_ARGS	12	/* what <sys/sdt.h> can pass */

enum sdt_arg_kind {
	SDT_ARG_REG,		/* a register's value */
	SDT_ARG_IMM,		/* a constant */
	SDT_ARG_MEM,		/* bytes at base + index * scale + disp */
	SDT_ARG_RIP,		/* bytes at disp past the marker (symbol(%rip)) */
};

struct sdt_arg {
	enum sdt_arg_kind kind;
	int size;		/* 1, 2, 4 or 8 bytes */
	bool is_signed;
	int64_t disp;		/* the constant, or the displacement */
	const char *base;	/* pt_regs member ("di"), or NULL */
	const char *index;	/* pt_regs member, or NULL */
	int scale;
	int shift;		/* of the register's value: 8 for %ah */
	int reg_width;		/* bytes the register's name covers: 1 for %dl, 8 for %rdx */
};

struct sdt_marker {
	struct sdt_marker *next;
	const char *provider;
	const char *name;
	uint64_t offset;		/* of the marker in the file */
	uint64_t semaphore_offset;	/* of the semaphore in the file, 0: none */
	uint64_t address;		/* link-time address of the marker */
	struct sdt_arg args[SDT_MAX_ARGS];
	int nargs;			/* -1: an argument ctap cannot read */
	int nentry;			/* a .return probe's first nentry are read at entry */
	const char *argspec;		/* as the note has it */
};

/*
 * The markers of elf, in note order, allocated in a.  Returns how many
 * (0: none, or not an x86_64 file).
 */
int sdt_markers(struct arena *a, Elf *elf, struct sdt_marker **out);

/*
 * The file offset of link-time address addr of elf, through the PT_LOAD
 * segment holding it (executable ones only if exec): where a uprobe or a
 * semaphore is in the file.  0, or -EINVAL if no segment holds it.
 */
int sdt_file_offset(Elf *elf, uint64_t addr, bool exec, uint64_t *off);

/* elf's section called name, its header in *sh; NULL if it has none. */
Elf_Scn *sdt_section(Elf *elf, const char *name, GElf_Shdr *sh);

/* Parse one argument ("-4@8(%rbp)"); 0, or -EINVAL for what x86_64 operands ctap does not know. */
int sdt_parse_arg(struct arena *a, const char *text, struct sdt_arg *arg);

#endif /* SDT_H */
