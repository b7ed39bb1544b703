// SPDX-License-Identifier: GPL-2.0
/*
 * analyses.c - what pass 3 needs to know about the program as a whole,
 * computed from pass 2's results (nothing here writes C):
 *   the globals each handler touches, and how (its lock table);
 *   the globals event probes only add to (per-CPU counters, no lock);
 *   the deepest chain of calls (MAXNESTING);
 *   in pass 2, foreach loops that change the array they walk.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "diag.h"
#include "elaborate.h"
#include "map.h"
#include "monitor.h"
#include "session.h"
#include "tvar.h"
#include "xalloc.h"

/* ---- locks: which globals a handler touches, and how ---- */

/*
 * What one handler touches, through every function it can call.  Called
 * functions are queued, not walked recursively, each at most once: a
 * chain of 20,000 calls takes no C stack, a diamond no second walk.
 */
struct lockset {
	struct session *s;
	struct var *locals;		/* the handler's: not globals */
	bool *queued;			/* per function (sem_function.index) */
	const struct sem_function **todo;
	int ntodo;
	char *mode;			/* per global (var.index): 0, 'r', 'w' */
	bool changes_only;		/* 'w' for changes alone, not aggregation
					   or the order a sorted foreach leaves */
	bool *sorted;			/* per global: a sorted foreach walks it
					   (NULL: not asked) */
};

static bool is_local(const struct var *locals, const char *name)
{
	for (; locals; locals = locals->next)
		if (!strcmp(locals->name, name))
			return true;
	return false;
}

static void touch(struct lockset *ls, struct var *locals, const char *name, char mode)
{
	struct var *g;

	if (is_local(locals, name))
		return;
	g = sem_global(ls->s, name);
	/* A counter takes no lock (analyses_find_counters). */
	if (g && !g->counter && ls->mode[g->index] != 'w')
		ls->mode[g->index] = mode;
}

static const char *base_name(const struct expr *e)
{
	if (e->kind == E_SYMBOL)
		return e->name;
	if (e->kind == E_INDEX && e->a->kind == E_SYMBOL)
		return e->a->name;
	return NULL;
}

static void lock_stmt(struct lockset *ls, struct var *locals, const struct stmt *s);

struct lock_walk {
	struct lockset *ls;
	struct var *locals;
};

static void lock_expr(struct expr *e, void *ctx)
{
	struct lock_walk *w = ctx;
	const char *name;

	switch (e->kind) {
	case E_SYMBOL:
		touch(w->ls, w->locals, e->name, 'r');
		break;
	case E_INDEX:
		if ((name = base_name(e)))
			touch(w->ls, w->locals, name, 'r');
		break;
	case E_IN:
		if (e->a->kind == E_SYMBOL)
			touch(w->ls, w->locals, e->a->name, 'r');
		break;
	case E_ASSIGN:
	case E_UNARY:
	case E_POSTFIX:
		name = e->kind == E_ASSIGN || e->opid == OP_INCR || e->opid == OP_DECR ?
			base_name(e->a) : NULL;
		/* Adding to scalar statistics is per CPU: a read lock keeps
		 * only readers (who aggregate) out. */
		if (name)
			touch(w->ls, w->locals, name,
			      e->opid == OP_AGG && e->a->kind == E_SYMBOL ? 'r' : 'w');
		break;
	case E_STAT:
	case E_HIST: {
		const struct expr *operand = e->kind == E_STAT ? e->a : e->args;

		if ((name = base_name(operand)))
			touch(w->ls, w->locals, name, w->ls->changes_only ? 'r' : 'w');	/* aggregates into G */
		break;
	}
	case E_CALL: {
		const struct sem_function *f;

		/* --monitor's files read or reset every global (gen/monitor.c). */
		if (gen_is_monitor_call(e)) {
			for (struct var *g = sem_globals(w->ls->s); g; g = g->next)
				if (sem_user_global(w->ls->s, g))
					touch(w->ls, w->locals, g->name, 'w');
			break;
		}
		f = sem_function_of(w->ls->s, e);

		if (!f || w->ls->queued[f->index] || !f->fn->body)
			break;
		w->ls->queued[f->index] = true;
		w->ls->todo[w->ls->ntodo++] = f;
		break;
	}
	default:
		break;
	}
}

