// SPDX-License-Identifier: GPL-2.0
/*
 * kbtf.c - find, extract, cache and load the target kernel's BTF.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cache.h"
#include "kbtf.h"
#include "kimage.h"
#include "strset.h"
#include "xalloc.h"

/* The .BTF section of an ELF image in memory, copied out. */
int kbtf_elf_section(char *image, size_t size, char **btf, size_t *btf_size)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = -ENOENT;

	elf_version(EV_CURRENT);
	elf = elf_memory(image, size);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF") || !(d = elf_getdata(scn, NULL)))
			continue;
		*btf = xmalloc(d->d_size);
		memcpy(*btf, d->d_buf, d->d_size);
		*btf_size = d->d_size;
		ret = 0;
		break;
	}
out:
	if (elf)
		elf_end(elf);
	return ret;
}

/* The .BTF of a compressed kernel image. */
static int image_btf(const char *path, char **btf, size_t *btf_size)
{
	char *elf;
	size_t elf_size;
	int ret = kimage_elf(path, &elf, &elf_size);

	if (ret)
		return ret;
	ret = kbtf_elf_section(elf, elf_size, btf, btf_size);
	free(elf);
	return ret;
}

static struct btf *parse_path(const char *path)
{
	struct btf *btf;

	if (access(path, R_OK))
		return NULL;
	btf = btf__parse(path, NULL);	/* libbpf 1.x: NULL and errno on failure */
	return btf;
}

int kbtf_load(const char *release, const char *build_dir, const char *image, struct btf **out)
{
	struct utsname u;
	char path[4096], cache[4096], *data;
	const char *cached;
	struct btf *btf;
	size_t size;
	int ret;

	*out = NULL;
	if (uname(&u) == 0 && !strcmp(u.release, release) &&
	    (btf = parse_path("/sys/kernel/btf/vmlinux")))
		goto found;
	snprintf(path, sizeof(path), "%s/vmlinux", build_dir);
	if ((btf = parse_path(path)))
		goto found;
	snprintf(path, sizeof(path), "vmlinux-%s.btf", release);
	/* Types decide what probes read: only from a cache of our own. */
	cached = cache_path(cache, sizeof(cache), path) ? NULL : cache;
	if (cached && cache_file_ok(cached) == 0 && (btf = parse_path(cached)))
		goto found;
	ret = image_btf(image, &data, &size);
	if (ret == -ENOENT && access(image, R_OK))
		return -ENOENT;
	if (ret)
		return -ENODATA;
	btf = btf__new(data, size);
	if (!btf) {
		free(data);
		return -EINVAL;
	}
	cache_store(cached, data, size);
	free(data);
found:
	*out = btf;
	return 0;
}

