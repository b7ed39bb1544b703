// SPDX-License-Identifier: GPL-2.0
/*
 * sem_handlers.c - which handler runs which probe.
 *
 * A probe body (with its alias chain) is one handler serving every probe
 * its points matched: kernel.function("*") { n++ } is one function of the
 * module, not 40,000.  The exception is a body that must be resolved per
 * probe, as SystemTap resolves every probe's own copy: $$parms & co. and
 * @defined() answer from the probe's own $vars, so probes whose $vars
 * differ get handlers of their own, each with its own copy of the code
 * (pass 2 keeps its results by AST node).
 */
#include <string.h>

#include "sem_internal.h"

static void find_dollar_dollar(struct expr *e, void *ctx)
{
	if ((e->kind == E_TARGET && !strncmp(e->name, "$$", 2)) || e->kind == E_DEFINED)
		*(bool *)ctx = true;
}

/* Does d's code (its probe's or an alias's) use $$parms, $$vars... or
 * @defined(), which can answer differently from probe to probe? */
static bool uses_dollar_dollar(const struct derived_probe *d)
{
	bool found = false;

	ast_walk_stmt(d->probe->body, find_dollar_dollar, &found);
	for (int i = 0; i < d->naliases && !found; i++) {
		ast_walk_stmt(d->aliases[i]->body, find_dollar_dollar, &found);
		ast_walk_stmt(d->aliases[i]->epilogue, find_dollar_dollar, &found);
	}
	return found;
}

/* The same context variables, in the same places, of the same types. */
static bool same_vars(const struct derived_probe *a, const struct derived_probe *b)
{
	const struct probe_var *v = a->vars, *w = b->vars;

	for (; v && w; v = v->next, w = w->next)
		if (strcmp(v->name, w->name) || v->arg != w->arg || v->is_string != w->is_string ||
		    strcmp(v->type ? v->type : "", w->type ? w->type : "") || v->btf != w->btf)
			return false;
	return !v && !w;
}

/* A copy of p with its own statements, for a handler of its own. */
static const struct probe *clone_probe(struct sem *sem, const struct probe *p)
{
	struct probe *c = arena_new(sem->a, struct probe);

	*c = *p;
	c->body = ast_clone_stmt(sem->a, p->body);
	c->epilogue = ast_clone_stmt(sem->a, p->epilogue);
	return c;
}

/* d's probe and alias chain, as a key of sem->handler_index. */
static const char *chain_key(struct sem *sem, const struct derived_probe *d)
{
	char *key = arena_printf(sem->a, "%p", (const void *)d->probe);

	for (int i = 0; i < d->naliases; i++)
		key = arena_printf(sem->a, "%s %p", key, (const void *)d->aliases[i]);
	return key;
}

/*
 * The handler of d: one per probe body (and alias chain), serving every
 * probe its points matched -- except that a body using $$parms & co. or
 * @defined() resolves them per probe, as SystemTap gives every probe its
 * own body: probes whose context variables differ get handlers of their
 * own.
 */
struct sem_handler *sem_handler_for(struct sem *sem, const struct derived_probe *d)
{
	struct sem_handler *h, *last = NULL;
	bool cached = d->seq >= 0 && d->seq < sem->nhandler_of;
	int split = -1;		/* uses_dollar_dollar(d), once known */
	const char *key;

	/* Found once per probe: callers ask for every probe of a handler. */
	if (cached && sem->handler_of[d->seq])
		return sem->handler_of[d->seq];
	key = chain_key(sem, d);
	for (h = strmap_get(&sem->handler_index, key); h; last = h, h = h->same_chain) {
		if (split < 0)
			split = uses_dollar_dollar(d);
		if (!split || same_vars(h->site, d))
			break;
	}
	if (!h) {
		bool twin = last != NULL;	/* another handler has d's code: copy it */

		h = arena_new(sem->a, struct sem_handler);
		h->probe = twin ? clone_probe(sem, d->probe) : d->probe;
		h->naliases = d->naliases;
		for (int i = 0; i < d->naliases; i++)
			h->aliases[i] = twin ? clone_probe(sem, d->aliases[i]) : d->aliases[i];
		h->site = d;
		if (last)
			last->same_chain = h;
		else
			strmap_put(&sem->handler_index, key, h);
		*sem->handlers_tail = h;
		sem->handlers_tail = &h->next;
	}
	if (cached)
		sem->handler_of[d->seq] = h;
	return h;
}