/* A sorted foreach over a global array: the array, else NULL. */
static struct var *sorted_walk(struct lockset *ls, struct var *locals, const struct stmt *s)
{
	const struct expr *a = s->kind == S_FOREACH ? s->fe->array : NULL;

	if (!a || a->kind != E_SYMBOL || !s->fe->sort_column || is_local(locals, a->name))
		return NULL;
	return sem_global(ls->s, a->name);
}

/* delete writes what it names (the expression walk saw a read), and a
 * sorted foreach the order of what it walks (the map's links, in place). */
static void lock_deletes(struct lockset *ls, struct var *locals, const struct stmt *s)
{
	for (; s; s = s->next) {
		const char *name;
		struct var *g;

		if (s->kind == S_DELETE && (name = base_name(s->e)))
			touch(ls, locals, name, 'w');
		if ((g = sorted_walk(ls, locals, s))) {
			if (!ls->changes_only)
				touch(ls, locals, g->name, 'w');
			if (ls->sorted)
				ls->sorted[g->index] = true;
		}
		lock_deletes(ls, locals, s->body);
		lock_deletes(ls, locals, s->els);
	}
}

static void lock_stmt(struct lockset *ls, struct var *locals, const struct stmt *s)
{
	struct lock_walk w = { ls, locals };

	ast_walk_stmt((struct stmt *)s, lock_expr, &w);
	lock_deletes(ls, locals, s);
}

static int count_globals(struct session *s)
{
	int n = 0;

	for (struct var *v = sem_globals(s); v; v = v->next)
		n++;
	return n;
}

/* Statements (whose locals are locals) and all they call: ls->mode. */
static void lockset_run(struct session *s, struct lockset *ls, struct var *locals,
		       const struct stmt *const *stmts, int nstmts)
{
	int nf = sem_nfunctions(s), nglobals = count_globals(s);

	ls->s = s;
	ls->locals = locals;
	ls->queued = xcalloc(nf + 1, sizeof(*ls->queued));
	ls->todo = xcalloc(nf + 1, sizeof(*ls->todo));
	memset(ls->mode, 0, nglobals + 1);
	for (int i = 0; i < nstmts; i++)
		lock_stmt(ls, locals, stmts[i]);
	while (ls->ntodo > 0) {
		const struct sem_function *f = ls->todo[--ls->ntodo];

		lock_stmt(ls, f->locals, f->fn->body);
	}
	free(ls->queued);
	free(ls->todo);
}

void analyses_lock_modes(struct session *s, const struct sem_handler *h, char *mode)
{
	struct stmt *stmts[SEM_MAX_BODIES];
	struct lockset ls = { .mode = mode };
	int n = sem_handler_bodies(h, stmts, NULL);

	lockset_run(s, &ls, h->locals, (const struct stmt *const *)stmts, n);
}

/* ---- counters: globals that event probes only add to ---- */

struct counter_walk {
	struct session *s;
	struct var *locals;		/* of the body walked */
	int *uses;			/* per global: its names in event code */
	int *adds;			/* ... of which targets of statement adds */
	bool *other;			/* per global: a foreach variable somewhere */
	bool *queued;			/* per function: called from event code */
	const struct sem_function **todo;
	int ntodo;
};

static struct var *global_named(struct counter_walk *w, const struct expr *e)
{
	if (!e || e->kind != E_SYMBOL || is_local(w->locals, e->name))
		return NULL;
	return sem_global(w->s, e->name);
}

