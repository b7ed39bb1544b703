/*
 * target.c - pass 3: $var, $var->a->b[i], @cast(p, "type")->m, &..., and
 * $$parms, $$vars, $$locals, $$return, as C.
 *
 * Types come from BTF, never DWARF: a $var is an argument of the probed
 * function (read from the registers by the calling convention, or as
 * saved at entry in a .return probe) or its $return.  A chain walks the
 * types at translation time and leaves at run time one
 * copy_from_kernel_nofault() per pointer followed (kmod-runtime/target.h);
 * members of embedded structs and arrays only add to the address.
 *
 * A handler serves every concrete probe of its user probe; when those are
 * different functions (kernel.function("vfs_*")), a $var must be the same
 * argument with the same type in all of them, or pass 3 says so.
 */
#include "config.h"

#include <string.h>

#include "kbtf.h"
#include "print.h"
#include "xlate.h"

/* Where a chain is: a value in t, or an object at address t. */
struct place {
	__u32 type;
	bool lvalue;		/* t is the address of an object of type */
	__u32 bit_offset;	/* an lvalue bitfield: its first bit in the byte at t */
	__u32 bit_size;
};

struct chain {
	struct xlate *x;
	const struct btf *btf;
	const char *where;	/* for faults: "identifier '$file' at x.stp:3:9" */
	const char *t;		/* the temporary it is computed in (unsigned long) */
	unsigned long long off;	/* an lvalue's object is at t + off */
	const char *path;	/* the members off adds up: "->f_path.dentry" */
};

/* t + off as C, the offset commented with the members it stands for. */
static const char *address(struct chain *ch)
{
	if (!ch->off)
		return ch->t;
	return arena_printf(ch->x->a, "%s + %llu /* %s */", ch->t, ch->off, ch->path);
}

static const struct btf_type *stripped(const struct chain *ch, __u32 id)
{
	return btf__type_by_id(ch->btf, kbtf_strip(ch->btf, id));
}

/* An lvalue number at t becomes its value; a fault leaves the handler. */
static void load(struct chain *ch, struct place *p, const struct loc *loc)
{
	const struct btf_type *t = stripped(ch, p->type);
	int size, shift = p->bit_offset;
	bool is_signed;

	if (t && btf_is_array(t))
		return;		/* an array: its address is its value */
	if (kbtf_scalar(ch->btf, p->type, &size, &is_signed)) {
		gen_error(ch->x, loc, "reading a %s is not supported",
			  kbtf_type_name(ch->x->a, ch->btf, p->type));
		return;
	}
	if (p->bit_size) {
		int bytes = (shift + p->bit_size + 7) / 8;

		size = bytes <= 1 ? 1 : bytes <= 2 ? 2 : bytes <= 4 ? 4 : 8;
	}
	gen_line(ch->x, arena_printf(ch->x->a, "%s = ctap_kread(c, %s, %d, %s,", ch->t,
				     address(ch), size, !p->bit_size && is_signed ? "true" : "false"));
	gen_line(ch->x, arena_printf(ch->x->a, "\t\t%s);", ch->where));
	gen_fail_if(ch->x, "c->last_error");
	if (p->bit_size)
		gen_line(ch->x, arena_printf(ch->x->a, "%s = ctap_bitfield(%s, %d, %u, %s);", ch->t,
					     ch->t, shift, p->bit_size, is_signed ? "true" : "false"));
	ch->off = 0;
	ch->path = "";
	p->lvalue = false;
	p->bit_offset = p->bit_size = 0;
}

/* ->member: through a pointer (loaded), or within a struct at t. */
static int member(struct chain *ch, struct place *p, const struct component *c)
{
	struct kbtf_field f;
	const struct btf_type *t = stripped(ch, p->type);

	if (t && btf_is_ptr(t)) {
		if (p->lvalue)
			load(ch, p, &c->loc);
		p->lvalue = true;
		ch->path = arena_printf(ch->x->a, "->%s", c->member);
	} else if (p->lvalue) {
		ch->path = arena_printf(ch->x->a, "%s.%s", ch->path, c->member);
	} else {
		gen_error(ch->x, &c->loc, "'->%s' on a struct passed by value is not supported",
			  c->member);
		return -1;
	}
	if (kbtf_member(ch->btf, p->type, c->member, &f))
		return -1;	/* pass 2 said why */
	ch->off += f.bit_offset / 8;
	p->type = f.type;
	p->bit_offset = f.bit_offset % 8;
	p->bit_size = f.bit_size;
	return 0;
}

