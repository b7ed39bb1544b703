// SPDX-License-Identifier: GPL-2.0
/*
 * sem.c - symbols and types (pass 2): variables, statements, and the
 * walks that infer types; an expression's type is sem_expr.c's.
 *
 * Types are inferred by walking every handler and function again and
 * again: each walk can only make unknown types known, so the walks stop
 * when one changes nothing.  Walks are silent; one last walk reports what
 * is wrong, so every error is reported once.
 *
 * A handler is a user probe with the aliases it came through: their
 * bodies share one scope of locals, as in SystemTap.  Its $variables are
 * typed from the BTF of its first concrete probe.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cast_headers.h"
#include "elaborate.h"
#include "print.h"
#include "sem.h"
#include "sem_internal.h"
#include "strset.h"
#include "tvar.h"
#include "xalloc.h"

const char *vtype_name(enum vtype t)
{
	static const char *const names[] = { "unknown", "long", "string", "stats", "histogram" };

	return names[t];
}

void sem_error(struct sem *sem, const struct loc *loc, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (!sem->report)
		return;
	sem->errors++;
	va_start(ap, fmt);
	diag_verror("semantic", loc, what, fmt, ap);
	va_end(ap);
}

struct late_error {
	struct loc loc;
	const char *what, *msg;
	struct late_error *next;
};

void sem_translate_error(struct sem *sem, const struct loc *loc, const char *what,
			 const char *fmt, ...)
{
	struct late_error *l;
	va_list ap;
	char *msg;

	if (!sem->report)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	l = arena_new(sem->a, struct late_error);
	l->loc = *loc;
	l->what = what;
	l->msg = msg ? arena_printf(sem->a, "%s", msg) : fmt;
	free(msg);
	if (!sem->late_tail)
		sem->late_tail = &sem->late_errors;
	*sem->late_tail = l;
	sem->late_tail = &l->next;
}

int sem_translate_errors(struct session *s)
{
	int n = 0;

	for (const struct late_error *l = s->sem->late_errors; l; l = l->next, n++)
		diag_error("semantic", &l->loc, l->what, "%s", l->msg);
	return n;
}

const char *sem_ident(struct sem *sem, const char *name)
{
	return arena_printf(sem->a, "identifier '%s'", name);
}

/* ---- variables ---- */

