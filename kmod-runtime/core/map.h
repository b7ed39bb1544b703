/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map.h - SystemTap's associative arrays ("global a[N]", "a%").
 *
 * A map is one block of memory sized at load time (ctap_map_bytes), so a
 * probe handler never allocates: a fixed pool of entries, a hash table of
 * chains through them, and, for wrap-around maps ("a%"), the order of
 * insertion so that a full map forgets its oldest entry.  Keys are 1..9
 * longs or strings; values are a long, a string or statistics.  Strings
 * live in the entry, bounded by the map's string length (MAXSTRINGLEN).
 *
 * Not thread-safe: callers hold the map's lock (global arrays) or own it
 * (per-CPU statistics arrays).
 */
#ifndef CTAP_MAP_H
#define CTAP_MAP_H

#include "ctap_limits.h"
#include "stat.h"

enum ctap_kind { CTAP_LONG, CTAP_STRING, CTAP_STATS };

struct ctap_map_spec {
	int nkeys;
	enum ctap_kind keys[CTAP_MAX_KEYS];	/* CTAP_LONG or CTAP_STRING */
	enum ctap_kind value;
	uint32_t max_entries;
	bool wrap;				/* a% : forget the oldest when full */
	uint32_t string_len;			/* bytes per string, with its NUL */
	const struct ctap_stat_spec *stat;	/* for CTAP_STATS values */
};

/* A key as the generated code builds it: slot i is n[i] or s[i]. */
struct ctap_key {
	int64_t n[CTAP_MAX_KEYS];
	const char *s[CTAP_MAX_KEYS];
};

struct ctap_map;

/* Bytes for a map of this spec; 0 if the spec is unusable. */
size_t ctap_map_bytes(const struct ctap_map_spec *spec);
/* Lay a map out in mem (ctap_map_bytes(spec) bytes, any alignment of 8). */
struct ctap_map *ctap_map_init(void *mem, const struct ctap_map_spec *spec);
void ctap_map_clear(struct ctap_map *m);
uint32_t ctap_map_count(const struct ctap_map *m);

/*
 * The entry for key; with create, made (zero/empty) if absent.  Returns an
 * entry index >= 0, -ENOENT (absent, not created) or -E2BIG (full: SystemTap's
 * "Array overflow, check MAXMAPENTRIES").
 */
int ctap_map_find(struct ctap_map *m, const struct ctap_key *key, bool create);
int ctap_map_delete(struct ctap_map *m, const struct ctap_key *key);

/*
 * Wildcard keys ("[k1, *] in a", "delete a[*, k2]", foreach over
 * a[k1, *]): key slot i counts only where bit i of mask is set.
 */
bool ctap_map_matches(const struct ctap_map *m, int entry, const struct ctap_key *key,
		      unsigned int mask);
bool ctap_map_exists(const struct ctap_map *m, const struct ctap_key *key, unsigned int mask);
void ctap_map_delete_matching(struct ctap_map *m, const struct ctap_key *key, unsigned int mask);
/* The stats layout of a CTAP_STATS map. */
const struct ctap_stat_spec *ctap_map_stat_spec(const struct ctap_map *m);

/* An entry's parts. */
int64_t ctap_map_key_long(const struct ctap_map *m, int entry, int i);
const char *ctap_map_key_string(const struct ctap_map *m, int entry, int i);
int64_t *ctap_map_long(struct ctap_map *m, int entry);
char *ctap_map_string(struct ctap_map *m, int entry);	/* string_len bytes */
struct ctap_stat *ctap_map_stat(struct ctap_map *m, int entry);

/* foreach's order: by key column (1..nkeys) or by value (0); for stats
 * values, by an aggregate (sort_agg: 'c'ount 's'um 'm'in 'M'ax 'a'vg). */
struct ctap_map_sort {
	int column;	/* 0: value */
	int dir;	/* 1 ascending, -1 descending, 0 unsorted (insertion order) */
	char agg;
};

/*
 * One entry as SystemTap prints an unread array when the session ends:
 * name[1,"k"]=42, name[1]="v", name["k"] @count=2 @min=... and a newline.
 */
void ctap_map_print_entry(struct ctap_out *o, struct ctap_map *m, int entry, const char *name);
/* The same entry as stap --json's {"type":"array",...} line. */
void ctap_map_json_entry(struct ctap_out *o, struct ctap_map *m, int entry, const char *name);
/* An entry's value as JSON, a statistic written by stat (--json's object,
 * or --monitor's). */
void ctap_map_json_value(struct ctap_out *o, struct ctap_map *m, int entry,
			 void (*stat)(struct ctap_out *o, const struct ctap_stat *agg));

/*
 * Fill out[] with the entries in the given order and return how many to
 * visit: all, or limit (foreach's "limit N") if it is smaller and >= 0.
 * Unsorted (dir 0) is the map's own order: insertion order, or the order
 * of the last sort, which reorders the map as SystemTap's does (a wrap
 * map then forgets in that order; statistics maps keep insertion order).
 * out and scratch each hold max_entries ints (per-CPU scratch, preallocated).
 */
int ctap_map_sorted(struct ctap_map *m, const struct ctap_map_sort *sort, int *out,
		    int *scratch, int limit);

/*
 * foreach without a buffer: the entries in the order ctap_map_sorted()
 * gives, one after the other, -1 after the last.  A sort links them in
 * place (the map's write lock held: it writes every entry); unsorted is
 * the insertion order (a read lock will do).  The map must not change
 * during the walk (pass 2 sees to it), nor be walked sorted again: a
 * foreach over the same array inside a foreach over it uses
 * ctap_map_sorted() instead (translator/gen/analyses.c).
 */
int ctap_map_walk_first(struct ctap_map *m, const struct ctap_map_sort *sort);
int ctap_map_walk_next(const struct ctap_map *m, const struct ctap_map_sort *sort, int e);

#endif /* CTAP_MAP_H */
