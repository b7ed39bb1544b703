/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sem_internal.h - what pass 2's files share: sem.c (symbols, statements,
 * the walks), sem_expr.c (expression types), sem_calls.c, sem_stats.c,
 * sem_target.c ($vars, @cast and autocast resolved through BTF), pretty.c.
 * Not for the rest of the translator: sem.h is.
 */
#ifndef SEM_INTERNAL_H
#define SEM_INTERNAL_H

#include "elaborate.h"
#include "sem.h"
#include "strset.h"
#include "tvar.h"

struct scope {
	const struct script *script;		/* whose private functions are visible */
	struct var **locals;
	struct sem_function *fn;		/* NULL in a probe */
	struct sem_handler *handler;		/* NULL in a function */
	const struct derived_probe *site;	/* ... its first probe */
	bool privileged;			/* tapset code: embedded C allowed */
	int loops;				/* nesting of loops: break/continue */
};

/* A tapset function, listed under its name (sem.c's library index). */
struct library_def {
	const struct script *script;
	const struct function *fn;
	struct library_def *next;	/* the name's next definition, in library order */
};

struct sem {
	struct session *s;
	struct arena *a;
	struct var *globals;
	struct strmap global_index;		/* name -> struct var */
	struct sem_function *functions, **functions_tail;
	struct strmap function_index;		/* name -> first overload loaded */
	struct strmap user_functions;		/* name -> the script's struct function */
	struct strmap library_functions;	/* name -> struct library_def list */
	int nfunctions;
	struct sem_handler *handlers, **handlers_tail;
	struct strmap handler_index;		/* probe and alias chain -> first handler */
	struct tvar_map *tvars;			/* $var resolutions, for pass 3 */
	bool changed;				/* a type became known this walk */
	int walks;				/* finished: after one, every read is known */
	bool report;				/* the last walk: report errors */
	bool dead;				/* in a branch @defined rules out */
	const struct expr *crement_statement;	/* the ++/-- that is a whole statement */
	int errors;
	const struct expr *lvalue_target;	/* the $var being assigned, not read */
	struct sem_handler **handler_of;		/* by derived_probe.seq */
	int nhandler_of;
	struct late_error *late_errors, **late_tail;	/* sem_translate_error() */
};

/* ---- sem.c ---- */