struct var *sem_find_var(struct var *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

/* The global called name, or NULL: hashed, since scripts may have tens of
 * thousands and every walk looks each use up. */
struct var *sem_global_var(struct sem *sem, const char *name)
{
	return strmap_get(&sem->global_index, name);
}

static struct var *new_var(struct sem *sem, struct var **list, const char *name, int kind,
			   const struct loc *loc)
{
	struct var *v = arena_new(sem->a, struct var);

	v->name = name;
	v->kind = kind;
	v->decl = *loc;
	/* Locals go last: a function's parameters stay first, in order. */
	if (kind == V_LOCAL)
		while (*list)
			list = &(*list)->next;
	v->next = *list;
	*list = v;
	return v;
}

/*
 * Unify: a known type sticks, a conflicting one is an error that shows
 * where each came from.
 */
void sem_set_type(struct sem *sem, enum vtype *slot, struct loc *slot_loc, enum vtype t,
		  const struct loc *loc, const char *name)
{
	if (t == T_UNKNOWN)
		return;
	if (*slot == T_UNKNOWN) {
		*slot = t;
		if (slot_loc)
			*slot_loc = *loc;
		sem->changed = true;
		return;
	}
	if (*slot != t) {
		sem_error(sem, loc, sem_ident(sem, name), "type mismatch (%s vs. %s)",
		      vtype_name(t), vtype_name(*slot));
		if (slot_loc && slot_loc->src)
			sem_error(sem, slot_loc, NULL, "type of '%s' was first inferred here (%s)",
			      name, vtype_name(*slot));
	}
}

static void global_from_decl(struct sem *sem, const struct global *g)
{
	struct var *v = sem_global_var(sem, g->name);

	if (v) {
		if (v->global != g)
			sem_error(sem, &g->loc, sem_ident(sem, g->name), "duplicate global variable '%s'", g->name);
		return;
	}
	v = new_var(sem, &sem->globals, g->name, V_GLOBAL, &g->loc);
	strmap_put(&sem->global_index, v->name, v);
	v->global = g;
	if (g->init)
		sem_set_type(sem, &v->type, &v->type_loc, g->init->kind == E_STRING ? T_STRING : T_LONG,
			 &g->loc, g->name);
}

/* A global of a tapset, found when the script's code uses its name (a
 * private one's is its file's own: pass1.c renamed it). */
static struct var *tapset_global(struct sem *sem, const char *name)
{
	for (const struct script *t = sem->s->library; t; t = t->next)
		for (const struct global *g = t->globals; g; g = g->next)
			if (!strcmp(g->name, name)) {
				global_from_decl(sem, g);
				return sem_global_var(sem, name);
			}
	return NULL;
}

/* v is used, unless only in code @defined rules out: a global used only
 * there is elided, as SystemTap drops that code before it types them. */
static void mark_used(struct sem *sem, struct var *v)
{
	if (!sem->dead || v->kind != V_GLOBAL)
		v->used = true;
}

/*
 * Whether v is a global of the user's script seen from a tapset function:
 * there the name is the function's own local, whatever globals the
 * script declares (a script's "global mm" must not capture the mm of
 * cmdline_args(); SystemTap's tapsets dodge such clashes by naming).
 */
static bool user_global_in_tapset(struct sem *sem, const struct scope *sc, const struct var *v)
{
	return v->kind == V_GLOBAL && sc->fn && sc->script && sc->script != sem->s->user &&
	       sem_user_global(sem->s, v);
}

/* A name in code: a local, a global, or a new local. */
struct var *sem_lookup(struct sem *sem, struct scope *sc, const char *name,
		       const struct loc *loc)
{
	struct var *v = sem_find_var(*sc->locals, name);

	if (!v)
		v = sem_global_var(sem, name);
	if (v && user_global_in_tapset(sem, sc, v))
		v = NULL;
	if (!v)
		v = tapset_global(sem, name);
	if (!v)
		v = new_var(sem, sc->locals, name, V_LOCAL, loc);
	mark_used(sem, v);
	return v;
}

/* arr[k1, k2]: arr is a global array of that arity; the key types unify. */
enum vtype sem_array_access(struct sem *sem, struct scope *sc, const struct expr *at,
			    const char *name, struct expr *keys, bool wildcards_ok)
{
	struct var *v = sem_global_var(sem, name);
	int n = 0;

	if (!v)
		v = tapset_global(sem, name);
	if (!v) {
		for (struct expr *k = keys; k; k = k->next)
			if (k->kind != E_WILDCARD)
				sem_expr(sem, sc, k);
		if (sem_find_var(*sc->locals, name))
			sem_error(sem, &at->loc, sem_ident(sem, name), "'%s' is a local: arrays must be global", name);
		else
			sem_error(sem, &at->loc, sem_ident(sem, name), "unresolved array '%s' (missing global declaration?)", name);
		return T_UNKNOWN;
	}
	mark_used(sem, v);
	for (struct expr *k = keys; k; k = k->next)
		n++;
	if (v->nkeys == 0 && !v->used_as_scalar) {
		if (n > CTAP_MAX_KEYS) {
			sem_error(sem, &at->loc, sem_ident(sem, name), "arrays have at most %d keys", CTAP_MAX_KEYS);
			return v->type;
		}
		v->nkeys = n;
		sem->changed = true;
	}
	if (v->nkeys != n) {
		sem_error(sem, &at->loc, sem_ident(sem, name), "inconsistent arity for '%s' (%d keys vs. %d)",
		      name, n, v->nkeys ? v->nkeys : 0);
		return v->type;
	}
	int i = 0;
	for (struct expr *k = keys; k; k = k->next, i++) {
		enum vtype t;

		if (k->kind == E_WILDCARD) {
			if (!wildcards_ok)
				sem_error(sem, &k->loc, NULL, "'*' is only allowed in delete, in and foreach patterns");
			continue;
		}
		t = sem_expr(sem, sc, k);
		if (t == T_STATS || t == T_HIST)
			sem_error(sem, &k->loc, NULL, "array keys are longs or strings, not %s", vtype_name(t));
		else if (t == T_UNKNOWN && v->keys[i] != T_UNKNOWN && k->kind == E_SYMBOL)
			sem_assign_type(sem, sc, k, v->keys[i], &k->loc);	/* the key types it */
		else
			sem_set_type(sem, &v->keys[i], NULL, t, &k->loc, name);
	}
	return v->type;
}

/* ---- statements ---- */

/*
 * An expression statement that changes nothing is dropped before it is
 * typed, as SystemTap's optimizer drops it ("Eliding side-effect-free
 * expression"): a stray `x + 1` or `$var` costs nothing and cannot fail.
 * A call is an effect unless its function is embedded C marked pure.
 */
static bool no_effect(struct sem *sem, struct scope *sc, const struct expr *e)
{
	const struct sem_function *f;

	switch (e->kind) {
	case E_ASSIGN:
	case E_POSTFIX:
	case E_EMBEDDED:
	case E_PROBEWRITE:
	case E_AT_CALL:
	case E_HIST:
		return false;
	case E_UNARY:
		if (e->opid == OP_INCR || e->opid == OP_DECR)
			return false;
		break;
	case E_CALL:
		if (sem_is_builtin(e->name))
			return false;
		f = sem_resolve_function(sem, e->name, sc->script);
		if (!f || !f->fn->embedded || !strstr(f->fn->embedded, "/* pure */"))
			return false;
		break;
	default:
		break;
	}
	/* Operands are single expressions; arguments and keys a list. */
	if ((e->a && !no_effect(sem, sc, e->a)) || (e->b && !no_effect(sem, sc, e->b)) ||
	    (e->c && !no_effect(sem, sc, e->c)))
		return false;
	for (const struct expr *a = e->args; a; a = a->next)
		if (!no_effect(sem, sc, a))
			return false;
	for (const struct component *c = e->chain; c; c = c->next)
		if (c->index && !no_effect(sem, sc, c->index))
			return false;
	return true;
}

/* Drops *e if it has no effect (the warning for the script's own code);
 * -u keeps everything, as SystemTap's. */
static bool elide_expr(struct sem *sem, struct scope *sc, struct expr **e)
{
	if (!*e || sem->s->opt.unoptimized || !no_effect(sem, sc, *e))
		return false;
	if ((*e)->loc.src == sem->s->user->src)
		diag_warning(&(*e)->loc, "Eliding side-effect-free expression");
	*e = NULL;
	return true;
}

/*
 * "y = expr" as a statement, the local y never read and expr pure
 * (sem_pure(): calls of pure functions too): SystemTap drops it before
 * it types anything (transok/three.stp assigns such a y a string and a
 * long); gen.c's elide() drops the same.  (An impure expr stays, and so
 * is typed, with the assignment.)  Which locals are read is known after
 * the first walk.
 */
static bool dead_store(struct sem *sem, struct scope *sc, const struct expr *e)
{
	const struct var *v;

	if (sem->s->opt.unoptimized || !sem->walks || e->kind != E_ASSIGN || e->opid != OP_ASSIGN ||
	    e->a->kind != E_SYMBOL)
		return false;
	v = sem_find_var(*sc->locals, e->a->name);
	return v && v->kind == V_LOCAL && !v->read_before && sem_pure(sem, e->b);
}

static void stmt(struct sem *sem, struct scope *sc, struct stmt *s);

static void condition(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t = sem_expr(sem, sc, e);

	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->loc, NULL, "a condition is a long, not a %s", vtype_name(t));
}