/* n++, --n, n += x or n -= x, as a statement: the global n, or NULL. */
static struct var *statement_add(struct counter_walk *w, const struct expr *e)
{
	bool incdec = (e->kind == E_POSTFIX || e->kind == E_UNARY) &&
		(e->opid == OP_INCR || e->opid == OP_DECR);
	bool add = e->kind == E_ASSIGN && (e->opid == OP_ASSIGN_ADD || e->opid == OP_ASSIGN_SUB);

	return incdec || add ? global_named(w, e->a) : NULL;
}

/* The statement adds under s (what gen.c's effect() translates). */
static void count_adds(struct counter_walk *w, const struct stmt *s)
{
	for (; s; s = s->next) {
		const struct expr *tops[] = { s->kind == S_EXPR ? s->e : NULL, s->init, s->incr };
		struct var *g;

		for (int i = 0; i < 3; i++)
			if (tops[i] && (g = statement_add(w, tops[i])))
				w->adds[g->index]++;
		count_adds(w, s->body);
		count_adds(w, s->els);
	}
}

/* Every name of a global in event code, and the functions it calls. */
static void count_uses(struct expr *e, void *ctx)
{
	struct counter_walk *w = ctx;
	const struct sem_function *f;
	struct var *g;

	if ((g = global_named(w, e)))
		w->uses[g->index]++;
	if (e->kind == E_CALL && (f = sem_function_of(w->s, e)) && !w->queued[f->index] &&
	    f->fn->body) {
		w->queued[f->index] = true;
		w->todo[w->ntodo++] = f;
	}
}

static void event_code(struct counter_walk *w, struct var *locals, struct stmt *s)
{
	w->locals = locals;
	count_adds(w, s);
	ast_walk_stmt(s, count_uses, w);
}

/* A foreach assigns its variables: never counters, in any probe. */
static void foreach_vars(struct counter_walk *w, struct var *locals, const struct stmt *s)
{
	for (; s; s = s->next) {
		struct var *g;

		w->locals = locals;
		if (s->fe && (g = global_named(w, s->fe->value)))
			w->other[g->index] = true;
		for (const struct expr *k = s->fe ? s->fe->keys : NULL; k; k = k->next)
			if ((g = global_named(w, k)))
				w->other[g->index] = true;
		foreach_vars(w, locals, s->body);
		foreach_vars(w, locals, s->els);
	}
}

/* A handler some of whose probes are events (their family runs them). */
static bool is_event_handler(struct session *s, const struct sem_handler *h)
{
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		if (d->provider->runtime && sem_handler_of(s, d) == h)
			return true;
	return false;
}

static void walk_event_code(struct counter_walk *w)
{
	struct session *s = w->s;

	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		if (!is_event_handler(s, h))
			continue;
		for (int i = 0; i < n; i++)
			event_code(w, h->locals, bodies[i]);
	}
	/* Conditions are read by the event probes' families. */
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		if (d->provider->runtime && d->written && d->written->condition) {
			w->locals = NULL;
			ast_walk_expr(d->written->condition, count_uses, w);
		}
	while (w->ntodo > 0) {
		const struct sem_function *f = w->todo[--w->ntodo];

		event_code(w, f->locals, f->fn->body);
	}
}

void analyses_find_counters(struct session *s)
{
	int nf = sem_nfunctions(s), ng = count_globals(s);
	struct counter_walk w = {
		.s = s,
		.uses = xcalloc(ng + 1, sizeof(int)),
		.adds = xcalloc(ng + 1, sizeof(int)),
		.other = xcalloc(ng + 1, sizeof(bool)),
		.queued = xcalloc(nf + 1, sizeof(bool)),
		.todo = xcalloc(nf + 1, sizeof(*w.todo)),
	};

	walk_event_code(&w);
	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		for (int i = 0; i < n; i++)
			foreach_vars(&w, h->locals, bodies[i]);
	}
	for (const struct sem_function *f = sem_functions(s); f; f = f->next)
		foreach_vars(&w, f->locals, f->fn->body);
	for (struct var *v = sem_globals(s); v; v = v->next)
		v->counter = v->used && v->type == T_LONG && !v->nkeys &&
			w.adds[v->index] > 0 && w.uses[v->index] == w.adds[v->index] &&
			!w.other[v->index];
	free(w.uses);
	free(w.adds);
	free(w.other);
	free(w.queued);
	free(w.todo);
}

