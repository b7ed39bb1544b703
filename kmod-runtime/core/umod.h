/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umod.h - the tables the translator writes for each user module
 * (translator/gen/usymtab.c: its loadable segments, function symbols,
 * call frame information reduced to one row per address range, and
 * lines when the script asks for them) and what both runtimes do with
 * them once an address is placed in a file: find its symbol, line and
 * unwind row, write it as usymname() and its kin do, step up one frame.
 *
 * Where an address is mapped is each runtime's own business (the task's
 * VMAs in kmod-runtime/usyms.c, /proc/self/maps in dyn-runtime/usyms.c);
 * they hand what they found to this code as a struct ctap_uloc.
 * Portable: the host unit tests run it (testsuite/unit/test_umod.c).
 */
#ifndef CTAP_UMOD_H
#define CTAP_UMOD_H

#include "portable.h"

/* One function symbol: addr relative to the module's base, size to the
 * next symbol (SystemTap's sizes), name an offset into the names.  The
 * key comes first, here and in the rows and lines (one search for all). */
struct ctap_usym {
	uint32_t addr;
	uint32_t size;
	uint32_t name;
};

enum { CTAP_UCFA_UNKNOWN, CTAP_UCFA_SP, CTAP_UCFA_BP };
enum { CTAP_UBP_SAME, CTAP_UBP_SAVED, CTAP_UBP_UNDEFINED };

/* From pc (relative to the base) to the next row: the CFA is cfa_reg +
 * cfa_off, the return address at CFA - 8, and the caller's rbp as
 * bp_rule says (saved at CFA + bp_off).  CTAP_UCFA_UNKNOWN: stop. */
struct ctap_urow {
	uint32_t pc;
	int32_t cfa_off;
	int32_t bp_off;
	uint8_t cfa_reg;
	uint8_t bp_rule;
};

/* From addr (relative to the base) to the next row, the code is of line
 * of files[file]; line 0: of no line. */
struct ctap_uline {
	uint32_t addr;
	uint32_t line;
	uint32_t file;
};

/* A PT_LOAD: file offsets [offset, offset + filesz) are at vaddr. */
struct ctap_useg {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

struct ctap_umod {
	const char *path;		/* as the target names it */
	const char *name;		/* its last component */
	uint64_t base;			/* the vaddr syms and rows count from */
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
	/* How a runtime knows the file again while the session runs: the
	 * kernel's by its inode (held), the user-space one's by the device
	 * and inode number stat() gave. */
	void *inode;
	uint64_t dev, ino;
};

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

/* An address placed in a mapped file by a runtime. */
struct ctap_uloc {
	const struct ctap_umod *mod;	/* the module with tables for it, or NULL */
	uint64_t rel;			/* with mod: the ELF address minus mod->base */
	unsigned long start, size;	/* the file's mappings, for "[path+off/size]" */
	const char *path;		/* the file's (mod's when there is one) */
};

/* Offset off of a mapping of m's file as an ELF address relative to
 * m's base, into *rel; false when none of m's segments holds it. */
bool ctap_umod_place(const struct ctap_umod *m, uint64_t off, uint64_t *rel);

const struct ctap_usym *ctap_umod_sym(const struct ctap_umod *m, uint64_t rel);
const struct ctap_urow *ctap_umod_row(const struct ctap_umod *m, uint64_t rel);
const struct ctap_uline *ctap_umod_line(const struct ctap_umod *m, uint64_t rel);

/* addr, placed at l, as form says, into buf (NUL-terminated). */
void ctap_uloc_format(char *buf, size_t size, unsigned long addr, const struct ctap_uloc *l,
		      enum ctap_usym_form form);

/* Reads the word of user memory at addr into *v; false if it cannot. */
typedef bool (*ctap_uread_word)(unsigned long addr, unsigned long *v);

/*
 * One step up the stack from the frame at *ip (placed at l; a return
 * address unless first) with *sp and *bp, to its caller's, reading the
 * stack with read.  False where the walk ends: no row, a row that does
 * not know, memory that cannot be read, or no progress.
 */
bool ctap_uloc_unwind(const struct ctap_uloc *l, bool first, ctap_uread_word read,
		      unsigned long *ip, unsigned long *sp, unsigned long *bp);

#endif /* CTAP_UMOD_H */
