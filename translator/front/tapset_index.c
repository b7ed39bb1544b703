// SPDX-License-Identifier: GPL-2.0
/*
 * tapset_index.c - the cached index of tapset definitions.
 *
 * The cache is a text file, one block per tapset:
 *	F <mtime-ns> <size> <path>
 *	f <function>	a <alias name>	g <global>	(one per line)
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "parse.h"
#include "strset.h"
#include "tapset_index.h"
#include "xalloc.h"

#define INDEX_MAGIC	"ctap-tapset-index 1"
/* Index files kept in the cache, newest first: one per tapset path and
 * stap build, so a developer's builds would add one each forever. */
#define TINDEX_KEEP	8

struct entry {
	const char *path;
	long long mtime, size;		/* of the file now */
	bool stale;
	char **names;			/* "f:name", "a:alias.name", "g:name" */
	size_t n, cap;
};

struct tapset_index {
	struct arena *a;
	struct entry *v;
	size_t n;
	char *cache;			/* index file path */
	bool dirty;
	struct strset known;		/* every function and global name, bare */
};

static void add_name(struct tapset_index *ix, struct entry *e, char kind, const char *name)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->names = xrealloc(e->names, e->cap * sizeof(*e->names));
	}
	size_t len = strlen(name);
	char *k = arena_bump(ix->a, len + 3, 1);	/* "kind:name" */

	k[0] = kind;
	k[1] = ':';
	memcpy(k + 2, name, len + 1);
	e->names[e->n] = k;
	if (kind == 'f' || kind == 'g')
		strset_add(&ix->known, e->names[e->n] + 2);
	e->n++;
}

/*
 * Called for every name of a script, so one lookup of the bare name: a
 * function and a global of the same name both answer yes for either kind,
 * and tindex_defines() tells them apart for the few names that pass.
 */
bool tindex_knows(const struct tapset_index *ix, char kind, const char *name)
{
	return strset_has(&ix->known, name);
}

/* One cache file per tapset path and translator: its name hashes the
 * paths and this stap's executable (a new parser may find errors in a
 * file an older one indexed). */
static char *cache_file(struct arena *a, char **paths, size_t n)
{
	unsigned long h = 5381 * 33 + cache_exe_id();
	char name[64], path[4096];

	for (size_t i = 0; i < n; i++)
		for (const char *p = paths[i]; *p; p++)
			h = h * 33 + (unsigned char)*p;
	snprintf(name, sizeof(name), "tapsets-%08lx.idx", h & 0xffffffff);
	if (cache_path(path, sizeof(path), name))
		return NULL;
	return arena_strndup(a, path, strlen(path));
}

static struct entry *find(struct tapset_index *ix, const char *path)
{
	for (size_t i = 0; i < ix->n; i++)
		if (!strcmp(ix->v[i].path, path))
			return &ix->v[i];
	return NULL;
}

static void load_cache(struct tapset_index *ix)
{
	FILE *f = ix->cache && cache_file_ok(ix->cache) == 0 ? fopen(ix->cache, "r") : NULL;
	char line[4096];
	struct entry *cur = NULL;

	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strncmp(line, INDEX_MAGIC, strlen(INDEX_MAGIC))) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		long long mtime, size;
		int off = 0;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'F' && sscanf(line, "F %lld %lld %n", &mtime, &size, &off) == 2 && off) {
			cur = find(ix, line + off);
			/* Current only if the file is unchanged. */
			if (cur && (cur->mtime != mtime || cur->size != size))
				cur = NULL;
			if (cur)
				cur->stale = false;
		} else if (cur && line[0] && line[1] == ' ') {
			add_name(ix, cur, line[0], line + 2);
		}
	}
	fclose(f);
}

struct tapset_index *tindex_open(struct arena *a, char **paths, size_t n)
{
	struct tapset_index *ix = arena_new(a, struct tapset_index);

