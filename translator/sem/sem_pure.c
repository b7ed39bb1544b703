// SPDX-License-Identifier: GPL-2.0
/*
 * sem_pure.c - which expressions have no effect but their value, calls
 * included: what dead-store elision may drop (pass 2's dead_store() and
 * pass 3's elide(), which must agree).  SystemTap's optimizer drops an
 * assignment to a local nobody reads when its value has no side effects,
 * and so does ctap: a tapset alias computes argstr, a quoted path and
 * decoded flags for every call, and a script that reads none of them
 * should not pay for them.
 *
 * A function is pure if it is embedded C marked "pure" (the tapsets'
 * comment; an embedded expression likewise), or script
 * code that writes no global, prints nothing, runs no embedded C and
 * calls nothing impure; a recursive call counts as pure.  sprintf() and
 * the other s-builtins are pure, print() and the rest are not.  As
 * SystemTap, a value that could fail (a division, a read of memory) is
 * pure all the same: dropping it drops its error too.
 */
#include "config.h"

#include <string.h>

#include "sem.h"
#include "sem_internal.h"

enum { PURITY_UNKNOWN, PURITY_COMPUTING, PURITY_PURE, PURITY_IMPURE };

static bool function_pure(struct sem *sem, struct sem_function *f);

static bool is_local(const struct sem_function *f, const char *name)
{
	const struct var *v = f ? sem_find_var(f->locals, name) : NULL;

	return v && (v->kind == V_LOCAL || v->kind == V_PARAM);
}

/* Every loaded function called name is pure (overloads, privates of
 * different files), and one takes nargs: a call that does not resolve
 * stays, for pass 2 to say why. */
static bool calls_pure(struct sem *sem, const char *name, int nargs)
{
	bool found = false;

	for (struct sem_function *f = sem_find_loaded(sem, name); f; f = f->overload) {
		if (!function_pure(sem, f))
			return false;
		found |= f->nparams == nargs;
	}
	return found;
}

static int count(const struct expr *args)
{
	int n = 0;

	for (; args; args = args->next)
		n++;
	return n;
}

/* No effect but its value, except writes to f's own locals (f: NULL for
 * an expression of a handler, where any write counts). */
static bool expr_pure(struct sem *sem, struct sem_function *f, const struct expr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case E_ASSIGN:
		if (e->a->kind != E_SYMBOL || !is_local(f, e->a->name) || e->opid == OP_AGG)
			return false;
		return expr_pure(sem, f, e->b);
	case E_UNARY:
	case E_POSTFIX:
		if ((e->opid == OP_INCR || e->opid == OP_DECR) &&
		    (e->a->kind != E_SYMBOL || !is_local(f, e->a->name)))
			return false;
		break;
	case E_CALL:
		if (sem_is_builtin(e->name)) {
			if (strncmp(e->name, "sprint", 6))
				return false;	/* print, printf, println, printd... */
		} else if (!calls_pure(sem, e->name, count(e->args))) {
			return false;
		}
		break;
	case E_EMBEDDED:	/* a constant of C, if marked so (@MAXSTRINGLEN) */
		return strstr(e->str, "/* pure */") != NULL;
	case E_AT_CALL:
	case E_PROBEWRITE:
	case E_HIST:
		return false;
	default:
		break;
	}
	for (const struct expr *a = e->args; a; a = a->next)
		if (!expr_pure(sem, f, a))
			return false;
	for (const struct component *c = e->chain; c; c = c->next)
		if (!expr_pure(sem, f, c->index))
			return false;
	return expr_pure(sem, f, e->a) && expr_pure(sem, f, e->b) && expr_pure(sem, f, e->c);
}

static bool stmt_pure(struct sem *sem, struct sem_function *f, const struct stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case S_DELETE:
		case S_EMBEDDED:
			return false;
		case S_FOREACH:
			if (!expr_pure(sem, f, s->fe->limit) || !stmt_pure(sem, f, s->body))
				return false;
			continue;
		default:
			break;
		}
		if (!expr_pure(sem, f, s->e) || !expr_pure(sem, f, s->init) ||
		    !expr_pure(sem, f, s->incr) || !stmt_pure(sem, f, s->body) ||
		    !stmt_pure(sem, f, s->els))
			return false;
	}
	return true;
}

static bool function_pure(struct sem *sem, struct sem_function *f)
{
	if (f->purity == PURITY_UNKNOWN) {
		f->purity = PURITY_COMPUTING;	/* a recursive call: pure */
		if (f->fn->embedded)
			f->purity = strstr(f->fn->embedded, "/* pure */") ? PURITY_PURE
									   : PURITY_IMPURE;
		else
			f->purity = stmt_pure(sem, f, f->fn->body) ? PURITY_PURE : PURITY_IMPURE;
	}
	return f->purity != PURITY_IMPURE;
}

bool sem_pure(struct sem *sem, const struct expr *e)
{
	return expr_pure(sem, NULL, e);
}
