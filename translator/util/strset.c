// SPDX-License-Identifier: GPL-2.0
/*
 * strset.c - a set of strings and a map keyed by strings: FNV-1a, linear
 * probing, grown at 50% load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"
#include "xalloc.h"

size_t strset_hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static size_t find_slot(const char *const *slots, size_t cap, const char *s)
{
	size_t i = strset_hash(s) & (cap - 1);

	while (slots[i] && strcmp(slots[i], s))
		i = (i + 1) & (cap - 1);
	return i;
}

static size_t slot_of(const struct strset *set, const char *s)
{
	return find_slot(set->slots, set->cap, s);
}

bool strset_has(const struct strset *set, const char *s)
{
	return set->cap && set->slots[slot_of(set, s)];
}

const char *strset_get(const struct strset *set, const char *s)
{
	return set->cap ? set->slots[slot_of(set, s)] : NULL;
}

bool strset_add(struct strset *set, const char *s)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap) {
		struct strset bigger = { .cap = set->cap ? 2 * set->cap : 64 };

		bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
		for (size_t k = 0; k < set->cap; k++)
			if (set->slots[k])
				bigger.slots[slot_of(&bigger, set->slots[k])] = set->slots[k];
		bigger.n = set->n;
		free(set->slots);
		*set = bigger;
	}
	i = slot_of(set, s);
	if (set->slots[i])
		return false;
	set->slots[i] = s;
	set->n++;
	return true;
}

void strset_free(struct strset *set)
{
	free(set->slots);
	*set = (struct strset){ 0 };
}

void *strmap_get(const struct strmap *m, const char *key)
{
	return m->cap ? m->vals[find_slot(m->keys, m->cap, key)] : NULL;
}

void strmap_put(struct strmap *m, const char *key, void *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct strmap bigger = { .cap = m->cap ? 2 * m->cap : 64 };

		bigger.keys = xcalloc(bigger.cap, sizeof(*bigger.keys));
		bigger.vals = xcalloc(bigger.cap, sizeof(*bigger.vals));
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->keys[k])
				continue;
			i = find_slot(bigger.keys, bigger.cap, m->keys[k]);
			bigger.keys[i] = m->keys[k];
			bigger.vals[i] = m->vals[k];
		}
		bigger.n = m->n;
		strmap_free(m);
		*m = bigger;
	}
	i = find_slot(m->keys, m->cap, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void strmap_free(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct strmap){ 0 };
}

/* Levenshtein distance of a (la long) and b, giving up (returning
 * limit + 1) beyond limit.  Offered 100,000 kernel symbols at a time:
 * a b too long to be close is not measured to its end. */
static int edit_distance(const char *a, int la, const char *b, int limit)
{
	int lb = strnlen(b, la + limit + 1), row[128];

	if (la >= 127 || lb >= 127 || abs(la - lb) > limit)
		return limit + 1;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0], best;

		row[0] = best = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);

			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

void similar_init(struct similar *sim, const char *name, const char **out, int max)
{
	sim->name = name;
	sim->len = strlen(name);
	sim->out = out;
	sim->count = 0;
	sim->max = max > 16 ? 16 : max;
	sim->limit = sim->len / 4 + 1;
}

void similar_offer(struct similar *sim, const char *f)
{
	int d = edit_distance(sim->name, sim->len, f, sim->limit), i;

	if (d > sim->limit)
		return;
	for (i = 0; i < sim->count; i++)	/* skip duplicates */
		if (!strcmp(sim->out[i], f))
			return;
	/* Insert in order of distance; drop the farthest when full. */
	for (i = sim->count; i > 0 && sim->dist[i - 1] > d; i--) {
		if (i < sim->max) {
			sim->out[i] = sim->out[i - 1];
			sim->dist[i] = sim->dist[i - 1];
		}
	}
	if (i < sim->max) {
		sim->out[i] = f;
		sim->dist[i] = d;
		if (sim->count < sim->max)
			sim->count++;
	}
}
