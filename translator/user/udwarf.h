/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udwarf.h - a user program's function as its DWARF debug information
 * describes it (elfutils libdw): where its body starts after the
 * prologue, and where each parameter and local lives there.
 *
 * A variable's location becomes a struct sdt_arg, the same description
 * of "a register, or memory at a register plus an offset" that <sys/sdt.h>
 * markers use, so the runtime reads both alike (kmod-runtime/probes/
 * uprobes.c).  Scalars only: integers, enums, pointers.
 */
#ifndef UDWARF_H
#define UDWARF_H

#include <gelf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "sdt.h"

struct udwarf_var {
	struct udwarf_var *next;
	const char *name;
	const char *type;	/* as -L shows it: "int", "char*", "struct point*" */
	const char *why;	/* NULL: readable at loc; else why not */
	__u32 btf_id;		/* its type in the user BTF (udwarf_set_btf), or 0 */
	bool is_param;
	/* A structure, union or array in memory (why says it is no
	 * scalar): loc is the memory it starts at, for its members. */
	bool at_address;
	struct sdt_arg loc;
};

struct udwarf_func {
	uint64_t probe_addr;		/* link-time address: after the prologue of unoptimized code */
	struct udwarf_var *vars;	/* parameters, then locals in scope there */
	const char *ret_type;		/* NULL: void */
	const char *ret_why;		/* NULL: $return is readable at ret */
	__u32 ret_btf_id;		/* its type in the user BTF, or 0 */
	struct sdt_arg ret;
	const char *decl_file;		/* where the function is declared, */
	int decl_line;			/* as DWARF names it */
	uint64_t hi;			/* the end of its code */
};

/* An instance of a function the compiler inlined into another. */
struct udwarf_inline {
	struct udwarf_inline *next;
	const char *name;
	struct udwarf_func fn;		/* probe_addr: the instance's entry; no $return */
};

/* The most instances udwarf_inlines() gives for one pattern. */
#define UDWARF_MAX_INLINES	1000

struct udwarf;
struct btf;

/*
 * The DWARF of elf, read from file (the host's copy, under sysroot if
 * not NULL): its own or a separate debuginfo file's; kept open until
 * udwarf_close.  NULL if there is none.
 */
struct udwarf *udwarf_open(Elf *elf, const char *file, const char *sysroot);
void udwarf_close(struct udwarf *u);

/*
 * The symbol table that lists elf's functions, as SystemTap chooses it:
 * elf's .symtab (it lists static functions too), else the .symtab of
 * its separate debuginfo, dw's (a stripped library's: libc6-dbg's
 * _int_malloc), else elf's .dynsym.  Returns the file it is in, *type
 * its section type; the addresses are the same in both files.  dw may
 * be NULL.
 */
Elf *udwarf_symbol_table(Elf *elf, struct udwarf *dw, Elf32_Word *type);

/* Give the variables' types as btf's (DWARF's rewritten into it). */
void udwarf_set_btf(struct udwarf *u, struct btf *btf);

/*
 * The function name whose code starts at link-time address addr: 0 and
 * *out, or -ENOENT if the DWARF does not describe it.  at_symbol: the
 * probe stays at addr (--prologue-searching=never).
 */
int udwarf_function(struct udwarf *u, struct arena *a, const char *name, uint64_t addr,
		    bool at_symbol, struct udwarf_func *out);

/* The same, with the variables as they are at pc (a .statement's line). */
int udwarf_function_at(struct udwarf *u, struct arena *a, const char *name, uint64_t addr,
		       uint64_t pc, struct udwarf_func *out);

/*
 * The canonical frame address at pc by the call frame information: the
 * value of register *reg (pt_regs' name) plus *off; the stack pointer at
 * the function's entry was 8 below it (the return address).  0, or
 * -EINVAL if the CFA there is not a register plus an offset.
 */
int udwarf_cfa(struct udwarf *u, uint64_t pc, const char **reg, int64_t *off);

/*
 * The inlined instances of the functions whose names glob matches, each
 * with its variables at its entry (sorted by name, as SystemTap lists
 * an instance's); NULL if none.  *more: there were more than
 * UDWARF_MAX_INLINES, the rest left out.
 */
struct udwarf_inline *udwarf_inlines(struct udwarf *u, struct arena *a, const char *glob,
				     bool *more);

/*
 * The global variable name (in a CU whose name cu matches, if cu) at a
 * fixed address: 0 with *addr and its type in the user BTF (*type, 0 if
 * none), or -ENOENT.
 */
int udwarf_global(struct udwarf *u, const char *name, const char *cu, uint64_t *addr,
		  __u32 *type);

/* Whether DWARF's file name file is what the pattern glob names: the
 * whole of it, or its last components ("ufuncs.c" names
 * "testsuite/progs/ufuncs.c"), as SystemTap matches "func@file". */
bool udwarf_file_matches(const char *glob, const char *file);

/*
 * Each row of every line table, in the tables' order: fn(arg, addr,
 * file, line, end), end for a sequence's end (an address past its code);
 * stops when fn returns nonzero, and returns that.
 */
int udwarf_each_line(struct udwarf *u, int (*fn)(void *arg, uint64_t addr, const char *file,
						 int line, bool end), void *arg);

/* Whether an instruction starts at addr by the line table (a row's address). */
bool udwarf_starts_row(struct udwarf *u, uint64_t addr);