	ix->a = a;
	ix->v = arena_alloc(a, (n + 1) * sizeof(*ix->v));
	ix->n = n;
	ix->cache = cache_file(a, paths, n);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		ix->v[i].path = paths[i];
		ix->v[i].stale = true;
		if (stat(paths[i], &st) == 0) {
			ix->v[i].mtime = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
			ix->v[i].size = st.st_size;
		}
	}
	load_cache(ix);
	for (size_t i = 0; i < n; i++)
		if (ix->v[i].stale) {
			ix->v[i].n = 0;	/* names read for a changed file are void */
			ix->dirty = true;
		}
	return ix;
}

bool tindex_stale(const struct tapset_index *ix, size_t i)
{
	return ix->v[i].stale;
}

void tindex_record(struct tapset_index *ix, size_t i, const struct script *s)
{
	struct entry *e = &ix->v[i];

	/* Parsed because the script needs it, unchanged since indexed:
	 * the index is current, and rewriting it each run cost every
	 * stap a 50 KB write and a rename. */
	if (!e->stale)
		return;
	e->n = 0;
	for (const struct function *f = s->functions; f; f = f->next)
		add_name(ix, e, 'f', f->name);
	for (const struct global *g = s->globals; g; g = g->next)
		add_name(ix, e, 'g', g->name);
	for (const struct probe *p = s->probes; p; p = p->next)
		for (const struct probe_point *nm = p->is_alias ? p->alias_names : NULL; nm; nm = nm->next)
			add_name(ix, e, 'a', probe_point_name(ix->a, nm, false));
	/* A file defining nothing is indexed by a marker, so it counts as current. */
	if (!e->n)
		add_name(ix, e, '-', "");
	e->stale = false;
	ix->dirty = true;
}

/*
 * A point ("a.b.c", a glob if glob) uses an alias that it or a prefix of
 * it matches: "perf.sw.page_faults.sample" is the alias perf.sw.page_faults
 * with a suffix (elaborate.c's alias suffixes).  This runs for every alias
 * of every tapset file, per point: without a glob it is string compares.
 */
static bool alias_used(const char *point, bool glob, const char *alias)
{
	size_t n = strlen(alias);
	char buf[512];
	char *dot;

	if (!glob)
		return !strncmp(point, alias, n) && (point[n] == '\0' || point[n] == '.');
	if (!fnmatch(point, alias, 0))
		return true;
	if (strlen(point) >= sizeof(buf))
		return false;
	strcpy(buf, point);
	while ((dot = strrchr(buf, '.'))) {
		*dot = '\0';
		if (!fnmatch(buf, alias, 0))
			return true;
	}
	return false;
}

bool tindex_defines(const struct tapset_index *ix, size_t i, char kind, const char *name)
{
	const struct entry *e = &ix->v[i];
	bool glob = kind == 'a' && strpbrk(name, "*?[");

	for (size_t k = 0; k < e->n; k++) {
		if (e->names[k][0] != kind)
			continue;
		if (kind == 'a' ? alias_used(name, glob, e->names[k] + 2) :
		    !strcmp(name, e->names[k] + 2))
			return true;
	}
	return false;
}

void tindex_save(struct tapset_index *ix)
{
	char *tmp;
	FILE *f;

	if (!ix->dirty || !ix->cache)
		return;
	tmp = arena_printf(ix->a, "%s.%d", ix->cache, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", INDEX_MAGIC);
	for (size_t i = 0; i < ix->n; i++) {
		if (ix->v[i].stale)
			continue;	/* not parsed whole: parsed again next time */
		fprintf(f, "F %lld %lld %s\n", ix->v[i].mtime, ix->v[i].size, ix->v[i].path);
		for (size_t k = 0; k < ix->v[i].n; k++)
			fprintf(f, "%c %s\n", ix->v[i].names[k][0], ix->v[i].names[k] + 2);
	}
	if (fclose(f) == 0 && rename(tmp, ix->cache) == 0) {
		ix->dirty = false;	/* saved: a second call writes nothing */
		cache_prune("", "tapsets-", ".idx", TINDEX_KEEP, NULL);
	} else {
		remove(tmp);
	}
}

void tindex_close(struct tapset_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->v[i].names);
	strset_free(&ix->known);
}