/*
 * A probe point's "if (condition)" reads global variables and nothing else,
 * and changes nothing, as SystemTap's: it is evaluated again when a global
 * changes, outside any handler.
 */
static void condition_reads_globals(struct sem *sem, const struct expr *e)
{
	for (; e; e = e->next) {
		if (e->kind == E_SYMBOL && !sem_global_var(sem, e->name) && !tapset_global(sem, e->name))
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "a probe condition reads only "
				  "global variables, and '%s' is not one", e->name);
		else if (e->kind == E_ASSIGN || ((e->kind == E_UNARY || e->kind == E_POSTFIX) &&
			 (e->opid == OP_INCR || e->opid == OP_DECR)))
			sem_error(sem, &e->loc, NULL, "a probe condition cannot change a variable");
		else if (e->kind == E_CALL)
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "a probe condition cannot call "
				  "a function ('%s')", e->name);
		if (e->kind == E_INDEX && e->a->kind == E_SYMBOL) {
			condition_reads_globals(sem, e->a);
			condition_reads_globals(sem, e->args);
			continue;
		}
		condition_reads_globals(sem, e->a);
		condition_reads_globals(sem, e->b);
		condition_reads_globals(sem, e->c);
		if (e->kind != E_CALL)
			condition_reads_globals(sem, e->args);
	}
}

/*
 * 1 or 0 if condition e is known in pass 2 (@defined, and !, && and ||
 * over such), -1 if not.  && and || keep their short circuit: a left
 * side known false (&&) or true (||) decides whatever the right one is,
 * which is then never evaluated, side effects or not.
 */
int sem_static_condition(const struct expr *e)
{
	bool and, or;
	int l;

	if (e->kind == E_DEFINED)
		return e->a->vtype != T_UNKNOWN;
	if (e->kind == E_UNARY && e->opid == OP_NOT) {
		l = sem_static_condition(e->a);
		return l < 0 ? -1 : !l;
	}
	and = e->kind == E_BINARY && e->opid == OP_AND;
	or = e->kind == E_BINARY && e->opid == OP_OR;
	if (!and && !or)
		return -1;
	l = sem_static_condition(e->a);
	if (l < 0)
		return -1;
	if (l == or)
		return l;
	return sem_static_condition(e->b);
}

/* A branch not taken (sem_static_condition): checked without errors. */
static void dead_stmt(struct sem *sem, struct scope *sc, struct stmt *s)
{
	bool report = sem->report, dead = sem->dead;

	sem->report = false;
	sem->dead = true;
	stmt(sem, sc, s);
	sem->report = report;
	sem->dead = dead;
}

