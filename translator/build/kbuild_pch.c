// SPDX-License-Identifier: GPL-2.0
/*
 * kbuild_pch.c - a replayed build with the kernel's headers precompiled.
 *
 * Most of compiling a script's unit is parsing the kernel headers it
 * includes (on 6.1, 0.4 of its 0.55 s of CPU), and most of compiling the
 * .mod.c that modpost writes.  GCC can keep headers parsed: FILE.h.gch
 * beside FILE.h is read instead when FILE.h is the first -include and the
 * compiler, its options and the macros the headers use are the same (if
 * not, GCC ignores the .gch and parses FILE.h: slower, never wrong).  So
 * the recorded compile command of the script is rewritten: its -include
 * files and the unit's first headers (ctap_kheaders.h) go into one
 * header, ctap_pch0.h, precompiled once per compile command and compiler,
 * and kept with the runtime objects (KEY.gch, rt_units.c).  The .mod.c
 * reads the same .gch (as ctap_pch1.h): ctap_kheaders.h starts with the
 * <linux/module.h> it includes, and its options differ only in warnings
 * and include directories, which a .gch does not depend on; one .gch a
 * kernel, not two, to make and to keep.  A script's -D options come
 * before the kernel headers in its unit, after them with the .gch: it
 * serves a script with -D options only if the headers define, expand and
 * test none of those names (KEY.macros, gcc -dM and -dU, lists every name
 * they do).
 *
 * Making the .gch costs about 2 s of CPU, as much as the runtime's units
 * on a first build: so a first build (Kbuild's, nothing recorded yet)
 * makes none, and the first replay makes it beside its own compiles (on
 * the other CPU) for the builds after it; `make prebuilt` makes it at
 * once.  The cache keeps the PCH_KEEP .gch files used last.
 *
 * What differs between two modules is their name, which Kbuild passes as
 * -DKBUILD_MODNAME (and KBUILD_BASENAME, __KBUILD_MODNAME); a .gch made
 * with one name is refused with another.  These move to a second header,
 * included after the first, which only matters if a header expands or
 * tests them.  That is checked when the .gch is made: `gcc -E -dU` lists
 * each macro the headers expand or test, and none of these may be there
 * (nor MAXNESTING and the others a script defines before including
 * them); if one is, the key is marked (KEY.nopch) and the
 * command runs as recorded.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "kbuild_replay.h"
#include "rt_units.h"
#include "spawn.h"
#include "strset.h"
#include "xalloc.h"

/* The .gch files the cache keeps (about 45 MB each): the ones used last,
 * one a kernel for a few kernels and runtimes. */
#define PCH_KEEP	6

/* The macros that move after the precompiled header (see above). */
static const char *const moved[] = { "KBUILD_MODNAME", "KBUILD_BASENAME", "__KBUILD_MODNAME" };
/* ... and those the headers must neither expand nor test: these and what
 * a script defines before ctap_runtime.h includes them (ctap_runtime.h). */
static const char *const unused[] = {
	"KBUILD_MODNAME", "KBUILD_BASENAME", "MAXNESTING", "CTAP_RUNTIME_H", "CTAP_USERSPACE"
};

/* The compile commands that get one: the script's unit, then the .mod.c. */
static const char *const units[] = { "script", "@NAME@.mod" };

struct words {
	char *flags;		/* the options kept, the compiler first */
	char *includes;		/* the -include files, as #include lines */
	char *names;		/* the moved macros, as #define lines */
};

/* One -DNAME=VALUE of moved[] as a #define line, VALUE unquoted from '...';
 * NULL if the word is no such option. */
static char *moved_define(struct arena *a, const char *w)
{
	for (size_t i = 0; i < sizeof(moved) / sizeof(*moved); i++) {
		size_t n = strlen(moved[i]), len;
		const char *v = w + 2 + n + 1;

		if (strncmp(w, "-D", 2) || strncmp(w + 2, moved[i], n) || w[2 + n] != '=')
			continue;
		len = strlen(v);
		if (len >= 2 && v[0] == '\'' && v[len - 1] == '\'') {
			v++;
			len -= 2;
		}
		if (memchr(v, '\'', len) || memchr(v, '\\', len))
			return NULL;
		return arena_printf(a, "#define %s %.*s\n", moved[i], (int)len, v);
	}
	return NULL;
}