/* An error at loc (what: the token, for the caret), reported on the last walk only. */
void sem_error(struct sem *sem, const struct loc *loc, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* An error that SystemTap 4.8 finds in pass 3, translating (stap -p2
 * accepts the script): reported when pass 3 starts, which it fails
 * (sem_translate_errors()). */
void sem_translate_error(struct sem *sem, const struct loc *loc, const char *what,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "identifier 'name'", as a message names a token. */
const char *sem_ident(struct sem *sem, const char *name);
/* The first function called name that was loaded (its overloads follow). */
struct sem_function *sem_find_loaded(struct sem *sem, const char *name);
/* The handler that runs probe d (its user probe with its aliases). */
struct sem_handler *sem_handler_for(struct sem *sem, const struct derived_probe *d);
/* The global called name, or NULL. */
struct var *sem_global_var(struct sem *sem, const char *name);
/* A name in code: a local, a global, or a new local. */
struct var *sem_lookup(struct sem *sem, struct scope *sc, const char *name,
		       const struct loc *loc);
/* *slot (a variable's or a function's type, first given at *slot_loc)
 * becomes t, or t is a mismatch with it (name: whose). */
void sem_set_type(struct sem *sem, enum vtype *slot, struct loc *slot_loc, enum vtype t,
		  const struct loc *loc, const char *name);
/* name[keys] (at): a global array of that arity, its key types unified. */
enum vtype sem_array_access(struct sem *sem, struct scope *sc, const struct expr *at,
			    const char *name, struct expr *keys, bool wildcards_ok);
/* ---- sem_expr.c ---- */

/* e's type, checking it (and everything in it). */
enum vtype sem_expr(struct sem *sem, struct scope *sc, struct expr *e);
/* v is written a value of type t (at loc). */
void sem_store(struct sem *sem, struct var *v, enum vtype t, const struct loc *loc);
/* Global name's value is read (SystemTap prints the unread at the end). */
void sem_mark_read(struct sem *sem, const char *name);
/* target (a variable, an element, a $var) is assigned a t at loc. */
void sem_assign_type(struct sem *sem, struct scope *sc, struct expr *target, enum vtype t,
		     const struct loc *loc);

/* ---- sem_calls.c ---- */

/* print, printf, sprintf...: checked by sem_call() itself. */
bool sem_is_builtin(const char *name);
/* The function name as seen from script (its private ones visible),
 * loaded with its overloads the first time; NULL if there is none. */
struct sem_function *sem_resolve_function(struct sem *sem, const char *name,
					  const struct script *script);
/* A call's type, its arguments checked against the function's parameters. */
enum vtype sem_call(struct sem *sem, struct scope *sc, struct expr *e);

/* ---- sem_stats.c ---- */

/* The operand of @count(e) & co. (op names the operator). */
enum vtype sem_stat_operand(struct sem *sem, struct scope *sc, struct expr *e, const char *op);
/* One histogram layout per statistics variable. */
void sem_hist_kind(struct sem *sem, const struct expr *e);
void sem_variance_shift(struct sem *sem, const struct expr *e);
/* @hist_linear's constant bounds, as the runtime would size them. */
void sem_hist_linear_bounds(struct sem *sem, const struct expr *e);
/* A =~ pattern compiles. */
void sem_check_regex(struct sem *sem, const struct expr *pattern);

/* ---- sem_target.c ---- */

/* The [i] of a chain are expressions of the script: longs. */
void sem_chain_indexes(struct sem *sem, struct scope *sc, struct expr *e);
/* @var("NAME[@CU]") through the probe family's global_var (sem_target.c). */
enum vtype sem_atvar(struct sem *sem, struct scope *sc, struct expr *e);
/* @enum("NAME"): made the E_NUMBER of the kernel's enumerator NAME. */
enum vtype sem_enum(struct sem *sem, struct scope *sc, struct expr *e);
/* SystemTap's module search path "m1:m2:..." of @cast and @enumname: its
 * next name, NULL at the end; "kernel" and "kernel<header.h>" are the
 * kernel's own types. */
const char *sem_path_next(struct sem *sem, const char **path);
bool sem_path_is_kernel(const char *m);
/* @enumname(v[, "type"[, "module"]]): the enum type is recorded in
 * sem->tvars (tvar.btf, tvar.value_type) for pass 3. */
enum vtype sem_enumname(struct sem *sem, struct scope *sc, struct expr *e);
/* e's chain from a base of type type (of btf; NULL: the kernel's), recorded for pass 3. */
enum vtype sem_resolve_tvar(struct sem *sem, struct scope *sc, struct expr *e, struct tvar *t,
			    __u32 type, const struct btf *btf);
/* ---- pretty.c ---- */

/* e ($var$, $var$$, @cast(...)$...) of a base of type type as the
 * sprintf() that pretty-prints it, as SystemTap's; at_pointer: the base
 * is an @cast's pointer; unlocated: a struct in registers, each value "?". */
enum vtype sem_pretty(struct sem *sem, struct scope *sc, struct expr *e, const struct btf *btf,
		      __u32 type, bool at_pointer, bool unlocated);

/* e stands for sprintf(format, args...) (pretty printing, $$parms): the
 * call is typed now and recorded as e's expansion for pass 3; with
 * catch_errors a fault in it reads "ERROR", as SystemTap's $var$ prints. */
enum vtype sem_expand_sprintf(struct sem *sem, struct scope *sc, struct expr *e, const char *format,
			      struct expr *args, bool catch_errors);
/* $var, $$vars...: the probe's context variables. */
enum vtype sem_target_var(struct sem *sem, struct scope *sc, struct expr *e);
/* Autocast: e's value as a typed pointer, if known; record one in *slot. */
const struct typed_value *sem_typed(struct sem *sem, struct scope *sc, const struct expr *e);
void sem_set_typed(struct sem *sem, struct typed_value **slot, const struct typed_value *ty);
/* value->member, value[i] on a value of inferred type. */
enum vtype sem_autocast(struct sem *sem, struct scope *sc, struct expr *e);

#endif /* SEM_INTERNAL_H */
