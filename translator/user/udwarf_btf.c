// SPDX-License-Identifier: GPL-2.0
/*
 * udwarf_btf.c - a user program's DWARF types rewritten as BTF (libbpf's
 * btf__add_*), so that $p->next->name, $b->corner[1], $p$ and @cast walk
 * user structures with the same code that walks the kernel's (tvar.c,
 * pretty.c); pass 3 reads through them from user memory (target.c).
 *
 * A type is converted when a variable needs it, with every type it
 * reaches, each once (by DIE offset).  BTF wants a struct's members
 * right after the struct, so their types are converted first; a pointer
 * to a struct whose conversion is under way (a list's next) is added
 * pointing nowhere and pointed at the struct once it is there.  What BTF
 * cannot say (functions, DWARF 5's odder types) becomes void.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "udwarf_btf.h"

#define MAX_TYPES	20000	/* a program's types reached from its variables */
#define MAX_DEPTH	64

struct conv_entry {
	Dwarf_Off die;
	__s32 id;		/* 0 while its conversion is under way */
};

struct fixup {
	__s32 ptr;		/* a pointer added pointing nowhere */
	Dwarf_Off target;	/* ... to this struct */
};

struct dwarf_btf {
	struct btf *btf;
	struct conv_entry *map;
	size_t n, cap;
	struct fixup *fixups;
	size_t nfix, capfix;
	__s32 index_type;	/* arrays' index type */
};

struct dwarf_btf *dwarf_btf_new(struct btf *btf)
{
	struct dwarf_btf *c = calloc(1, sizeof(*c));

	if (c)
		c->btf = btf;
	return c;
}

void dwarf_btf_free(struct dwarf_btf *c)
{
	if (!c)
		return;
	free(c->map);
	free(c->fixups);
	free(c);
}

static struct conv_entry *find(struct dwarf_btf *c, Dwarf_Off die)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->map[i].die == die)
			return &c->map[i];
	return NULL;
}

static struct conv_entry *remember(struct dwarf_btf *c, Dwarf_Off die)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct conv_entry *m = realloc(c->map, cap * sizeof(*m));

		if (!m)
			return NULL;
		c->map = m;
		c->cap = cap;
	}
	c->map[c->n] = (struct conv_entry){ .die = die };
	return &c->map[c->n++];
}

static __s32 convert(struct dwarf_btf *c, Dwarf_Die *t, int depth);

/* The type die's DW_AT_type refers to, converted; 0 (void) if none. */
static __s32 inner(struct dwarf_btf *c, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return 0;
	return convert(c, &t, depth + 1);
}

static __s32 base_type(struct dwarf_btf *c, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	const char *name = dwarf_diename(t);
	int size = dwarf_bytesize(t), flags = 0;

	if (!name || size <= 0)
		return 0;
	dwarf_formudata(dwarf_attr_integrate(t, DW_AT_encoding, &at), &enc);
	if (enc == DW_ATE_float)
		return btf__add_float(c->btf, name, size);
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		flags = BTF_INT_SIGNED;
	else if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	else if (enc != DW_ATE_unsigned && enc != DW_ATE_unsigned_char)
		return 0;
	if (size > 16)
		return 0;
	return btf__add_int(c->btf, name, size, flags);
}