static bool is_moved(const char *w)
{
	for (size_t i = 0; i < sizeof(moved) / sizeof(*moved); i++) {
		size_t n = strlen(moved[i]);

		if (!strncmp(w, "-D", 2) && !strncmp(w + 2, moved[i], n) && w[2 + n] == '=')
			return true;
	}
	return false;
}

/* The words of a compile command up to len (no shell quoting spans a
 * space in what Kbuild writes; a word with unbalanced quotes is refused). */
static int split(struct session *s, const char *line, size_t len, struct words *w)
{
	const char *p = line, *end = line + len;
	bool include = false;

	w->flags = w->includes = w->names = "";
	while (p < end) {
		size_t n;
		char *word;
		int q1 = 0, q2 = 0;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (p + n > end)
			n = end - p;
		if (!n)
			break;
		word = arena_strndup(&s->arena, p, n);
		p += n;
		for (const char *c = word; *c; c++) {
			q1 += *c == '\'';
			q2 += *c == '"';
		}
		if (include) {
			if (q1 || q2 || strchr(word, '$'))
				return -EINVAL;
			w->includes = arena_printf(&s->arena, "%s#include \"%s%s%s\"\n", w->includes,
						   *word == '/' ? "" : s->opt.kernel_build,
						   *word == '/' ? "" : "/", word);
			include = false;
		} else if (!strcmp(word, "-include")) {
			include = true;
		} else if (is_moved(word)) {
			char *def = moved_define(&s->arena, word);

			if (!def)
				return -EINVAL;
			w->names = arena_printf(&s->arena, "%s%s", w->names, def);
		} else if (!strncmp(word, "-Wp,-MMD,", 9) || !strncmp(word, "-Wp,-MD,", 8)) {
			continue;	/* the dependency file: read by no one here */
		} else if (q1 % 2 || q2 % 2) {
			return -EINVAL;
		} else {
			w->flags = arena_printf(&s->arena, "%s%s%s", w->flags, *w->flags ? " " : "",
						word);
		}
	}
	return include || !*w->flags || !*w->includes ? -EINVAL : 0;
}

/* The key of a .gch: the caller's, the command's options, the compiler
 * (found in $PATH as the shell would): another GCC refuses the file. */
uint64_t kbuild_tool_key(uint64_t key, const char *flags)
{
	const char *prog = flags + strspn(flags, " \t"), *path = getenv("PATH");
	size_t n = strcspn(prog, " \t");
	char file[4096];
	struct stat st;

	key = fnv1a(key, flags, strlen(flags) + 1);
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s/%.*s", (int)len, path, (int)n, prog);
		if (stat(file, &st) == 0) {
			key = fnv1a(key, &st.st_ino, sizeof(st.st_ino));
			key = fnv1a(key, &st.st_size, sizeof(st.st_size));
			return fnv1a(key, &st.st_mtime, sizeof(st.st_mtime));
		}
		path += len + !!path[len];
	}
	return key;
}

/* Whether the headers' preprocessing (gcc -E -dU) names none of unused[]. */
static bool names_unused(const char *text)
{
	bool ok = true;

	for (size_t i = 0; ok && i < sizeof(unused) / sizeof(*unused); i++)
		ok = !strstr(text, unused[i]);
	return ok;
}

/* The names of text's "#define NAME" and "#undef NAME" lines, one a line,
 * written to f (tens of thousands: never one string grown by copying). */
static void macro_names(FILE *f, const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *n = !strncmp(p, "#define ", 8) ? p + 8 :
				!strncmp(p, "#undef ", 7) ? p + 7 : NULL;
		size_t len = n ? strcspn(n, " (\n") : 0;

		if (len)
			fprintf(f, "%.*s\n", (int)len, n);
	}
}

/* Marks the cache's .gch at path used (its time: the newest are kept). */
static void touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
}

