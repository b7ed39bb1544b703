// SPDX-License-Identifier: GPL-2.0
/*
 * tvar.c - target variables: a chain of members and indexes walked
 * through BTF into steps (tvar.h), and pass 2's table of resolutions.
 *
 * The walk keeps a "place": a value of some type, or an object of some
 * type at an address (an lvalue).  A member of a pointer loads the
 * pointer first; a member of an object in memory only adds its offset,
 * so $file->f_path.dentry is one load of f_path.dentry at file + 24.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbtf.h"
#include "print.h"
#include "tvar.h"
#include "xalloc.h"

/* ---- the table ---- */

struct tvar_map {
	const struct expr **keys;
	struct tvar *vals;
	size_t cap, n;		/* cap a power of two, n < cap / 2 */
};

struct tvar_map *tvar_map_new(void)
{
	return xcalloc(1, sizeof(struct tvar_map));
}

void tvar_map_free(struct tvar_map *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m);
}

static size_t slot_of(const struct tvar_map *m, const struct expr *e)
{
	size_t i = ((uintptr_t)e >> 4) * 0x9e3779b97f4a7c15ull & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != e)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void grow(struct tvar_map *m)
{
	struct tvar_map bigger = { .cap = m->cap ? m->cap * 2 : 64 };

	bigger.keys = xcalloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = xcalloc(bigger.cap, sizeof(*bigger.vals));
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		j = slot_of(&bigger, m->keys[i]);
		bigger.keys[j] = m->keys[i];
		bigger.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	bigger.n = m->n;
	*m = bigger;
}

void tvar_map_set(struct tvar_map *m, const struct expr *e, const struct tvar *t)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	i = slot_of(m, e);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = e;
	m->vals[i] = *t;
}

const struct tvar *tvar_map_get(const struct tvar_map *m, const struct expr *e)
{
	size_t i;

	if (!m || !m->cap)
		return NULL;
	i = slot_of(m, e);
	return m->keys[i] ? &m->vals[i] : NULL;
}

/* ---- the walk ---- */

struct walk {
	struct arena *a;
	const struct btf *btf;
	struct tvar_error *err;
	struct tvar_step *steps;
	int nsteps, cap;
	__u32 type;
	bool lvalue;		/* an object of type at the address */
	__u32 bit_offset;	/* an lvalue bitfield: its first bit in the byte at the address */
	__u32 bit_size;
	int64_t off;		/* not yet added to the address */
	const char *path;	/* ... the members it stands for */
	bool at_pointer;	/* no step yet from an @cast's pointer: [i] is
				   element i of an array of type there */
};

