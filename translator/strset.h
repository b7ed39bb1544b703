/*
 * strset.h - a set of strings (open addressing), for "seen this name?".
 */
#ifndef STRSET_H
#define STRSET_H

#include <stdbool.h>
#include <stddef.h>

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
/* The hash the set uses (FNV-1a), for other tables keyed by name. */
size_t strset_hash(const char *s);

#endif /* STRSET_H */