/*
 * ---- foreach: the array walked may not change under the walk ----
 *
 * A foreach walks the map in place (kmod-runtime/core/map.c,
 * ctap_map_walk_first()), but a sorted foreach over the same array
 * inside it would relink the entries under it: that outer loop keeps a
 * copy of its order instead (fe->snapshot), in the context of every CPU.
 */

struct foreach_check {
	struct session *s;
	struct var *locals;
	char *mode;
	bool *sorted;
	int errors;
};

static void check_foreach(struct foreach_check *c, const struct stmt *s)
{
	for (; s; s = s->next) {
		const struct expr *a = s->kind == S_FOREACH ? s->fe->array : NULL;
		struct var *g;

		if (a && a->kind == E_SYMBOL && !is_local(c->locals, a->name) &&
		    (g = sem_global(c->s, a->name))) {
			struct lockset ls = { .mode = c->mode, .changes_only = true,
					      .sorted = c->sorted };
			const struct stmt *body = s->body;

			memset(c->sorted, 0, (count_globals(c->s) + 1) * sizeof(bool));
			lockset_run(c->s, &ls, c->locals, &body, 1);
			if (c->mode[g->index] == 'w') {
				diag_error("semantic", &s->loc, NULL, "'%s' is changed inside the "
					   "foreach loop that walks it (directly or by a function "
					   "the loop calls)", a->name);
				c->errors++;
			}
			s->fe->snapshot = c->sorted[g->index];
		}
		check_foreach(c, s->body);
		check_foreach(c, s->els);
	}
}

int analyses_check_foreach(struct session *s)
{
	struct foreach_check c = { .s = s, .mode = xcalloc(count_globals(s) + 1, 1),
				   .sorted = xcalloc(count_globals(s) + 1, sizeof(bool)) };

	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		c.locals = h->locals;
		for (int i = 0; i < n; i++)
			check_foreach(&c, bodies[i]);
	}
	for (const struct sem_function *f = sem_functions(s); f; f = f->next) {
		c.locals = f->locals;
		if (f->used && f->fn->body)
			check_foreach(&c, f->fn->body);
	}
	free(c.mode);
	free(c.sorted);
	return c.errors;
}

/* ---- sizes: what the declarations make the module allocate ---- */

/* Bytes of foreach order copies one CPU's context may hold. */
#define SNAPSHOT_MAX_BYTES	(1 << 20)

static bool is_array(const struct var *v)
{
	return v->used && v->type != T_UNKNOWN && v->nkeys > 0;
}

/* The entries array v holds at most: its declared size or MAXMAPENTRIES. */
static long long array_entries(struct session *s, const struct var *v)
{
	return v->global && v->global->size ? v->global->size :
		session_define(s, "MAXMAPENTRIES", CTAP_MAXMAPENTRIES_DEFAULT);
}

/* The bytes of v's map as the runtime lays it out; entries in bounds. */
static unsigned long long array_bytes(struct session *s, const struct var *v)
{
	static const struct ctap_stat_spec any_stat;
	long long len = session_define(s, "MAXSTRINGLEN", CTAP_MAXSTRINGLEN_DEFAULT);
	struct ctap_map_spec spec = {
		.nkeys = v->nkeys,
		.value = v->type == T_STRING ? CTAP_STRING : v->type == T_STATS ? CTAP_STATS : CTAP_LONG,
		.max_entries = (uint32_t)array_entries(s, v),
		.string_len = len < 2 ? 2 : len > INT32_MAX ? INT32_MAX : (uint32_t)len,
		.stat = &any_stat,
	};

	for (int i = 0; i < v->nkeys; i++)
		spec.keys[i] = v->keys[i] == T_STRING ? CTAP_STRING : CTAP_LONG;
	return ctap_map_bytes(&spec);
}

