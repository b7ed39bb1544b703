/*
 * strset.c - a set of strings: FNV-1a, linear probing, grown at 50% load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

size_t strset_hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static size_t slot_of(const struct strset *set, const char *s)
{
	size_t i = strset_hash(s) & (set->cap - 1);

	while (set->slots[i] && strcmp(set->slots[i], s))
		i = (i + 1) & (set->cap - 1);
	return i;
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

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots) {
			fprintf(stderr, "stap: out of memory\n");
			exit(1);
		}
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