/* "struct file*", "const char*", "size_t", "int[16]", "void (*)()" */
static void type_name(char *buf, size_t size, const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	char inner[256];

	if (!id || !t) {
		snprintf(buf, size, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: {
		const struct btf_type *to = btf__type_by_id(btf, t->type);

		if (to && btf_kind(to) == BTF_KIND_FUNC_PROTO) {
			type_name(inner, sizeof(inner), btf, to->type);
			snprintf(buf, size, "%s (*)()", inner);
			return;
		}
		type_name(inner, sizeof(inner), btf, t->type);
		snprintf(buf, size, "%s*", inner);
		return;
	}
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		type_name(inner, sizeof(inner), btf, t->type);
		snprintf(buf, size, "%s%s", btf_kind(t) == BTF_KIND_CONST ? "const " :
			 btf_kind(t) == BTF_KIND_VOLATILE ? "volatile " : "", inner);
		return;
	case BTF_KIND_TYPE_TAG:
		type_name(buf, size, btf, t->type);
		return;
	case BTF_KIND_ARRAY:
		type_name(inner, sizeof(inner), btf, btf_array(t)->type);
		snprintf(buf, size, "%s[%u]", inner, btf_array(t)->nelems);
		return;
	case BTF_KIND_STRUCT:
		snprintf(buf, size, "struct %s", *name ? name : "{...}");
		return;
	case BTF_KIND_UNION:
		snprintf(buf, size, "union %s", *name ? name : "{...}");
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(buf, size, "enum %s", *name ? name : "{...}");
		return;
	case BTF_KIND_FWD:
		snprintf(buf, size, "%s %s", btf_kflag(t) ? "union" : "struct", name);
		return;
	default:	/* INT, TYPEDEF, FLOAT: their own name */
		snprintf(buf, size, "%s", *name ? name : "?");
	}
}

const char *kbtf_type_name(struct arena *a, const struct btf *btf, __u32 id)
{
	char buf[512];

	type_name(buf, sizeof(buf), btf, id);
	return arena_strndup(a, buf, strlen(buf));
}

/* A module's BTF is split on the kernel's: its own types come after those. */
static __u32 first_own_id(const struct btf *btf)
{
	const struct btf *base = btf__base_btf(btf);

	return base ? btf__type_cnt(base) : 1;
}

/*
 * The named types a BTF has of its own (a module's: not its base's),
 * sorted by name, kind and id; built on the first lookup and kept until
 * kbtf_forget().  libbpf finds a name by scanning all 130,000 types: a
 * `probe **` resolving hundreds of functions and tracepoints spent most of
 * its pass 2 doing that.  A few BTFs at once: the kernel's and modules'.
 */
struct name_entry {
	const char *name;
	__u32 id;
	__u16 kind;
};

struct name_index {
	const struct btf *btf;
	struct name_entry *v;
	size_t n;
};

static struct name_index indexes[8];
static unsigned int next_index;

static int cmp_name_entry(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static const struct name_index *name_index(const struct btf *btf)
{
	struct name_index *ix;
	__u32 n = btf__type_cnt(btf);

	for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++)
		if (indexes[i].btf == btf)
			return &indexes[i];
	ix = &indexes[next_index++ % (sizeof(indexes) / sizeof(indexes[0]))];
	free(ix->v);
	*ix = (struct name_index){ 0 };
	ix->v = xmalloc((n ? n : 1) * sizeof(*ix->v));
	for (__u32 id = first_own_id(btf); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (name && *name)
			ix->v[ix->n++] = (struct name_entry){ name, id, btf_kind(t) };
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_name_entry);
	ix->btf = btf;
	return ix;
}

void kbtf_forget(const struct btf *btf)
{
	for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++)
		if (btf && indexes[i].btf == btf) {
			free(indexes[i].v);
			indexes[i] = (struct name_index){ 0 };
		}
}

/* The first entry whose name's first plen bytes are not below key's. */
static size_t lower_bound(const struct name_index *ix, const char *key, size_t plen)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(ix->v[mid].name, key, plen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of btf's own types of kind called name, by a walk over them:
 * 0 if there is none. */
static __u32 walk_named(const struct btf *btf, int kind, const char *name)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = first_own_id(btf); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *s;

		if (btf_kind(t) == kind && (s = btf__name_by_offset(btf, t->name_off)) &&
		    !strcmp(s, name))
			return id;
	}
	return 0;
}

static bool indexed(const struct btf *btf);

/*
 * Whether a lookup of one name in btf walks its types rather than sorting
 * them all: a walk costs about 0.5 ms, the index 30 ms, so a session's
 * first few lookups (pass 4's kfeatures.c makes a dozen) walk.
 */
static bool walk_instead(const struct btf *btf)
{
	static unsigned int walks;

	return !indexed(btf) && walks++ < 32;
}