static const struct loc *var_loc(const struct var *v)
{
	return v->global ? &v->global->loc : &v->decl;
}

/* Each array's entries and all arrays' bytes; the errors. */
static int check_arrays(struct session *s)
{
	long long dflt = session_define(s, "MAXMAPENTRIES", CTAP_MAXMAPENTRIES_DEFAULT);
	unsigned long long total = 0, most = 0;
	const struct var *largest = NULL;
	int errors = 0;

	if (dflt < 1 || dflt > CTAP_MAP_MAX_ENTRIES) {
		diag_error("semantic", NULL, NULL, "-D MAXMAPENTRIES=%lld: an array holds 1 to %d "
			   "entries", dflt, CTAP_MAP_MAX_ENTRIES);
		return 1;
	}
	for (const struct var *v = sem_globals(s); v; v = v->next) {
		unsigned long long bytes;

		if (!is_array(v))
			continue;
		if (array_entries(s, v) > CTAP_MAP_MAX_ENTRIES) {
			diag_error("semantic", var_loc(v), NULL, "array '%s' of %lld entries: at most "
				   "%d (each is allocated when the module loads)", v->name,
				   array_entries(s, v), CTAP_MAP_MAX_ENTRIES);
			errors++;
			continue;
		}
		bytes = array_bytes(s, v);
		total += bytes;
		if (bytes > most) {
			most = bytes;
			largest = v;
		}
	}
	if (!errors && total > CTAP_MAPS_MAX_BYTES) {
		diag_error("semantic", var_loc(largest), NULL, "the script's arrays need %llu MB of "
			   "kernel memory, more than %llu MB ('%s' alone %llu MB)", total >> 20,
			   CTAP_MAPS_MAX_BYTES >> 20, largest->name, most >> 20);
		errors++;
	}
	return errors;
}

/* The foreach order copies under s (not in the functions it calls: each
 * has its frame); *where the largest. */
static unsigned long long snapshot_bytes(struct session *s, const struct stmt *st,
					 const struct stmt **where, unsigned long long *most)
{
	unsigned long long sum = 0;

	for (; st; st = st->next) {
		if (st->kind == S_FOREACH && st->fe->snapshot) {
			const struct var *v = sem_global(s, st->fe->array->name);
			unsigned long long b = v ? 2 * sizeof(int) * array_entries(s, v) : 0;

			sum += b;
			if (b > *most) {
				*most = b;
				*where = st;
			}
		}
		sum += snapshot_bytes(s, st->body, where, most);
		sum += snapshot_bytes(s, st->els, where, most);
	}
	return sum;
}

/* The largest handler's copies and MAXNESTING + 1 frames of the largest
 * function's: what they add to struct context (translate.c). */
static int check_snapshots(struct session *s)
{
	unsigned long long handlers = 0, frames = 0, most = 0;
	const struct stmt *where = NULL;

	for (const struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);
		unsigned long long sum = 0;

		for (int i = 0; i < n; i++)
			sum += snapshot_bytes(s, bodies[i], &where, &most);
		handlers = sum > handlers ? sum : handlers;
	}
	for (const struct sem_function *f = sem_functions(s); f; f = f->next) {
		unsigned long long sum = f->used && f->fn->body ?
			snapshot_bytes(s, f->fn->body, &where, &most) : 0;

		frames = sum > frames ? sum : frames;
	}
	frames *= session_define(s, "MAXNESTING", analyses_max_nesting(s)) + 1;
	if (handlers + frames <= SNAPSHOT_MAX_BYTES)
		return 0;
	diag_error("semantic", &where->loc, NULL, "this foreach keeps a copy of its order (a "
		   "foreach inside sorts '%s' again): %llu KB of every CPU's context, more than %d KB "
		   "for all such copies", where->fe->array->name, most >> 10, SNAPSHOT_MAX_BYTES >> 10);
	return 1;
}

