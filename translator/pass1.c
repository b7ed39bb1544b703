/*
 * pass1.c - parse the user script and the tapset library.
 *
 * Library macros (.stpm) load first, since any file may use them; then
 * every tapset (.stp) in the search path: the -I directories, then the
 * installed or source-tree tapset directory, each with its per-arch
 * subdirectory.  A tapset whose name an earlier directory already supplied
 * is skipped, so -I can override a library file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "session.h"

struct name_list {
	char **v;
	size_t n, cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in dir ending in suffix, sorted, as full paths. */
static void list_files(struct arena *a, const char *dir, const char *suffix,
		       struct name_list *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t first = out->n, slen = strlen(suffix);

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= slen || strcmp(de->d_name + len - slen, suffix))
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 64;
			out->v = realloc(out->v, out->cap * sizeof(*out->v));
		}
		out->v[out->n++] = arena_printf(a, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_str);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool seen_before(const struct name_list *l, size_t upto, const char *path)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(base_name(l->v[i]), base_name(path)))
			return true;
	return false;
}

/* The tapset search path: -I dirs, then the library, each dir then dir/arch. */
static int tapset_dirs(struct session *s, const char **dirs, int max)
{
	const char *lib = getenv("SYSTEMTAP_TAPSET");
	int n = 0;

	/* Installed, else (running from the build tree) the source tree's. */
	if (!lib)
		lib = access(CTAP_PKGDATADIR "/tapset", R_OK) == 0 ? CTAP_PKGDATADIR "/tapset"
			: CTAP_SRCDIR "/tapsets";
	for (int i = 0; i < s->n_include_dirs && n + 2 <= max; i++) {
		dirs[n++] = s->include_dirs[i];
		dirs[n++] = arena_printf(&s->arena, "%s/%s", s->include_dirs[i], s->pp.arch);
	}
	if (n + 2 <= max) {
		dirs[n++] = lib;
		dirs[n++] = arena_printf(&s->arena, "%s/%s", lib, s->pp.arch);
	}
	return n;
}

static struct script *parse_file(struct session *s, const char *path, bool tapset)
{
	struct source *src = source_from_file(&s->arena, path);

	if (!src) {
		fprintf(stderr, "stap: cannot read '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	return parse_script(&s->arena, src, tapset ? NULL : &s->args, &s->pp, tapset);
}

static void parse_library(struct session *s)
{
	const char *dirs[2 * MAX_INCLUDE_DIRS + 2];
	int ndirs = tapset_dirs(s, dirs, 2 * MAX_INCLUDE_DIRS + 2);
	struct name_list macros = { 0 }, tapsets = { 0 };
	struct script **tail = &s->library;

	for (int i = 0; i < ndirs; i++) {
		list_files(&s->arena, dirs[i], ".stpm", &macros);
		list_files(&s->arena, dirs[i], ".stp", &tapsets);
	}
	s->pp.defining_library = true;
	for (size_t i = 0; i < macros.n; i++)
		if (!seen_before(&macros, i, macros.v[i]))
			parse_file(s, macros.v[i], true);
	s->pp.defining_library = false;
	for (size_t i = 0; i < tapsets.n; i++) {
		struct script *t;

		if (seen_before(&tapsets, i, tapsets.v[i]))
			continue;
		t = parse_file(s, tapsets.v[i], true);
		if (t) {
			*tail = t;
			tail = &t->next;
			s->n_library++;
		}
	}
	free(macros.v);
	free(tapsets.v);
}

int pass1_parse(struct session *s)
{
	parse_library(s);
	if (!s->script_text && !s->script_file)		/* -l, -L, --dump-*: no script */
		return diag_errors() ? -1 : 0;
	if (s->script_text) {
		struct source *src = source_from_string(&s->arena, "<input>", s->script_text);

		s->user = parse_script(&s->arena, src, &s->args, &s->pp, false);
	} else {
		s->user = parse_file(s, s->script_file, false);
	}
	if (!s->user)
		return -1;
	return diag_errors() ? -1 : 0;
}