static void foreach(struct sem *sem, struct scope *sc, struct stmt *s)
{
	struct foreach_info *fe = s->fe;
	int nkeys = 0, i = 0;
	struct var *arr = NULL;

	for (struct expr *k = fe->keys; k; k = k->next)
		nkeys++;
	if (fe->array->kind == E_HIST) {
		sem_expr(sem, sc, fe->array);
		if (nkeys != 1)
			sem_error(sem, &s->loc, NULL, "foreach over a histogram has one key, the bucket");
		for (struct expr *k = fe->keys; k; k = k->next)
			sem_assign_type(sem, sc, k, T_LONG, &k->loc);
		if (fe->value)
			sem_assign_type(sem, sc, fe->value, T_LONG, &fe->value->loc);
	} else {
		sem_mark_read(sem, fe->array->name);
		arr = sem_global_var(sem, fe->array->name);
		if (!arr)
			arr = tapset_global(sem, fe->array->name);
		if (!arr) {
			sem_error(sem, &fe->array->loc, sem_ident(sem, fe->array->name),
			      "unresolved array '%s' (missing global declaration?)", fe->array->name);
		} else {
			mark_used(sem, arr);
			if (!arr->nkeys) {
				arr->nkeys = nkeys;
				sem->changed = true;
			}
			if (arr->nkeys != nkeys)
				sem_error(sem, &s->loc, sem_ident(sem, arr->name), "inconsistent arity for '%s' (%d keys vs. %d)",
				      arr->name, nkeys, arr->nkeys);
			for (struct expr *k = fe->keys; k && i < CTAP_MAX_KEYS; k = k->next, i++) {
				struct var *kv = sem_lookup(sem, sc, k->name, &k->loc);

				kv->written = true;
				sem_set_type(sem, &kv->type, &kv->type_loc, arr->keys[i], &k->loc, k->name);
				sem_set_type(sem, &arr->keys[i], NULL, kv->type, &k->loc, arr->name);
			}
			if (fe->value)
				sem_assign_type(sem, sc, fe->value, arr->type == T_STATS ? T_LONG : arr->type,
						&fe->value->loc);
			if (fe->pattern)
				sem_array_access(sem, sc, fe->array, arr->name, fe->pattern, true);
			if (fe->sort_agg && arr->type != T_STATS && arr->type != T_UNKNOWN)
				sem_error(sem, &s->loc, NULL, "sorting by %s needs a statistics array", fe->sort_agg);
			/* A statistics array sorted with no aggregate named
			 * sorts by @count (gen.c's sort_agg()), as SystemTap. */
		}
	}
	if (fe->sort_column > nkeys)
		sem_error(sem, &s->loc, NULL, "sort column beyond the keys");
	if (fe->limit)
		condition(sem, sc, fe->limit);
	sc->loops++;
	stmt(sem, sc, s->body);
	sc->loops--;
}

static void stmt(struct sem *sem, struct scope *sc, struct stmt *s)
{
	enum vtype t;

	switch (s->kind) {
	case S_NULL:
		break;
	case S_EXPR:
		if (elide_expr(sem, sc, &s->e)) {
			s->kind = S_NULL;
			break;
		}
		if (dead_store(sem, sc, s->e))
			break;
		sem->crement_statement = s->e;
		sem_expr(sem, sc, s->e);
		sem->crement_statement = NULL;
		break;
	case S_BLOCK:
		for (struct stmt *c = s->body; c; c = c->next)
			stmt(sem, sc, c);
		break;
	case S_IF:
		condition(sem, sc, s->e);
		if (sem_static_condition(s->e) == 0)
			dead_stmt(sem, sc, s->body);
		else
			stmt(sem, sc, s->body);
		if (s->els && sem_static_condition(s->e) == 1)
			dead_stmt(sem, sc, s->els);
		else if (s->els)
			stmt(sem, sc, s->els);
		break;
	case S_WHILE:
	case S_FOR:
		elide_expr(sem, sc, &s->init);
		elide_expr(sem, sc, &s->incr);
		if (s->init)
			sem_expr(sem, sc, s->init);
		if (s->e)
			condition(sem, sc, s->e);
		if (s->incr)
			sem_expr(sem, sc, s->incr);
		sc->loops++;
		stmt(sem, sc, s->body);
		sc->loops--;
		break;
	case S_FOREACH:
		foreach(sem, sc, s);
		break;
	case S_BREAK:
	case S_CONTINUE:
		if (!sc->loops)
			sem_translate_error(sem, &s->loc, NULL, "%s outside a loop",
					    s->kind == S_BREAK ? "break" : "continue");
		break;
	case S_NEXT:
		if (sc->fn && !sc->fn->overload)	/* 'next' goes to the next overload */
			sem_error(sem, &s->loc, NULL, "'next' in a function is only allowed when an overload follows");
		break;
	case S_RETURN:
		if (!sc->fn) {
			sem_error(sem, &s->loc, NULL, "return outside a function (use next to leave a probe)");
			break;
		}
		if (!s->e)
			break;
		t = sem_expr(sem, sc, s->e);
		sc->fn->value_return = s->loc;
		if (t == T_STATS || t == T_HIST)
			sem_error(sem, &s->e->loc, NULL, "a function cannot return a %s", vtype_name(t));
		else
			sem_set_type(sem, &sc->fn->ret, &sc->fn->ret_loc, t, &s->e->loc, sc->fn->fn->name);
		sem_set_typed(sem, &sc->fn->ret_typed, sem_typed(sem, sc, s->e));
		break;
	case S_DELETE:
		if (s->e->kind == E_SYMBOL) {
			struct var *v = sem_global_var(sem, s->e->name);

			if (!v)
				v = sem_lookup(sem, sc, s->e->name, &s->e->loc);
			v->used = v->written = true;
		} else if (s->e->kind == E_INDEX && s->e->a->kind == E_SYMBOL) {
			sem_array_access(sem, sc, s->e, s->e->a->name, s->e->args, true);
		} else {
			sem_error(sem, &s->loc, NULL, "delete takes a variable, an array or an array element");
		}
		break;
	case S_TRY:
		stmt(sem, sc, s->body);
		if (s->catch_var) {
			struct var *v = sem_lookup(sem, sc, s->catch_var, &s->loc);

			v->written = true;
			sem_set_type(sem, &v->type, &v->type_loc, T_STRING, &s->loc, s->catch_var);
		}
		stmt(sem, sc, s->els);
		break;
	case S_EMBEDDED:	/* the parser allowed it: a tapset, or -g */
		break;
	}
}

