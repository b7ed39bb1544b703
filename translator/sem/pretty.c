// SPDX-License-Identifier: GPL-2.0
/*
 * pretty.c - $var$ and $var$$: a value pretty-printed from its BTF type,
 * as SystemTap prints it from DWARF.
 *
 * The expression becomes one sprintf() whose arguments are the members'
 * own $var chains ("$file$" is sprintf("{.f_path={...}, .f_inode=%p, ...}",
 * $file->f_inode, ...)), resolved and read like any other; pass 3 runs it
 * under a catch, so a fault prints "ERROR" as SystemTap's does.
 *
 * SystemTap's rules, which the output must match byte for byte: at the
 * top, a pointer is followed to what it points to; inside a struct, one
 * level ($) prints nested structs as "{...}", arrays as "[...]" and
 * pointers as %p, two ($$) expands them too.  Characters are '%#c', char
 * arrays and char pointers strings (kernel_or_user_string_quoted), signed
 * numbers and enums %i, unsigned %u, a function pointer "<function>:%p",
 * an array its first element then ", ...".  An unnamed union member is
 * "<union>=", an unnamed struct "<class>=" (SystemTap swaps the names).
 * At most 32 values, then "...".  A struct passed by value in registers
 * has no address to read its members at: its layout, each value "?", as
 * SystemTap 4.8 prints it ({.tgid=?, .task=?}).
 */
#include <stdlib.h>
#include <string.h>

#include "sem_internal.h"
#include "tvar.h"
#include "xalloc.h"

#define MAX_VALUES	32	/* SystemTap's limit of a print_format's arguments */

struct pretty {
	struct sem *sem;
	const struct btf *btf;
	bool full;			/* $$: nested structs and arrays too */
	bool unlocated;			/* no address to read it at: every value "?" */
	FILE *fmt;
	struct expr *args, **tail;
	int nvalues;
};

/* A copy of e to read as a plain value: no '$', out of any list. */
static struct expr *plain(struct pretty *P, const struct expr *e)
{
	struct expr *copy = arena_new(P->sem->a, struct expr);

	*copy = *e;
	copy->next = NULL;
	copy->pretty = 0;
	return copy;
}

/* e with one more component: .member, or [index]. */
static struct expr *extend(struct pretty *P, const struct expr *e, const char *member, int index)
{
	struct expr *copy = plain(P, e);
	struct component **tail = &copy->chain, *c;

	for (const struct component *k = e->chain; k; k = k->next) {
		*tail = arena_new(P->sem->a, struct component);
		**tail = *k;
		tail = &(*tail)->next;
	}
	c = arena_new(P->sem->a, struct component);
	c->loc = e->loc;
	c->member = member;
	if (!member) {
		c->index = arena_new(P->sem->a, struct expr);
		c->index->kind = E_NUMBER;
		c->index->loc = e->loc;
		c->index->num = index;
	}
	*tail = c;
	return copy;
}

/* One value: spec in the format, value (e, or fn(e)) among the arguments. */
static void value(struct pretty *P, const char *spec, const struct expr *e, const char *fn)
{
	struct expr *v;

	if (P->unlocated) {
		fputc('?', P->fmt);
		return;
	}
	v = plain(P, e);
	if (fn) {
		struct expr *call = arena_new(P->sem->a, struct expr);

		call->kind = E_CALL;
		call->loc = e->loc;
		call->name = fn;
		call->args = v;
		v = call;
	}
	fputs(spec, P->fmt);
	*P->tail = v;
	P->tail = &v->next;
	P->nvalues++;
}

static bool is_char(const struct btf_type *t)
{
	return btf_is_int(t) && t->size == 1 && !(btf_int_encoding(t) & BTF_INT_BOOL);
}

static const struct btf_type *resolved(struct pretty *P, __u32 *id)
{
	int r = *id ? btf__resolve_type(P->btf, *id) : 0;

	*id = r > 0 ? r : 0;
	return *id ? btf__type_by_id(P->btf, *id) : NULL;
}

/* A number's spec: a character escaped (not in a bitfield), else by sign. */
static const char *number_spec(const struct btf_type *t, bool bitfield)
{
	if (is_char(t) && !bitfield)
		return "'%#c'";
	if (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_SIGNED))
		return "%u";
	return "%i";
}