static int fail(struct walk *w, const struct loc *loc, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct walk *w, const struct loc *loc, const char *what, const char *fmt, ...)
{
	va_list ap;

	w->err->loc = loc;
	w->err->what = what;
	va_start(ap, fmt);
	vsnprintf(w->err->msg, sizeof(w->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static struct tvar_step *step(struct walk *w, enum tvar_op op, int64_t n)
{
	struct tvar_step *s;

	if (w->nsteps == w->cap) {
		struct tvar_step *old = w->steps;

		w->cap = w->cap ? w->cap * 2 : 8;
		w->steps = arena_alloc(w->a, w->cap * sizeof(*w->steps));
		if (old)
			memcpy(w->steps, old, w->nsteps * sizeof(*old));
	}
	s = &w->steps[w->nsteps++];
	s->op = op;
	s->n = n;
	return s;
}

/* The offset not yet added, added. */
static void settle(struct walk *w)
{
	if (w->off)
		step(w, TVAR_ADD, w->off)->what = w->path;
	w->off = 0;
	w->path = "";
}

static const struct btf_type *stripped(const struct walk *w, __u32 id)
{
	return btf__type_by_id(w->btf, kbtf_strip(w->btf, id));
}

/* The number in memory becomes the value (an array's value is its address). */
static int load(struct walk *w, const struct loc *loc)
{
	const struct btf_type *t = stripped(w, w->type);
	int size, shift = w->bit_offset;
	bool is_signed;

	if (t && btf_is_array(t))
		return 0;
	if (kbtf_scalar(w->btf, w->type, &size, &is_signed))
		return fail(w, loc, NULL, "reading a %s is not supported",
			    kbtf_type_name(w->a, w->btf, w->type));
	if (w->bit_size) {
		int bytes = (shift + w->bit_size + 7) / 8;

		size = bytes <= 1 ? 1 : bytes <= 2 ? 2 : bytes <= 4 ? 4 : 8;
	}
	settle(w);
	step(w, TVAR_LOAD, size)->is_signed = !w->bit_size && is_signed;
	if (w->bit_size) {
		struct tvar_step *s = step(w, TVAR_BITFIELD, shift);

		s->bits = w->bit_size;
		s->is_signed = is_signed;
	}
	w->lvalue = false;
	w->bit_offset = w->bit_size = 0;
	return 0;
}

/* ->member: through a pointer (loaded), or within an object in memory. */
static int member(struct walk *w, const struct component *c)
{
	const struct btf_type *t = stripped(w, w->type);
	struct kbtf_field f;
	int r = kbtf_member(w->btf, w->type, c->member, &f);

	if (r)
		return fail(w, &c->loc, arena_printf(w->a, "field '%s'", c->member),
			    r == -ENOENT ? "no member '%s' in %s" :
			    "'->%s' on %s, which is not a struct or union",
			    c->member, kbtf_type_name(w->a, w->btf, w->type));
	if (t && btf_is_ptr(t)) {
		if (w->lvalue && load(w, &c->loc))
			return -EINVAL;
		w->lvalue = true;
		w->path = arena_printf(w->a, "->%s", c->member);
	} else if (w->lvalue) {
		w->path = arena_printf(w->a, "%s.%s", w->path, c->member);
	} else {
		return fail(w, &c->loc, NULL, "'->%s' on a struct passed by value is not supported",
			    c->member);
	}
	w->off += f.bit_offset / 8;
	w->type = f.type;
	w->bit_offset = f.bit_offset % 8;
	w->bit_size = f.bit_size;
	return 0;
}

/* [i]: an element of a pointed-to or embedded array. */
static int element(struct walk *w, const struct component *c)
{
	const struct btf_type *t = stripped(w, w->type);
	__u32 elem;
	__s64 size;

	if (w->at_pointer && w->lvalue && kbtf_element(w->btf, w->type, &elem))
		elem = w->type;		/* @cast(p, "T")[i], as SystemTap: p as a T array */
	else if (kbtf_element(w->btf, w->type, &elem))
		return fail(w, &c->loc, NULL, "'[...]' on %s, which is not an array or pointer",
			    kbtf_type_name(w->a, w->btf, w->type));
	size = btf__resolve_size(w->btf, elem);
	if (size < 0)
		return fail(w, &c->loc, NULL, "'[...]' on an array of elements of unknown size");
	if (elem != w->type && btf_is_ptr(t)) {
		if (w->lvalue && load(w, &c->loc))
			return -EINVAL;
	} else if (!w->lvalue) {
		return fail(w, &c->loc, NULL, "'[...]' on an array passed by value is not supported");
	}
	settle(w);
	step(w, TVAR_INDEX, size)->index = c->index;
	w->type = elem;
	w->lvalue = true;
	return 0;
}

/* Every member and element of e's chain, from w's start. */
static int walk_chain(struct walk *w, const struct expr *e)
{
	for (const struct component *c = e->chain; c; c = c->next) {
		if (w->bit_size)
			return fail(w, &c->loc, NULL, "a bitfield has no members or elements");
		if (c->member ? member(w, c) : element(w, c))
			return -EINVAL;
		w->at_pointer = false;
	}
	return 0;
}

int tvar_end_type(struct arena *a, const struct btf *btf, const struct expr *e, __u32 type,
		  bool at_pointer, __u32 *end, struct tvar_error *err)
{
	struct walk w = { .a = a, .btf = btf, .err = err, .type = type, .path = "" };

	w.lvalue = w.at_pointer = at_pointer;
	if (walk_chain(&w, e))
		return -EINVAL;
	*end = w.type;
	return 0;
}

int tvar_from_btf(struct arena *a, const struct btf *btf, const struct expr *e, __u32 type,
		  struct tvar *t, struct tvar_error *err)
{
	struct walk w = { .a = a, .btf = btf, .err = err, .type = type, .path = "" };
	int size;
	bool is_signed;

	/* @cast: an object at the pointer; a structure local: at its address */
	w.lvalue = t->base == TVAR_POINTER || (t->base == TVAR_ARG && t->arg_is_address);
	t->btf = btf;
	t->value_type = 0;
	if (e->addressof && !e->chain && !w.lvalue)
		return fail(&w, &e->loc, NULL, "'&%s': an argument has no address", e->name);
	if (e->pretty)	/* sem_pretty() took it: not reached */
		return fail(&w, &e->loc, NULL, "%s: pretty printing is pass 2's", expr_text(a, e));
	w.at_pointer = t->base == TVAR_POINTER;
	if (walk_chain(&w, e))
		return -EINVAL;
	if (e->addressof) {
		if (!w.lvalue || w.bit_size)
			return fail(&w, &e->loc, NULL, "'&' needs a member or an element in memory");
	} else {
		enum kbtf_class k = kbtf_classify(btf, w.type);

		if (k == KBTF_AGGREGATE)
			return fail(&w, &e->loc, NULL, "%s is a %s: use a member, or $...$ to print it",
				    expr_text(a, e), kbtf_type_name(a, btf, w.type));
		if (k == KBTF_VOID)
			return fail(&w, &e->loc, NULL, "%s has no value (void)", expr_text(a, e));
		if (w.lvalue && load(&w, &e->loc))
			return -EINVAL;
	}
	settle(&w);
	/* Autocast: what a '->' or '[...]' on the value would start from. */
	if (e->addressof) {
		t->value_type = w.type;
		t->value_is_address = true;
	} else if (stripped(&w, w.type) && btf_is_ptr(stripped(&w, w.type))) {
		t->value_type = w.type;
		t->value_is_address = false;
	} else if (w.lvalue && stripped(&w, w.type) && btf_is_array(stripped(&w, w.type))) {
		t->value_type = w.type;
		t->value_is_address = true;
	}
	t->steps = w.steps;
	t->nsteps = w.nsteps;
	t->extend = 8;
	if (!e->chain && t->base != TVAR_POINTER && !kbtf_scalar(btf, type, &size, &is_signed) &&
	    size < 8) {
		t->extend = size;
		t->is_signed = is_signed;
	}
	return 0;
}

/* The BTF a split (module) BTF stands on: the kernel's, or btf itself. */
static const struct btf *root_btf(const struct btf *btf)
{
	while (btf__base_btf(btf))
		btf = btf__base_btf(btf);
	return btf;
}

/*
 * Modules' BTFs are split over the kernel's, so an id below the kernel's
 * count names one type in all of them; ids above it are each module's own.
 */
static bool same_id(const struct btf *abtf, __u32 a, const struct btf *bbtf, __u32 b)
{
	const struct btf *root = root_btf(abtf);

	if (a != b)
		return false;
	return abtf == bbtf || (root == root_btf(bbtf) && a < btf__type_cnt(root));
}

/* id without const, volatile and restrict, which do not change a read. */
static __u32 unqualified(const struct btf *btf, __u32 id)
{
	for (int i = 0; i < 8; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || !(btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t)))
			break;
		id = t->type;
	}
	return id;
}

/* The same type, but for qualifiers, at any depth of pointers
 * ("const struct net_device *" reads as "struct net_device *"). */
static bool same_type(const struct btf *abtf, __u32 a, const struct btf *bbtf, __u32 b)
{
	for (int depth = 0; depth < 8; depth++) {
		const struct btf_type *at, *bt;

		a = unqualified(abtf, a);
		b = unqualified(bbtf, b);
		if (same_id(abtf, a, bbtf, b))
			return true;
		at = btf__type_by_id(abtf, a);
		bt = btf__type_by_id(bbtf, b);
		if (!at || !bt || !btf_is_ptr(at) || !btf_is_ptr(bt))
			return false;
		a = at->type;
		b = bt->type;
	}
	return false;
}

bool tvar_btf_same_read(const struct btf *abtf, __u32 a, const struct btf *bbtf, __u32 b,
			const struct expr *e)
{
	int asize, bsize;
	bool asigned, bsigned;

	if (same_type(abtf, a, bbtf, b))
		return true;
	return !e->chain && !kbtf_scalar(abtf, a, &asize, &asigned) &&
	       !kbtf_scalar(bbtf, b, &bsize, &bsigned) && asize == bsize && asigned == bsigned;
}
