// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - the target kernel's function symbols: read from kallsyms or a
 * System.map, or decoded from the boot image's kallsyms tables (ksyms.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cache.h"
#include "kimage.h"
#include "ksyms.h"
#include "strset.h"
#include "xalloc.h"

/* One line of a symbol table, before it is sorted and filtered. */
struct raw {
	uint64_t addr;
	char type;
	const char *name;
};

struct raws {
	struct raw *v;
	size_t n, cap;
};

static void raws_add(struct raws *r, uint64_t addr, char type, const char *name)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1 << 16;
		r->v = xrealloc(r->v, cap * sizeof(*r->v));
		r->cap = cap;
	}
	r->v[r->n++] = (struct raw){ addr, type, name };
}

/*
 * "ADDR TYPE NAME[\t[MODULE]]" lines, parsed in place (text is kept as
 * the names' storage).  A module's symbols are not the kernel's.
 */
/* The hexadecimal number at p (no sign, no 0x: a map's addresses), its
 * end in *end; strtoull() cost 8 ms of a map's 190,000 lines. */
static uint64_t hex(const char *p, char **end)
{
	static const signed char digit[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
		['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
		['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
		['F'] = 16,
	};
	uint64_t v = 0;
	int n = 0;

	for (; n < 16 && digit[(unsigned char)p[n]]; n++)
		v = v << 4 | (digit[(unsigned char)p[n]] - 1);
	*end = (char *)p + n;
	return v;
}

static int parse_map(char *text, struct raws *r)
{
	for (char *line = text, *next; line && *line; line = next) {
		char *type, *name, *end;
		uint64_t addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		addr = hex(line, &end);
		if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end + 1;
		name = end + 3;
		if (strchr(name, '\t') || strchr(name, '['))
			continue;
		raws_add(r, addr, *type, name);
	}
	return r->n ? 0 : -ENOENT;
}

/* ---- the kallsyms tables of a boot image ---- */

static uint64_t get(const char *p, int size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);	/* x86_64 only: little-endian */
	return v;
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

/*
 * kallsyms_token_index: 256 u16 offsets into kallsyms_token_table, which
 * ends just before it (padded to 8), each token NUL-terminated.  Found by
 * shape: the offsets rise by each token's length plus one.
 */
static bool token_tables_at(const char *img, size_t size, size_t ti, size_t *tt)
{
	uint16_t idx[256];

	memcpy(idx, img + ti, sizeof(idx));
	if (idx[0] != 0)
		return false;
	for (int i = 1; i < 256; i++)
		if (idx[i] <= idx[i - 1] || idx[i] - idx[i - 1] > 128)
			return false;
	for (size_t start = ti & ~(size_t)7; start + idx[255] + 2 > ti - 136 && start >= 8;
	     start -= 8) {
		size_t last;
		int i;

		if (start + idx[255] + 2 > ti)
			continue;
		for (i = 0; i < 255; i++)
			if (strnlen(img + start + idx[i], 129) != (size_t)(idx[i + 1] - idx[i] - 1))
				break;
		if (i < 255)
			continue;
		last = start + idx[255] + strnlen(img + start + idx[255], 129) + 1;
		if (align8(last) == ti) {
			*tt = start;
			return true;
		}
	}
	(void)size;
	return false;
}

struct kallsyms {
	size_t tt, ti;		/* token table, token index */
	size_t markers;
	int marker_size;	/* 4 (u32) or 8 */
	size_t names;		/* the first name's length byte */
	uint32_t n;		/* symbols */
	size_t offsets, base;	/* kallsyms_offsets, kallsyms_relative_base */
};

/* A name's length: one byte, or two with the top bit set (6.1's "big"
 * symbols); *p moves past it. */
static unsigned name_len(const unsigned char *img, size_t *p)
{
	unsigned len = img[(*p)++];

	if (len & 0x80)
		len = (len & 0x7f) | (img[(*p)++] << 7);
	return len;
}

/* The names from num_syms at q walk exactly onto the markers at m0. */
static bool names_at(const char *img, struct kallsyms *k, size_t q, size_t m0, int es,
		     size_t nm)
{
	const unsigned char *u = (const unsigned char *)img;
	uint32_t n = get(img + q, 4), i;
	size_t at = q + 8;

	if (n < 256 || (n + 255) / 256 > nm)
		return false;
	for (i = 0; i < n && at < m0; i++) {
		if (i % 256 == 0 && get(img + m0 + i / 256 * es, es) != at - (q + 8))
			return false;
		at += name_len(u, &at);
	}
	if (i < n || align8(at) != m0)
		return false;
	k->n = n;
	k->names = q + 8;
	k->markers = m0;
	k->marker_size = es;
	return true;
}

/*
 * kallsyms_markers: every 256th name's offset in kallsyms_names, from 0,
 * in u32 (or u64 before 5.x); then, from 6.2 on, 3 bytes a symbol of
 * kallsyms_seqs_of_names; then the token table.  num_syms is 8 bytes
 * before the names, which end at the markers.
 */
static bool names_before(const char *img, struct kallsyms *k)
{
	for (size_t m0 = k->tt - 16; m0 + (8u << 20) > k->tt && m0 >= 16; m0 -= 8) {
		for (int es = 4; es <= 8; es += 4) {
			size_t nm = 1;

			if (get(img + m0, es) != 0 || get(img + m0 + es, es) < 256 ||
			    get(img + m0 + es, es) > (256u << 8))
				continue;
			while (m0 + (nm + 1) * es <= k->tt &&
			       get(img + m0 + nm * es, es) > get(img + m0 + (nm - 1) * es, es))
				nm++;
			if (nm < 2)
				continue;
			for (size_t q = m0 - 8; q + (16u << 20) > m0 && q >= 8; q -= 8)
				if (names_at(img, k, q, m0, es, nm))
					return true;
		}
	}
	return false;
}

/* Whether n offsets at off decode, from base, to rising addresses. */
static bool offsets_at(const char *img, size_t size, const struct kallsyms *k, size_t off,
		       size_t base)
{
	uint64_t rel = get(img + base, 8), prev = 0;

	if (off + 4 * (size_t)k->n > size || base + 8 > size || rel < 0xffffffff80000000ull)
		return false;
	for (uint32_t i = 0; i < k->n; i++) {
		int32_t o = (int32_t)get(img + off + 4 * (size_t)i, 4);
		/* x86_64's absolute per-CPU: non-negative is absolute */
		uint64_t a = o >= 0 ? (uint64_t)o : rel - 1 - o;

		if (a < prev)
			return false;
		prev = a;
	}
	return true;
}

static bool find_offsets(const char *img, size_t size, struct kallsyms *k)
{
	size_t before = k->names - 16;	/* 6.1: offsets, relative_base, num_syms, names */
	size_t after = align8(k->ti + 512);	/* 6.3: ..., token_index, offsets, base */

	if (before >= align8(4 * (size_t)k->n) &&
	    offsets_at(img, size, k, before - align8(4 * (size_t)k->n), before)) {
		k->offsets = before - align8(4 * (size_t)k->n);
		k->base = before;
		return true;
	}
	if (offsets_at(img, size, k, after, align8(after + 4 * (size_t)k->n))) {
		k->offsets = after;
		k->base = align8(after + 4 * (size_t)k->n);
		return true;
	}
	return false;
}

static int write_map(const char *img, const struct kallsyms *k, char **map)
{
	const unsigned char *u = (const unsigned char *)img;
	uint64_t rel = get(img + k->base, 8);
	size_t cap = (size_t)k->n * 64, len = 0, at = k->names;
	char *out = xmalloc(cap);

	for (uint32_t i = 0; i < k->n; i++) {
		int32_t o = (int32_t)get(img + k->offsets + 4 * (size_t)i, 4);
		uint64_t addr = o >= 0 ? (uint64_t)o : rel - 1 - o;
		unsigned n = name_len(u, &at);
		char name[1024];
		size_t nl = 0;

		for (unsigned j = 0; j < n; j++) {
			const char *tok = img + k->tt + get(img + k->ti + 2 * u[at + j], 2);
			size_t tl = strlen(tok);

			if (nl + tl < sizeof(name))
				memcpy(name + nl, tok, tl), nl += tl;
		}
		at += n;
		name[nl] = '\0';
		if (nl < 2)
			continue;
		if (len + nl + 24 > cap) {
			out = xrealloc(out, cap *= 2);
		}
		/* the first character is the type */
		len += sprintf(out + len, "%016llx %c %s\n", (unsigned long long)addr, name[0],
			       name + 1);
	}
	*map = out;
	return 0;
}

int ksyms_decode_image(const char *img, size_t size, char **map)
{
	struct kallsyms k = { 0 };

	for (size_t ti = 4096; ti + 512 <= size; ti += 8) {
		if (get(img + ti, 2) != 0 || get(img + ti + 2, 2) < 2 || get(img + ti + 2, 2) > 129)
			continue;
		if (!token_tables_at(img, size, ti, &k.tt))
			continue;
		k.ti = ti;
		if (names_before(img, &k) && find_offsets(img, size, &k))
			return write_map(img, &k, map);
	}
	return -ENOENT;
}

/* ---- from a source to the function table ---- */

/* Text that a probe may not go into, between two of the linker's marks. */
static const struct {
	const char *start, *end, *why;
} no_probe_sections[] = {
	/* .init.text and .exit.text (built-in drivers' exit functions, which
	 * never run), both freed after boot; the kernel refuses them (-EINVAL). */
	{ "__init_begin", "__init_end", "init or exit code, freed after boot" },
	{ "__entry_text_start", "__entry_text_end", "entry code (.entry.text): "
	  "a probe there runs before the kernel's state is set up" },
	{ "__kprobes_text_start", "__kprobes_text_end", "kprobes' own code (.kprobes.text)" },
	{ "__noinstr_text_start", "__noinstr_text_end", "code marked noinstr (.noinstr.text), "
	  "which may run where instrumentation is unsafe" },
	{ "__irqentry_text_start", "__irqentry_text_end", "interrupt entry code (.irqentry.text)" },
	{ "__cpuidle_text_start", "__cpuidle_text_end", "the idle loop (.cpuidle.text)" },
};

static int by_addr(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_name(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_name_ptr(const void *a, const void *b)
{
	return by_name(*(const struct ksym *const *)a, *(const struct ksym *const *)b);
}

/* v, n pointers to symbols whose names agree in their first d bytes,
 * sorted by_name() a byte at a time (tmp: room for n more). */
static void radix(const struct ksym **v, const struct ksym **tmp, size_t n, size_t d)
{
	size_t count[256] = { 0 }, at[256], pos = 0;

	if (n < 32) {
		for (size_t i = 1; i < n; i++) {
			const struct ksym *x = v[i];
			size_t j = i;

			for (; j > 0 && by_name(v[j - 1], x) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		count[(unsigned char)v[i]->name[d]]++;
	for (int b = 0; b < 256; b++) {
		at[b] = pos;
		pos += count[b];
	}
	for (size_t i = 0; i < n; i++)
		tmp[at[(unsigned char)v[i]->name[d]]++] = v[i];
	memcpy(v, tmp, n * sizeof(*v));
	if (count[0] > 1)	/* the same name: by address */
		qsort(v, count[0], sizeof(*v), by_name_ptr);
	for (size_t b = 1, from = count[0]; b < 256; from += count[b++])
		if (count[b] > 1)
			radix(v + from, tmp, count[b], d + 1);
}

/*
 * v sorted by_name(), as qsort() would, in half its time: qsort() spent
 * 20-30 ms of each script's passes 1-3 on 6.1's 49,503 functions, two
 * thirds of them with the first 8 bytes of the name before them.
 */
static void sort_by_name(struct ksym *v, size_t n)
{
	const struct ksym **p = xmalloc((n ? n : 1) * sizeof(*p));
	const struct ksym **tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	struct ksym *out = xmalloc((n ? n : 1) * sizeof(*out));

	for (size_t i = 0; i < n; i++)
		p[i] = &v[i];
	radix(p, tmp, n, 0);
	for (size_t i = 0; i < n; i++)
		out[i] = *p[i];
	memcpy(v, out, n * sizeof(*v));
	free(out);
	free(tmp);
	free(p);
}

/* The addresses of the n names (0 for a missing one): the first of each,
 * in one pass over the table (they all begin with '_'). */
static void marks(const struct raws *r, const char *const *names, uint64_t *addr, int n)
{
	int left = n;

	memset(addr, 0, n * sizeof(*addr));
	for (size_t i = 0; left && i < r->n; i++) {
		if (r->v[i].name[0] != '_')
			continue;
		for (int k = 0; k < n; k++)
			if (!addr[k] && !strcmp(r->v[i].name, names[k])) {
				addr[k] = r->v[i].addr;
				left--;
			}
	}
}

/* Names that are not functions one can enter: the parts a compiler split
 * off (.cold, .part), CFI and padding stubs, static-call trampolines. */
static bool not_a_function(const char *name)
{
	return strstr(name, ".cold") || strstr(name, ".part.") || !strncmp(name, "__pfx_", 6) ||
	       !strncmp(name, "__cfi_", 6) || !strncmp(name, "__SCT__", 7);
}

/* Symbol i's size: up to the next higher address (r is sorted by
 * address); 0 for the last. */
static uint64_t size_at(const struct raws *r, size_t i)
{
	size_t j = i + 1;

	while (j < r->n && r->v[j].addr == r->v[i].addr)
		j++;
	return j < r->n ? r->v[j].addr - r->v[i].addr : 0;
}

/*
 * Where the kernel pads function entries (CONFIG_CALL_PADDING, 6.2 on),
 * objtool names each STT_FUNC symbol's padding __pfx_NAME: the set of
 * those NAMEs (pointers into r), empty for a kernel without padding.
 */
static void padded_functions(const struct raws *r, struct strset *set)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strncmp(r->v[i].name, "__pfx_", 6))
			strset_add(set, r->v[i].name + 6);
}

/* Whether a name that is not a function's (padding, a CFI stub, a
 * trampoline) is at r->v[i]'s address too (r is sorted by address). */
static bool shares_non_function(const struct raws *r, size_t i)
{
	uint64_t addr = r->v[i].addr;

	for (size_t j = i; j > 0 && r->v[j - 1].addr == addr; j--)
		if (not_a_function(r->v[j - 1].name))
			return true;
	for (size_t j = i + 1; j < r->n && r->v[j].addr == addr; j++)
		if (not_a_function(r->v[j].name))
			return true;
	return false;
}

/*
 * The kernel's largest functions are about 13 KiB (6.1: do_check_common);
 * 5.10 and 6.1 have __entry_text_end and srso_alias_safe_ret before a
 * gap of 1 MiB, which kprobes, taking it for the function, decoded whole
 * (5.10's guest locked up for minutes registering one).
 */
#define MAX_FUNCTION_EXTENT	(64 << 10)

/*
 * Why a text symbol is no function's entry, or NULL.  A symbol table has
 * no ELF types, so the linker's marks (__static_call_text_end, at the
 * padding after the last trampoline on 6.12) and assembler labels
 * (thunks, entry code) read as functions.  Padding tells them apart
 * where the kernel has it: objtool gives every STT_FUNC symbol, and
 * only those, a __pfx_ twin.  Elsewhere only a label on something that
 * is not a function is known to be one.
 */
static const char *not_an_entry(const struct raws *r, size_t i, const struct strset *padded)
{
	if (size_at(r, i) > MAX_FUNCTION_EXTENT)
		return "a label before a gap no function spans (more than 64 KiB to the next "
		       "symbol): kprobes would decode all of it to register a probe there";
	if (padded->n && !strset_has(padded, r->v[i].name))
		return "a label, not a function: the kernel pads every function's entry "
		       "(__pfx_) and this symbol has no padding (a linker mark or assembler code)";
	if (shares_non_function(r, i))
		return "a label on function padding, a CFI stub or a static-call trampoline, "
		       "not a function";
	return NULL;
}

/*
 * The kernel image's data symbols, sorted by name, with sizes; a name
 * defined twice (static in two files) is left out: its address would be
 * a guess.  Per-CPU symbols (absolute offsets, below the image) are not
 * addresses at all.
 */
static int build_vars(const struct raws *r, struct ksyms *ks, uint64_t stext)
{
	size_t w = 0;

	ks->vars = xcalloc(r->n ? r->n : 1, sizeof(*ks->vars));
	for (size_t i = 0; i < r->n; i++) {
		const struct raw *v = &r->v[i];

		if (!strchr("dDbBrR", v->type) || v->addr < stext)
			continue;
		ks->vars[w].name = v->name;
		ks->vars[w].addr = v->addr;
		ks->vars[w].size = size_at(r, i);
		w++;
	}
	sort_by_name(ks->vars, w);
	ks->nvars = 0;
	for (size_t i = 0; i < w; i++) {
		bool dup = (i > 0 && !strcmp(ks->vars[i - 1].name, ks->vars[i].name)) ||
			   (i + 1 < w && !strcmp(ks->vars[i + 1].name, ks->vars[i].name));

		if (!dup)
			ks->vars[ks->nvars++] = ks->vars[i];
	}
	return 0;
}

static bool sorted_by_addr(const struct raws *r)
{
	for (size_t i = 1; i < r->n; i++)
		if (r->v[i - 1].addr > r->v[i].addr)
			return false;
	return true;
}

/* Every table here has addresses: read_map() refuses one without. */
static int build_table(struct raws *r, struct ksyms *ks)
{
	uint64_t stext, etext, lo[6], hi[6], addr[14];
	const char *names[14];
	struct strset padded = { 0 };
	size_t w = 0;

	if (!sorted_by_addr(r))	/* a System.map, kallsyms: sorted already */
		qsort(r->v, r->n, sizeof(*r->v), by_addr);
	names[0] = "_stext";
	names[1] = "_etext";
	for (int s = 0; s < 6; s++) {
		names[2 + 2 * s] = no_probe_sections[s].start;
		names[3 + 2 * s] = no_probe_sections[s].end;
	}
	marks(r, names, addr, 14);
	padded_functions(r, &padded);
	stext = addr[0];
	etext = addr[1];
	for (int s = 0; s < 6; s++) {
		lo[s] = addr[2 + 2 * s];
		hi[s] = addr[3 + 2 * s];
	}
	ks->funcs = xcalloc(r->n ? r->n : 1, sizeof(*ks->funcs));
	for (size_t i = 0; i < r->n; i++) {
		const struct raw *v = &r->v[i];
		struct ksym *f = &ks->funcs[w];
		bool init = v->addr >= lo[0] && v->addr < hi[0];

		if (!strchr("tTwW", v->type) || not_a_function(v->name))
			continue;
		if ((v->addr < stext || v->addr >= etext) && !init)
			continue;	/* not the kernel's text: a label elsewhere */
		f->name = v->name;
		f->addr = v->addr;
		f->size = size_at(r, i);
		f->global = isupper((unsigned char)v->type);
		for (int s = 0; s < 6 && !f->why; s++)
			if (lo[s] && v->addr >= lo[s] && v->addr < hi[s])
				f->why = no_probe_sections[s].why;
		if (!f->why)
			f->why = not_an_entry(r, i, &padded);
		w++;
	}
	strset_free(&padded);
	sort_by_name(ks->funcs, w);
	/* A static name defined twice: the kernel's lookup by name finds one,
	 * so one probe; the others are not reachable by name. */
	ks->n = 0;
	for (size_t i = 0; i < w; i++) {
		if (ks->n && !strcmp(ks->funcs[ks->n - 1].name, ks->funcs[i].name)) {
			ks->funcs[ks->n - 1].copies++;
			ks->funcs[ks->n - 1].global |= ks->funcs[i].global;
			continue;
		}
		ks->funcs[ks->n] = ks->funcs[i];
		ks->funcs[ks->n++].copies = 1;
	}
	/* the data symbols when first asked for (watchpoints): sorting
	 * them costs every other script a tenth of its passes 1-3 */
	ks->raws = xmalloc(sizeof(*r));
	*(struct raws *)ks->raws = *r;
	r->v = NULL;
	ks->stext = stext;
	return 0;
}

static bool hidden_addresses(const struct raws *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].addr)
			return false;
	return true;
}

/*
 * A map file with more than a placeholder line in it, and addresses:
 * /proc/kallsyms hides them from those kptr_restrict keeps out, and
 * without them there are no sizes and no sections (the image's own
 * tables have them).
 */
static int read_map(const char *path, char **text, struct raws *r)
{
	size_t size;
	int ret = kimage_read_file(path, text, &size);

	if (ret)
		return ret;
	ret = parse_map(*text, r);
	if (!ret && (r->n < 1000 || hidden_addresses(r)))
		ret = -ENOENT;
	if (ret) {
		free(*text);
		*text = NULL;
		r->n = 0;
	}
	return ret;
}

/* The boot image's tables, decoded; the map is cached for next time. */
static int from_image(const char *image, const char *cached, char **text, struct raws *r)
{
	char *elf;
	size_t size;
	int ret;

	ret = kimage_elf(image, &elf, &size);
	if (ret)
		return ret;
	ret = ksyms_decode_image(elf, size, text);
	free(elf);
	if (ret)
		return ret;
	cache_store(cached, *text, strlen(*text));
	return parse_map(*text, r);
}

int ksyms_load(const char *release, const char *build_dir, const char *image,
	       struct ksyms **out)
{
	struct ksyms *ks = xcalloc(1, sizeof(*ks));
	struct raws r = { 0 };
	char path[4096], cache[4096];
	const char *cached;
	struct utsname u;
	int ret = -ENOENT;

	if (uname(&u) == 0 && !strcmp(u.release, release) &&
	    !(ret = read_map("/proc/kallsyms", &ks->strings, &r)))
		ks->source = "/proc/kallsyms";
	snprintf(path, sizeof(path), "%s/System.map", build_dir ? build_dir : "/nonexistent");
	if (ret && !(ret = read_map(path, &ks->strings, &r)))
		ks->source = "the build tree's System.map";
	/* System.map beside the image (/boot, or an unpacked kernel's boot/);
	 * no image (the pass-2 fuzz target's session): none */
	snprintf(path, sizeof(path), "%.*sSystem.map-%s",
		 image && strrchr(image, '/') ? (int)(strrchr(image, '/') + 1 - image) : 0,
		 image ? image : "", release);
	if (ret && image && !(ret = read_map(path, &ks->strings, &r)))
		ks->source = "/boot/System.map";
	snprintf(path, sizeof(path), "kallsyms-%s.map", release);
	/* Names decide where probes go: only from a cache of our own. */
	cached = cache_path(cache, sizeof(cache), path) ? NULL : cache;
	if (ret && cached && cache_file_ok(cached) == 0 &&
	    !(ret = read_map(cached, &ks->strings, &r)))
		ks->source = "the cache";
	if (ret && image && !(ret = from_image(image, cached, &ks->strings, &r)))
		ks->source = "the kallsyms tables of /boot/vmlinuz";
	if (!ret)
		ret = build_table(&r, ks);
	free(r.v);
	if (ret) {
		ksyms_free(ks);
		return ret;
	}
	*out = ks;
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	if (ks->raws)
		free(((struct raws *)ks->raws)->v);
	free(ks->raws);
	free(ks->funcs);
	free(ks->vars);
	free(ks->strings);
	free(ks);
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct ksym *)elem)->name);
}

