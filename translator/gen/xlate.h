/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xlate.h - pass 3 internals shared by translate.c (the module), gen.c
 * (statements and expressions) and the providers' emit callbacks.
 */
#ifndef XLATE_H
#define XLATE_H

#include <stdio.h>

#include "elaborate.h"
#include "provider.h"
#include "sem.h"
#include "session.h"

/* Where generated code runs: a probe handler or a script function. */
struct xscope {
	struct var *locals;		/* its variables (and a function's params) */
	const struct sem_function *fn;	/* NULL in a handler */
	const struct sem_handler *handler;	/* NULL in a function */
	const char *saved_struct;	/* its @entry values: "probe_3_saved" */
	const char *struct_name;	/* its locals struct: probe_3_locals */
	FILE *temps;			/* temporaries found while generating */
	char *temps_text;
	size_t temps_len;
	int ntemps;
	char *body;			/* the statements, generated first */
	size_t body_len;
	bool uses_out;			/* something jumps to its "out" label */
	bool unbudgeted;		/* a handler that cannot run out of actions */
};

struct xlate {
	struct session *s;
	struct arena *a;
	struct xscope *sc;
	FILE *code;			/* the body being generated */
	int depth;			/* ... its indentation */
	const char *err;		/* where a soft error jumps: "out" or a catch */
	int err_jumps;			/* jumps to it written so far */
	const char *cont;		/* where continue jumps; NULL: C's continue */
	int labels;			/* unique label numbers */
	int errors;
	/* Constant data the bodies use (=~ programs), before the functions. */
	FILE *statics;
	char *statics_text;
	size_t statics_len;
	struct xregex *regexes;		/* the patterns compiled so far */
	bool submatch;			/* they record their groups (matched()) */
	int nregexes;
	/* Provider emit callbacks write here (file scope, after the probes). */
	FILE *families;
	char *families_text;
	size_t families_len;
	char *family_list;		/* "{ a_start, a_stop }, ..." */
	size_t family_list_len;
	FILE *family_list_f;
	/* Concrete probes, in program order, with what translate.c needs. */
	struct xprobe *probes;
	int nprobes;
	bool autoprint;			/* ctap_probes[nprobes] prints unread globals */
	/* Per handler number: analyses_regs_used() + 1 once asked, else 0. */
	unsigned char *regs_used;
	int merge_probe;		/* after it: probe_merge_dump (1) or _load (2), merge.c */
};

/* When a probe runs: kmod-runtime's enum ctap_probe_kind. */
enum xprobe_kind { XPROBE_EVENT, XPROBE_BEGIN, XPROBE_END, XPROBE_ERROR };

/* Pass 3's view of a concrete probe, x->probes[d->seq]. */
struct xprobe {
	const struct derived_probe *d;
	int handler;			/* index of its handler function */
	enum xprobe_kind kind;
	int64_t order;			/* begin(N), end(N), error(N): N */
	int entry;			/* its @entry part in ctap_entry_probes[], or -1 */
	bool any_task;			/* runs for no task in particular (--cgroup) */
};

/* ---- emit.c ---- */

/* v is a global of the user's script (not of a tapset). */
bool xlate_user_global(const struct xlate *x, const struct var *v);

/* ---- autoprint.c ---- */

/* The end probe printing the globals written and never read, as
 * SystemTap does ("probe_autoprint"); false if there are none. */
bool emit_autoprint(struct xlate *x, FILE *out);

/* ---- gen.c ---- */

/* Emit the statements of body at indentation depth into x->code. */
void gen_stmt(struct xlate *x, const struct stmt *s, int depth);
/* Whether handler h can never exceed MAXACTION (gen.c: no loop, no call
 * of a script function, fewer statements than the budget). */
bool gen_unbudgeted(struct xlate *x, const struct sem_handler *h);
/* An expression's C: int64_t for a long, const char * for a string; what
 * must run first is written into the body. */
const char *gen_expr(struct xlate *x, const struct expr *e);
/* A new temporary of the scope ("l->t3_what"); decl has %s for its name. */
const char *gen_temp(struct xlate *x, const char *decl, const char *what);
/* The string e, or on_error if evaluating it fails (a try/catch around
 * one expression: $var$'s "ERROR"). */
const char *gen_caught(struct xlate *x, const struct expr *e, const char *on_error);
/* One line of the body, at the current depth. */
void gen_line(struct xlate *x, const char *text);
/* if (unlikely(cond)) goto <the current error label>; */
void gen_fail_if(struct xlate *x, const char *cond);
/* Text from outside (a path, a name a program's symbols or DWARF give) to
 * put inside a C comment: its comment delimiters broken ("* /", "/ *"),
 * so that it can neither end the comment nor start a nested one. */
const char *gen_c_comment(struct arena *a, const char *raw);
/* A C string literal for SystemTap string text (escapes as written). */
const char *gen_c_string(struct xlate *x, const char *raw);
/* "operator '/' at x.stp:4:12", as a C string literal. */
const char *gen_where(struct xlate *x, const struct loc *loc, const char *what);
/* A pass-3 error at loc (a construct not translated yet). */
void gen_error(struct xlate *x, const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The global called name, or NULL. */
struct var *gen_find_global(struct xlate *x, const char *name);

/* ---- target.c ---- */

/* $var and its chain, @cast(...)->chain, $$parms...: a C expression. */
const char *gen_target(struct xlate *x, const struct expr *e);
/* e: an assignment to a $var or @cast (guru mode); its value. */
const char *gen_assign_target(struct xlate *x, const struct expr *e);

/* ---- services for the providers' emit callbacks (emit.c) ---- */

/* File-scope C after the probes. */
void emit_c(struct xlate *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* d is a .return probe whose handler reads arguments saved at entry. */
bool emit_entry_args(struct xlate *x, const struct derived_probe *d);
/* d's handler reads no register but the probed function's arguments
 * (analyses_regs_used()): an entry probe through ftrace may have only
 * those saved. */
bool emit_args_only(struct xlate *x, const struct derived_probe *d);
/* d's @entry part, "&ctap_entry_probes[N]" to run at entry, and the size of
 * what it saves after the arguments ("sizeof(struct probe_3_saved)"); NULL
 * if its handler has no @entry. */
const char *emit_entry_probe(struct xlate *x, const struct derived_probe *d, const char **size);
/* "&ctap_probes[N]", the struct ctap_probe of d. */
const char *emit_probe_ref(struct xlate *x, const struct derived_probe *d);
/* d's index in its family's table: in the d[] its provider's emit() gets. */
int emit_family_index(struct xlate *x, const struct derived_probe *d);
/* Probe d runs for no task in particular (an interval timer, a procfs
 * file's read): --cgroup does not filter it by the current task. */
void emit_any_task_probe(struct xlate *x, const struct derived_probe *d);
/* d runs when the session starts or stops (kind), before those of a higher order. */
void emit_session_probe(struct xlate *x, const struct derived_probe *d, enum xprobe_kind kind,
			int64_t order);
/* Arm the family with register_fn (int (void)) after the begin probes,
 * disarm it with unregister_fn (void (void)) before the end probes. */
void emit_family(struct xlate *x, const char *register_fn, const char *unregister_fn);
/* The same for a family that is a table: closes the table's initializer
 * ("};"), then arms with register_fn(table, ARRAY_SIZE(table)) (0 or
 * -errno) and disarms with unregister_fn(table, ARRAY_SIZE(table)): the
 * runtime's ctap_NAME_register() and ctap_NAME_unregister(). */
void emit_table_family(struct xlate *x, const char *table, const char *register_fn,
		       const char *unregister_fn);

#endif /* XLATE_H */