/* The compilers that make dir/ctap_pch0.h.gch by flags and list the
 * headers' macros (-dU, -dM), started at once: a build waits for them
 * (pch_finish()), or goes on with its own compiles meanwhile. */
static pid_t pch_start(struct session *s, const char *dir, const char *name, const char *flags,
		       const char *log)
{
	const char *h = "@DIR@/ctap_pch0.h";

	return kbuild_start(s, dir, name, arena_printf(&s->arena,
		"%s -E -dU -o %s.dU %s & u=$!; %s -E -dM -o %s.dM %s & m=$!; "
		"%s -x c-header -o %s.gch %s; g=$?; wait $u && wait $m && [ $g = 0 ]",
		flags, h, h, flags, h, h, flags, h, h), log);
}

/*
 * After pch_start(): check the .gch and keep it at store, with the names
 * of every macro the headers define, expand or test (store's KEY.macros):
 * a -D option naming none of them changes nothing in the headers, so that
 * the .gch also serves it.  0, or -errno.
 */
static int pch_finish(struct session *s, const char *dir, pid_t pid, const char *store)
{
	const char *gch = arena_printf(&s->arena, "%s/ctap_pch0.h.gch", dir);
	const char *stem = arena_printf(&s->arena, "%.*s", (int)strlen(store) - 4, store);
	char *names = NULL, *text = NULL;
	size_t len, names_len = 0;
	FILE *nf = open_memstream(&names, &names_len);
	int ret = spawn_wait(pid) ? -EIO : 0;

	if (!nf)
		return -ENOMEM;
	fputc('\n', nf);
	for (int dM = 0; dM < 2; dM++) {
		const char *out = arena_printf(&s->arena, "%s/ctap_pch0.h.d%c", dir, "UM"[dM]);

		text = ret ? NULL : rt_slurp(out, &len);
		unlink(out);
		if (!text) {
			ret = -EIO;
		} else if (!dM && !names_unused(text)) {
			/* the headers use them: never try again for this key */
			cache_store(arena_printf(&s->arena, "%s.nopch", stem), "", 0);
			ret = -EINVAL;
		} else {
			macro_names(nf, text);
		}
		free(text);
	}
	fclose(nf);
	text = ret ? NULL : rt_slurp(gch, &len);
	if (text) {
		cache_store(arena_printf(&s->arena, "%s.macros", stem), names, names_len);
		cache_store(store, text, len);
		/* the PCH_KEEP used last stay, each with its KEY.macros */
		cache_prune("runtime", "", ".gch", PCH_KEEP, ".macros");
	}
	unlink(gch);	/* the build goes on with the cache's */
	free(names);
	free(text);
	return text ? 0 : ret ? ret : -EIO;
}

/* Whether the -D options name none of the macros of the .gch's headers
 * (KEY.macros). */
static bool defines_apart(struct session *s, const char *macros)
{
	size_t len;
	char *text = macros ? rt_slurp(macros, &len) : NULL;
	bool ok = text != NULL || !s->opt.n_defines;

	for (int i = 0; text && ok && i < s->opt.n_defines; i++) {
		const char *d = s->opt.defines[i];

		ok = !strstr(text, arena_printf(&s->arena, "\n%.*s\n", (int)strcspn(d, "=("), d));
	}
	free(text);
	return ok;
}

/* The words of flags but include directories and warnings (which a
 * .gch does not depend on), and its last -std= (a .gch made for one C
 * dialect is refused in another) as *std. */