const struct ksym *ksyms_find(const struct ksyms *ks, const char *name)
{
	return bsearch(name, ks->funcs, ks->n, sizeof(*ks->funcs), cmp_key);
}

const struct ksym *ksyms_var(const struct ksyms *ks, const char *name)
{
	struct ksyms *k = (struct ksyms *)ks;	/* made once, on demand */
	struct raws *r = k->raws;

	if (r) {
		build_vars(r, k, k->stext);
		free(r->v);
		free(r);
		k->raws = NULL;
	}
	return bsearch(name, ks->vars, ks->nvars, sizeof(*ks->vars), cmp_key);
}

int ksyms_match(const struct ksyms *ks, const char *glob, const struct ksym ***out)
{
	const struct ksym **v;
	int n = 0;

	if (!strpbrk(glob, "*?[")) {
		const struct ksym *f = ksyms_find(ks, glob);

		*out = xmalloc(sizeof(**out));
		(*out)[0] = f;
		return f != NULL;
	}
	v = xmalloc((ks->n ? ks->n : 1) * sizeof(*v));
	for (int i = 0; i < ks->n; i++)
		if (!fnmatch(glob, ks->funcs[i].name, 0))
			v[n++] = &ks->funcs[i];
	*out = v;
	return n;
}

int ksyms_similar(const struct ksyms *ks, const char *name, const char **out, int max)
{
	struct similar sim;

	similar_init(&sim, name, out, max);
	for (int i = 0; i < ks->n; i++)
		similar_offer(&sim, ks->funcs[i].name);
	return sim.count;
}
