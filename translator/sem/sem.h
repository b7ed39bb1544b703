/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sem.h - pass 2, second half: symbols and types.
 *
 * After the probe points are resolved (elaborate.c), every variable and
 * function the script uses is found: locals, globals, the script's
 * functions and, on demand, tapset functions and the globals they use.
 * Then types are inferred to a fixpoint over long, string and statistics,
 * scalars and arrays (key types and value type), and SystemTap's semantic
 * errors are reported with both locations where two uses disagree.
 */
#ifndef SEM_H
#define SEM_H

#include <stdio.h>

#include "ctap_limits.h"	/* kmod-runtime's, shared */
#include "provider.h"
#include "session.h"

enum vtype { T_UNKNOWN, T_LONG, T_STRING, T_STATS, T_HIST };

struct var {
	struct var *next;
	const char *name;
	enum { V_GLOBAL, V_LOCAL, V_PARAM } kind;
	enum vtype type;		/* scalar, or an array's value type */
	struct loc type_loc;		/* where the type was first inferred */
	int nkeys;			/* > 0: an array */
	enum vtype keys[CTAP_MAX_KEYS];
	struct loc decl;
	const struct global *global;	/* declaration, for globals */
	const struct expr *hist;	/* the @hist_* that first rendered it */
	const struct expr *variance;	/* the @variance(s, SHIFT) that set its shift */
	bool used, written, read, used_as_scalar;
	bool read_before;		/* a local: read in the previous walk (dead_store()) */
	bool rvalue;			/* its value is read (not only by ++, +=) */
	int index;			/* a global's position in sem_globals() */
	bool counter;			/* a per-CPU sum (analyses_find_counters) */
	bool merged;			/* --remote-merge: combined across hosts (merge.c) */
	struct typed_value *typed;	/* assigned a typed pointer (autocast), or NULL */
};

/* A value whose BTF type pass 2 knows (autocast: x = $task; x->pid): a
 * pointer of type type, or (is_address) the address of an object of it.
 * origin: the @cast's module string; as in SystemTap, the same type from
 * two of them ("<sys/un.h>", "<sys/socket.h><sys/un.h>") is two types. */
struct typed_value {
	const struct btf *btf;
	__u32 type;
	bool is_address;
	const char *origin;
	bool conflict;		/* given two types: it has none */
};

struct sem_function {
	struct sem_function *next;
	const struct function *fn;
	const struct script *script;
	const char *cname;		/* in C: the name, or name__N for an
					   overload of another arity N */
	int nparams;
	int index;			/* 0, 1, ... in load order */
	struct sem_function *overload;	/* the next loaded one of the same name */
	struct var *locals;		/* params first */
	enum vtype ret;
	struct loc ret_loc;
	struct typed_value *ret_typed;	/* returns a typed pointer (autocast), or NULL */
	struct loc value_return;	/* a "return EXPR" of it (src NULL: none) */
	bool used;
	unsigned char purity;		/* sem_pure.c's, once asked */
};

/*
 * A handler: a user probe with the aliases it came through (their bodies
 * share its locals).  Every concrete probe of it runs the same code.
 */
struct sem_handler {
	struct sem_handler *next;
	const struct probe *probe;
	const struct probe *aliases[MAX_ALIAS_DEPTH];	/* outermost first */
	int naliases;
	const struct derived_probe *site;	/* first concrete probe: $vars */
	struct sem_handler *same_chain;		/* the next of the same probe and aliases */
	struct var *locals;
	bool entry_args;			/* a .return handler reading arguments */
	/* Its @entry(X) expressions, each evaluated when the function is
	 * entered and saved for the return (saved area member eN). */
	const struct expr **entries;
	int nentries;
	/* $vars its probes pass at different argument positions (a
	 * tracepoint's $dev is argument 1 of one, 2 of another): each is a
	 * slot, and every probe says where slot i is (ctap_probe.args_of). */
	const char **slots;
	int nslots;
	bool elided;				/* empty: its probes are dropped */
};

/* Resolve symbols and infer types.  Returns 0 if clean. */
int pass2_semantic(struct session *s);
/* The global called name, or NULL. */
struct var *sem_global(struct session *s, const char *name);
int sem_nfunctions(struct session *s);

/* Frees what pass 2 allocated outside the arena (after pass 3, which uses it). */
void sem_free(struct session *s);

/* --dump-functions: every public tapset function with its inferred types. */
int sem_dump_functions(struct session *s, FILE *out);

/* -p2 listing of globals and functions (probes come from elaborate.c). */
void sem_print(struct session *s, FILE *out);

const char *vtype_name(enum vtype t);

/* Drops the concrete probes drop(d, arg) is true of, then the handlers
 * no probe runs, and keeps used only the functions the others reach
 * (stap --remote-merge's fleet end); 0 or -ENOMEM. */
struct derived_probe;
int sem_prune(struct session *s, bool (*drop)(const struct derived_probe *d, void *arg),
	      void *arg);

/* The program, for code generation (after a clean pass2_semantic). */
struct var *sem_globals(struct session *s);
/* v is a global the user's script declares (not a tapset's). */
bool sem_user_global(const struct session *s, const struct var *v);
/* The variable called name in list (a scope's locals, the globals), or NULL. */
struct var *sem_find_var(struct var *list, const char *name);
struct sem_function *sem_functions(struct session *s);
/* Reports the errors pass 2 left to pass 3 (sem_translate_error()): how many. */
int sem_translate_errors(struct session *s);
struct sem_handler *sem_handlers(struct session *s);

/* The most bodies a handler has: each alias's prologue and epilogue, its own. */
#define SEM_MAX_BODIES	(2 * MAX_ALIAS_DEPTH + 1)

/*
 * h's code in the order it runs, as SystemTap composes aliases (each one's
 * body wraps what uses it): prologues innermost (nearest the probe point)
 * first, the probe's own body, epilogues outermost first.  Fills bodies
 * and, if not NULL, owners (the alias each came from, NULL for the probe's
 * own); returns how many.  Absent bodies are left out.
 */
int sem_handler_bodies(const struct sem_handler *h, struct stmt **bodies,
		       const struct probe **owners);
/* The function call (an E_CALL) runs, by name and arity, or NULL. */
struct expr;
const struct sem_function *sem_function_of(struct session *s, const struct expr *call);
struct derived_probe;
struct sem_handler *sem_handler_of(struct session *s, const struct derived_probe *d);
/* d's context variable called name ("$file"), or NULL. */
const struct probe_var *sem_probe_var(const struct derived_probe *d, const char *name);
/* Pass 2's resolution of a $var or @cast chain e (tvar.h), or NULL. */
struct tvar;
const struct tvar *sem_tvar(struct session *s, const struct expr *e);

/*
 * A condition pass 2 decides: @defined(X) or !@defined(X) is 1 or 0 (after
 * pass 2 resolved X), anything else -1.  Only the branch it takes is
 * checked for errors and translated, so that "if (@defined($x)) ... $x"
 * compiles where $x does not exist.
 */
int sem_static_condition(const struct expr *e);

/* The =~ pattern of a string literal's text (escapes as lexed) compiled:
 * regex_compile()'s result; regex_free() *re after a 0. */
struct ctap_regex;
int sem_regex_compile(const char *raw, bool captures, struct ctap_regex *re, const char **why);

/* e has no effect but its value, calls of pure functions allowed
 * (sem_pure.c): a dead store of it may go.  Pass 2's dead_store() and
 * pass 3's elide() both ask this. */
bool sem_pure(struct sem *sem, const struct expr *e);

#endif /* SEM_H */