/* [i]: an element of a pointed-to or embedded array. */
static int element(struct chain *ch, struct place *p, const struct component *c)
{
	const struct btf_type *t = stripped(ch, p->type);
	const char *index = gen_expr(ch->x, c->index);
	__u32 elem;
	__s64 size;

	if (kbtf_element(ch->btf, p->type, &elem))
		return -1;
	size = btf__resolve_size(ch->btf, elem);
	if (size < 0) {
		gen_error(ch->x, &c->loc, "'[...]' on an array of elements of unknown size");
		return -1;
	}
	if (btf_is_ptr(t)) {
		if (p->lvalue)
			load(ch, p, &c->loc);
	} else if (!p->lvalue) {
		gen_error(ch->x, &c->loc, "'[...]' on an array passed by value is not supported");
		return -1;
	}
	gen_line(ch->x, arena_printf(ch->x->a, "%s = %s + (unsigned long)(%s) * %lld;", ch->t,
				     address(ch), index, (long long)size));
	ch->off = 0;
	ch->path = "";
	p->type = elem;
	p->lvalue = true;
	return 0;
}

/* The chain after the base, then the value (or address) as an int64_t. */
static const char *walk(struct chain *ch, const struct expr *e, struct place p)
{
	for (const struct component *c = e->chain; c; c = c->next) {
		if (p.bit_size) {
			gen_error(ch->x, &c->loc, "a bitfield has no members or elements");
			return "0";
		}
		if (c->member ? member(ch, &p, c) : element(ch, &p, c))
			return "0";
	}
	if (e->addressof) {
		if (!p.lvalue || p.bit_size) {
			gen_error(ch->x, &e->loc, "'&' needs a member or an element in memory");
			return "0";
		}
	} else if (p.lvalue) {
		load(ch, &p, &e->loc);
	}
	return arena_printf(ch->x->a, "(int64_t)(%s)", address(ch));
}

/* Does e read the same from a value of type a as of type b?  A number
 * needs the same size and sign; a chain, the very same type. */
static bool same_read(struct xlate *x, const struct expr *e, __u32 a, __u32 b)
{
	const struct btf *btf = elab_session_btf(x->s);
	int asize, bsize;
	bool asigned, bsigned;

	if (a == b)
		return true;
	return !e->chain && !kbtf_scalar(btf, a, &asize, &asigned) &&
	       !kbtf_scalar(btf, b, &bsize, &bsigned) && asize == bsize && asigned == bsigned;
}

/*
 * The variable v of the handler's first probe, checked against its other
 * probes; NULL (with an error) if they differ.
 */
static const struct probe_var *probe_var(struct xlate *x, const struct expr *e)
{
	const struct derived_probe *site = x->sc->site;
	const struct probe_var *v = NULL;

	for (v = site ? site->vars : NULL; v; v = v->next)
		if (!strcmp(v->name, e->name))
			break;
	if (!v) {
		gen_error(x, &e->loc, "no target variable '%s' here", e->name);
		return NULL;
	}
	for (int i = 0; i < x->nprobes; i++) {
		const struct derived_probe *d = x->probes[i].d;
		const struct probe_var *w;

		if (x->probes[i].handler != x->sc->handler || d == site)
			continue;
		for (w = d->vars; w; w = w->next)
			if (!strcmp(w->name, e->name))
				break;
		if (!w || w->arg != v->arg || !same_read(x, e, v->btf_id, w->btf_id)) {
			gen_error(x, &e->loc, "'%s' is %s in %s but %s in %s: a probe's $vars must be "
				  "the same in every function it matches", e->name, v->type,
				  site->name, w ? w->type : "missing", d->name);
			return NULL;
		}
	}
	if (v->arg >= 0 && site->is_return) {
		if (v->arg >= CTAP_ENTRY_ARGS) {
			gen_error(x, &e->loc, "'%s' is argument %d: a .return probe sees only the "
				  "first %d", e->name, v->arg + 1, CTAP_ENTRY_ARGS);
			return NULL;
		}
		for (int i = 0; i < x->nprobes; i++)
			if (x->probes[i].handler == x->sc->handler)
				x->probes[i].entry_args = true;
	}
	return v;
}

