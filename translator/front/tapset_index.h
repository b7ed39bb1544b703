/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapset_index.h - which tapset file defines which names, cached.
 *
 * For every .stp file of the tapset path the index records the functions,
 * probe alias names and globals it defines, with the file's size and
 * modification time.  Pass 1 parses a file only when the index has no
 * current entry for it, or when the script (or a tapset it loaded) uses a
 * name the file defines.  The index lives in the cache directory
 * ($CTAP_CACHE_DIR, else ~/.cache/ctap), one file per tapset path.
 */
#ifndef TAPSET_INDEX_H
#define TAPSET_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"

struct tapset_index;

/* The index of these files; entries whose file changed are marked stale. */
struct tapset_index *tindex_open(struct arena *a, char **paths, size_t n);

/* Does file i need parsing to be indexed (new or changed)? */
bool tindex_stale(const struct tapset_index *ix, size_t i);

/* Record what the parsed file i defines. */
void tindex_record(struct tapset_index *ix, size_t i, const struct script *s);

/*
 * Does file i define a function or global called name, or (kind 'a') an
 * alias matched by the probe-point glob name?
 */
bool tindex_defines(const struct tapset_index *ix, size_t i, char kind, const char *name);

/* Might name (kind 'f' or 'g') be defined by a tapset?  A cheap filter:
 * true for a name any tapset defines as either kind. */
bool tindex_knows(const struct tapset_index *ix, char kind, const char *name);

/* Write the index back if anything changed; failures only cost speed. */
void tindex_save(struct tapset_index *ix);
void tindex_close(struct tapset_index *ix);

#endif /* TAPSET_INDEX_H */
