// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - stap --remote-merge, pass 2: does the script qualify for one
 * report of the whole fleet (docs/remote.md, "merged aggregates")?
 *
 * The globals an end probe reads (directly or through the functions it
 * calls) are the merged ones.  Outside end, such a global may only be
 * changed, never read: by <<< (a statistic), or by ++, --, += or -= as a
 * statement (a counter, scalar or array of numbers).  Then every host's
 * value is a part of the fleet's: statistics combine as the CPUs of one
 * machine do, counters add.  A merged string, or any other use outside
 * end (a read, '=', delete, foreach, 'in', a value used), is refused at
 * that expression.  A global nothing but its initializer or -G sets is
 * the same on every host, and may be read anywhere.
 */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#include "diag.h"
#include "elaborate.h"
#include "merge.h"
#include "provider.h"
#include "session.h"
#include "xlate.h"

struct merge_walk {
	struct session *s;
	struct var *locals;
	bool *queued;				/* per function */
	const struct sem_function **todo;
	int ntodo;
	const struct loc **end_read;		/* per global: where end reads it */
	const struct loc **written;		/* per global: a change outside end */
	bool *refused;				/* per global: an error said so */
	const struct expr **allowed;		/* symbols that are targets of adds */
	int nallowed, maxallowed;
	bool in_end;
	int errors;
};

static struct var *global_of(struct merge_walk *w, const struct expr *e)
{
	if (!e || e->kind != E_SYMBOL)
		return NULL;
	for (const struct var *l = w->locals; l; l = l->next)
		if (!strcmp(l->name, e->name))
			return NULL;
	return sem_global(w->s, e->name);
}

/* The symbol an add or <<< changes (n, or a in a[k]), or NULL. */
static const struct expr *add_target(const struct expr *e)
{
	bool incdec = (e->kind == E_POSTFIX || e->kind == E_UNARY) &&
		(e->opid == OP_INCR || e->opid == OP_DECR);
	bool add = e->kind == E_ASSIGN && (e->opid == OP_ASSIGN_ADD ||
					   e->opid == OP_ASSIGN_SUB || e->opid == OP_AGG);
	const struct expr *t = incdec || add ? e->a : NULL;

	if (t && t->kind == E_INDEX)
		t = t->a;
	return t && t->kind == E_SYMBOL ? t : NULL;
}

/* The adds that are statements of their own: their targets are allowed. */
static void mark_adds(struct merge_walk *w, const struct stmt *s)
{
	for (; s; s = s->next) {
		const struct expr *tops[] = { s->kind == S_EXPR ? s->e : NULL, s->init, s->incr };

		for (int i = 0; i < 3; i++) {
			const struct expr *t = tops[i] ? add_target(tops[i]) : NULL;

			if (t && w->nallowed < w->maxallowed)
				w->allowed[w->nallowed++] = t;
		}
		mark_adds(w, s->body);
		mark_adds(w, s->els);
	}
}

static bool allowed(const struct merge_walk *w, const struct expr *e)
{
	for (int i = 0; i < w->nallowed; i++)
		if (w->allowed[i] == e)
			return true;
	return false;
}

static void visit(struct expr *e, void *ctx)
{
	struct merge_walk *w = ctx;
	const struct sem_function *f;
	struct var *g = global_of(w, e);

	if (g && w->in_end && !w->end_read[g->index])
		w->end_read[g->index] = &e->loc;
	/* g->written: set by the program, not only by its initializer or -G */
	if (g && !w->in_end && !allowed(w, e) && w->end_read[g->index] && g->written) {
		diag_error("semantic", &e->loc, NULL, "'%s' is merged across hosts "
			   "(--remote-merge: an end probe reads it at %s:%d:%d); outside end "
			   "it may only be changed by <<<, or by ++, --, += or -= as a statement",
			   g->name, w->end_read[g->index]->src->name,
			   w->end_read[g->index]->line, w->end_read[g->index]->col);
		w->refused[g->index] = true;
		w->errors++;
	}
	if (g && !w->in_end && g->written && !w->written[g->index])
		w->written[g->index] = &e->loc;
	if (e->kind == E_CALL && (f = sem_function_of(w->s, e)) && !w->queued[f->index] &&
	    f->fn->body) {
		w->queued[f->index] = true;
		w->todo[w->ntodo++] = f;
	}
}

