/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strset.h - a set of strings (open addressing), for "seen this name?", and
 * a map keyed by strings.
 */
#ifndef STRSET_H
#define STRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strset {
	const char **slots;	/* NULL: empty; strings are the caller's */
	size_t cap, n;
};

/* Adds s; true if it was not there.  Exits when memory runs out. */
bool strset_add(struct strset *set, const char *s);
bool strset_has(const struct strset *set, const char *s);
/* The member equal to s (the caller's string that was added), or NULL. */
const char *strset_get(const struct strset *set, const char *s);
void strset_free(struct strset *set);
/* A map from strings (the caller's) to pointers. */
struct strmap {
	const char **keys;
	void **vals;
	size_t cap, n;
};

/* key's value, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Sets key's value.  Exits when memory runs out. */
void strmap_put(struct strmap *m, const char *key, void *val);
void strmap_free(struct strmap *m);

/* The hash the set uses (FNV-1a), for other tables keyed by name. */
size_t strset_hash(const char *s);

/* 64-bit FNV-1a over len bytes at data, going on from h (FNV1A_INIT to
 * start): names a module by its script, and a runtime build by its files. */
#define FNV1A_INIT	14695981039346656037ull
static inline uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/*
 * "Did you mean": the names offered that are closest to name by edit
 * distance (at most a quarter of its length, plus one), closest first,
 * each once, at most max (16) of them in out[0..count).
 */
struct similar {
	const char *name;
	const char **out;
	int dist[16];
	int len;		/* name's */
	int count, max, limit;
};

void similar_init(struct similar *sim, const char *name, const char **out, int max);
/* Considers candidate (the caller's string, kept in out). */
void similar_offer(struct similar *sim, const char *candidate);

#endif /* STRSET_H */
