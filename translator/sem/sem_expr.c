// SPDX-License-Identifier: GPL-2.0
/*
 * sem_expr.c - pass 2's type of every expression: variables read and
 * written (lvalues, arrays and their keys), operators, assignments,
 * @entry, @cast, the statistics and @ operators; calls are sem_calls.c's,
 * $vars sem_target.c's.  Each node's type stays on it (e->vtype) for
 * pass 3.  sem.c's walks call sem_expr() until the types stop changing.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cast_headers.h"
#include "kbtf.h"
#include "sem_internal.h"

/* Global name's value is read, not only written: SystemTap does not
 * print it when the session ends. */
void sem_mark_read(struct sem *sem, const char *name)
{
	struct var *v = sem_global_var(sem, name);

	if (v)
		v->rvalue = true;
}

/* The target of an assignment, ++, --, or delete. */
static struct var *lvalue(struct sem *sem, struct scope *sc, struct expr *e, enum vtype *type)
{
	struct var *v;

	if (e->pretty) {
		sem_error(sem, &e->loc, NULL, "a pretty-printed value ($...$) cannot be assigned");
		*type = T_UNKNOWN;
		return NULL;
	}

	if (e->kind == E_SYMBOL) {
		v = sem_lookup(sem, sc, e->name, &e->loc);
		if (v->nkeys || (v->global && v->global->is_array))
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "array '%s' used as a scalar", e->name);
		*type = v->type;
		return v;
	}
	if (e->kind == E_INDEX && e->a->kind == E_SYMBOL) {
		/* arr[k] = v, arr[k]++ write arr without reading it. */
		v = sem_global_var(sem, e->a->name);
		bool was_read = v && v->rvalue;

		*type = sem_expr(sem, sc, e);
		v = sem_global_var(sem, e->a->name);
		if (v)
			v->rvalue = was_read;
		return v;
	}
	if (e->kind == E_TARGET) {
		const struct probe_var *pv = sc->site && !e->chain ? sem_probe_var(sc->site, e->name) : NULL;

		if (!sem->s->opt.guru && !(pv && pv->writable))
			sem_error(sem, &e->loc, sem_ident(sem, e->name),
			      "writing to target variable '%s' needs guru mode (stap -g)", e->name);
		sem->lvalue_target = e;	/* written, not read */
		*type = sem_expr(sem, sc, e);
		sem->lvalue_target = NULL;
		return NULL;
	}
	/* @cast(p, "t")->m = v, p->m = v (autocast): memory, in guru mode. */
	if ((e->kind == E_CAST || e->kind == E_AUTOCAST) && e->chain) {
		const struct tvar *t;

		if (!sem->s->opt.guru)
			sem_error(sem, &e->loc, NULL, "writing to %s needs guru mode (stap -g)",
				  e->kind == E_CAST ? "@cast memory" : "memory through '->'");
		sem->lvalue_target = e;
		*type = sem_expr(sem, sc, e);
		sem->lvalue_target = NULL;
		t = tvar_map_get(sem->tvars, e);
		if (t && t->base == TVAR_TYPED)
			sem_error(sem, &e->loc, NULL, "writing through a variable's pointer is not "
				  "supported: write @cast(p, \"type\")->member = value");
		return NULL;
	}

	sem_error(sem, &e->loc, NULL, "expected a variable or array element to assign");
	*type = sem_expr(sem, sc, e);
	return NULL;
}

void sem_assign_type(struct sem *sem, struct scope *sc, struct expr *target, enum vtype t,
		     const struct loc *loc)
{
	enum vtype cur;
	struct var *v = lvalue(sem, sc, target, &cur);

	if (!v)
		return;
	v->written = true;
	sem_set_type(sem, &v->type, &v->type_loc, t, loc, v->name);
}

/* The target of an assignment is evaluated once: its errors appear once. */
void sem_store(struct sem *sem, struct var *v, enum vtype t, const struct loc *loc)
{
	if (!v)
		return;
	v->written = true;
	sem_set_type(sem, &v->type, &v->type_loc, t, loc, v->name);
}

