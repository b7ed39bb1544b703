/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_internal.h - what gen.c (expressions) and gen_stmt.c (statements)
 * share inside pass 3; the rest of the translator uses xlate.h.
 */
#ifndef GEN_INTERNAL_H
#define GEN_INTERNAL_H

#include "xlate.h"

/* One line of C at x->depth (printf format); an empty line. */
void gen_emit(struct xlate *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gen_blank(struct xlate *x);
/* Where a failure jumps: "out", or the innermost catch. */
const char *gen_err_label(struct xlate *x);

/* A name in scope (local, then global), with its C expression in *c. */
struct var *gen_lookup(struct xlate *x, const char *name, const char **c);
/* The array an index or foreach names; a per-CPU counter global e names. */
struct var *gen_array_of(struct xlate *x, const struct expr *base);
struct var *gen_counter_of(struct xlate *x, const struct expr *e);
/* A MAXSTRINGLEN temporary named after what. */
const char *gen_str_temp(struct xlate *x, const char *what);

/* An expression discharged: its statements written, its value's C. */
const char *gen_expr_c(struct xlate *x, const struct expr *e);
/* An expression evaluated for its effects only. */
void gen_effect(struct xlate *x, const struct expr *e);
/* e's statements generated into *stmts instead of the body, for a
 * branch; its value's C (value), or NULL. */
const char *gen_aside(struct xlate *x, const struct expr *e, int depth, char **stmts,
		      bool value);
/* A key temporary filled from keys (wildcards leave their bit out of
 * *mask); returns the temporary. */
const char *gen_key_fill(struct xlate *x, const struct var *arr, const struct expr *keys,
			 unsigned *mask);
/* A statistic operand's aggregate (C), and its name (spec_NAME). */
const char *gen_stat_agg(struct xlate *x, const struct expr *operand);
const char *gen_stat_name(const struct expr *operand);

#endif /* GEN_INTERNAL_H */