static bool is_end(const struct derived_probe *d)
{
	return !strncmp(d->name, "end", 3) && (!d->name[3] || d->name[3] == '(');
}

/* h runs for end probes only. */
static bool end_handler(struct session *s, const struct sem_handler *h)
{
	bool any = false;

	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		if (sem_handler_of(s, d) == h) {
			if (!is_end(d))
				return false;
			any = true;
		}
	return any;
}

/* Every handler of one side (end, or the rest), and what it calls. */
static void walk_side(struct merge_walk *w, bool end)
{
	struct session *s = w->s;
	int nf = sem_nfunctions(s);

	memset(w->queued, 0, (nf + 1) * sizeof(*w->queued));
	w->in_end = end;
	w->nallowed = 0;
	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		if (end_handler(s, h) != end)
			continue;
		w->locals = h->locals;
		for (int i = 0; i < n; i++) {
			mark_adds(w, bodies[i]);
			ast_walk_stmt(bodies[i], visit, w);
		}
	}
	if (!end)	/* conditions are read by the event probes' families */
		for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
			if (!is_end(d) && d->written && d->written->condition) {
				w->locals = NULL;
				ast_walk_expr(d->written->condition, visit, w);
			}
	while (w->ntodo > 0) {
		const struct sem_function *f = w->todo[--w->ntodo];

		w->locals = f->locals;
		mark_adds(w, f->fn->body);
		ast_walk_stmt(f->fn->body, visit, w);
	}
}

/* A merged string: its value on each host cannot be combined. */
static void check_types(struct merge_walk *w)
{
	for (struct var *v = sem_globals(w->s); v; v = v->next) {
		v->merged = w->end_read[v->index] && w->written[v->index];
		if (v->merged && v->type != T_LONG && v->type != T_STATS && !w->refused[v->index]) {
			diag_error("semantic", w->written[v->index], NULL, "'%s' is merged across "
				   "hosts (--remote-merge: an end probe reads it), and only numbers "
				   "and statistics can be", v->name);
			w->errors++;
		}
	}
}

static void count_expr(struct expr *e, void *ctx)
{
	(void)e;
	++*(int *)ctx;
}

int merge_check(struct session *s)
{
	int nf = sem_nfunctions(s), ng = 0, nexprs = 0;
	struct merge_walk w = { .s = s };

	for (struct var *v = sem_globals(s); v; v = v->next)
		ng++;
	/* every expression of the program bounds the adds it holds */
	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		for (int i = 0; i < n; i++)
			ast_walk_stmt(bodies[i], count_expr, &nexprs);
	}
	for (const struct sem_function *f = sem_functions(s); f; f = f->next)
		if (f->fn->body)
			ast_walk_stmt(f->fn->body, count_expr, &nexprs);
	w.maxallowed = nexprs + 1;
	w.queued = calloc(nf + 1, sizeof(*w.queued));
	w.todo = calloc(nf + 1, sizeof(*w.todo));
	w.end_read = calloc(ng + 1, sizeof(*w.end_read));
	w.written = calloc(ng + 1, sizeof(*w.written));
	w.allowed = calloc(w.maxallowed, sizeof(*w.allowed));
	w.refused = calloc(ng + 1, sizeof(*w.refused));
	if (w.queued && w.todo && w.end_read && w.written && w.allowed && w.refused) {
		walk_side(&w, true);
		walk_side(&w, false);
		check_types(&w);
	}
	free(w.queued);
	free(w.todo);
	free(w.end_read);
	free(w.written);
	free(w.allowed);
	free(w.refused);
	return w.errors;
}

void merge_print(struct session *s, FILE *out)
{
	fputs("# merged across hosts\n", out);
	for (const struct var *v = sem_globals(s); v; v = v->next)
		if (v->merged)
			fprintf(out, "%s:%s%s\n", v->name, v->type == T_STATS ? "stats" : "long",
				v->nkeys ? " []" : "");
}