static char *language(struct session *s, const char *flags, const char **std)
{
	char *out = "";

	*std = "";
	for (const char *p = flags + strspn(flags, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		if (!strncmp(p, "-std=", 5))
			*std = arena_strndup(&s->arena, p, n);
		else if (strncmp(p, "-I", 2) && strncmp(p, "-W", 2))
			out = arena_printf(&s->arena, "%s %.*s", out, (int)n, p);
		p += n;
	}
	return out;
}

/* Whether a .gch made with options a serves a compile with options b:
 * the script's unit adds include directories, warnings and -std=gnu11
 * to Kbuild's (5.10's kernel is gnu89: its .mod.c then has none). */
static bool same_language(struct session *s, const char *a, const char *b)
{
	const char *std_a, *std_b;
	const char *la = language(s, a, &std_a), *lb = language(s, b, &std_b);

	return !strcmp(la, lb) && !strcmp(std_a, std_b);
}

/* Unit n's headers as ctap_pchN.h, read from the .gch at gch, and its moved
 * macros as ctap_namesN.h: 0, or -errno. */
static int use_pch(struct session *s, const char *dir, const char *name, int n, const char *head,
		   const char *names, const char *gch)
{
	const char *h = arena_printf(&s->arena, "%s/ctap_pch%d.h", dir, n);

	if (rt_write_text(h, head) ||
	    rt_write_text(arena_printf(&s->arena, "%s/ctap_names%d.h", dir, n),
			  kbuild_replace(&s->arena, names, "@NAME@", name)))
		return -EIO;
	unlink(arena_printf(&s->arena, "%s.gch", h));
	return symlink(gch, arena_printf(&s->arena, "%s.gch", h)) ? -errno : 0;
}

const char *kbuild_pch(struct session *s, const char *dir, const char *name, const char *line,
		       struct kbuild_pch *pch, const char *log)
{
	const char *at = NULL, *found, *store;
	struct words w;
	uint64_t key;
	int n;

	for (n = 0; !at && n < 2; n++)
		at = strstr(line, arena_printf(&s->arena, " -c -o @DIR@/%s.o @DIR@/%s.c",
					       units[n], units[n]));
	n--;
	if (!at || !pch || split(s, line, at - line, &w))
		return line;
	if (n) {	/* the .mod.c: the script's .gch, if it had one */
		if (!pch->gch || !same_language(s, pch->flags, w.flags) ||
		    use_pch(s, dir, name, 1, pch->head, w.names, pch->gch))
			return line;
		return arena_printf(&s->arena, "%s -pipe -include @DIR@/ctap_pch1.h "
				    "-include @DIR@/ctap_names1.h%s", w.flags, at);
	}
	key = kbuild_tool_key(fnv1a(pch->keys[0], w.includes, strlen(w.includes)), w.flags);
	if (rt_file(s, arena_printf(&s->arena, "%016llx.nopch", (unsigned long long)key), NULL))
		return line;
	found = rt_file(s, arena_printf(&s->arena, "%016llx.gch", (unsigned long long)key), &store);
	pch->head = arena_printf(&s->arena, "/* Precompiled (stap -p4). */\n%s"
				 "#include \"%s/runtime/ctap_kheaders.h\"\n", w.includes, dir);
	if (found && store && !strcmp(found, store))
		touch(found);
	if (!found && store && pch->mode != PCH_NONE &&
	    rt_write_text(arena_printf(&s->arena, "%s/ctap_pch0.h", dir), pch->head) == 0) {
		pch->pid = pch_start(s, dir, name, w.flags, arena_printf(&s->arena, "%s/pch.log", dir));
		pch->store = store;
		if (pch->mode == PCH_BACKGROUND)
			return line;	/* for the next build */
		found = kbuild_pch_finish(s, dir, pch) ? NULL : store;
	}
	if (!found || use_pch(s, dir, name, 0, pch->head, w.names, found))
		return line;
	pch->gch = found;
	pch->flags = w.flags;
	if (!defines_apart(s, rt_file(s, arena_printf(&s->arena, "%016llx.macros",
						     (unsigned long long)key), NULL)))
		return line;	/* a -D the headers see: they are parsed after it */
	return arena_printf(&s->arena, "%s -pipe -include @DIR@/ctap_pch0.h -include @DIR@/ctap_names0.h%s",
			    w.flags, at);
}

int kbuild_pch_finish(struct session *s, const char *dir, struct kbuild_pch *pch)
{
	int ret;

	if (!pch || pch->pid <= 0)
		return pch && pch->pid < 0 ? -EIO : 0;
	ret = pch_finish(s, dir, pch->pid, pch->store);
	pch->pid = 0;
	return ret;
}
