// SPDX-License-Identifier: GPL-2.0
/*
 * ast_walk.c - visit every expression under a statement, children first;
 * and deep copies of statements (a handler of its own needs its own tree:
 * pass 2's results are kept by node).
 */
#include <string.h>

#include "arena.h"
#include "ast.h"

bool ast_pure(const struct expr *e)
{
	if (!e)
		return true;
	if (e->kind == E_CALL || e->kind == E_ASSIGN || e->kind == E_EMBEDDED ||
	    e->kind == E_AT_CALL || e->kind == E_PROBEWRITE || e->kind == E_HIST ||
	    ((e->kind == E_UNARY || e->kind == E_POSTFIX) &&
	     (e->opid == OP_INCR || e->opid == OP_DECR)))
		return false;
	for (const struct expr *a = e->args; a; a = a->next)
		if (!ast_pure(a))
			return false;
	for (const struct component *c = e->chain; c; c = c->next)
		if (!ast_pure(c->index))
			return false;
	return ast_pure(e->a) && ast_pure(e->b) && ast_pure(e->c);
}

static void walk_expr(struct expr *e, ast_expr_fn fn, void *ctx)
{
	for (; e; e = e->next) {
		/* Most operands are absent or leaves: test before calling. */
		if (e->a)
			walk_expr(e->a, fn, ctx);
		if (e->b)
			walk_expr(e->b, fn, ctx);
		if (e->c)
			walk_expr(e->c, fn, ctx);
		if (e->args)
			walk_expr(e->args, fn, ctx);
		for (struct component *c = e->chain; c; c = c->next)
			walk_expr(c->index, fn, ctx);
		fn(e, ctx);
	}
}

/*
 * Operands are single expressions (their next is unused); argument and key
 * lists are chains.  walk_expr follows next, so a lone operand is visited
 * once and a list in full.
 */
void ast_walk_stmt(struct stmt *s, ast_expr_fn fn, void *ctx)
{
	for (; s; s = s->next) {
		walk_expr(s->e, fn, ctx);
		walk_expr(s->init, fn, ctx);
		walk_expr(s->incr, fn, ctx);
		if (s->fe) {
			walk_expr(s->fe->value, fn, ctx);
			walk_expr(s->fe->keys, fn, ctx);
			walk_expr(s->fe->array, fn, ctx);
			walk_expr(s->fe->pattern, fn, ctx);
			walk_expr(s->fe->limit, fn, ctx);
		}
		ast_walk_stmt(s->body, fn, ctx);
		ast_walk_stmt(s->els, fn, ctx);
	}
}

void ast_walk_script(struct script *scr, ast_expr_fn fn, void *ctx)
{
	for (struct probe *p = scr->probes; p; p = p->next) {
		ast_walk_stmt(p->body, fn, ctx);
		ast_walk_stmt(p->epilogue, fn, ctx);
		for (struct probe_point *pp = p->points; pp; pp = pp->next)
			walk_expr(pp->condition, fn, ctx);
	}
	for (struct function *f = scr->functions; f; f = f->next)
		ast_walk_stmt(f->body, fn, ctx);
}

void ast_walk_expr(struct expr *e, ast_expr_fn fn, void *ctx)
{
	walk_expr(e, fn, ctx);
}

/* ---- deep copies ---- */

static struct expr *clone_expr(struct arena *a, const struct expr *e);

static struct component *clone_chain(struct arena *a, const struct component *c)
{
	struct component *first = NULL, **tail = &first;

	for (; c; c = c->next) {
		*tail = arena_new(a, struct component);
		**tail = *c;
		(*tail)->index = clone_expr(a, c->index);
		tail = &(*tail)->next;
	}
	return first;
}

/* e and the expressions after it (an argument list), with all they hold. */
static struct expr *clone_expr(struct arena *a, const struct expr *e)
{
	struct expr *first = NULL, **tail = &first;

	for (; e; e = e->next) {
		struct expr *c = arena_new(a, struct expr);

		*c = *e;
		c->a = clone_expr(a, e->a);
		c->b = clone_expr(a, e->b);
		c->c = clone_expr(a, e->c);
		c->args = clone_expr(a, e->args);
		c->chain = clone_chain(a, e->chain);
		c->next = NULL;
		*tail = c;
		tail = &c->next;
	}
	return first;
}

struct stmt *ast_clone_stmt(struct arena *a, const struct stmt *s)
{
	struct stmt *first = NULL, **tail = &first;

	for (; s; s = s->next) {
		struct stmt *c = arena_new(a, struct stmt);

		*c = *s;
		c->e = clone_expr(a, s->e);
		c->body = ast_clone_stmt(a, s->body);
		c->els = ast_clone_stmt(a, s->els);
		c->init = clone_expr(a, s->init);
		c->incr = clone_expr(a, s->incr);
		if (s->fe) {
			c->fe = arena_new(a, struct foreach_info);
			*c->fe = *s->fe;
			c->fe->value = clone_expr(a, s->fe->value);
			c->fe->keys = clone_expr(a, s->fe->keys);
			c->fe->array = clone_expr(a, s->fe->array);
			c->fe->pattern = clone_expr(a, s->fe->pattern);
			c->fe->limit = clone_expr(a, s->fe->limit);
		}
		c->next = NULL;
		*tail = c;
		tail = &c->next;
	}
	return first;
}
