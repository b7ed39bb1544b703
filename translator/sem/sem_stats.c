// SPDX-License-Identifier: GPL-2.0
/*
 * sem_stats.c - pass 2's checks of statistics, histograms and regular
 * expressions: what the module would refuse or could not lay out is an
 * error here, found with the runtime's own arithmetic and the same regex
 * compiler pass 3 uses.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "regex_compile.h"
#include "sem_internal.h"
#include "stat.h"		/* the runtime's histogram arithmetic */
#include "xalloc.h"

enum vtype sem_stat_operand(struct sem *sem, struct scope *sc, struct expr *e, const char *op)
{
	enum vtype t;

	if (e->kind == E_SYMBOL) {
		struct var *v = sem_lookup(sem, sc, e->name, &e->loc);

		v->rvalue = true;	/* aggregates read it */
		t = v->type;
		/* "global a[10]" is an array: never statistics */
		if (v->global && v->global->is_array)
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "%s of '%s', an array: "
				  "statistics are filled with '<<<'", op, e->name);
		/* As SystemTap: a local may take '<<<' (and be dropped), not be read. */
		if (v->kind != V_GLOBAL)
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "%s of '%s', a local: statistics "
				  "are read from global variables", op, e->name);
	} else {
		t = sem_expr(sem, sc, e);
	}

	/* A global only ever read as statistics is statistics (empty ones:
	 * SystemTap reports "empty aggregate" when they are printed). */
	if (t == T_UNKNOWN && e->kind == E_SYMBOL && sem_global_var(sem, e->name)) {
		sem_store(sem, sem_global_var(sem, e->name), T_STATS, &e->loc);
		t = T_STATS;
	}

	if (t != T_STATS && t != T_UNKNOWN)
		sem_error(sem, &e->loc, NULL, "%s needs a statistics value (filled with <<<), not a %s",
		      op, vtype_name(t));
	if (t == T_UNKNOWN)
		sem_error(sem, &e->loc, NULL, "%s of a value never filled with <<<", op);
	return t;
}

/* A statistics variable has one histogram layout (SystemTap's rule): its
 * buckets are allocated with it. */
void sem_hist_kind(struct sem *sem, const struct expr *e)
{
	const struct expr *operand = e->args;
	const char *name = operand->kind == E_SYMBOL ? operand->name :
		operand->kind == E_INDEX && operand->a->kind == E_SYMBOL ? operand->a->name : NULL;
	struct var *v = name ? sem_global_var(sem, name) : NULL;
	const struct expr *a, *b;

	if (!v)
		return;
	if (!v->hist) {
		v->hist = e;
		return;
	}
	bool same = !strcmp(v->hist->name, e->name);
	for (a = v->hist->args->next, b = e->args->next; same && a && b; a = a->next, b = b->next)
		same = a->kind == E_NUMBER && b->kind == E_NUMBER && a->num == b->num;
	if (!same)
		sem_error(sem, &e->loc, arena_printf(sem->a, "operator '%s'", e->name),
		      "multiple histogram types declared on '%s' (first at %s:%d:%d)", name,
		      v->hist->loc.src->name, v->hist->loc.line, v->hist->loc.col);
}

/*
 * @variance(s, SHIFT): the fixed-point shift of the statistic s itself,
 * as in SystemTap, where every read of s (@variance(s) too) and every
 * value added to it use the one shift its declaration got: a literal, the
 * same wherever given.
 */
void sem_variance_shift(struct sem *sem, const struct expr *e)
{
	const struct expr *operand = e->a;
	const char *name = operand->kind == E_SYMBOL ? operand->name :
		operand->kind == E_INDEX && operand->a->kind == E_SYMBOL ? operand->a->name : NULL;
	struct var *v = name ? sem_global_var(sem, name) : NULL;

	if (e->b->kind != E_NUMBER || e->b->num < 0 || e->b->num > 31) {
		sem_error(sem, &e->b->loc, NULL, "@variance's shift is a literal number from 0 to 31");
		return;
	}
	if (!v)
		return;
	if (!v->variance) {
		v->variance = e;
		return;
	}
	if (v->variance->b->num != e->b->num)
		sem_error(sem, &e->loc, arena_printf(sem->a, "operator '%s'", e->name),
			  "conflicting @variance shifts on '%s' (first at %s:%d:%d)", name,
			  v->variance->loc.src->name, v->variance->loc.line, v->variance->loc.col);
}

/* @hist_linear(s, start, stop, interval): the module sizes its table from
 * these, so what it would refuse is an error here, with the runtime's own
 * arithmetic (overflow-safe). */
void sem_hist_linear_bounds(struct sem *sem, const struct expr *e)
{
	const struct expr *start = e->args->next;
	const struct expr *stop = start ? start->next : NULL;
	const struct expr *step = stop ? stop->next : NULL;

	if (!step || start->kind != E_NUMBER || stop->kind != E_NUMBER || step->kind != E_NUMBER)
		return;
	if (step->num <= 0)
		sem_error(sem, &step->loc, NULL, "%s's interval must be positive", e->name);
	else if (stop->num <= start->num)
		sem_error(sem, &stop->loc, NULL, "%s's stop must be greater than its start", e->name);
	else if (ctap_hist_linear_buckets(start->num, stop->num, step->num) < 0)
		sem_error(sem, &e->loc, NULL, "%s has too many buckets: (stop - start) / interval "
		      "must be at most %d", e->name, CTAP_HIST_MAX_BUCKETS - 3);
}

int sem_regex_compile(const char *raw, bool captures, struct ctap_regex *re, const char **why)
{
	char *bytes = xmalloc(strlen(raw) + 1);
	int err;

	lex_unescape(raw, bytes);
	err = regex_compile_ex(bytes, captures, re, why);
	free(bytes);
	if (err == -ENOMEM)	/* regex_compile.c is also the fuzzers' library */
		out_of_memory();
	return err;
}

/* A =~ pattern compiles (pass 3 compiles it again, into the module). */
void sem_check_regex(struct sem *sem, const struct expr *pattern)
{
	struct ctap_regex re;
	const char *why;
	int err = sem_regex_compile(pattern->str, false, &re, &why);

	if (err)
		sem_error(sem, &pattern->loc, NULL, "regular expression \"%s\": %s", pattern->str, why);
	else
		regex_free(&re);
}