static void recurse(struct pretty *P, __u32 id, const struct expr *e, bool top);

static void members(struct pretty *P, const struct btf_type *t, const struct expr *e, int *count)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(P->btf, m->name_off);
		__u32 id = m->type;
		const struct btf_type *mt = resolved(P, &id);
		const struct expr *me = e;

		if (++*count > 1)
			fputs(", ", P->fmt);
		if (P->nvalues >= MAX_VALUES) {
			fputs("...", P->fmt);
			break;
		}
		if (name && *name) {
			fprintf(P->fmt, ".%s", name);
			me = extend(P, e, name, 0);
		} else if (mt && btf_is_union(mt)) {
			fputs("<union>", P->fmt);
		} else if (mt && btf_is_struct(mt)) {
			fputs("<class>", P->fmt);
		}
		fputc('=', P->fmt);
		if (btf_member_bitfield_size(t, i)) {
			if (mt && (btf_is_int(mt) || btf_is_enum(mt)))
				value(P, number_spec(mt, true), me, NULL);
			else
				fputc('?', P->fmt);
		} else {
			recurse(P, m->type, me, false);
		}
	}
}

static void recurse(struct pretty *P, __u32 id, const struct expr *e, bool top)
{
	const struct btf_type *t = resolved(P, &id), *pointee;
	__u32 target;

	if (!t) {
		value(P, "%p", e, NULL);	/* void: only a top-level void * gets here */
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		value(P, number_spec(t, false), e, NULL);
		break;
	case BTF_KIND_ARRAY:
		if (!top && !P->full) {
			fputs("[...]", P->fmt);
			break;
		}
		target = btf_array(t)->type;
		pointee = resolved(P, &target);
		if (pointee && is_char(pointee)) {
			value(P, "%s", e, "kernel_or_user_string_quoted");
			break;
		}
		/* Only the first element: SystemTap never learned the length. */
		fputc('[', P->fmt);
		if (P->nvalues < MAX_VALUES)
			recurse(P, btf_array(t)->type, extend(P, e, NULL, 0), false);
		fputs(", ...]", P->fmt);
		break;
	case BTF_KIND_PTR:
		target = t->type;
		pointee = resolved(P, &target);
		if (pointee && is_char(pointee))
			value(P, "%s", e, "kernel_or_user_string_quoted");
		else if (pointee && top && btf_is_ptr(pointee))
			recurse(P, target, extend(P, e, NULL, 0), true);	/* T **p: *p */
		else if (pointee && top)
			recurse(P, target, e, true);
		else
			value(P, "%p", e, NULL);
		break;
	case BTF_KIND_FUNC_PROTO:
		value(P, "<function>:%p", e, NULL);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		int count = 0;

		fputc('{', P->fmt);
		if (top || P->full)
			members(P, t, e, &count);
		else
			fputs("...", P->fmt);
		fputc('}', P->fmt);
		break;
	}
	case BTF_KIND_FWD:
		fputs("{...}", P->fmt);
		break;
	default:
		fputc('?', P->fmt);	/* floats */
		break;
	}
}

enum vtype sem_pretty(struct sem *sem, struct scope *sc, struct expr *e, const struct btf *btf,
		      __u32 type, bool at_pointer, bool unlocated)
{
	struct pretty P = { .sem = sem, .btf = btf, .full = e->pretty > 1, .unlocated = unlocated };
	struct tvar_error err = { 0 };
	struct expr *args = NULL;
	const char *format;
	char *text = NULL;
	size_t len = 0;
	__u32 end;

	if (e->addressof) {
		sem_error(sem, &e->loc, NULL, "'&' and '$' pretty printing do not go together");
		return T_UNKNOWN;
	}
	if (tvar_end_type(sem->a, btf, e, type, at_pointer, &end, &err)) {
		sem_error(sem, err.loc, err.what, "%s", err.msg);
		return T_UNKNOWN;
	}
	P.fmt = open_memstream(&text, &len);
	if (!P.fmt)
		out_of_memory();
	P.tail = &args;
	recurse(&P, end, e, true);
	fclose(P.fmt);
	format = arena_strndup(sem->a, text, len);
	free(text);
	return sem_expand_sprintf(sem, sc, e, format, args, true);
}