static enum vtype binary(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype l = sem_expr(sem, sc, e->a), r = sem_expr(sem, sc, e->b);

	if (e->opid == OP_CONCAT) {
		if (l != T_UNKNOWN && l != T_STRING)
			sem_error(sem, &e->a->loc, NULL, "'.' joins strings, not a %s", vtype_name(l));
		if (r != T_UNKNOWN && r != T_STRING)
			sem_error(sem, &e->b->loc, NULL, "'.' joins strings, not a %s", vtype_name(r));
		/* A variable joined is a string, as SystemTap infers it. */
		if (l == T_UNKNOWN && e->a->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->a, T_STRING, &e->loc);
		if (r == T_UNKNOWN && e->b->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->b, T_STRING, &e->loc);
		return T_STRING;
	}
	if (e->opid == OP_MATCH || e->opid == OP_NOMATCH) {
		if (l != T_UNKNOWN && l != T_STRING)
			sem_error(sem, &e->a->loc, NULL, "'%s' matches a string, not a %s", e->op, vtype_name(l));
		if (l == T_UNKNOWN && e->a->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->a, T_STRING, &e->loc);
		/* The parser made sure it is a literal. */
		if (e->b->kind == E_STRING)
			sem_check_regex(sem, e->b);
		return T_LONG;
	}
	if (lex_op_is_comparison(e->opid)) {
		if (l != T_UNKNOWN && r != T_UNKNOWN && l != r)
			sem_error(sem, &e->loc, NULL, "type mismatch (%s vs. %s) in '%s'",
			      vtype_name(l), vtype_name(r), e->op);
		if (l == T_STATS || l == T_HIST || r == T_STATS || r == T_HIST)
			sem_error(sem, &e->loc, NULL, "'%s' compares longs or strings", e->op);
		/* One side known types the other, if it is a variable. */
		if (l == T_UNKNOWN && r != T_UNKNOWN && e->a->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->a, r, &e->loc);
		if (r == T_UNKNOWN && l != T_UNKNOWN && e->b->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->b, l, &e->loc);
		return T_LONG;
	}
	/* Arithmetic, bitwise, logical: longs. */
	if (l != T_UNKNOWN && l != T_LONG)
		sem_error(sem, &e->a->loc, NULL, "'%s' needs a long, not a %s", e->op, vtype_name(l));
	if (r != T_UNKNOWN && r != T_LONG)
		sem_error(sem, &e->b->loc, NULL, "'%s' needs a long, not a %s", e->op, vtype_name(r));
	if (l == T_UNKNOWN && e->a->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	if (r == T_UNKNOWN && e->b->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->b, T_LONG, &e->loc);
	return T_LONG;
}


static enum vtype assignment(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype r = sem_expr(sem, sc, e->b), cur;
	struct var *v = lvalue(sem, sc, e->a, &cur);

	/* x += y reads x: its earlier "x = 100" is no dead store */
	if (v && v->kind == V_LOCAL && e->opid != OP_ASSIGN && e->opid != OP_AGG)
		v->read = true;

	if ((e->a->kind == E_TARGET || e->a->kind == E_CAST) && cur == T_LONG && e->opid != OP_ASSIGN)
		sem_error(sem, &e->loc, NULL, "'%s' cannot write a target variable: assign it with '='",
			  e->op);

	/* A string $var (procfs's $value) takes '=' or '.=' of a string. */
	if (e->a->kind == E_TARGET && cur == T_STRING &&
	    ((e->opid != OP_ASSIGN && e->opid != OP_ASSIGN_CONCAT) || (r != T_UNKNOWN && r != T_STRING))) {
		sem_error(sem, &e->loc, NULL, "'%s' is a string: it takes '=' or '.=' of a string",
		      e->a->name);
		return T_UNKNOWN;
	}

	if (e->opid == OP_AGG) {
		if (v && v->global && v->global->is_array && e->a->kind == E_SYMBOL)
			sem_error(sem, &e->a->loc, sem_ident(sem, v->name), "array '%s' used as statistics",
				  v->name);
		if (r != T_UNKNOWN && r != T_LONG)
			sem_error(sem, &e->b->loc, NULL, "'<<<' adds a long to statistics, not a %s", vtype_name(r));
		sem_store(sem, v, T_STATS, &e->loc);
		return T_UNKNOWN;	/* no value */
	}
	if (r == T_STATS || r == T_HIST) {
		sem_error(sem, &e->b->loc, NULL, "a %s cannot be assigned; use @count, @sum, ...",
		      vtype_name(r));
		return T_UNKNOWN;
	}
	if (cur == T_STATS) {
		sem_error(sem, &e->loc, NULL, "statistics are filled with '<<<', not assigned");
		return T_UNKNOWN;
	}
	if (e->opid == OP_ASSIGN && v && v->kind == V_LOCAL)
		sem_set_typed(sem, &v->typed, sem_typed(sem, sc, e->b));
	if (e->opid == OP_ASSIGN) {
		/* x = y with x known and y not: y takes x's type. */
		if (r == T_UNKNOWN && cur != T_UNKNOWN && e->b->kind == E_SYMBOL)
			sem_store(sem, sem_lookup(sem, sc, e->b->name, &e->b->loc), cur, &e->loc);
		if (r == T_UNKNOWN) {
			if (v)
				v->written = true;
			return cur;
		}
		sem_store(sem, v, r, &e->loc);
		return r;
	}
	if (e->opid == OP_ASSIGN_CONCAT) {
		if (r != T_UNKNOWN && r != T_STRING)
			sem_error(sem, &e->b->loc, NULL, "'.=' appends a string, not a %s", vtype_name(r));
		if (r == T_UNKNOWN && e->b->kind == E_SYMBOL)
			sem_assign_type(sem, sc, e->b, T_STRING, &e->loc);
		sem_store(sem, v, T_STRING, &e->loc);
		return T_STRING;
	}
	if (r != T_UNKNOWN && r != T_LONG)
		sem_error(sem, &e->b->loc, NULL, "'%s' needs a long, not a %s", e->op, vtype_name(r));
	if (r == T_UNKNOWN && e->b->kind == E_SYMBOL)	/* x += y: y is a long */
		sem_assign_type(sem, sc, e->b, T_LONG, &e->loc);
	sem_store(sem, v, T_LONG, &e->loc);
	return T_LONG;
}

static enum vtype expr_type(struct sem *sem, struct scope *sc, struct expr *e);

/*
 * @entry(X) in a .return probe: X is evaluated when the function is entered
 * (the kretprobe's entry handler) and saved with the instance.  Recorded
 * once per handler (type inference visits it again).
 */
static enum vtype entry_operand(struct sem *sem, struct scope *sc, struct expr *e)
{
	struct sem_handler *h = sc->handler;
	const char *runtime;
	enum vtype t;
	int i;

	if (!sc->site || !sc->site->is_return) {
		sem_error(sem, &e->loc, NULL, "@entry is only meaningful in .return probes");
		return sem_expr(sem, sc, e->a);
	}
	/* Only kretprobes, uretprobes and system call returns have an entry
	 * to run it in. */
	runtime = sc->site->provider->runtime ? sc->site->provider->runtime : "";
	if (strcmp(runtime, "probes/kprobes") && strcmp(runtime, "probes/syscalls") &&
	    strcmp(runtime, "probes/uprobes")) {
		sem_error(sem, &e->loc, NULL, "@entry is not supported in %s yet", sc->site->name);
		return sem_expr(sem, sc, e->a);
	}
	t = sem_expr(sem, sc, e->a);
	if (t == T_STATS || t == T_HIST) {
		sem_error(sem, &e->loc, NULL, "@entry saves a long or a string, not a %s", vtype_name(t));
		return T_UNKNOWN;
	}
	/* In a branch @defined rules out, nothing runs at entry either. */
	if (sem->dead)
		return t;
	for (i = 0; i < h->nentries && h->entries[i] != e; i++)
		;
	if (i == h->nentries) {
		const struct expr **v = arena_alloc(sem->a, (h->nentries + 1) * sizeof(*v));

		if (h->nentries)
			memcpy(v, h->entries, h->nentries * sizeof(*v));
		v[h->nentries++] = e;
		h->entries = v;
		h->entry_args = true;	/* the saved area follows the arguments */
	}
	return t;
}

/* A branch not taken (sem_static_condition): checked without errors. */
static enum vtype dead_expr(struct sem *sem, struct scope *sc, struct expr *e)
{
	bool report = sem->report, dead = sem->dead;
	enum vtype t;

	sem->report = false;
	sem->dead = true;
	t = sem_expr(sem, sc, e);
	sem->report = report;
	sem->dead = dead;
	return t;
}

/*
 * The BTF and type of @cast(p, "type"[, "module"]).  A module's BTF holds
 * the kernel's types too; "kernel" and "kernel<header.h>" (any header) are
 * the kernel.  "m1:m2:..." is SystemTap's search path: the first that has
 * the type.  NULL after an error.
 */
static struct btf *cast_btf(struct sem *sem, struct expr *e, __u32 *id)
{
	const char *path = e->module ? e->module : "kernel";
	const char *m;
	struct btf *btf = NULL;
	int err = 0;

	if (!session_btf(sem->s))
		return NULL;
	while ((m = sem_path_next(sem, &path))) {
		if (m[0] == '<') {
			const char *why;

			err = cast_header_type(sem->s, m, e->str, id, &why);
			if (!err)
				return session_user_btf(sem->s);
			if (err == -ENOENT)
				err = 0;	/* they compiled; the type is not there */
			else if (!strchr(e->module, ':')) {
				sem_error(sem, &e->loc, NULL, "@cast: cannot read the types of %s: %s", m,
					  why ? why : strerror(-err));
				return NULL;
			}
			continue;
		}
		if (sem_path_is_kernel(m) || strchr(m, '/')) {
			btf = session_btf(sem->s);
			err = 0;
		} else if ((err = session_module_btf(sem->s, m, &btf))) {
			continue;
		}
		if (!kbtf_find_type(btf, e->str, id))
			return btf;
	}
	if (err && !strchr(e->module, ':'))
		sem_error(sem, &e->loc, NULL, "@cast: no BTF for module '%s' (%s)", e->module,
			  err == -ENOENT ? "no such module of this kernel" : strerror(-err));
	else
		sem_error(sem, &e->loc, NULL, "@cast: no type '%s' in %s", e->str,
			  !e->module || sem_path_is_kernel(e->module) ? "the kernel's BTF" :
			  e->module[0] == '<' ? arena_printf(sem->a, "the headers %s", e->module) :
			  strchr(e->module, ':') ? arena_printf(sem->a, "the BTF of any of '%s'", e->module) :
			  arena_printf(sem->a, "module %s's BTF", e->module));
	return NULL;
}

/* Every expression's type stays on it, for code generation (pass 3). */
enum vtype sem_expr(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t = expr_type(sem, sc, e);

	e->vtype = t;
	return t;
}

/* A variable read as a scalar. */
static enum vtype symbol_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	struct var *v = sem_lookup(sem, sc, e->name, &e->loc);

	v->read = true;
	v->rvalue = true;
	if (v->nkeys || (v->global && v->global->is_array))
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "array '%s' used as a scalar", e->name);
	v->used_as_scalar = true;
	return v->type;
}

