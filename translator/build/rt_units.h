/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rt_units.h - the runtime's objects: the core and one per probe family,
 * each compiled once per kernel and set of -D options (rt_units.c).
 */
#ifndef RT_UNITS_H
#define RT_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* The prefix of the units' object names in a build directory. */
#define RT_UNIT_PREFIX	"ctaprt_"

struct rt_unit {
	const char *src;	/* "core", or a family's file: "probes/kprobes" */
	const char *obj;	/* its object: "ctaprt_kprobes.o" */
	const char *store;	/* where a compiled one is kept (the cache), or NULL */
	const char *found;	/* an object to use (cached or prebuilt), or NULL */
};

/* The units s's module is linked from, ended by one with no src; base is
 * build.c's key of the runtime sources and the kernel. */
struct rt_unit *rt_units(struct session *s, uint64_t base);

/* Their object names, NULL-terminated, in the order the module links them. */
const char **rt_unit_objs(struct session *s, const struct rt_unit *u);

/* Into dir: the found units as their objects (shipped: as Kbuild's
 * OBJ_shipped), the others as sources for Kbuild to compile; 0 or -errno. */
int rt_units_write(struct session *s, const char *dir, const struct rt_unit *u, bool shipped);

/* After Kbuild built dir: the units it compiled into the cache. */
void rt_units_keep(const char *dir, const struct rt_unit *u);

/* The file at path, NUL-terminated (len: its size), or NULL if it cannot
 * be read or is empty; free() it. */
char *rt_slurp(const char *path, size_t *len);

/* The file at path into the cache at store (nothing if NULL). */
void rt_keep(const char *path, const char *store);

/* A copy of from at to: 0 or -errno. */
int rt_copy(const char *from, const char *to);

/* text as the whole of the file at path: 0 or -errno. */
int rt_write_text(const char *path, const char *text);

/* How many units have no object yet. */
int rt_units_missing(const struct rt_unit *u);

/*
 * The runtime's file NAME ("KEY.o", "KEY.kbuild", "KEY.gch"): the cache's
 * (runtime/NAME) if it has one that can be trusted, else a prebuilt one
 * ($CTAP_PREBUILT_DIR, else the runtime directory's prebuilt/), else NULL.
 * *store (when not NULL) gets the cache's path, or NULL if the cache cannot
 * be used.  With --disable-cache nothing is found.
 */
const char *rt_file(struct session *s, const char *name, const char **store);

#endif /* RT_UNITS_H */
