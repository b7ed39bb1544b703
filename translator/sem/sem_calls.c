// SPDX-License-Identifier: GPL-2.0
/*
 * sem_calls.c - pass 2's function calls: the script's functions and the
 * tapsets' (loaded on demand, by name; overloads chained), and the print
 * builtins with their format checks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "printf_format.h"
#include "sem.h"
#include "sem_internal.h"
#include "strset.h"

/* ---- functions ---- */

#define MAX_PRINT_ARGS	32

enum builtin_kind { B_PRINT, B_PRINTLN, B_PRINTF, B_SPRINTF, B_PRINTD, B_SPRINTD, B_SPRINT,
		    B_MONITOR };

static const struct {
	const char *name;
	enum builtin_kind kind;
} builtins[] = {
	{ "print", B_PRINT }, { "println", B_PRINTLN }, { "printf", B_PRINTF },
	{ "sprintf", B_SPRINTF }, { "printd", B_PRINTD }, { "printdln", B_PRINTD },
	{ "sprintd", B_SPRINTD }, { "sprintdln", B_SPRINTD }, { "sprint", B_SPRINT },
	{ "sprintln", B_SPRINT },
	/* --monitor's files (front/pass1.c, gen/monitor.c) */
	{ "__monitor_status", B_MONITOR }, { "__monitor_control", B_MONITOR },
};

static int builtin_index(const char *name);

bool sem_is_builtin(const char *name)
{
	return builtin_index(name) >= 0;
}

static int builtin_index(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(*builtins); i++)
		if (!strcmp(name, builtins[i].name))
			return i;
	return -1;
}

/* The first function called name that was loaded (its overloads follow). */
struct sem_function *sem_find_loaded(struct sem *sem, const char *name)
{
	return strmap_get(&sem->function_index, name);
}

/* Whether statements s can leave by 'next' (to the next overload). */
static bool has_next(const struct stmt *s)
{
	for (; s; s = s->next)
		if (s->kind == S_NEXT || has_next(s->body) || has_next(s->els))
			return true;
	return false;
}

static void load_function(struct sem *sem, const struct function *fn, const struct script *scr)
{
	struct sem_function *f = arena_new(sem->a, struct sem_function);
	struct sem_function *first = sem_find_loaded(sem, fn->name);

	f->fn = fn;
	f->index = sem->nfunctions++;
	f->script = scr;
	f->cname = fn->name;
	/* Params in order, at the head of the locals. */
	struct var **pt = &f->locals;
	for (const struct param *p = fn->params; p; p = p->next) {
		struct var *v = arena_new(sem->a, struct var);

		f->nparams++;
		v->name = p->name;
		v->kind = V_PARAM;
		v->decl = p->loc;
		v->written = v->used = true;
		if (p->type)
			sem_set_type(sem, &v->type, &v->type_loc,
				 !strcmp(p->type, "string") ? T_STRING : T_LONG, &p->loc, p->name);
		*pt = v;
		pt = &v->next;
	}
	if (fn->type)
		sem_set_type(sem, &f->ret, &f->ret_loc, !strcmp(fn->type, "string") ? T_STRING : T_LONG,
			 &fn->loc, fn->name);
	for (struct sem_function *o = first; o; o = o->overload) {
		if (o->nparams != f->nparams)
			f->cname = arena_printf(sem->a, "%s__%d", fn->name, f->nparams);
		/* Only a 'next' in an earlier overload of the same arity reaches
		 * a later one. */
		else if (scr == sem->s->user && !o->fn->embedded && !has_next(o->fn->body) &&
			 !sem->s->opt.suppress_warnings)
			diag_warning(&fn->loc, "unreachable overload: '%s' with %d parameter%s is "
				     "defined before at line %d without 'next'", fn->name, f->nparams,
				     f->nparams == 1 ? "" : "s", o->fn->loc.line);
		if (!o->overload) {
			o->overload = f;
			break;
		}
	}
	if (!first)
		strmap_put(&sem->function_index, fn->name, f);
	*sem->functions_tail = f;
	sem->functions_tail = &f->next;
}

/*
 * The functions called name: the script's own, else a tapset's (the first
 * tapset defining it, with all its overloads there).  Loaded on first use.
 */
struct sem_function *sem_resolve_function(struct sem *sem, const char *name,
					     const struct script *caller)
{
	struct sem_function *f = sem_find_loaded(sem, name);
	const struct script *from = NULL;

	if (f && (!f->fn->private || f->script == caller))
		return f;
	if (strmap_get(&sem->user_functions, name))
		from = sem->s->user;
	/* A private function is visible only in its own file. */
	for (const struct library_def *d = strmap_get(&sem->library_functions, name); !from && d;
	     d = d->next)
		if (!d->fn->private || d->script == caller)
			from = d->script;
	if (f && from == f->script)
		return f;
	if (!from)
		return NULL;
	for (const struct function *fn = from->functions; fn; fn = fn->next)
		if (!strcmp(fn->name, name))
			load_function(sem, fn, from);
	return sem_find_loaded(sem, name);
}

