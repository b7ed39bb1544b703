/*
 * ast_walk.c - visit every expression under a statement, children first.
 */
#include "ast.h"

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