/* a[k], or @hist_*(s)[bucket]. */
static enum vtype index_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	if (e->a->kind == E_HIST) {
		if (sem_expr(sem, sc, e->a) == T_HIST && sem_expr(sem, sc, e->args) != T_LONG)
			sem_error(sem, &e->args->loc, NULL, "a histogram bucket index is a long");
		return T_LONG;
	}
	sem_mark_read(sem, e->a->name);
	return sem_array_access(sem, sc, e, e->a->name, e->args, false);
}

/* ++x, x--: x is read and written, a long. */
static enum vtype crement_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	/* A $var is written whole, by '=' (pass 3 writes it). */
	if (e->a->kind == E_TARGET || e->a->kind == E_CAST) {
		sem_error(sem, &e->loc, NULL, "'%s' cannot be applied to a target variable: "
			  "assign it with '='", e->op);
		return T_LONG;
	}
	if (e->a->kind == E_SYMBOL)	/* read, then written */
		sem_lookup(sem, sc, e->a->name, &e->a->loc)->read = true;
	sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	/* Its value used (printf("%d", ++n), if (!n++)): the
	 * global is read, and not printed at the end; as a
	 * statement of its own (n++) it is only written. */
	if (e != sem->crement_statement && e->a->kind == E_SYMBOL)
		sem_mark_read(sem, e->a->name);
	else if (e != sem->crement_statement && e->a->kind == E_INDEX &&
		 e->a->a->kind == E_SYMBOL)
		sem_mark_read(sem, e->a->a->name);
	return T_LONG;
}