__s32 kbtf_find(const struct btf *btf, const char *name, int kind)
{
	const struct btf *base = btf__base_btf(btf);
	const struct name_index *ix;
	size_t plen = strlen(name) + 1;	/* the NUL too: the whole name */
	__s32 r;

	if (base && (r = kbtf_find(base, name, kind)) > 0)
		return r;	/* libbpf's order: the base's ids come first */
	if (walk_instead(btf)) {
		__u32 id = walk_named(btf, kind, name);

		return id ? (__s32)id : -ENOENT;
	}
	ix = name_index(btf);
	for (size_t i = lower_bound(ix, name, plen); i < ix->n && !strcmp(ix->v[i].name, name); i++)
		if (ix->v[i].kind == kind)
			return ix->v[i].id;
	return -ENOENT;
}

/* The first type of kind called name (what the index finds for a name
 * with no wildcard), by a walk over the types: a script naming a few
 * functions need not sort 100,000 names (15 ms). */
static int first_named(const struct btf *btf, int kind, const char *name, struct kbtf_name **out)
{
	__u32 id = walk_named(btf, kind, name);

	*out = xmalloc(sizeof(**out));
	if (!id)
		return 0;
	**out = (struct kbtf_name){ btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off), id };
	return 1;
}

static bool indexed(const struct btf *btf)
{
	for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++)
		if (indexes[i].btf == btf)
			return true;
	return false;
}

int kbtf_names(const struct btf *btf, int kind, const char *glob, struct kbtf_name **out)
{
	const struct name_index *ix;
	size_t plen = strcspn(glob, "*?[\\"), lo, hi, count = 0;
	bool literal = !glob[plen];
	struct kbtf_name *v;

	if (literal && walk_instead(btf))
		return first_named(btf, kind, glob, out);
	ix = name_index(btf);

	/* The names that start with the glob's literal prefix are a range. */
	lo = lower_bound(ix, glob, plen);
	for (hi = lo; hi < ix->n && !strncmp(ix->v[hi].name, glob, plen); hi++)
		;
	v = xmalloc((hi - lo ? hi - lo : 1) * sizeof(*v));
	for (size_t i = lo; i < hi; i++) {
		const char *name = ix->v[i].name;

		if (ix->v[i].kind != kind ||
		    (literal ? strcmp(glob, name) : fnmatch(glob, name, 0)))
			continue;
		/* Static functions of the same name in several files: keep
		 * the first. */
		if (count && !strcmp(v[count - 1].name, name))
			continue;
		v[count++] = (struct kbtf_name){ name, ix->v[i].id };
	}
	*out = v;
	return (int)count;
}

int kbtf_funcs(const struct btf *btf, const char *glob, struct kbtf_name **out)
{
	return kbtf_names(btf, BTF_KIND_FUNC, glob, out);
}

int kbtf_similar_funcs(const struct btf *btf, const char *name, const char **out, int max)
{
	__u32 n = btf__type_cnt(btf);
	struct similar sim;

	similar_init(&sim, name, out, max);
	for (__u32 id = first_own_id(btf); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			similar_offer(&sim, btf__name_by_offset(btf, t->name_off));
	}
	return sim.count;
}

__u32 kbtf_strip(const struct btf *btf, __u32 id)
{
	for (int guard = 0; guard < 64; guard++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

enum kbtf_class kbtf_classify(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;

	id = kbtf_strip(btf, id);
	t = id ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return KBTF_VOID;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		return KBTF_AGGREGATE;
	default:
		return KBTF_NUMBER;
	}
}

/* Search a struct/union's members, descending into anonymous ones; the
 * offset found is from the start of t. */
static int find_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       struct kbtf_field *f, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;

		if (mname && *mname) {
			if (!strcmp(mname, name)) {
				f->type = m->type;
				f->bit_offset = btf_member_bit_offset(t, i);
				f->bit_size = btf_member_bitfield_size(t, i);
				return 0;
			}
			continue;
		}
		mt = btf__type_by_id(btf, kbtf_strip(btf, m->type));
		if (depth < 8 && mt && (btf_is_struct(mt) || btf_is_union(mt)) &&
		    !find_member(btf, mt, name, f, depth + 1)) {
			f->bit_offset += btf_member_bit_offset(t, i);
			return 0;
		}
	}
	return -ENOENT;
}

