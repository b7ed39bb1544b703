// SPDX-License-Identifier: GPL-2.0
/*
 * map.c - preallocated associative arrays (see map.h).
 *
 * Memory layout of a map, one block:
 *
 *	struct ctap_map | buckets[nbuckets] | entries[max_entries]
 *
 * and of an entry (entry_size bytes, 8-aligned):
 *
 *	struct entry_head | keys (8 bytes per long, string_len per string) | value
 */
#include "map.h"
#include "json.h"

#define NONE	(-1)

struct entry_head {
	int32_t chain;		/* next entry in the hash bucket */
	int32_t older, newer;	/* insertion order, for wrap and unsorted foreach */
	int32_t used;
	uint32_t hash;		/* of the keys: most misses in a chain cost one compare */
	int32_t walk;		/* the next entry of the last sorted walk */
};

struct ctap_map {
	struct ctap_map_spec spec;
	uint32_t key_off[CTAP_MAX_KEYS];	/* offsets within an entry */
	uint32_t value_off, entry_size, nbuckets;
	uint32_t count;
	int32_t free_list;			/* through head.chain */
	int32_t oldest, newest;
	int32_t *buckets;
	char *entries;
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t value_size(const struct ctap_map_spec *spec)
{
	switch (spec->value) {
	case CTAP_LONG:
		return 8;
	case CTAP_STRING:
		return align8(spec->string_len);
	default:
		return align8(sizeof(struct ctap_stat));
	}
}

static uint32_t bucket_count(uint32_t entries)
{
	uint32_t n = 16;

	while (n < entries && n < (1u << 30))
		n <<= 1;
	return n;
}

static size_t entry_bytes(const struct ctap_map_spec *spec, uint32_t *key_off,
			  uint32_t *value_off)
{
	size_t off = align8(sizeof(struct entry_head));

	for (int i = 0; i < spec->nkeys; i++) {
		if (key_off)
			key_off[i] = off;
		off += spec->keys[i] == CTAP_STRING ? align8(spec->string_len) : 8;
	}
	if (value_off)
		*value_off = off;
	return off + value_size(spec);
}

size_t ctap_map_bytes(const struct ctap_map_spec *spec)
{
	if (spec->nkeys < 1 || spec->nkeys > CTAP_MAX_KEYS || spec->max_entries < 1 ||
	    spec->string_len < 2 || (spec->value == CTAP_STATS && !spec->stat))
		return 0;
	return align8(sizeof(struct ctap_map)) +
		align8(bucket_count(spec->max_entries) * sizeof(int32_t)) +
		entry_bytes(spec, NULL, NULL) * spec->max_entries;
}

static struct entry_head *head(const struct ctap_map *m, int e)
{
	return (struct entry_head *)(m->entries + (size_t)e * m->entry_size);
}

static char *field(const struct ctap_map *m, int e, uint32_t off)
{
	return m->entries + (size_t)e * m->entry_size + off;
}

/* Every entry free, every bucket empty: the map as it is laid out. */
static void map_reset(struct ctap_map *m)
{
	for (uint32_t b = 0; b < m->nbuckets; b++)
		m->buckets[b] = NONE;
	m->free_list = NONE;
	for (int e = (int)m->spec.max_entries - 1; e >= 0; e--) {
		head(m, e)->used = 0;
		head(m, e)->chain = m->free_list;
		m->free_list = e;
	}
	m->count = 0;
	m->oldest = m->newest = NONE;
}

/*
 * "delete a": each entry in use back to the free list and its bucket
 * emptied, in time of the entries there are, not of the map's size (a
 * map of a million entries holding ten clears in ten steps, with
 * interrupts off).
 */
void ctap_map_clear(struct ctap_map *m)
{
	int e = m->oldest, next;

	for (; e != NONE; e = next) {
		struct entry_head *h = head(m, e);

		next = h->newer;
		m->buckets[h->hash & (m->nbuckets - 1)] = NONE;
		h->used = 0;
		h->chain = m->free_list;
		m->free_list = e;
	}
	m->count = 0;
	m->oldest = m->newest = NONE;
}

struct ctap_map *ctap_map_init(void *mem, const struct ctap_map_spec *spec)
{
	struct ctap_map *m = mem;
	char *p = (char *)mem + align8(sizeof(*m));

	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	m->entry_size = entry_bytes(spec, m->key_off, &m->value_off);
	m->nbuckets = bucket_count(spec->max_entries);
	m->buckets = (int32_t *)p;
	m->entries = p + align8(m->nbuckets * sizeof(int32_t));
	map_reset(m);
	return m;
}

uint32_t ctap_map_count(const struct ctap_map *m)
{
	return m->count;
}

/*
 * Strings are hashed and compared 8 bytes at a time, little-endian words
 * holding the string's bytes up to its NUL or its limit (string_len - 1
 * bytes) and zeros after: exactly the words of the key as an entry stores
 * it, NUL-padded.  A short name costs two words, not a dozen bytes.
 */
#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

/* The word of s at off; *last when the string ends in it.  Inlined: its
 * callers' loops keep *last in a register. */
static inline __attribute__((always_inline))
uint64_t key_word(const char *s, uint32_t off, uint32_t limit, bool *last)
{
	uint64_t w = ctap_load_word(s + off);
	uint64_t zero = (w - ONES) & ~w & HIGHS;	/* exact up to the first NUL */
	uint32_t n = zero ? __builtin_ctzll(zero) >> 3 : 8;

	if (n > limit - off)
		n = limit - off;
	*last = n < 8 || off + 8 >= limit;
	return n == 8 ? w : w & ((1ull << (8 * n)) - 1);
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x61C8864680B583EBull;	/* hash_64()'s constant */
	return h ^ (h >> 29);
}

static uint32_t key_hash(const struct ctap_map *m, const struct ctap_key *k)
{
	uint32_t limit = m->spec.string_len - 1;
	uint64_t h = 14695981039346656037ull;

	for (int i = 0; i < m->spec.nkeys; i++) {
		bool last = false;

		if (m->spec.keys[i] != CTAP_STRING) {
			h = mix(h, (uint64_t)k->n[i]);
			continue;
		}
		for (uint32_t off = 0; !last; off += 8)
			h = mix(h, key_word(k->s[i], off, limit, &last));
	}
	return (uint32_t)(h ^ (h >> 32));
}

static bool key_equal(const struct ctap_map *m, int e, const struct ctap_key *k)
{
	uint32_t limit = m->spec.string_len - 1;

	for (int i = 0; i < m->spec.nkeys; i++) {
		const char *f = field(m, e, m->key_off[i]);
		bool last = false;

		if (m->spec.keys[i] != CTAP_STRING) {
			if (*(const int64_t *)f != k->n[i])
				return false;
			continue;
		}
		for (uint32_t off = 0; !last; off += 8) {
			uint64_t stored;

			memcpy(&stored, f + off, 8);
			if (key_word(k->s[i], off, limit, &last) != stored)
				return false;
		}
	}
	return true;
}

static void unlink_entry(struct ctap_map *m, int e)
{
	struct entry_head *h = head(m, e);
	int32_t *pp = &m->buckets[h->hash & (m->nbuckets - 1)];

	while (*pp != e)
		pp = &head(m, *pp)->chain;
	*pp = h->chain;
	if (h->older != NONE)
		head(m, h->older)->newer = h->newer;
	else
		m->oldest = h->newer;
	if (h->newer != NONE)
		head(m, h->newer)->older = h->older;
	else
		m->newest = h->older;
	h->used = 0;
	h->chain = m->free_list;
	m->free_list = e;
	m->count--;
}

int ctap_map_find(struct ctap_map *m, const struct ctap_key *key, bool create)
{
	uint32_t hash = key_hash(m, key);
	uint32_t b = hash & (m->nbuckets - 1);
	struct entry_head *h;
	int e;

	for (e = m->buckets[b]; e != NONE; e = head(m, e)->chain)
		if (head(m, e)->hash == hash && key_equal(m, e, key))
			return e;
	if (!create)
		return -ENOENT;
	if (m->free_list == NONE) {
		if (!m->spec.wrap)
			return -E2BIG;
		unlink_entry(m, m->oldest);
	}
	e = m->free_list;
	h = head(m, e);
	m->free_list = h->chain;
	memset(field(m, e, 0), 0, m->entry_size);
	h = head(m, e);
	h->used = 1;
	h->hash = hash;
	h->chain = m->buckets[b];
	m->buckets[b] = e;
	h->older = m->newest;
	h->newer = NONE;
	if (m->newest != NONE)
		head(m, m->newest)->newer = e;
	else
		m->oldest = e;
	m->newest = e;
	m->count++;
	for (int i = 0; i < m->spec.nkeys; i++) {
		char *f = field(m, e, m->key_off[i]);

		if (m->spec.keys[i] == CTAP_STRING) {
			strncpy(f, key->s[i], m->spec.string_len - 1);
			f[m->spec.string_len - 1] = '\0';
		} else {
			*(int64_t *)f = key->n[i];
		}
	}
	return e;
}

int ctap_map_delete(struct ctap_map *m, const struct ctap_key *key)
{
	int e = ctap_map_find(m, key, false);

	if (e < 0)
		return e;
	unlink_entry(m, e);
	return 0;
}

int64_t ctap_map_key_long(const struct ctap_map *m, int e, int i)
{
	return *(const int64_t *)field(m, e, m->key_off[i]);
}

const char *ctap_map_key_string(const struct ctap_map *m, int e, int i)
{
	return field(m, e, m->key_off[i]);
}

int64_t *ctap_map_long(struct ctap_map *m, int e)
{
	return (int64_t *)field(m, e, m->value_off);
}

char *ctap_map_string(struct ctap_map *m, int e)
{
	return field(m, e, m->value_off);
}

struct ctap_stat *ctap_map_stat(struct ctap_map *m, int e)
{
	return (struct ctap_stat *)field(m, e, m->value_off);
}

bool ctap_map_matches(const struct ctap_map *m, int e, const struct ctap_key *key,
		      unsigned int mask)
{
	for (int i = 0; i < m->spec.nkeys; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (m->spec.keys[i] == CTAP_STRING ?
		    strncmp(ctap_map_key_string(m, e, i), key->s[i], m->spec.string_len - 1) :
		    ctap_map_key_long(m, e, i) != key->n[i])
			return false;
	}
	return true;
}

bool ctap_map_exists(const struct ctap_map *m, const struct ctap_key *key, unsigned int mask)
{
	for (int e = m->oldest; e != NONE; e = head(m, e)->newer)
		if (ctap_map_matches(m, e, key, mask))
			return true;
	return false;
}

void ctap_map_delete_matching(struct ctap_map *m, const struct ctap_key *key, unsigned int mask)
{
	int e = m->oldest, next;

	for (; e != NONE; e = next) {
		next = head(m, e)->newer;
		if (ctap_map_matches(m, e, key, mask))
			unlink_entry(m, e);
	}
}

const struct ctap_stat_spec *ctap_map_stat_spec(const struct ctap_map *m)
{
	return m->spec.stat;
}

static int64_t agg_value(struct ctap_map *m, int e, char agg)
{
	const struct ctap_stat *s = ctap_map_stat(m, e);

	switch (agg) {
	case 's':
		return s->sum;
	case 'm':
		return s->min;
	case 'M':
		return s->max;
	case 'a':
		return ctap_stat_avg(s);
	default:
		return s->count;
	}
}

/* Compare entries a and b by the sort's column; 0 when equal. */
static int compare(struct ctap_map *m, const struct ctap_map_sort *sort, int a, int b)
{
	int col = sort->column - 1;
	enum ctap_kind kind = col >= 0 ? m->spec.keys[col] : m->spec.value;
	int64_t x, y;

	if (kind == CTAP_STRING) {
		const char *sa = col >= 0 ? ctap_map_key_string(m, a, col) : ctap_map_string(m, a);
		const char *sb = col >= 0 ? ctap_map_key_string(m, b, col) : ctap_map_string(m, b);

		return strcmp(sa, sb);
	}
	if (col >= 0) {
		x = ctap_map_key_long(m, a, col);
		y = ctap_map_key_long(m, b, col);
	} else if (kind == CTAP_STATS) {
		x = agg_value(m, a, sort->agg);
		y = agg_value(m, b, sort->agg);
	} else {
		x = *ctap_map_long(m, a);
		y = *ctap_map_long(m, b);
	}
	return x < y ? -1 : x > y;
}

/*
 * Stable bottom-up merge sort of the entries in insertion order: equal
 * elements keep the order they were added in; no allocation (the caller
 * gives room for every entry twice); O(n log n) for MAXMAPENTRIES-sized maps.
 */
int ctap_map_sorted(struct ctap_map *m, const struct ctap_map_sort *sort, int *out,
		    int *scratch, int limit)
{
	int n = 0, *src = out, *dst = scratch, *t;

	for (int e = m->oldest; e != NONE; e = head(m, e)->newer)
		out[n++] = e;
	for (int width = 1; sort->dir && width < n; width *= 2) {
		for (int lo = 0; lo < n; lo += 2 * width) {
			int mid = lo + width < n ? lo + width : n;
			int hi = lo + 2 * width < n ? lo + 2 * width : n;
			int i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = compare(m, sort, src[j], src[i]) * sort->dir < 0 ?
					src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;	/* the merged run becomes the source */
		src = dst;
		dst = t;
	}
	if (src != out)
		memcpy(out, src, n * sizeof(*out));
	/* SystemTap sorts the array itself: an unsorted foreach afterwards
	 * sees the last sort's order, and the next sort's ties keep it.  Not
	 * statistics: SystemTap sorts a fresh aggregate of them each time. */
	if (sort->dir && n && m->spec.value != CTAP_STATS) {
		for (int i = 0; i < n; i++) {
			head(m, out[i])->older = i ? out[i - 1] : NONE;
			head(m, out[i])->newer = i + 1 < n ? out[i + 1] : NONE;
		}
		m->oldest = out[0];
		m->newest = out[n - 1];
	}
	return limit >= 0 && limit < n ? limit : n;
}

static int32_t walk_next(const struct ctap_map *m, int32_t e)
{
	return head(m, e)->walk;
}

static void set_walk(struct ctap_map *m, int32_t e, int32_t next)
{
	head(m, e)->walk = next;
}

/*
 * Stable merge sort of the list from first through the walk links, in
 * place (Simon Tatham's for linked lists: runs of 1, 2, 4... merged,
 * each pass a walk of the list): no memory, O(n log n) comparisons.
 * Returns the new first entry.
 */
static int32_t sort_walk(struct ctap_map *m, const struct ctap_map_sort *sort, int32_t first)
{
	for (uint32_t run = 1; ; run *= 2) {
		int32_t p = first, tail = NONE;
		int merges = 0;

		first = NONE;
		while (p != NONE) {
			int32_t q = p, e;
			uint32_t psize = 0, qsize = run;

			merges++;
			while (psize < run && q != NONE) {
				psize++;
				q = walk_next(m, q);
			}
			while (psize || (qsize && q != NONE)) {
				/* p's entries came first: they go first on a tie */
				if (psize && (!qsize || q == NONE ||
					      compare(m, sort, q, p) * sort->dir >= 0)) {
					e = p;
					p = walk_next(m, p);
					psize--;
				} else {
					e = q;
					q = walk_next(m, q);
					qsize--;
				}
				if (tail != NONE)
					set_walk(m, tail, e);
				else
					first = e;
				tail = e;
			}
			p = q;
		}
		if (tail != NONE)
			set_walk(m, tail, NONE);
		if (merges <= 1)
			return first;
	}
}

int ctap_map_walk_first(struct ctap_map *m, const struct ctap_map_sort *sort)
{
	int32_t first, prev = NONE;

	if (!sort->dir || m->oldest == NONE)
		return m->oldest;
	for (int32_t e = m->oldest; e != NONE; e = head(m, e)->newer)
		set_walk(m, e, head(m, e)->newer);
	first = sort_walk(m, sort, m->oldest);
	/* SystemTap sorts the array itself (ctap_map_sorted()); not statistics */
	if (m->spec.value != CTAP_STATS) {
		for (int32_t e = first; e != NONE; prev = e, e = walk_next(m, e)) {
			head(m, e)->older = prev;
			head(m, e)->newer = walk_next(m, e);
		}
		m->oldest = first;
		m->newest = prev;
	}
	return first;
}

int ctap_map_walk_next(const struct ctap_map *m, const struct ctap_map_sort *sort, int e)
{
	return sort->dir ? walk_next(m, e) : head(m, e)->newer;
}

static void print_quoted(struct ctap_out *o, const char *s)
{
	ctap_out_write(o, "\"", 1);
	ctap_out_write(o, s, strlen(s));
	ctap_out_write(o, "\"", 1);
}

void ctap_map_print_entry(struct ctap_out *o, struct ctap_map *m, int e, const char *name)
{
	ctap_out_write(o, name, strlen(name));
	ctap_out_write(o, "[", 1);
	for (int i = 0; i < m->spec.nkeys; i++) {
		if (i)
			ctap_out_write(o, ",", 1);
		if (m->spec.keys[i] == CTAP_STRING)
			print_quoted(o, ctap_map_key_string(m, e, i));
		else
			ctap_out_dec(o, ctap_map_key_long(m, e, i));
	}
	switch (m->spec.value) {
	case CTAP_LONG:
		ctap_out_write(o, "]=", 2);
		ctap_out_dec(o, *ctap_map_long(m, e));
		break;
	case CTAP_STRING:
		ctap_out_write(o, "]=", 2);
		print_quoted(o, ctap_map_string(m, e));
		break;
	case CTAP_STATS:
		ctap_out_write(o, "] ", 2);
		ctap_stat_print_summary(o, ctap_map_stat(m, e));
		break;
	}
	ctap_out_write(o, "\n", 1);
}

/* stap --json's line for an entry the session prints at the end. */
void ctap_map_json_entry(struct ctap_out *o, struct ctap_map *m, int e, const char *name)
{
	ctap_out_write(o, "{\"type\":\"array\",\"name\":", 23);
	ctap_json_string(o, name, strlen(name));
	ctap_out_write(o, ",\"key\":[", 8);
	for (int i = 0; i < m->spec.nkeys; i++) {
		const char *k;

		if (i)
			ctap_out_write(o, ",", 1);
		if (m->spec.keys[i] == CTAP_STRING) {
			k = ctap_map_key_string(m, e, i);
			ctap_json_string(o, k, strlen(k));
		} else {
			ctap_out_dec(o, ctap_map_key_long(m, e, i));
		}
	}
	ctap_out_write(o, "],\"value\":", 10);
	ctap_map_json_value(o, m, e, ctap_json_stat);
	ctap_out_write(o, "}\n", 2);
}

void ctap_map_json_value(struct ctap_out *o, struct ctap_map *m, int e,
			 void (*stat)(struct ctap_out *o, const struct ctap_stat *agg))
{
	switch (m->spec.value) {
	case CTAP_LONG:
		ctap_out_dec(o, *ctap_map_long(m, e));
		break;
	case CTAP_STRING:
		ctap_json_string(o, ctap_map_string(m, e), strlen(ctap_map_string(m, e)));
		break;
	case CTAP_STATS:
		stat(o, ctap_map_stat(m, e));
		break;
	}
}
