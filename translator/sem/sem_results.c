// SPDX-License-Identifier: GPL-2.0
/*
 * sem_results.c - what pass 2 found, as pass 3 and -p2 see it: the
 * globals, functions and handlers of the script, each $var's resolution,
 * and the -p2 listing of types.
 */
#include "config.h"

#include <stdio.h>

#include "sem_internal.h"
#include "session.h"

struct var *sem_global(struct session *s, const char *name)
{
	return strmap_get(&s->sem->global_index, name);
}

int sem_nfunctions(struct session *s)
{
	return s->sem->nfunctions;
}

struct var *sem_globals(struct session *s)
{
	return s->sem->globals;
}

bool sem_user_global(const struct session *s, const struct var *v)
{
	return v->global && s->user && v->global->loc.src == s->user->src;
}

struct sem_function *sem_functions(struct session *s)
{
	return s->sem->functions;
}

const struct sem_function *sem_function_of(struct session *s, const struct expr *call)
{
	int nargs = 0;

	for (const struct expr *a = call->args; a; a = a->next)
		nargs++;
	for (const struct sem_function *f = sem_find_loaded(s->sem, call->name); f; f = f->overload)
		if (f->nparams == nargs)
			return f;
	return NULL;
}

struct sem_handler *sem_handlers(struct session *s)
{
	return s->sem->handlers;
}

struct sem_handler *sem_handler_of(struct session *s, const struct derived_probe *d)
{
	return sem_handler_for(s->sem, d);
}

const struct tvar *sem_tvar(struct session *s, const struct expr *e)
{
	return s->sem ? tvar_map_get(s->sem->tvars, e) : NULL;
}

void sem_print(struct session *s, FILE *out)
{
	struct sem *sem = s->sem;

	if (!sem)
		return;
	fputs("# globals\n", out);
	for (struct var *v = sem->globals; v; v = v->next) {
		fprintf(out, "%s:%s", v->name, vtype_name(v->type));
		if (v->nkeys) {
			fputs(" [", out);
			for (int i = 0; i < v->nkeys; i++)
				fprintf(out, "%s%s", i ? ", " : "", vtype_name(v->keys[i]));
			fputc(']', out);
		}
		fputc('\n', out);
	}
	fputs("# functions\n", out);
	for (struct sem_function *f = sem->functions; f; f = f->next) {
		fprintf(out, "%s:%s (", f->fn->name, vtype_name(f->ret));
		for (struct var *p = f->locals; p && p->kind == V_PARAM; p = p->next)
			fprintf(out, "%s%s:%s", p == f->locals ? "" : ", ", p->name, vtype_name(p->type));
		fputs(")\n", out);
	}
}
