// SPDX-License-Identifier: GPL-2.0
/*
 * pass1.c - parse the user script and the tapset library.
 *
 * The library is every .stpm and .stp file of the search path: the -I
 * directories, then the installed or source-tree tapset directory, each
 * with its linux/ and per-arch subdirectories (tapset_dirs()).  A file whose
 * name an earlier directory already supplied is skipped, so -I can override
 * a library file.
 *
 * Macros (.stpm) are parsed first, since any file may use them.  Tapsets
 * (.stp) are parsed when needed: when the tapset index has no current
 * entry for them, or when the script, or a tapset loaded for it, uses a
 * function, global or probe alias they define (tapset_index.h).  -l and
 * the --dump options load them all.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "pass1.h"
#include "session.h"
#include "strset.h"
#include "tapset_index.h"
#include "target_tapsets.h"
#include "xalloc.h"

#define TAPSET_SUBDIRS	4	/* searched per tapset dir: see tapset_dirs() */
/* -I dirs and the library, each with its subdirs, and the target's. */
#define MAX_TAPSET_DIRS	(TAPSET_SUBDIRS * (MAX_INCLUDE_DIRS + 1) + 1)

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
			out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
		}
		out->v[out->n++] = arena_printf(a, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (out->n > first)	/* a dir with none of them: out->v may still be NULL */
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

/*
 * The tapset search path: -I dirs, the tapsets generated from the target
 * kernel (target_tapsets.c), then the library.  As SystemTap, each
 * dir is searched most specific first: dir/linux/ARCH, dir/linux (the
 * kernel runtime's own tapsets), dir/ARCH, dir; a file name found once
 * hides the same name further on (x86_64/registers.stp hides registers.stp).
 */
static int add_tapset_dir(struct session *s, const char **dirs, int n, const char *dir)
{
	dirs[n++] = arena_printf(&s->arena, "%s/linux/%s", dir, s->pp.arch);
	dirs[n++] = arena_printf(&s->arena, "%s/linux", dir);
	dirs[n++] = arena_printf(&s->arena, "%s/%s", dir, s->pp.arch);
	dirs[n++] = dir;
	return n;
}

static int tapset_dirs(struct session *s, const char **dirs, int max)
{
	const char *lib = getenv("SYSTEMTAP_TAPSET"), *target;
	int n = 0;

	/* Installed, else (running from the build tree) the source tree's;
	 * else the configured place, which "Searched for ..." names. */
	if (!lib)
		lib = session_data_dir(s, "tapset");
	if (!lib)
		lib = CTAP_PKGDATADIR "/tapset";
	for (int i = 0; i < s->opt.n_include_dirs && n + TAPSET_SUBDIRS <= max; i++)
		n = add_tapset_dir(s, dirs, n, s->opt.include_dirs[i]);
	if (n < max && (target = target_tapsets_dir(&s->arena, s->opt.kernel_release,
						       s->opt.kernel_build, s->pp.arch)))
		dirs[n++] = s->target_tapsets = target;
	if (n + TAPSET_SUBDIRS <= max)
		n = add_tapset_dir(s, dirs, n, lib);
	return n;
}

/*
 * A tapset's private globals are visible in its file only, and another
 * file may have the same names: each is renamed with its uses there after
 * the file ("__private_json_stp_x" for json.stp's x), so that pass 2 sees
 * globals no other file names.  A function's parameter of that name hides
 * the global in that function.
 */
struct private_names {
	const struct global *globals;
	const char *file;
	struct arena *a;
	const struct function *fn;	/* being walked, or NULL */
};

static const char *private_name(struct arena *a, const char *file, const char *name)
{
	char *mangled = arena_printf(a, "__private_%s_%s", file, name);

	for (char *c = mangled; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	return mangled;
}

static void rename_private(struct expr *e, void *ctx)
{
	const struct private_names *pn = ctx;

	if (e->kind != E_SYMBOL)
		return;
	for (const struct param *p = pn->fn ? pn->fn->params : NULL; p; p = p->next)
		if (!strcmp(p->name, e->name))
			return;
	for (const struct global *g = pn->globals; g; g = g->next)
		if (g->private && !strcmp(g->name, e->name)) {
			e->name = private_name(pn->a, pn->file, e->name);
			return;
		}
}

static void hide_private_globals(struct arena *a, struct script *scr)
{
	const char *slash = strrchr(scr->src->name, '/');
	struct private_names pn = {
		.globals = scr->globals, .a = a,
		.file = slash ? slash + 1 : scr->src->name,
	};
	bool any = false;

	for (const struct global *g = scr->globals; g; g = g->next)
		any |= g->private;
	if (!any)
		return;
	for (struct probe *p = scr->probes; p; p = p->next) {
		ast_walk_stmt(p->body, rename_private, &pn);
		ast_walk_stmt(p->epilogue, rename_private, &pn);
		for (struct probe_point *pp = p->points; pp; pp = pp->next)
			ast_walk_expr(pp->condition, rename_private, &pn);
	}
	for (pn.fn = scr->functions; pn.fn; pn.fn = pn.fn->next)
		ast_walk_stmt(pn.fn->body, rename_private, &pn);
	for (struct global *g = scr->globals; g; g = g->next)
		if (g->private)
			g->name = private_name(a, pn.file, g->name);
}

static struct script *parse_file(struct session *s, const char *path, bool tapset)
{
	struct script *scr;
	struct source *src = source_from_file(&s->arena, path);

	if (!src) {
		fprintf(stderr, "stap: cannot read '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	/* Tapsets see the script arguments too (SystemTap's argv.stp uses @1). */
	scr = parse_script(&s->arena, src, &s->opt.args, &s->pp, tapset);
	if (scr && tapset)
		hide_private_globals(&s->arena, scr);
	return scr;
}

/* ---- what a script refers to ---- */

/* The names a script uses that some tapset could define, each once. */
struct refs {
	struct { char kind; const char *name; } *v;
	size_t n, cap;
	const struct tapset_index *ix;
	struct strset seen[3];	/* by kind: 'a', 'f', 'g' */
};

static void add_ref(struct refs *r, char kind, const char *name)
{
	struct strset *seen = &r->seen[kind == 'a' ? 0 : kind == 'f' ? 1 : 2];

	/* A 1 MB script has ~100,000 names: keep only those a tapset defines
	 * (functions, globals), and each probe point glob once. */
	if (kind != 'a' && !tindex_knows(r->ix, kind, name))
		return;
	if (!strset_add(seen, name))
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n].kind = kind;
	r->v[r->n++].name = name;
}

static void script_refs(struct script *scr, struct refs *r)
{
	for (size_t i = 0; i < scr->n_uses; i++)
		add_ref(r, scr->uses[i].kind, scr->uses[i].name);
}

/* ---- the library ---- */

static void parse_macros(struct session *s, const char **dirs, int ndirs)
{
	struct name_list macros = { 0 };

	for (int i = 0; i < ndirs; i++)
		list_files(&s->arena, dirs[i], ".stpm", &macros);
	s->pp.defining_library = true;
	for (size_t i = 0; i < macros.n; i++)
		if (!seen_before(&macros, i, macros.v[i]) && parse_file(s, macros.v[i], true))
			s->n_library++;
	s->pp.defining_library = false;
	free(macros.v);
}

struct library {
	struct name_list files;		/* .stp, duplicates dropped */
	struct script **parsed;
	bool *loaded;
	size_t *checked;		/* how many refs each file was checked against */
	struct tapset_index *ix;
};

static struct script *lib_parse(struct session *s, struct library *lib, size_t i)
{
	if (!lib->parsed[i]) {
		int warnings = diag_warnings();
		bool was = diag_demote(true);

		lib->parsed[i] = parse_file(s, lib->files.v[i], true);
		diag_demote(was);
		/* A tapset that does not parse is warned about and left out
		 * (SystemTap's rule); unindexed, it is parsed (and its errors
		 * shown) next time. */
		if (lib->parsed[i] && diag_warnings() != warnings)
			lib->parsed[i] = arena_new(&s->arena, struct script);
		else if (lib->parsed[i])
			tindex_record(lib->ix, i, lib->parsed[i]);
		if (lib->parsed[i])
			s->n_library++;
	}
	return lib->parsed[i];
}

/* Index every tapset; parse those the index does not know as they are now. */
static void open_library(struct session *s, struct library *lib, const char **dirs, int ndirs)
{
	struct name_list all = { 0 };

	for (int i = 0; i < ndirs; i++)
		list_files(&s->arena, dirs[i], ".stp", &all);
	for (size_t i = 0; i < all.n; i++) {
		if (seen_before(&all, i, all.v[i]))
			continue;
		if (lib->files.n == lib->files.cap) {
			lib->files.cap = lib->files.cap ? lib->files.cap * 2 : 64;
			lib->files.v = xrealloc(lib->files.v, lib->files.cap * sizeof(char *));
		}
		lib->files.v[lib->files.n++] = all.v[i];
	}
	free(all.v);
	lib->parsed = arena_alloc(&s->arena, (lib->files.n + 1) * sizeof(*lib->parsed));
	lib->loaded = arena_alloc(&s->arena, (lib->files.n + 1) * sizeof(*lib->loaded));
	lib->checked = arena_alloc(&s->arena, (lib->files.n + 1) * sizeof(*lib->checked));
	lib->ix = tindex_open(&s->arena, lib->files.v, lib->files.n);
	for (size_t i = 0; i < lib->files.n; i++)
		if (tindex_stale(lib->ix, i))
			lib_parse(s, lib, i);
	tindex_save(lib->ix);
}

/* Load the tapsets the script needs, and the ones those need, and so on. */
static void load_needed(struct session *s, struct library *lib, bool all)
{
	struct refs refs = { .ix = lib->ix };
	bool more = true;

	if (s->user)
		script_refs(s->user, &refs);
	while (more) {
		more = false;
		for (size_t i = 0; i < lib->files.n; i++) {
			bool want = all;

			if (lib->loaded[i])
				continue;
			/* Each ref once per file: a later round checks only
			 * what the files loaded since then added. */
			for (size_t k = lib->checked[i]; !want && k < refs.n; k++)
				want = tindex_defines(lib->ix, i, refs.v[k].kind, refs.v[k].name);
			lib->checked[i] = refs.n;
			if (!want)
				continue;
			lib->loaded[i] = true;
			if (lib_parse(s, lib, i)) {
				lib->parsed[i]->is_used = !all;
				script_refs(lib->parsed[i], &refs);	/* what it uses in turn */
				more = true;
			}
		}
	}
	free(refs.v);
	for (int k = 0; k < 3; k++)
		strset_free(&refs.seen[k]);
}

/* The loaded tapsets, in search-path order. */
static void link_library(struct session *s, struct library *lib)
{
	struct script **tail = &s->library;
	size_t n = s->target_tapsets ? strlen(s->target_tapsets) : 0;

	for (size_t i = 0; i < lib->files.n; i++)
		if (lib->loaded[i] && lib->parsed[i]) {
			lib->parsed[i]->is_default = n && !strncmp(lib->files.v[i], s->target_tapsets, n)
						     && lib->files.v[i][n] == '/';
			*tail = lib->parsed[i];
			tail = &lib->parsed[i]->next;
		}
}

/* Is path one of the library's files?  SystemTap refuses to run one as the
 * script: its globals and probes would be defined twice. */
static bool in_library(const struct library *lib, const char *path)
{
	struct stat a, b;

	if (stat(path, &a))
		return false;
	for (size_t i = 0; i < lib->files.n; i++)
		if (!stat(lib->files.v[i], &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return true;
	return false;
}

/*
 * --monitor: two files the session serves as SystemTap's do, which staprun
 * -M reads and writes.  monitor_status is the state as JSON (up to the
 * 256 KiB staprun reads), monitor_control takes "pause", "resume", a
 * probe's index (toggles it), "clear" (globals as at the start) and
 * "quit".  Their builtins exist only in this source (sem_calls.c).
 */
static void add_monitor_probes(struct session *s)
{
	static const char text[] =
		"probe procfs(\"monitor_status\").read.maxsize(262143) { __monitor_status() }\n"
		"probe procfs(\"monitor_control\").write { __monitor_control($value) }\n";
	struct source *src = source_from_string(&s->arena, "<monitor>", text);
	struct script *m = parse_script(&s->arena, src, &s->opt.args, &s->pp, false);
	struct probe **tail = &s->user->probes;

	if (!m)
		return;
	while (*tail)
		tail = &(*tail)->next;
	*tail = m->probes;
	s->monitor_src = src;
}

int pass1_parse(struct session *s)
{
	const char *dirs[MAX_TAPSET_DIRS];
	int ndirs = tapset_dirs(s, dirs, MAX_TAPSET_DIRS);
	bool all = !s->opt.script_text && !s->opt.script_file;	/* -l, -L, --dump-* */
	struct library lib = { 0 };
	int ret = 0;

	if (s->opt.verbose >= 2) {
		fputs("Searched for library scripts in:", stderr);
		for (int i = 0; i < ndirs; i++)
			fprintf(stderr, " %s", dirs[i]);
		fputc('\n', stderr);
	}

	parse_macros(s, dirs, ndirs);
	open_library(s, &lib, dirs, ndirs);
	if (s->opt.script_text) {
		struct source *src = source_from_string(&s->arena, "<input>", s->opt.script_text);

		s->user = parse_script(&s->arena, src, &s->opt.args, &s->pp, false);
	} else if (s->opt.script_file && in_library(&lib, s->opt.script_file)) {
		diag_error("parse", NULL, NULL, "tapset file '%s' cannot be run directly as a script",
			   s->opt.script_file);
		ret = -1;
	} else if (s->opt.script_file) {
		s->user = parse_file(s, s->opt.script_file, false);
		if (!s->user)
			ret = -1;
	}
	/* Nothing left after preprocessing is no script (SystemTap's rule). */
	if (s->user && !s->user->probes && !s->user->functions && !s->user->globals &&
	    !s->user->embeds && !diag_errors())
		diag_error("parse", NULL, NULL, "input file '%s' is empty: no probe, function "
			   "or global is left after preprocessing", s->user->src->name);
	if (s->user && s->opt.monitor && !diag_errors())
		add_monitor_probes(s);
	load_needed(s, &lib, all);
	link_library(s, &lib);
	tindex_save(lib.ix);
	tindex_close(lib.ix);
	free(lib.files.v);
	return ret || diag_errors() ? -EINVAL : 0;
}