/* - + ! ~ x, ++x, x++. */
static enum vtype unary_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t;

	if (e->opid == OP_INCR || e->opid == OP_DECR)
		return crement_type(sem, sc, e);
	t = sem_expr(sem, sc, e->a);
	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->loc, NULL, "'%s' needs a long, not a %s", e->op, vtype_name(t));
	if (t == T_UNKNOWN && e->a->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	return T_LONG;
}

/* a && b, a || b: longs; else binary(). */
static enum vtype binary_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t, u;

	if (e->opid != OP_AND && e->opid != OP_OR)
		return binary(sem, sc, e);
	t = sem_expr(sem, sc, e->a);
	u = sem_expr(sem, sc, e->b);
	if ((t != T_UNKNOWN && t != T_LONG) || (u != T_UNKNOWN && u != T_LONG))
		sem_error(sem, &e->loc, NULL, "'%s' needs longs", e->op);
	/* Variables there are longs, as SystemTap infers them. */
	if (t == T_UNKNOWN && e->a->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	if (u == T_UNKNOWN && e->b->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->b, T_LONG, &e->loc);
	return T_LONG;
}

/* c ? a : b: a long condition, branches of one type. */
static enum vtype ternary_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t, u;

	t = sem_expr(sem, sc, e->a);
	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->a->loc, NULL, "a condition is a long, not a %s", vtype_name(t));
	if (t == T_UNKNOWN && e->a->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	if (sem_static_condition(e->a) >= 0)	/* only one branch counts */
		return sem_static_condition(e->a) ? (dead_expr(sem, sc, e->c), sem_expr(sem, sc, e->b)) :
		       (dead_expr(sem, sc, e->b), sem_expr(sem, sc, e->c));
	t = sem_expr(sem, sc, e->b);
	u = sem_expr(sem, sc, e->c);
	/* One branch known types the other, if it is a variable. */
	if (t == T_UNKNOWN && u != T_UNKNOWN && e->b->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->b, u, &e->loc);
	if (u == T_UNKNOWN && t != T_UNKNOWN && e->c->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->c, t, &e->loc);
	if (t != T_UNKNOWN && u != T_UNKNOWN && t != u)
		sem_error(sem, &e->loc, NULL, "type mismatch (%s vs. %s) between the branches of '?:'",
		      vtype_name(t), vtype_name(u));
	return t != T_UNKNOWN ? t : u;
}