/* ---- expressions ---- */


/* A '*' width or precision: a long argument.  false when there is none. */
static bool star_arg(struct sem *sem, struct scope *sc, const struct expr *call, struct expr **args)
{
	if (!*args) {
		sem_error(sem, &call->loc, NULL, "too few arguments for the format string of %s",
			  call->name);
		return false;
	}
	sem_set_type(sem, &(enum vtype){ sem_expr(sem, sc, *args) }, NULL, T_LONG, &(*args)->loc,
		     "a '*' width");
	*args = (*args)->next;
	return true;
}

/* printf-style format: argument count and kinds.  fmt has raw escapes;
 * pass 1 checked its grammar. */
static void check_format(struct sem *sem, struct scope *sc, const struct expr *call,
			 const char *fmt, struct expr *args)
{
	const char *p = fmt, *err;
	struct printf_conv c;

	while (printf_next_conv(&p, &c, &err) > 0) {
		enum vtype want = c.conv == 's' ? T_STRING : T_LONG;

		if (!c.conv)
			continue;	/* a "%l" ending the format prints nothing */
		if (c.width_star && !star_arg(sem, sc, call, &args))
			return;
		if (c.prec_star && !star_arg(sem, sc, call, &args))
			return;
		if (!args) {
			sem_error(sem, &call->loc, NULL, "too few arguments for the format string of %s",
			      call->name);
			return;
		}
		enum vtype got = sem_expr(sem, sc, args);
		/* A variable or an array's values typed nowhere else take the
		 * format's type (SystemTap's: printf("%d", a[k]) types a). */
		if (got == T_UNKNOWN && args->kind == E_SYMBOL) {
			struct var *v = sem_lookup(sem, sc, args->name, &args->loc);

			sem_set_type(sem, &v->type, &v->type_loc, want, &args->loc, args->name);
		} else if (got == T_UNKNOWN && args->kind == E_INDEX && args->a->kind == E_SYMBOL) {
			struct var *v = sem_global_var(sem, args->a->name);

			if (v)
				sem_set_type(sem, &v->type, &v->type_loc, want, &args->loc, v->name);
		}
		if (got != T_UNKNOWN && got != want)
			sem_error(sem, &args->loc, NULL, "format %%%c of %s needs a %s, not a %s", c.conv,
			      call->name, vtype_name(want), vtype_name(got));
		args = args->next;
	}
	if (args)
		sem_error(sem, &args->loc, NULL, "too many arguments for the format string of %s", call->name);
}

static enum vtype builtin_call(struct sem *sem, struct scope *sc, struct expr *e, int b)
{
	enum builtin_kind kind = builtins[b].kind;
	struct expr *args = e->args;
	int n = 0;

	for (struct expr *a = args; a; a = a->next)
		n++;
	if (kind == B_MONITOR) {
		/* Only in the probes --monitor adds: they touch every global. */
		if (!sem->s->monitor_src || e->loc.src != sem->s->monitor_src)
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "unresolved function '%s'",
				  e->name);
		for (struct expr *a = args; a; a = a->next)
			sem_expr(sem, sc, a);
		return T_LONG;
	}
	/* SystemTap's limit (PR10750), past the format or delimiter */
	if (n - (kind == B_PRINTF || kind == B_SPRINTF || kind == B_PRINTD ||
		 kind == B_SPRINTD) > MAX_PRINT_ARGS)
		sem_translate_error(sem, &e->loc, sem_ident(sem, e->name),
				    "%s takes at most %d values", e->name, MAX_PRINT_ARGS);
	if (kind == B_PRINTF || kind == B_SPRINTF) {
		if (!args || args->kind != E_STRING) {
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "%s needs a literal format string",
			      e->name);
			return kind == B_SPRINTF ? T_STRING : T_LONG;
		}
		check_format(sem, sc, e, args->str, args->next);
		return kind == B_SPRINTF ? T_STRING : T_LONG;
	}
	/* The parser checked the literal delimiter and the values' count. */
	if (kind == B_PRINTD || kind == B_SPRINTD)
		args = args ? args->next : NULL;
	if ((kind == B_PRINT || kind == B_PRINTLN || kind == B_SPRINT) && n == 0 &&
	    kind != B_PRINTLN)
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "%s needs at least one value", e->name);
	for (struct expr *a = args; a; a = a->next) {
		enum vtype t = sem_expr(sem, sc, a);

		if (t == T_STATS)
			sem_error(sem, &a->loc, NULL, "a statistics value cannot be printed; use @count, @avg, ... or @hist_*");
		if (t == T_HIST && !(n == 1 && (kind == B_PRINT || kind == B_PRINTLN)))
			sem_error(sem, &a->loc, NULL, "a histogram can only be printed alone, with print or println");
	}
	return kind == B_SPRINTD || kind == B_SPRINT ? T_STRING : T_LONG;
}