int kbtf_member(const struct btf *btf, __u32 id, const char *name, struct kbtf_field *f)
{
	const struct btf_type *t = btf__type_by_id(btf, kbtf_strip(btf, id));

	if (t && btf_is_ptr(t))	/* SystemTap's -> works on pointers and values */
		t = btf__type_by_id(btf, kbtf_strip(btf, t->type));
	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return -EINVAL;
	return find_member(btf, t, name, f, 0);
}

int kbtf_scalar(const struct btf *btf, __u32 id, int *size, bool *is_signed)
{
	const struct btf_type *t = btf__type_by_id(btf, kbtf_strip(btf, id));

	if (!t)
		return -EINVAL;
	*is_signed = false;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		*size = t->size;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*is_signed = btf_kflag(t);
		*size = t->size;
		break;
	case BTF_KIND_PTR:
		*size = 8;
		break;
	default:
		return -EINVAL;
	}
	return *size == 1 || *size == 2 || *size == 4 || *size == 8 ? 0 : -EINVAL;
}

int kbtf_element(const struct btf *btf, __u32 id, __u32 *elem)
{
	const struct btf_type *t = btf__type_by_id(btf, kbtf_strip(btf, id));

	if (t && btf_is_ptr(t)) {
		*elem = t->type;
		return 0;
	}
	if (t && btf_is_array(t)) {
		*elem = btf_array(t)->type;
		return 0;
	}
	return -EINVAL;
}

int kbtf_find_type(const struct btf *btf, const char *name, __u32 *id)
{
	int kind = BTF_KIND_STRUCT;
	__s32 r;

	if (!strncmp(name, "struct ", 7)) {
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		name += 6;
		kind = BTF_KIND_UNION;
	} else {
		r = kbtf_find(btf, name, BTF_KIND_TYPEDEF);
		if (r > 0) {
			*id = r;
			return 0;
		}
	}
	r = kbtf_find(btf, name, kind);
	if (r <= 0 && kind == BTF_KIND_STRUCT)
		r = kbtf_find(btf, name, BTF_KIND_UNION);
	if (r <= 0)
		return -ENOENT;
	*id = r;
	return 0;
}

__u32 *kbtf_pointer_index(struct arena *a, const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf);
	__u32 *v = arena_alloc(a, n * sizeof(*v));

	memset(v, 0, n * sizeof(*v));
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_ptr(t) && t->type < n && !v[t->type])
			v[t->type] = id;
	}
	return v;
}

/* C's short spellings of the integer types, as BTF names them. */
static const char *const int_spellings[][2] = {
	{ "unsigned", "unsigned int" },
	{ "signed", "int" },
	{ "long", "long int" },
	{ "unsigned long", "long unsigned int" },
	{ "long long", "long long int" },
	{ "unsigned long long", "long long unsigned int" },
	{ "short", "short int" },
	{ "unsigned short", "short unsigned int" },
};

int kbtf_find_ctype(const struct btf *btf, const __u32 *pointers, const char *ctype, __u32 *id)
{
	size_t n = strlen(ctype);
	int stars = 0;
	char base[128];
	__s32 r;

	while (n && (ctype[n - 1] == '*' || ctype[n - 1] == ' '))
		stars += ctype[--n] == '*';
	if (!n || n >= sizeof(base))
		return -ENOENT;
	memcpy(base, ctype, n);
	base[n] = '\0';
	for (size_t i = 0; i < sizeof(int_spellings) / sizeof(int_spellings[0]); i++)
		if (!strcmp(base, int_spellings[i][0]))
			snprintf(base, sizeof(base), "%s", int_spellings[i][1]);
	if (!strcmp(base, "void")) {
		*id = 0;
	} else if (kbtf_find_type(btf, base, id)) {
		r = kbtf_find(btf, base, BTF_KIND_INT);
		if (r <= 0)
			r = kbtf_find(btf, base + (strncmp(base, "enum ", 5) ? 0 : 5),
						   BTF_KIND_ENUM);
		if (r <= 0)
			return -ENOENT;
		*id = r;
	}
	while (stars--) {
		if (*id >= btf__type_cnt(btf) || !pointers[*id])
			return -ENOENT;
		*id = pointers[*id];
	}
	return 0;
}