/* A struct or union: its members' types first, then it, then them. */
static __s32 aggregate(struct dwarf_btf *c, Dwarf_Die *t, struct conv_entry *self, int depth)
{
	bool is_union = dwarf_tag(t) == DW_TAG_union_type;
	const char *name = dwarf_diename(t);
	struct { const char *name; __s32 type; __u32 bit_off, bits; } m[256];
	Dwarf_Off off = dwarf_dieoffset(t);
	int n = 0, size = dwarf_bytesize(t);
	Dwarf_Die child;
	__s32 id;

	if (dwarf_hasattr(t, DW_AT_declaration) || size < 0)
		return btf__add_fwd(c->btf, name ? name : "", is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	if (dwarf_child(t, &child) == 0) {
		do {
			Dwarf_Attribute at;
			Dwarf_Word loc = 0, bits = 0, bit_off = 0;

			if (dwarf_tag(&child) != DW_TAG_member || n == 256)
				continue;
			if (dwarf_formudata(dwarf_attr(&child, DW_AT_data_bit_offset, &at), &bit_off)) {
				dwarf_formudata(dwarf_attr(&child, DW_AT_data_member_location, &at), &loc);
				bit_off = loc * 8;
			}
			dwarf_formudata(dwarf_attr(&child, DW_AT_bit_size, &at), &bits);
			m[n].name = dwarf_diename(&child);
			m[n].type = inner(c, &child, depth);
			m[n].bit_off = bit_off;
			m[n].bits = bits;
			if (m[n].type < 0)
				return m[n].type;
			n++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	self = find(c, off);	/* the map may have moved */
	id = is_union ? btf__add_union(c->btf, name, size) : btf__add_struct(c->btf, name, size);
	for (int i = 0; id > 0 && i < n; i++)
		if (btf__add_field(c->btf, m[i].name, m[i].type, m[i].bit_off, m[i].bits))
			return -1;
	if (id > 0 && self) {
		self->id = id;
		/* pointers to it added while its members were converted */
		for (size_t i = 0; i < c->nfix; i++) {
			if (c->fixups[i].target != off)
				continue;
			((struct btf_type *)btf__type_by_id(c->btf, c->fixups[i].ptr))->type = id;
			c->fixups[i].target = (Dwarf_Off)-1;
		}
	}
	return id;
}

static __s32 array(struct dwarf_btf *c, Dwarf_Die *t, int depth)
{
	__s32 elem = inner(c, t, depth);
	Dwarf_Word dims[8];
	int nd = 0;
	Dwarf_Die sub;

	if (elem < 0)
		return elem;
	if (dwarf_child(t, &sub) == 0) {
		do {
			Dwarf_Attribute at;
			Dwarf_Word count = 0, upper;

			if (dwarf_tag(&sub) != DW_TAG_subrange_type || nd == 8)
				continue;
			if (dwarf_formudata(dwarf_attr(&sub, DW_AT_count, &at), &count) &&
			    !dwarf_formudata(dwarf_attr(&sub, DW_AT_upper_bound, &at), &upper))
				count = upper + 1;
			dims[nd++] = count;
		} while (dwarf_siblingof(&sub, &sub) == 0);
	}
	if (!c->index_type)
		c->index_type = btf__add_int(c->btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	if (!nd)
		dims[nd++] = 0;
	/* int a[2][3]: an array of 2 arrays of 3 */
	for (int i = nd - 1; i >= 0 && elem >= 0; i--)
		elem = btf__add_array(c->btf, c->index_type, elem, dims[i]);
	return elem;
}

static __s32 enumeration(struct dwarf_btf *c, Dwarf_Die *t)
{
	const char *name = dwarf_diename(t);
	int size = dwarf_bytesize(t);
	Dwarf_Die child;
	__s32 id = btf__add_enum(c->btf, name, size > 0 ? size : 4);

	if (id > 0 && dwarf_child(t, &child) == 0) {
		do {
			Dwarf_Attribute at;
			Dwarf_Sword v = 0;

			if (dwarf_tag(&child) != DW_TAG_enumerator)
				continue;
			dwarf_formsdata(dwarf_attr(&child, DW_AT_const_value, &at), &v);
			if (btf__add_enum_value(c->btf, dwarf_diename(&child), v))
				return -1;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return id;
}

/* A pointer to t: to a struct under way (through typedefs and
 * qualifiers), added now and pointed at the struct later. */
static __s32 pointer(struct dwarf_btf *c, Dwarf_Die *t, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die to;
	struct conv_entry *e;
	__s32 id;
	int hops = 0;

	if (!dwarf_attr_integrate(t, DW_AT_type, &at) || !dwarf_formref_die(&at, &to))
		return btf__add_ptr(c->btf, 0);		/* void * */
	if (dwarf_tag(&to) == DW_TAG_subroutine_type)
		return btf__add_ptr(c->btf, 0);		/* a function's: void * */
	for (Dwarf_Die s = to; hops < 8; hops++) {
		int tag = dwarf_tag(&s);

		if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		     tag == DW_TAG_class_type) && (e = find(c, dwarf_dieoffset(&s))) && !e->id) {
			id = btf__add_ptr(c->btf, 0);
			if (id <= 0)
				return id;
			if (c->nfix == c->capfix) {
				size_t cap = c->capfix ? 2 * c->capfix : 16;
				struct fixup *f = realloc(c->fixups, cap * sizeof(*f));

				if (!f)
					return -1;
				c->fixups = f;
				c->capfix = cap;
			}
			c->fixups[c->nfix++] = (struct fixup){ .ptr = id, .target = dwarf_dieoffset(&s) };
			return id;
		}
		if ((tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		     tag != DW_TAG_volatile_type) || !dwarf_attr_integrate(&s, DW_AT_type, &at) ||
		    !dwarf_formref_die(&at, &s))
			break;
	}
	id = convert(c, &to, depth + 1);
	return id < 0 ? id : btf__add_ptr(c->btf, id);
}

static __s32 convert(struct dwarf_btf *c, Dwarf_Die *t, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(t);
	struct conv_entry *e = find(c, off);
	__s32 id = 0, in;

	if (e)
		return e->id;	/* 0 if under way: only pointers reach it so */
	if (depth > MAX_DEPTH || c->n >= MAX_TYPES)
		return 0;
	/* A pointer is remembered once made: one pointer DIE can be both a
	 * variable's type and a member's of the struct it points to. */
	if (dwarf_tag(t) == DW_TAG_pointer_type || dwarf_tag(t) == DW_TAG_reference_type) {
		id = pointer(c, t, depth);
		if (id > 0 && !find(c, off) && (e = remember(c, off)))
			e->id = id;
		return id > 0 ? id : 0;
	}
	if (!(e = remember(c, off)))
		return 0;
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		id = base_type(c, t);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
		in = inner(c, t, depth);
		if (in < 0)
			return in;
		if (dwarf_tag(t) == DW_TAG_typedef)
			id = btf__add_typedef(c->btf, dwarf_diename(t) ? dwarf_diename(t) : "", in);
		else if (dwarf_tag(t) == DW_TAG_const_type)
			id = btf__add_const(c->btf, in);
		else if (dwarf_tag(t) == DW_TAG_volatile_type)
			id = btf__add_volatile(c->btf, in);
		else
			id = btf__add_restrict(c->btf, in);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		id = aggregate(c, t, e, depth);
		break;
	case DW_TAG_array_type:
		id = array(c, t, depth);
		break;
	case DW_TAG_enumeration_type:
		id = enumeration(c, t);
		break;
	}
	e = find(c, off);	/* the map may have moved */
	if (e)
		e->id = id > 0 ? id : 0;
	return id > 0 ? id : 0;
}

__u32 dwarf_btf_type(struct dwarf_btf *c, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!c || !dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return 0;
	return convert(c, &t, 0);
}

__u32 dwarf_btf_die(struct dwarf_btf *c, Dwarf_Die *type)
{
	return c ? convert(c, type, 0) : 0;
}