static int param_count(const struct sem_function *f)
{
	int n = 0;

	for (const struct var *p = f->locals; p && p->kind == V_PARAM; p = p->next)
		n++;
	return n;
}

/*
 * Whether fn's own embedded C carries the guru marker: its %{ %} body
 * (printk), or, for a script function, an embedded statement first in its
 * body (task_ns_pid: SystemTap 4.8's is guru C, ctap's is script code).
 */
static bool marked_guru(const struct function *fn)
{
	const struct stmt *first = fn->body ? fn->body->body : NULL;

	if (fn->embedded)
		return strstr(fn->embedded, "/* guru */");
	return first && first->kind == S_EMBEDDED && strstr(first->code, "/* guru */");
}

enum vtype sem_call(struct sem *sem, struct scope *sc, struct expr *e)
{
	int b = builtin_index(e->name), nargs = 0, nparams = 0;
	struct sem_function *f;
	struct expr *a;
	struct var *p;

	if (b >= 0)
		return builtin_call(sem, sc, e, b);
	f = sem_resolve_function(sem, e->name, sc->script);
	if (!f) {
		for (a = e->args; a; a = a->next)
			sem_expr(sem, sc, a);
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "unresolved function '%s'", e->name);
		return T_UNKNOWN;
	}
	/* A tapset function marked guru (printk) only for -g scripts. */
	if (marked_guru(f->fn) && !sem->s->opt.guru && !sc->privileged)
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "function '%s' needs guru mode (stap -g)",
			  e->name);
	/* A tapset function defined only to be refused, saying why
	 * (SystemTap's Python and Java helpers: tapsets/unsupported.stp). */
	if (f->fn->embedded && f->script != sem->s->user) {
		const char *why = strstr(f->fn->embedded, "/* unsupported: ");

		if (why) {
			why += strlen("/* unsupported: ");
			sem_error(sem, &e->loc, sem_ident(sem, e->name),
				  "function '%s' is not supported by ctap: %.*s", e->name,
				  (int)(strstr(why, " */") ? strstr(why, " */") - why : 0), why);
		}
	}
	/* Under --runtime=dyninst only embedded C written for user space
	 * (a tapset body marked dyninst, SystemTap's per-runtime tapsets)
	 * can run: the others read the kernel's own structures.  A -g
	 * script's own C is written for the runtime its user chose, and
	 * compiled as user-space C in pass 4, as SystemTap's stapdyn does. */
	if (sem->s->opt.dyninst && f->fn->embedded && f->script != sem->s->user &&
	    !strstr(f->fn->embedded, "/* dyninst */"))
		sem_error(sem, &e->loc, sem_ident(sem, e->name),
			  "function '%s' is not available with --runtime=dyninst (it needs the kernel)",
			  e->name);
	for (a = e->args; a; a = a->next)
		nargs++;
	bool arity_ok = false;
	for (struct sem_function *o = f; o; o = o->overload)
		arity_ok |= param_count(o) == nargs;
	if (!arity_ok) {
		nparams = param_count(f);
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "function '%s' takes %d argument%s, not %d",
		      e->name, nparams, nparams == 1 ? "" : "s", nargs);
		return f->ret;
	}
	/* Every overload of this arity shares the signature: unify with each. */
	for (struct sem_function *o = f, *first = NULL; o; o = o->overload) {
		if (param_count(o) != nargs)
			continue;
		if (!first)
			f = first = o;	/* its return type is the call's */
		o->used = true;
		p = o->locals;
		for (a = e->args; a; a = a->next, p = p->next) {
			enum vtype t = sem_expr(sem, sc, a);

			if (t == T_STATS || t == T_HIST)
				sem_error(sem, &a->loc, NULL, "a %s cannot be passed to a function", vtype_name(t));
			else
				sem_set_type(sem, &p->type, &p->type_loc, t, &a->loc, p->name);
			if (p->type != T_UNKNOWN && t == T_UNKNOWN && a->kind == E_SYMBOL) {
				struct var *v = sem_lookup(sem, sc, a->name, &a->loc);

				sem_set_type(sem, &v->type, &v->type_loc, p->type, &a->loc, a->name);
			}
		}
	}
	return f->ret;
}