/* $var, $var->chain: from an argument or the return value. */
static const char *variable(struct xlate *x, const struct btf *btf, const struct expr *e)
{
	const struct probe_var *v = probe_var(x, e);
	struct chain ch = { .x = x, .btf = btf, .path = "",
			    .where = gen_where(x, &e->loc, arena_printf(x->a, "identifier '%s'", e->name)) };
	struct place p = { 0 };
	const char *reg;
	int size;
	bool is_signed;

	if (!v)
		return "0";
	if (e->addressof && !e->chain) {
		gen_error(x, &e->loc, "'&%s': an argument has no address", e->name);
		return "0";
	}
	p.type = v->btf_id;
	reg = v->arg < 0 ? "ctap_retval(c)" : arena_printf(x->a, "ctap_arg(c, %d)", v->arg);
	if (!e->chain && !kbtf_scalar(btf, v->btf_id, &size, &is_signed) && size < 8)
		return arena_printf(x->a, "ctap_extend(%s, %d, %s)", reg, size,
				    is_signed ? "true" : "false");
	if (!e->chain)
		return arena_printf(x->a, "(int64_t)%s", reg);
	ch.t = gen_temp(x, "unsigned long %s", e->name + 1);
	gen_line(x, arena_printf(x->a, "%s = %s;", ch.t, reg));
	return walk(&ch, e, p);
}

/* @cast(p, "type")->chain: an object of type at address p. */
static const char *cast(struct xlate *x, const struct btf *btf, const struct expr *e)
{
	struct chain ch = { .x = x, .btf = btf, .path = "",
			    .where = gen_where(x, &e->loc, "operator '@cast'") };
	struct place p = { .lvalue = true };

	if (!e->chain)
		return gen_expr(x, e->a);	/* the pointer itself */
	if (kbtf_find_type(btf, e->str, &p.type))
		return "0";	/* pass 2 said so */
	ch.t = gen_temp(x, "unsigned long %s", "cast");
	gen_line(x, arena_printf(x->a, "%s = (unsigned long)%s;", ch.t, gen_expr(x, e->a)));
	return walk(&ch, e, p);
}

/* A synthetic node: a $var of e's probe, typed as pass 2 would. */
static struct expr *var_node(struct xlate *x, const struct expr *at, const char *name)
{
	struct expr *v = arena_new(x->a, struct expr);

	v->kind = E_TARGET;
	v->loc = at->loc;
	v->name = name;
	v->vtype = T_LONG;
	return v;
}

/*
 * $$parms is sprintf("a=%#x b=%#x", $a, $b), as SystemTap expands it;
 * $$return "return=%#x"; $$locals is empty (locals need DWARF); $$vars
 * is $$parms.  Members that are not numbers print as "?".
 */
static const char *dollar_dollar(struct xlate *x, const struct btf *btf, const struct expr *e)
{
	const struct derived_probe *site = x->sc->site;
	struct expr *call = arena_new(x->a, struct expr), *fmt = arena_new(x->a, struct expr);
	struct expr **tail = &fmt->next;
	bool ret = !strcmp(e->name, "$$return");
	char *text = "";
	int size;
	bool is_signed;

	if (!site || !strcmp(e->name, "$$locals"))
		return "\"\"";
	for (const struct probe_var *v = site->vars; v; v = v->next) {
		if ((v->arg < 0) != ret)
			continue;
		text = arena_printf(x->a, "%s%s%s=", text, *text ? " " : "", v->name + 1);
		if (kbtf_scalar(btf, v->btf_id, &size, &is_signed)) {
			text = arena_printf(x->a, "%s?", text);
			continue;
		}
		text = arena_printf(x->a, "%s%%#x", text);
		*tail = var_node(x, e, v->name);
		tail = &(*tail)->next;
	}
	call->kind = E_CALL;
	call->loc = e->loc;
	call->name = "sprintf";
	call->vtype = T_STRING;
	call->args = fmt;
	fmt->kind = E_STRING;
	fmt->loc = e->loc;
	fmt->str = text;
	fmt->vtype = T_STRING;
	return gen_expr(x, call);
}

const char *gen_target(struct xlate *x, const struct expr *e)
{
	struct btf *btf = elab_session_btf(x->s);

	if (!btf)
		return "0";
	if (e->pretty) {
		gen_error(x, &e->loc, "pretty printing with '$' (%s) is not supported yet",
			  expr_text(x->a, e));
		return "\"\"";
	}
	if (e->kind == E_CAST)
		return cast(x, btf, e);
	if (!strncmp(e->name, "$$", 2))
		return dollar_dollar(x, btf, e);
	return variable(x, btf, e);
}