/*
 * The lowest address in [lo, hi) of a line-table row for line of a file
 * glob matches: 0 and *addr, or -ENOENT (SystemTap puts a .statement
 * probe there, whether or not the row starts a statement).
 */
int udwarf_line_addr(struct udwarf *u, const char *glob, int line, uint64_t lo, uint64_t hi,
		     uint64_t *addr);

/* ---- the kernel's DWARF, read one CU at a time (translator/user/kdwarf.c) ---- */

/* Look functions up in the CU that holds their address only (a vmlinux
 * has 2,000 CUs: indexing all of them takes seconds), and at a
 * statement list only the variables that have a location there, as
 * SystemTap does for the kernel. */
void udwarf_set_cu_local(struct udwarf *u);

/* Each compilation unit: fn(arg, its DIE's offset, its name); stops when
 * fn returns nonzero, and returns that. */
int udwarf_each_cu(struct udwarf *u, int (*fn)(void *arg, uint64_t die, const char *name),
		   void *arg);

/* A function with code, as udwarf_cu_funcs() gives it. */
struct udwarf_cufunc {
	const char *name;
	uint64_t die;			/* its DIE's offset */
	uint64_t entry;			/* where its code starts */
	uint64_t lo, hi;		/* the lowest and past the highest address of its ranges */
	const char *decl_file;
	int decl_line;
};

/* The functions defined in the CU whose DIE is at cu_die whose names glob
 * matches: fn(arg, f), until fn returns nonzero (returned); -ENOENT. */
int udwarf_cu_funcs(struct udwarf *u, uint64_t cu_die, const char *glob,
		    int (*fn)(void *arg, const struct udwarf_cufunc *f), void *arg);

/*
 * Each line from line1 to line2 of a file glob matches that has code in
 * the function (or inlined instance) whose DIE is at func_die, in line
 * order: fn(arg, line, the line's lowest address in it), where SystemTap
 * puts a .statement probe; a line whose address an earlier line has, or
 * (in a function) inside an instance of another function of such a file
 * inlined there, is left out, as SystemTap leaves it out.  Stops when fn returns nonzero and returns that;
 * -ENOENT.
 */
int udwarf_func_lines(struct udwarf *u, uint64_t func_die, const char *glob, int line1,
		      int line2, int (*fn)(void *arg, int line, uint64_t addr), void *arg);

/* The instances of functions whose names glob matches inlined into the
 * functions defined in the CU at cu_die: fn(arg, inst, in), in the
 * concrete function it is in; stops when fn returns nonzero (returned). */
int udwarf_cu_inlines(struct udwarf *u, uint64_t cu_die, const char *glob,
		      int (*fn)(void *arg, const struct udwarf_cufunc *inst,
				const struct udwarf_cufunc *in), void *arg);

/* The variables of the inlined instance at inst_die (inside the function
 * at func_die, whose frame it shares) that have a location at pc, in
 * SystemTap's order there (the innermost block's first; outer_only: the
 * instance's own, at its entry): 0 and *out (no $return), or -ENOENT. */
int udwarf_inline_at(struct udwarf *u, struct arena *a, uint64_t func_die, uint64_t inst_die,
		     uint64_t pc, bool outer_only, struct udwarf_func *out);

/* The labels whose names glob matches in the function whose DIE is at
 * func_die (in its blocks too, not in what is inlined there), in DWARF's
 * order: fn(arg, name, address, line), until fn returns nonzero
 * (returned); -ENOENT. */
int udwarf_func_labels(struct udwarf *u, uint64_t func_die, const char *glob,
		       int (*fn)(void *arg, const char *name, uint64_t addr, int line), void *arg);

/* The variable name defined at a fixed address in the CU whose DIE is at
 * cu_die (a file's static or global): 0 with its link-time *addr and its
 * type's name as -L shows it (*type, arena memory), or -ENOENT. */
int udwarf_cu_global(struct udwarf *u, struct arena *a, uint64_t cu_die, const char *name,
		     uint64_t *addr, const char **type);

/* The compilation unit that holds address addr: 0, its DIE's offset and
 * its name, or -ENOENT. */
int udwarf_cu_at(struct udwarf *u, uint64_t addr, uint64_t *cu_die, const char **name);

/* The file that declares the function (or instance) whose DIE is at die,
 * relative to its CU's directory, as udwarf_func_callees gives it; NULL. */
const char *udwarf_decl_file(struct udwarf *u, uint64_t die);

/*
 * The callees of the function whose DIE is at func_die whose names glob
 * matches, as SystemTap 4.8's .callee finds them in the kernel's DWARF:
 * the instances inlined there that have one address range, and with
 * depth > 1 their own callees, recursively.  fn(arg, callee, caller):
 * callee's entry is its first address, its decl_file relative to the
 * CU's directory; caller is NULL at the first level (the function
 * itself), else the instance the callee is inlined in.  fn returns 0,
 * UDWARF_PRUNE to go on without that callee's own callees (a refused
 * instance), or anything else to stop: returned; -ENOENT.
 */
#define UDWARF_PRUNE 1
int udwarf_func_callees(struct udwarf *u, uint64_t func_die, const char *glob, int depth,
			int (*fn)(void *arg, const struct udwarf_cufunc *callee,
				  const struct udwarf_cufunc *caller), void *arg);

#endif /* UDWARF_H */