/* ---- driver ---- */

static void add_body(struct stmt *body, const struct probe *owner, struct stmt **bodies,
		     const struct probe **owners, int *n)
{
	if (!body)
		return;
	if (owners)
		owners[*n] = owner;
	bodies[(*n)++] = body;
}

int sem_handler_bodies(const struct sem_handler *h, struct stmt **bodies,
		       const struct probe **owners)
{
	int n = 0;

	for (int i = h->naliases - 1; i >= 0; i--)
		add_body(h->aliases[i]->body, h->aliases[i], bodies, owners, &n);
	add_body(h->probe->body, NULL, bodies, owners, &n);
	for (int i = 0; i < h->naliases; i++)
		add_body(h->aliases[i]->epilogue, h->aliases[i], bodies, owners, &n);
	return n;
}

/*
 * Which locals are read is found again on every walk (and the previous
 * walk's kept), so that a store dropped in one walk makes the locals only
 * it read dead in the next: "dfd_str = _dfd_str(dfd)" unread drops, then
 * "dfd = ..." does.  A change means another walk.
 */
static void reads_turn(struct sem *sem, struct var *v, bool begin)
{
	for (; v; v = v->next) {
		if (v->kind != V_LOCAL)
			continue;
		if (begin) {
			v->read_before = v->read;
			v->read = false;
		} else if (v->read != v->read_before) {
			sem->changed = true;
		}
	}
}

static void reads_walk(struct sem *sem, bool begin)
{
	for (struct sem_handler *h = sem->handlers; h; h = h->next)
		reads_turn(sem, h->locals, begin);
	for (struct sem_function *f = sem->functions; f; f = f->next)
		reads_turn(sem, f->locals, begin);
}

static void walk(struct sem *sem)
{
	if (sem->walks)
		reads_walk(sem, true);
	for (struct sem_handler *h = sem->handlers; h; h = h->next) {
		struct scope sc = { .script = sem->s->user, .locals = &h->locals, .handler = h,
				    .site = h->site };
		struct stmt *bodies[SEM_MAX_BODIES];
		const struct probe *owners[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, owners);

		/* In the order they run: a local takes its type where it is
		 * first assigned. */
		for (int i = 0; i < n; i++) {
			sc.privileged = owners[i] && owners[i]->privileged;
			stmt(sem, &sc, bodies[i]);
		}
		sc.privileged = false;
		for (const struct probe_point *pp = h->probe->points; pp; pp = pp->next)
			if (pp->condition) {
				condition_reads_globals(sem, pp->condition);
				condition(sem, &sc, pp->condition);
			}
	}
	for (struct sem_function *f = sem->functions; f; f = f->next) {
		struct scope sc = { .script = f->script, .locals = &f->locals, .fn = f,
				    .privileged = f->script->is_tapset };

		if (f->fn->embedded)
			continue;	/* the parser allowed it: a tapset, or -g */
		stmt(sem, &sc, f->fn->body);
	}
	if (sem->walks)
		reads_walk(sem, false);
	sem->walks++;
}

/*
 * A handler that does nothing once the optimizer is done: every statement
 * dropped (side-effect-free, a store to a local never read), or a branch
 * whose condition is pure and whose arms are empty.
 */
static bool stmt_empty(struct sem *sem, struct scope *sc, const struct stmt *s)
{
	switch (s->kind) {
	case S_NULL:
		return true;
	case S_BLOCK:
		for (const struct stmt *c = s->body; c; c = c->next)
			if (!stmt_empty(sem, sc, c))
				return false;
		return true;
	case S_EXPR:
		return !s->e || dead_store(sem, sc, s->e);
	case S_IF:
		switch (s->e->kind == E_NUMBER ? s->e->num != 0 : sem_static_condition(s->e)) {
		case 0:
			return !s->els || stmt_empty(sem, sc, s->els);
		case 1:
			return stmt_empty(sem, sc, s->body);
		default:
			return no_effect(sem, sc, s->e) && stmt_empty(sem, sc, s->body) &&
			       (!s->els || stmt_empty(sem, sc, s->els));
		}
	default:
		return false;
	}
}

static bool handler_empty(struct sem *sem, struct sem_handler *h)
{
	struct scope sc = { .script = sem->s->user, .locals = &h->locals, .handler = h,
			    .site = h->site };
	struct stmt *bodies[SEM_MAX_BODIES];
	const struct probe *owners[SEM_MAX_BODIES];
	int n = sem_handler_bodies(h, bodies, owners);

	for (int i = 0; i < n; i++)
		if (!stmt_empty(sem, &sc, bodies[i]))
			return false;
	return true;
}

/*
 * SystemTap's optimizer drops a probe whose handler does nothing ("Probe
 * 'begin' has been elided"), and a script left with none fails with "no
 * probes found" (semko/probe_elision.stp); -u keeps them.  Its concrete
 * probes leave the list pass 3 arms.
 */
