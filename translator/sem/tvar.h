/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tvar.h - target variables ($var, $var->a[i].b, @cast(p, "type")->m),
 * resolved once, in pass 2.
 *
 * A resolution says where the value starts (an argument, the return
 * value, or the pointer an @cast is given) and the steps from there:
 * add an offset, load a number, index an array, extract a bitfield.  The
 * steps carry sizes and offsets only, no types, so that a kernel $var
 * typed by BTF (kbtf.c) and a user $var typed by DWARF come out the same
 * and pass 3 (target.c) emits both alike.  Every error about a $var is
 * pass 2's; pass 3 only writes C.
 */
#ifndef TVAR_H
#define TVAR_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "arena.h"
#include "ast.h"

enum tvar_base {
	TVAR_ARG,		/* argument tvar.arg of the probed function */
	TVAR_RETURN,		/* its return value ($return) */
	TVAR_POINTER,		/* the value of the @cast's operand */
	TVAR_VALUE,		/* a procfs probe's $value: a string, no steps */
	TVAR_TYPED,		/* the value of the operand, a pointer of BTF type
				   type (autocast: p->m where p = $task) */
};

enum tvar_op {
	TVAR_ADD,		/* address += n */
	TVAR_LOAD,		/* value = n bytes at address (a fault is a soft error) */
	TVAR_INDEX,		/* address += index * n */
	TVAR_BITFIELD,		/* value = bits [n, n + bits) of value */
};

struct tvar_step {
	enum tvar_op op;
	int64_t n;
	int bits;		/* TVAR_BITFIELD */
	bool is_signed;		/* TVAR_LOAD, TVAR_BITFIELD */
	const char *what;	/* TVAR_ADD: the members it adds up: "->f_path.dentry" */
	const struct expr *index;	/* TVAR_INDEX */
};

struct tvar {
	enum tvar_base base;
	int arg;		/* TVAR_ARG: from 0 */
	int slot;		/* TVAR_ARG: 1 + the handler's slot, whose
				   argument position each probe gives; 0: tvar.arg */
	/* A base value used as is (no steps) narrower than 8 bytes is
	 * extended from extend bytes, with its sign if is_signed. */
	int extend;
	bool is_signed;
	bool is_string;		/* TVAR_ARG: a C string of the module's */
	bool arg_is_address;	/* TVAR_ARG: the argument is the address of the
				   object (a DWARF local on the stack) */
	/* Written (guru mode) without steps: the pt_regs member that holds
	 * it, of c->regs (write_regs_arg < 0) or of the pt_regs at argument
	 * write_regs_arg (probe_var.reg). */
	const char *write_reg;
	int write_regs_arg;
	bool write_in_args;	/* ... or into the probe's argument tvar.arg */
	const struct tvar_step *steps;
	int nsteps;
	/* $$parms, $$vars, $$return: the sprintf() call it stands for
	 * (SystemTap's expansion), whose arguments are resolved $vars. */
	const struct expr *expansion;
	bool catch_errors;	/* $var$: a fault in the expansion reads "ERROR" */
	/* What the value is, for a '->' or '[...]' on it later (autocast): a
	 * pointer of type value_type, or (value_is_address) the address of an
	 * object of that type: an array, or what '&' took.  0: neither. */
	const struct btf *btf;
	__u32 value_type;
	bool value_is_address;
};

/* Why a chain does not resolve: pass 2 reports it. */
struct tvar_error {
	const struct loc *loc;
	const char *what;	/* the token it is about ("field 'x'"), or NULL */
	char msg[256];
};

/*
 * e's chain (members, [i], &) from a base of BTF type type: t->base and
 * t->arg are set by the caller, the rest here.  Returns 0, or -EINVAL
 * with *err saying why.
 */
int tvar_from_btf(struct arena *a, const struct btf *btf, const struct expr *e, __u32 type,
		  struct tvar *t, struct tvar_error *err);

/* The BTF type e's chain ends at, from a base of type type (at_pointer:
 * an @cast's object at a pointer), without reading it: what $var$
 * pretty-prints.  0, or -EINVAL with *err saying why. */
int tvar_end_type(struct arena *a, const struct btf *btf, const struct expr *e, __u32 type,
		  bool at_pointer, __u32 *end, struct tvar_error *err);

/* Does e read alike from a value of BTF type a and of type b (one handler
 * serving several functions)?  A number: the same size and sign; a chain:
 * the very same type (ids of the kernel's types are shared by modules). */
bool tvar_btf_same_read(const struct btf *abtf, __u32 a, const struct btf *bbtf, __u32 b,
			const struct expr *e);

/* Pass 2's resolutions, by expression (the AST stays 96 bytes a node). */
struct tvar_map;

struct tvar_map *tvar_map_new(void);
void tvar_map_free(struct tvar_map *m);
/* Record (or replace) e's resolution. */
void tvar_map_set(struct tvar_map *m, const struct expr *e, const struct tvar *t);
/* e's resolution, or NULL. */
const struct tvar *tvar_map_get(const struct tvar_map *m, const struct expr *e);

#endif /* TVAR_H */