int analyses_check_sizes(struct session *s)
{
	int errors = check_arrays(s);

	return errors ? errors : check_snapshots(s);
}

/* ---- call depth: SystemTap's default MAXNESTING ---- */

/*
 * The deepest chain of calls from a handler, plus 10 if a function
 * recurses, as SystemTap computes it.  Each function's depth is computed
 * once (a diamond of calls is not walked twice: that was exponential), and
 * the walk stops at MAX_CALL_DEPTH levels of C recursion: deeper chains
 * only make MAXNESTING that large, the runtime checks it at every call.
 */
#define MAX_CALL_DEPTH	1000

enum { D_NEW, D_ACTIVE, D_DONE };

struct depth_walk {
	struct session *s;
	char *state;		/* per function: D_NEW, D_ACTIVE (on the path), D_DONE */
	int *depth;		/* per function, once D_DONE: itself and below */
	int level;		/* of C recursion */
	int max;		/* over what the current body calls */
	bool recursive;
};

static void depth_stmt(struct depth_walk *w, const struct stmt *s);

static int function_depth(struct depth_walk *w, const struct sem_function *f)
{
	int saved = w->max, d;

	if (w->state[f->index] == D_DONE)
		return w->depth[f->index];
	if (w->state[f->index] == D_ACTIVE) {
		w->recursive = true;
		return 0;
	}
	if (!f->fn->body || w->level >= MAX_CALL_DEPTH)
		return 1;
	w->state[f->index] = D_ACTIVE;
	w->level++;
	w->max = 0;
	depth_stmt(w, f->fn->body);
	d = 1 + w->max;
	w->level--;
	w->max = saved;
	w->state[f->index] = D_DONE;
	w->depth[f->index] = d;
	return d;
}

static void depth_expr(struct expr *e, void *ctx)
{
	struct depth_walk *w = ctx;
	const struct sem_function *f;
	const struct tvar *t;
	int d;

	/* $var$ stands for a sprintf() of calls pass 2 made (pretty.c) */
	if ((e->kind == E_TARGET || e->kind == E_CAST || e->kind == E_AUTOCAST ||
	     e->kind == E_ATVAR) && (t = sem_tvar(w->s, e)) && t->expansion) {
		ast_walk_expr((struct expr *)t->expansion, depth_expr, w);
		return;
	}
	if (e->kind != E_CALL || !(f = sem_function_of(w->s, e)))
		return;
	d = function_depth(w, f);
	if (d > w->max)
		w->max = d;
}

static void depth_stmt(struct depth_walk *w, const struct stmt *s)
{
	ast_walk_stmt((struct stmt *)s, depth_expr, w);
}

int analyses_max_nesting(struct session *s)
{
	int nf = sem_nfunctions(s), deepest = 0;
	struct depth_walk w = {
		.s = s,
		.state = arena_alloc(&s->arena, nf + 1),
		.depth = arena_alloc(&s->arena, (nf + 1) * sizeof(int)),
	};

	for (struct sem_handler *h = sem_handlers(s); h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		w.max = 0;
		for (int i = 0; i < n; i++)
			depth_stmt(&w, bodies[i]);
		if (w.max > deepest)
			deepest = w.max;
	}
	return (deepest ? deepest : 1) + (w.recursive ? 10 : 0);
}


/* ---- registers: what a handler reads of its probe's ---- */

/*
 * C names whose use reads the probe's registers (c->regs): anything with
 * "regs" in it (CONTEXT->regs, pt_regs, ctap_uregs()) and the runtime's
 * helpers that read them for the caller (kmod-runtime/target.h's
 * ctap_arg() and ctap_retval(), usyms.c's ctap_ustack()).  A runtime
 * helper that reads c->regs under another name must be added here.
 * Functions and macros that the %{ %} blocks of the scripts define join
 * them when their text names one (regs_helpers()).  A substring match:
 * a name that merely contains one counts too, which costs only speed.
 */
static const char *const regs_names[] = { "regs", "ctap_arg", "ctap_retval", "ctap_ustack" };