static bool ran_by_elided(const struct derived_probe *d, void *arg)
{
	struct sem *sem = arg;

	return sem_handler_for(sem, d)->elided;
}

/*
 * The probes left after dropping elided ones, numbered again from 0 in
 * order (their handlers' cache with them).  Pass 3 names each probe by
 * its number (ctap_probes[seq]) in an array of the probes left: a hole
 * made "&ctap_probes[1]" of a one-probe module's only probe.
 */
static void renumber_probes(struct sem *sem)
{
	int i = 0;

	for (struct derived_probe *d = elab_probes(sem->s); d; d = d->next, i++) {
		/* i <= d->seq: the list is in the order the numbers were given */
		if (d->seq < sem->nhandler_of)
			sem->handler_of[i] = sem->handler_of[d->seq];
		d->seq = i;
	}
	for (; i < sem->nhandler_of; i++)
		sem->handler_of[i] = NULL;
}

/* ---- keeping part of the program (stap --remote-merge's fleet end) ---- */

struct reach {
	struct session *s;
	struct sem_function **todo;
	int ntodo;
};

static void reach_call(struct expr *e, void *ctx)
{
	struct reach *r = ctx;
	struct sem_function *f;

	if (e->kind != E_CALL || !(f = (struct sem_function *)sem_function_of(r->s, e)) || f->used)
		return;
	f->used = true;
	if (f->fn->body)
		r->todo[r->ntodo++] = f;
}

int sem_prune(struct session *s, bool (*drop)(const struct derived_probe *d, void *arg),
	      void *arg)
{
	struct sem *sem = s->sem;
	struct sem_handler **hp = &sem->handlers;
	struct reach r = { .s = s, .todo = calloc(sem->nfunctions + 1, sizeof(*r.todo)) };

	if (!r.todo)
		return -ENOMEM;
	elab_filter(s, drop, arg);
	renumber_probes(sem);
	while (*hp) {
		bool runs = false;

		for (const struct derived_probe *d = elab_probes(s); d && !runs; d = d->next)
			runs = sem_handler_for(sem, d) == *hp;
		if (runs)
			hp = &(*hp)->next;
		else
			*hp = (*hp)->next;
	}
	sem->handlers_tail = hp;
	for (struct sem_function *f = sem->functions; f; f = f->next)
		f->used = false;
	for (struct sem_handler *h = sem->handlers; h; h = h->next) {
		struct stmt *bodies[SEM_MAX_BODIES];
		int n = sem_handler_bodies(h, bodies, NULL);

		for (int i = 0; i < n; i++)
			ast_walk_stmt(bodies[i], reach_call, &r);
	}
	while (r.ntodo > 0)
		ast_walk_stmt(r.todo[--r.ntodo]->fn->body, reach_call, &r);
	free(r.todo);
	return 0;
}

static void elide_empty_probes(struct sem *sem)
{
	struct sem_handler **hp = &sem->handlers;

	if (sem->s->opt.unoptimized)
		return;
	for (struct sem_handler *h = sem->handlers; h; h = h->next)
		h->elided = handler_empty(sem, h);
	for (const struct derived_probe *d = elab_probes(sem->s); d; d = d->next)
		if (d->acts)
			sem_handler_for(sem, d)->elided = false;
	while (*hp) {
		struct sem_handler *h = *hp;

		if (!h->elided) {
			hp = &h->next;
			continue;
		}
		*hp = h->next;
		/* One warning for a probe of many handlers: diag shows it once. */
		if (!sem->s->opt.suppress_warnings)
			diag_warning(&h->probe->loc, "Probe '%s' has been elided",
				     h->probe->points->components->name);
	}
	sem->handlers_tail = hp;
	elab_filter(sem->s, ran_by_elided, sem);
	renumber_probes(sem);
	if (!elab_probes(sem->s)) {
		diag_error("semantic", NULL, NULL, "no probes found");
		sem->errors++;
	}
}

/* -G NAME=VALUE: NAME is a global of the script, VALUE fits its type. */
static void check_global_settings(struct sem *sem)
{
	for (int i = 0; i < sem->s->opt.n_globals_set; i++) {
		const char *set = sem->s->opt.globals_set[i], *eq = strchr(set, '=');
		const char *name = arena_strndup(sem->a, set, eq - set), *val = eq + 1;
		struct var *v = sem_global_var(sem, name);
		char *end;

		if (!v || v->global == NULL || !v->global->loc.src ||
		    v->global->loc.src != sem->s->user->src) {
			sem_error(sem, NULL, NULL, "-G %s: the script has no global '%s'", set, name);
			continue;
		}
		if (v->nkeys || v->type == T_STATS) {
			sem_error(sem, NULL, NULL, "-G %s: '%s' is not a scalar long or string", set, name);
			continue;
		}
		strtoll(val, &end, 0);
		/* A global the script leaves untyped takes the value's type. */
		if (v->type == T_UNKNOWN)
			v->type = *val && !*end ? T_LONG : T_STRING;
		if (v->type == T_LONG && (*end || !*val))
			sem_error(sem, NULL, NULL, "-G %s: '%s' is a long, and '%s' is not a number",
			      set, name, val);
		v->used = true;
	}
}