/* ---- pass 3: what each host ships, and the fleet's end that loads it ---- */

static bool shipped(const struct var *v)
{
	return v->merged && v->used && v->type != T_UNKNOWN;
}

bool merge_emit_dump(struct xlate *x, FILE *out)
{
	if (!x->s->opt.remote_merge || x->s->opt.merge_end)
		return false;
	fputs("/* end, on each host (--remote-merge): the merged globals, for stap to\n"
	      " * merge across hosts; the script's end probes run once, on the merge */\n"
	      "static void probe_merge_dump(struct ctap_context *c)\n{\n"
	      "\tctap_merge_write_mark(c, false);\n", out);
	for (const struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!shipped(v))
			continue;
		if (v->nkeys)
			fprintf(out, "\tctap_merge_write_map(c, \"%s\", G.g_%s, &mspec_%s);\n",
				v->name, v->name, v->name);
		else if (v->type == T_STATS)
			fprintf(out, "\tctap_merge_write_pstat(c, \"%s\", &spec_%s, &G.g_%s);\n",
				v->name, v->name, v->name);
		else if (v->counter)
			fprintf(out, "\tctap_merge_write_long(c, \"%s\", ctap_counter_read(&G.g_%s));\n",
				v->name, v->name);
		else
			fprintf(out, "\tctap_merge_write_long(c, \"%s\", G.g_%s);\n", v->name, v->name);
	}
	fputs("\tctap_merge_write_mark(c, true);\n}\nNOKPROBE_SYMBOL(probe_merge_dump);\n\n", out);
	return true;
}

bool merge_emit_load(struct xlate *x, FILE *out)
{
	if (!x->s->opt.merge_end)
		return false;
	fputs("/* begin, of the fleet's end (--remote-merge): the merged globals read\n"
	      " * from $CTAP_MERGE_FILE, then the end probes */\n"
	      "static const struct ctap_merge_var merge_vars[] = {\n", out);
	for (const struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!shipped(v))
			continue;
		if (v->nkeys)
			fprintf(out, "\t{ .name = \"%s\", .map = &G.g_%s, .mspec = &mspec_%s },\n",
				v->name, v->name, v->name);
		else if (v->type == T_STATS)
			fprintf(out, "\t{ .name = \"%s\", .pstat = &G.g_%s },\n", v->name, v->name);
		else if (v->counter)	/* not after merge_prune(): kept for safety */
			fprintf(out, "\t{ .name = \"%s\", .counter = &G.g_%s },\n", v->name, v->name);
		else
			fprintf(out, "\t{ .name = \"%s\", .num = &G.g_%s },\n", v->name, v->name);
	}
	fputs("\t{ .name = NULL }\n};\n\n"
	      "static void probe_merge_load(struct ctap_context *c)\n{\n"
	      "\tif (ctap_merge_load(merge_vars, ARRAY_SIZE(merge_vars) - 1))\n"
	      "\t\tctap_error(c, \"cannot read the hosts' merged globals\", \"--remote-merge\");\n"
	      "\tctap_exit();\n}\n\n", out);
	return true;
}

static bool not_end(const struct derived_probe *d, void *arg)
{
	(void)arg;
	return !is_end(d);
}

/* A tapset the kept program still needs: a used function of its, or an
 * alias a kept handler came through.  The others' top-level %{ %} (their
 * kernel headers) would not compile in user space. */
static bool library_needed(struct session *s, const struct script *t)
{
	for (const struct sem_function *f = sem_functions(s); f; f = f->next)
		if (f->used && f->script == t)
			return true;
	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next)
		for (int i = 0; i < MAX_ALIAS_DEPTH && h->aliases[i]; i++)
			if (h->aliases[i]->loc.src == t->src)
				return true;
	return false;
}

void merge_prune(struct session *s)
{
	struct script **tp = &s->library;

	if (sem_prune(s, not_end, NULL))
		out_of_memory();
	while (*tp)
		if (library_needed(s, *tp))
			tp = &(*tp)->next;
		else
			*tp = (*tp)->next;
}