struct regs_walk {
	struct session *s;
	const char **names;		/* regs_names and the helpers found */
	int nnames, cap;
	enum analyses_regs level;
	bool *queued;			/* per function (sem_function.index) */
	const struct sem_function **todo;
	int ntodo;
};

static bool names_regs(const struct regs_walk *w, const char *text, size_t len)
{
	for (int i = 0; i < w->nnames; i++) {
		size_t n = strlen(w->names[i]);

		for (const char *p = text; p + n <= text + len; p++) {
			p = memchr(p, w->names[i][0], text + len - p);
			if (!p || p + n > text + len)
				break;
			if (!memcmp(p, w->names[i], n))
				return true;
		}
	}
	return false;
}

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Past a comment, string or character constant at p, or p. */
static const char *skip_lexeme(const char *p)
{
	const char *end;

	if (p[0] == '/' && p[1] == '*')
		return (end = strstr(p + 2, "*/")) ? end + 2 : p + strlen(p);
	if (p[0] == '/' && p[1] == '/')
		return p + strcspn(p, "\n");
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (*p && *p != q)
			p += p[0] == '\\' && p[1] ? 2 : 1;
		return *p ? p + 1 : p;
	}
	return p;
}

/* A helper's name (an arena copy), unless a name has it already. */
static bool add_helper(struct regs_walk *w, const char *name, size_t len)
{
	if (names_regs(w, name, len))
		return false;
	if (w->nnames == w->cap) {
		w->cap = 2 * w->cap + 16;
		w->names = xrealloc(w->names, w->cap * sizeof(*w->names));
	}
	w->names[w->nnames++] = arena_printf(&w->s->arena, "%.*s", (int)len, name);
	return true;
}

/*
 * The functions and macros a %{ %} block defines whose text names a
 * register name, added to w's names; true if any was new.  A function is
 * NAME(...) { body } at the top level of the block, a macro a #define
 * line (with its continuations).
 */
static bool embed_helpers(struct regs_walk *w, const char *code)
{
	const char *p = code, *name = NULL, *body;
	size_t name_len = 0;
	bool added = false;
	int parens = 0;
	char last = 0;

	while (*p) {
		const char *q = skip_lexeme(p);

		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '#' && !strncmp(p + 1 + strspn(p + 1, " \t"), "define", 6)) {
			const char *d = p + 1 + strspn(p + 1, " \t") + 6, *end;

			d += strspn(d, " \t");
			for (end = d; *end && (*end != '\n' || end[-1] == '\\'); end++)
				;
			name_len = 0;
			while (is_ident(d[name_len]))
				name_len++;
			if (name_len && names_regs(w, d + name_len, end - d - name_len))
				added |= add_helper(w, d, name_len);
			p = end;
			continue;
		}
		if (is_ident(*p)) {
			const char *id = p;

			while (is_ident(*p))
				p++;
			if (!parens && p[strspn(p, " \t\n")] == '(') {
				name = id;
				name_len = p - id;
			}
			last = p[-1];
			continue;
		}
		if (*p == '{' && last == ')' && !parens && name) {
			int depth = 0;

			body = p;
			do {
				q = skip_lexeme(p);
				if (q != p) {
					p = q;
					continue;
				}
				depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
				p++;
			} while (*p && depth > 0);
			if (names_regs(w, body, p - body))
				added |= add_helper(w, name, name_len);
			name = NULL;
			last = '}';
			continue;
		}
		parens += *p == '(' ? 1 : *p == ')' && parens > 0 ? -1 : 0;
		if (!strchr(" \t\n", *p))
			last = *p;
		p++;
	}
	return added;
}

/* regs_names, and the helpers of every loaded script's %{ %} blocks that
 * use one, until none is new (a helper calling a helper). */