/* A local written and never read: its assignments do nothing, its type
 * (perhaps none, dead_store()) does not matter. */
static bool unread(struct sem *sem, const struct var *v)
{
	return v->kind == V_LOCAL && v->written && !v->read && !sem->s->opt.unoptimized;
}

static void warn_unread(struct sem *sem, const struct var *v)
{
	if (unread(sem, v) && !sem->s->opt.suppress_warnings && v->decl.src == sem->s->user->src)
		diag_warning(&v->decl, "Eliding assignments to '%s', which is never read", v->name);
}

/* After the fixpoint: what is still untyped, or declared and never used. */
static void final_checks(struct sem *sem)
{
	int i = 0;

	for (struct var *v = sem->globals; v; v = v->next)
		v->index = i++;
	for (struct var *v = sem->globals; v; v = v->next) {
		if (v->type == T_UNKNOWN && v->used)
			sem_error(sem, &v->decl, sem_ident(sem, v->name), "unresolved type for global '%s'", v->name);
		if (!v->used && !sem->s->opt.suppress_warnings && !sem->s->opt.unoptimized && v->global &&
		    !v->global->private)
			diag_warning(&v->decl, "Eliding unused variable '%s'", v->name);
	}
	for (struct sem_handler *h = sem->handlers; h; h = h->next)
		for (struct var *v = h->locals; v; v = v->next)
			warn_unread(sem, v);
	for (struct sem_function *f = sem->functions; f; f = f->next)
		for (struct var *v = f->locals; v && f->script == sem->s->user; v = v->next)
			if (v->kind == V_LOCAL)
				warn_unread(sem, v);
	for (struct sem_handler *h = sem->handlers; h; h = h->next)
		for (struct var *v = h->locals; v; v = v->next)
			if (v->type == T_UNKNOWN && !unread(sem, v))
				sem_error(sem, &v->decl, sem_ident(sem, v->name), "unresolved type for local '%s'%s",
				      v->name, v->written ? "" : " (never assigned)");
	for (struct sem_function *f = sem->functions; f; f = f->next)
		if (!f->used && f->script == sem->s->user && !sem->s->opt.suppress_warnings &&
		    !sem->s->opt.unoptimized && sem->report)
			diag_warning(&f->fn->loc, "Eliding unused function '%s'", f->fn->name);
	/* Its value comes only from itself (return f(n - 1)): nothing says
	 * what it is, and pass 3 could not give it a return slot. */
	for (struct sem_function *f = sem->functions; f; f = f->next)
		if (f->used && f->ret == T_UNKNOWN && f->value_return.src)
			sem_error(sem, &f->value_return, NULL,
				  "unresolved return type of function '%s' (declare it: function %s:long (...))",
				  f->fn->name, f->fn->name);
	for (struct sem_function *f = sem->functions; f; f = f->next)
		for (struct var *v = f->locals; v; v = v->next)
			if (v->type == T_UNKNOWN && !f->fn->embedded && !unread(sem, v) &&
			    (f->used || f->script == sem->s->user))	/* a tapset's unused one is not built */
				sem_error(sem, &v->decl, sem_ident(sem, v->name), "unresolved type for %s '%s' of function '%s'",
				      v->kind == V_PARAM ? "parameter" : "local", v->name, f->fn->name);
}

/* Silent walks until no type changes (each can only make types known). */
static void infer_types(struct sem *sem)
{
	int rounds = 0;

	do {
		sem->changed = false;
		walk(sem);
	} while (sem->changed && ++rounds < 100);
}

struct mention {
	const char *name;
	bool found;
};

static void find_mention(struct expr *x, void *ctx)
{
	struct mention *m = ctx;

	if (x->kind == E_SYMBOL && !strcmp(x->name, m->name))
		m->found = true;
}

/*
 * SystemTap takes a tapset file whole, so a global that the functions a
 * script calls only read (stopwatch.stp's totals, read by
 * read_stopwatch_us but written by stop_stopwatch) gets its type from
 * the file's other functions.  Functions load one by one here: for each
 * tapset global still untyped, load its file's functions that mention
 * it (__maybe_unused in the C) and infer again.  True if any loaded.
 */
static bool load_typing_functions(struct sem *sem)
{
	bool more = false;

	for (struct var *v = sem->globals; v; v = v->next) {
		if (v->type != T_UNKNOWN || !v->used || !v->global)
			continue;
		for (const struct script *t = sem->s->library; t; t = t->next) {
			if (t->src != v->decl.src)
				continue;
			for (const struct function *fn = t->functions; fn; fn = fn->next) {
				struct mention m = { .name = v->name };

				if (!fn->body || sem_find_loaded(sem, fn->name))
					continue;
				ast_walk_stmt(fn->body, find_mention, &m);
				if (m.found) {
					sem_resolve_function(sem, fn->name, t);
					more = true;
				}
			}
		}
	}
	return more;
}

/* Every tapset function under its name, in library order: a call finds
 * the file that defines it without a scan of the whole library. */