/* ---- enums: @enum and @enumname ---- */

int kbtf_enumerator_at(const struct btf *btf, __u32 id, int i, struct kbtf_enumerator *e)
{
	const struct btf_type *t;
	bool is_signed;

	id = kbtf_strip(btf, id);
	t = btf__type_by_id(btf, id);
	if (!t || !(btf_is_enum(t) || btf_is_enum64(t)))
		return -EINVAL;
	if (i < 0 || i >= btf_vlen(t))
		return -ENOENT;
	is_signed = btf_kflag(t);
	e->type = id;
	if (btf_is_enum(t)) {
		const struct btf_enum *v = btf_enum(t) + i;

		e->name = btf__name_by_offset(btf, v->name_off);
		e->value = is_signed ? (int64_t)v->val : (int64_t)(__u32)v->val;
	} else {
		const struct btf_enum64 *v = btf_enum64(t) + i;

		e->name = btf__name_by_offset(btf, v->name_off);
		e->value = (int64_t)btf_enum64_value(v);
	}
	return 0;
}

/* Calls fn for each enumerator of btf's own types. */
static void each_enumerator(const struct btf *btf, void (*fn)(const struct kbtf_enumerator *, void *),
			    void *ctx)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = first_own_id(btf); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		struct kbtf_enumerator e;

		if (!btf_is_enum(t) && !btf_is_enum64(t))
			continue;
		for (int i = 0; !kbtf_enumerator_at(btf, id, i, &e); i++)
			fn(&e, ctx);
	}
}

struct enumerator_hits {
	const char *name;
	struct kbtf_enumerator *out;
	int max, count;
};

static void enumerator_hit(const struct kbtf_enumerator *e, void *ctx)
{
	struct enumerator_hits *h = ctx;

	if (strcmp(e->name, h->name))
		return;
	if (h->count < h->max)
		h->out[h->count] = *e;
	h->count++;
}

int kbtf_find_enumerator(const struct btf *btf, const char *name, struct kbtf_enumerator *out,
			 int max)
{
	struct enumerator_hits h = { .name = name, .out = out, .max = max };

	each_enumerator(btf, enumerator_hit, &h);
	if (btf__base_btf(btf)) {
		int n = h.count < max ? h.count : max;

		h.count += kbtf_find_enumerator(btf__base_btf(btf), name, out + n, max - n);
	}
	return h.count;
}

static void offer_enumerator(const struct kbtf_enumerator *e, void *ctx)
{
	similar_offer(ctx, e->name);
}

int kbtf_similar_enumerators(const struct btf *btf, const char *name, const char **out, int max)
{
	struct similar sim;

	similar_init(&sim, name, out, max);
	for (; btf; btf = btf__base_btf(btf))
		each_enumerator(btf, offer_enumerator, &sim);
	return sim.count;
}

int kbtf_find_enum(const struct btf *btf, const char *name, __u32 *id)
{
	const struct btf_type *t;
	__s32 r;

	if (!strncmp(name, "enum ", 5)) {
		name += 5;
	} else {
		r = kbtf_find(btf, name, BTF_KIND_TYPEDEF);
		t = r > 0 ? btf__type_by_id(btf, kbtf_strip(btf, r)) : NULL;
		if (t && (btf_is_enum(t) || btf_is_enum64(t))) {
			*id = kbtf_strip(btf, r);
			return 0;
		}
	}
	r = kbtf_find(btf, name, BTF_KIND_ENUM);
	if (r <= 0)
		r = kbtf_find(btf, name, BTF_KIND_ENUM64);
	if (r <= 0)
		return -ENOENT;
	*id = r;
	return 0;
}