static void regs_helpers(struct regs_walk *w)
{
	bool added;

	for (size_t i = 0; i < sizeof(regs_names) / sizeof(*regs_names); i++)
		add_helper(w, regs_names[i], strlen(regs_names[i]));
	do {
		added = false;
		for (const struct script *t = w->s->library; t; t = t->next)
			for (const struct embedded *e = t->embeds; e; e = e->next)
				added |= embed_helpers(w, e->code);
		for (const struct embedded *e = w->s->user->embeds; e; e = e->next)
			added |= embed_helpers(w, e->code);
	} while (added);
}

static void regs_at_least(struct regs_walk *w, enum analyses_regs level)
{
	if (w->level < level)
		w->level = level;
}

static void regs_expr(struct expr *e, void *ctx);

/* A $var, @cast or @var chain: an argument of the probed function read
 * from the registers (ARGS), its return value (ALL), or none. */
static void regs_target(struct regs_walk *w, struct expr *e)
{
	const struct tvar *t = sem_tvar(w->s, e);

	if (!t) {
		regs_at_least(w, REGS_ALL);
		return;
	}
	if (t->expansion) {		/* $$parms and the like: what it reads */
		ast_walk_expr((struct expr *)t->expansion, regs_expr, w);
		return;
	}
	if (t->base == TVAR_RETURN)
		regs_at_least(w, REGS_ALL);
	else if (t->base == TVAR_ARG && !t->is_string)
		regs_at_least(w, REGS_ARGS);
}

static void regs_expr(struct expr *e, void *ctx)
{
	struct regs_walk *w = ctx;
	const struct sem_function *f;

	switch (e->kind) {
	case E_TARGET:
	case E_CAST:
	case E_AUTOCAST:
	case E_ATVAR:
		regs_target(w, e);
		break;
	case E_ASSIGN:		/* a $var written (guru mode): a register, maybe */
		if (e->a->kind == E_TARGET || e->a->kind == E_CAST || e->a->kind == E_AUTOCAST)
			regs_at_least(w, REGS_ALL);
		break;
	case E_ENTRY:
	case E_AT_CALL:		/* @kregister, @perf...: not worth telling apart */
		regs_at_least(w, REGS_ALL);
		break;
	case E_EMBEDDED:
		if (names_regs(w, e->str, strlen(e->str)))
			regs_at_least(w, REGS_ALL);
		break;
	case E_CALL:
		f = sem_function_of(w->s, e);
		if (!f || w->queued[f->index])
			break;
		if (f->fn->embedded) {
			if (names_regs(w, f->fn->embedded, strlen(f->fn->embedded)))
				regs_at_least(w, REGS_ALL);
			break;
		}
		w->queued[f->index] = true;
		w->todo[w->ntodo++] = f;
		break;
	default:
		break;
	}
}

/* Statements and their %{ %} (which the expression walk does not see). */
static void regs_stmt(struct regs_walk *w, struct stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == S_EMBEDDED && names_regs(w, s->code, strlen(s->code)))
			regs_at_least(w, REGS_ALL);
		regs_stmt(w, s->body);
		regs_stmt(w, s->els);
	}
}

enum analyses_regs analyses_regs_used(struct session *s, const struct sem_handler *h)
{
	struct stmt *stmts[SEM_MAX_BODIES];
	int n = sem_handler_bodies(h, stmts, NULL), nf = sem_nfunctions(s);
	struct regs_walk w = { .s = s };

	regs_helpers(&w);
	w.queued = xcalloc(nf + 1, sizeof(*w.queued));
	w.todo = xcalloc(nf + 1, sizeof(*w.todo));
	for (int i = 0; i < n; i++) {
		ast_walk_stmt(stmts[i], regs_expr, &w);
		regs_stmt(&w, stmts[i]);
	}
	while (w.ntodo > 0 && w.level < REGS_ALL) {
		const struct sem_function *f = w.todo[--w.ntodo];

		ast_walk_stmt(f->fn->body, regs_expr, &w);
		regs_stmt(&w, f->fn->body);
	}
	free(w.names);
	free(w.queued);
	free(w.todo);
	return w.level;
}