/* [k] in a. */
static enum vtype in_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	if (e->a->kind == E_HIST)
		return T_LONG;
	sem_mark_read(sem, e->a->name);
	sem_array_access(sem, sc, e, e->a->name, e->args, true);
	return T_LONG;
}

/* @cast(p, "type")->chain: p a long, the type's BTF. */
static enum vtype cast_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	struct btf *btf;
	__u32 id;
	enum vtype t = sem_expr(sem, sc, e->a);

	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->a->loc, NULL, "@cast needs a pointer (a long), not a %s", vtype_name(t));
	if (!(btf = cast_btf(sem, e, &id)))
		return T_UNKNOWN;
	if (!e->chain && !e->pretty) {
		/* The pointer itself, typed for a '->' on it later. */
		tvar_map_set(sem->tvars, e, &(struct tvar){ .base = TVAR_POINTER,
			.btf = btf, .value_type = id, .value_is_address = true });
		return T_LONG;
	}
	sem_chain_indexes(sem, sc, e);
	return sem_resolve_tvar(sem, sc, e, &(struct tvar){ .base = TVAR_POINTER }, id, btf);
}

/* @count(s), @variance(s, shift), ... */
static enum vtype stat_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	sem_stat_operand(sem, sc, e->a, e->name);
	if (e->b && sem_expr(sem, sc, e->b) != T_LONG)
		sem_error(sem, &e->b->loc, NULL, "@variance's shift is a long");
	else if (e->b)
		sem_variance_shift(sem, e);
	return T_LONG;
}