static void index_library_functions(struct sem *sem)
{
	for (const struct script *t = sem->s->library; t; t = t->next)
		for (const struct function *fn = t->functions; fn; fn = fn->next) {
			struct library_def *d = arena_new(sem->a, struct library_def);
			struct library_def *last = strmap_get(&sem->library_functions, fn->name);

			d->script = t;
			d->fn = fn;
			if (!last) {
				strmap_put(&sem->library_functions, fn->name, d);
				continue;
			}
			while (last->next)
				last = last->next;
			last->next = d;
		}
}

static struct sem *sem_new(struct session *s)
{
	struct sem *sem = arena_new(&s->arena, struct sem);

	sem->s = s;
	sem->a = &s->arena;
	sem->functions_tail = &sem->functions;
	sem->handlers_tail = &sem->handlers;
	index_library_functions(sem);
	sem->tvars = tvar_map_new();
	return sem;
}

static void free_indexes(struct sem *sem)
{
	strmap_free(&sem->global_index);
	strmap_free(&sem->function_index);
	strmap_free(&sem->user_functions);
	strmap_free(&sem->library_functions);
	strmap_free(&sem->handler_index);
	tvar_map_free(sem->tvars);
	sem->tvars = NULL;
}

/* Also the @cast headers compiled while typing expressions (sem_expr.c). */
void sem_free(struct session *s)
{
	if (s->sem)
		free_indexes(s->sem);
	cast_headers_free(s);
}

/*
 * --check-version: the tapset globals, functions and aliases the script
 * uses whose code a systemtap_v condition chose (preproc.c marks it), so
 * that they may behave otherwise under another --compatible.
 */
static void check_versions(struct sem *sem)
{
	const struct probe **seen = NULL;
	size_t nseen = 0;

	for (struct var *v = sem->globals; v; v = v->next)
		if (v->used && v->global && v->global->versioned && v->global->loc.src != sem->s->user->src)
			diag_warning(&v->global->loc, "This global uses tapset constructs that are "
				     "dependent on systemtap version");
	for (struct sem_function *f = sem->functions; f; f = f->next)
		if (f->used && f->fn->versioned && f->script != sem->s->user)
			diag_warning(&f->fn->loc, "This function uses tapset constructs that are "
				     "dependent on systemtap version");
	for (struct sem_handler *h = sem->handlers; h; h = h->next)
		for (int i = 0; i < h->naliases; i++) {
			const struct probe *a = h->aliases[i];
			size_t j;

			for (j = 0; j < nseen && seen[j] != a; j++)
				;
			if (!a->versioned || j < nseen)
				continue;
			seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen++] = a;
			diag_warning(&a->loc, "This alias uses tapset constructs that are "
				     "dependent on systemtap version");
		}
	free(seen);
}

int pass2_semantic(struct session *s)
{
	struct sem *sem = sem_new(s);

	s->sem = sem;
	for (const struct function *fn = s->user->functions; fn; fn = fn->next)
		strmap_put(&sem->user_functions, fn->name, (void *)fn);
	for (const struct global *g = s->user->globals; g; g = g->next)
		global_from_decl(sem, g);
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		sem->nhandler_of++;
	sem->handler_of = arena_alloc(sem->a, (sem->nhandler_of + 1) * sizeof(*sem->handler_of));
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		sem_handler_for(sem, d);
	/* The script's own functions are checked even if unused. */
	for (const struct function *fn = s->user->functions; fn; fn = fn->next)
		sem_resolve_function(sem, fn->name, s->user);
	infer_types(sem);
	if (load_typing_functions(sem))
		infer_types(sem);
	sem->report = true;
	if (!elab_probes(s)) {
		diag_error("semantic", NULL, NULL, "no probes found");
		sem->errors++;
	}
	walk(sem);
	check_global_settings(sem);
	final_checks(sem);
	if (!sem->errors)
		elide_empty_probes(sem);
	if (s->opt.check_version)
		check_versions(sem);
	return sem->errors ? -EINVAL : 0;
}

static int cmp_functions(const void *a, const void *b)
{
	return strcmp((*(struct sem_function *const *)a)->fn->name,
		      (*(struct sem_function *const *)b)->fn->name);
}

int sem_dump_functions(struct session *s, FILE *out)
{
	struct sem *sem = sem_new(s);
	struct sem_function **v;
	size_t n = 0;

	s->user = arena_new(&s->arena, struct script);	/* none: only the library */
	for (const struct script *t = s->library; t; t = t->next)
		for (const struct function *fn = t->functions; fn; fn = fn->next)
			if (!fn->private)
				sem_resolve_function(sem, fn->name, t);
	infer_types(sem);
	v = (struct sem_function **)arena_sorted(&s->arena, sem->functions,
						 offsetof(struct sem_function, next), cmp_functions, &n);
	for (size_t i = 0; i < n; i++) {
		if ((i && !strcmp(v[i]->fn->name, v[i - 1]->fn->name)) || v[i]->fn->private)
			continue;	/* overloads share a signature; private is private */
		fprintf(out, "%s:%s (", v[i]->fn->name, vtype_name(v[i]->ret));
		for (struct var *p = v[i]->locals; p && p->kind == V_PARAM; p = p->next)
			fprintf(out, "%s%s:%s", p == v[i]->locals ? "" : ", ", p->name, vtype_name(p->type));
		fputs(")\n", out);
	}
	free_indexes(sem);
	return 0;
}