/* @hist_linear(s, lo, hi, step), @hist_log(s). */
static enum vtype hist_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	sem_stat_operand(sem, sc, e->args, e->name);
	sem_hist_kind(sem, e);
	for (struct expr *a = e->args->next; a; a = a->next)
		if (a->kind != E_NUMBER)
			sem_error(sem, &a->loc, NULL, "%s's bounds and step are literal numbers", e->name);
	sem_hist_linear_bounds(sem, e);
	return T_HIST;
}

/* @defined(x): x typed quietly, as code that never runs. */
static enum vtype defined_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	bool report = sem->report, dead = sem->dead;

	sem->report = false;	/* an unresolvable operand just means 0 */
	sem->dead = true;		/* and it never runs (its @entry neither) */
	sem_expr(sem, sc, e->a);
	sem->report = report;
	sem->dead = dead;
	return T_LONG;
}

/* @perf("NAME"), or another @name(...) that needs guru mode. */
static enum vtype at_call_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	if (!strcmp(e->name, "@perf")) {
		const char *why = "@perf reads a counter of the thread a probe runs in: "
				  "use it in a probe";

		if (sc->site && provider_counter(sem->s, e->args->str, sc->site, &why))
			return T_LONG;
		/* Outside a probe of a program's code SystemTap 4.8 finds it in
		 * pass 3 (translating a "general @perf expression"), a counter
		 * of another process or of no probe in pass 2. */
		if (!sc->site || strcmp(sc->site->provider->name, "process"))
			sem_translate_error(sem, &e->loc, NULL, "@perf(\"%s\"): %s",
					    e->args->str, why);
		else
			sem_error(sem, &e->loc, NULL, "@perf(\"%s\"): %s", e->args->str, why);
		return T_LONG;
	}
	for (struct expr *a = e->args; a; a = a->next)
		sem_expr(sem, sc, a);
	if (!sc->privileged && !sem->s->opt.guru)
		sem_error(sem, &e->loc, NULL, "%s needs guru mode (stap -g)", e->name);
	return T_LONG;
}

/* One function per kind of expression; the short ones here. */
static enum vtype expr_type(struct sem *sem, struct scope *sc, struct expr *e)
{
	switch (e->kind) {
	case E_NUMBER:		return T_LONG;
	case E_STRING:		return T_STRING;
	case E_SYMBOL:		return symbol_type(sem, sc, e);
	case E_WILDCARD:
		sem_error(sem, &e->loc, NULL, "'*' is only allowed in delete, in and foreach patterns");
		return T_UNKNOWN;
	case E_INDEX:		return index_type(sem, sc, e);
	case E_CALL:		return sem_call(sem, sc, e);
	case E_UNARY:
	case E_POSTFIX:		return unary_type(sem, sc, e);
	case E_BINARY:		return binary_type(sem, sc, e);
	case E_ASSIGN:		return assignment(sem, sc, e);
	case E_TERNARY:		return ternary_type(sem, sc, e);
	case E_IN:		return in_type(sem, sc, e);
	case E_TARGET:		return sem_target_var(sem, sc, e);
	case E_CAST:		return cast_type(sem, sc, e);
	case E_AUTOCAST:	return sem_autocast(sem, sc, e);
	case E_ATVAR:		return sem_atvar(sem, sc, e);
	case E_STAT:		return stat_type(sem, sc, e);
	case E_HIST:		return hist_type(sem, sc, e);
	case E_DEFINED:		return defined_type(sem, sc, e);
	case E_ENTRY:		return entry_operand(sem, sc, e);
	case E_PROBEWRITE:
		sem_expr(sem, sc, e->a);
		return T_LONG;
	case E_CONST:
		if (!sc->privileged && !sem->s->opt.guru)
			sem_error(sem, &e->loc, NULL, "@const needs guru mode (stap -g)");
		return T_LONG;
	case E_ENUM:		return sem_enum(sem, sc, e);
	case E_ENUMNAME:	return sem_enumname(sem, sc, e);
	case E_EMBEDDED:	/* the parser allowed it: a tapset, or -g */
		return T_LONG;
	case E_AT_CALL:		return at_call_type(sem, sc, e);
	}
	return T_UNKNOWN;
}
