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
 * a recorded compile command is rewritten: its -include files and the
 * unit's first headers (ctap_kheaders.h for the script, <linux/module.h>
 * for the .mod.c) go into one header, ctap_pchN.h, precompiled once per
 * compile command and compiler, and kept with the runtime objects
 * (KEY.gch, rt_units.c).  A script's -D options come before the kernel
 * headers in its unit, after them with the .gch: it serves a script with
 * -D options only if the headers define, expand and test none of those
 * names (KEY.macros, gcc -dM and -dU, lists every name they do).
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
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "kbuild_replay.h"
#include "rt_units.h"
#include "strset.h"

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

/* The .mod.c's first #include lines (the ones before anything else). */
static char *mod_includes(struct session *s, const char *dir, const char *name)
{
	FILE *f = fopen(arena_printf(&s->arena, "%s/%s.mod.c", dir, name), "r");
	char line[512], *text = "";

	if (!f)
		return "";
	while (fgets(line, sizeof(line), f) && !strncmp(line, "#include <", 10) &&
	       strchr(line, '\n'))
		text = arena_printf(&s->arena, "%s%s", text, line);
	fclose(f);
	return text;
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

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* Whether the headers' preprocessing (gcc -E -dU) names none of unused[]. */
static bool names_unused(const char *text)
{
	bool ok = true;

	for (size_t i = 0; ok && i < sizeof(unused) / sizeof(*unused); i++)
		ok = !strstr(text, unused[i]);
	return ok;
}

/* Make dir/ctap_pchN.h.gch by flags, check it, keep it at store. */
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

/*
 * Make dir/ctap_pchN.h.gch by flags, check it, keep it at store.  For the
 * script's, also the names of every macro the headers define, expand or
 * test (store's KEY.macros): a -D option naming none of them changes
 * nothing in the headers, so that the .gch also serves it.
 */
static int make_pch(struct session *s, const char *dir, const char *name, const char *flags,
		    int n, const char *store, const char *log)
{
	const char *h = arena_printf(&s->arena, "@DIR@/ctap_pch%d.h", n);
	const char *gch = arena_printf(&s->arena, "%s/ctap_pch%d.h.gch", dir, n);
	const char *stem = arena_printf(&s->arena, "%.*s", (int)strlen(store) - 4, store);
	char *names = NULL, *text = NULL;
	size_t len, names_len = 0;
	FILE *nf = open_memstream(&names, &names_len);
	int ret;

	if (!nf)
		return -ENOMEM;
	fputc('\n', nf);

	/* The three compiler runs at once: a first build waits for them. */
	ret = kbuild_run(s, dir, name, arena_printf(&s->arena,
		"%s -E -dU -o %s.dU %s & u=$!; %s -E -dM -o %s.dM %s & m=$!; "
		"%s -x c-header -o %s.gch %s; g=$?; wait $u && wait $m && [ $g = 0 ]",
		flags, h, h, flags, h, h, flags, h, h), log);
	for (int dM = 0; dM < 2; dM++) {
		const char *out = arena_printf(&s->arena, "%s/ctap_pch%d.h.d%c", dir, n, "UM"[dM]);

		text = ret ? NULL : slurp(out, &len);
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
	text = ret ? NULL : slurp(gch, &len);
	if (text) {
		cache_store(arena_printf(&s->arena, "%s.macros", stem), names, names_len);
		cache_store(store, text, len);
	} else {
		unlink(gch);
	}
	free(names);
	free(text);
	return text ? 0 : ret ? ret : -EIO;
}

/* Whether the -D options name none of the macros of the .gch's headers
 * (KEY.macros). */
static bool defines_apart(struct session *s, const char *macros)
{
	size_t len;
	char *text = macros ? slurp(macros, &len) : NULL;
	bool ok = text != NULL || !s->opt.n_defines;

	for (int i = 0; text && ok && i < s->opt.n_defines; i++) {
		const char *d = s->opt.defines[i];

		ok = !strstr(text, arena_printf(&s->arena, "\n%.*s\n", (int)strcspn(d, "=("), d));
	}
	free(text);
	return ok;
}

const char *kbuild_pch(struct session *s, const char *dir, const char *name, const char *line,
		       const uint64_t *keys, const char *log)
{
	const char *at = NULL, *found, *store, *head;
	struct words w;
	uint64_t key;
	int n;

	for (n = 0; !at && n < 2; n++)
		at = strstr(line, arena_printf(&s->arena, " -c -o @DIR@/%s.o @DIR@/%s.c",
					       units[n], units[n]));
	n--;
	if (!at || !keys || split(s, line, at - line, &w))
		return line;
	head = n ? mod_includes(s, dir, name) :
		arena_printf(&s->arena, "#include \"%s/runtime/ctap_kheaders.h\"\n", dir);
	key = kbuild_tool_key(fnv1a(keys[n], w.includes, strlen(w.includes)), w.flags);
	if (n)
		key = fnv1a(key, head, strlen(head));
	if (!*head || rt_file(s, arena_printf(&s->arena, "%016llx.nopch", (unsigned long long)key),
			      NULL))
		return line;
	found = rt_file(s, arena_printf(&s->arena, "%016llx.gch", (unsigned long long)key), &store);
	if (rt_write_text(arena_printf(&s->arena, "%s/ctap_pch%d.h", dir, n),
		       arena_printf(&s->arena, "/* Precompiled (stap -p4). */\n%s%s",
				    w.includes, head)) ||
	    rt_write_text(arena_printf(&s->arena, "%s/ctap_names%d.h", dir, n),
		       kbuild_replace(&s->arena, w.names, "@NAME@", name)))
		return line;
	if (found ? symlink(found, arena_printf(&s->arena, "%s/ctap_pch%d.h.gch", dir, n)) :
	    !store || make_pch(s, dir, name, w.flags, n, store, log))
		return line;
	if (!n && !defines_apart(s, rt_file(s, arena_printf(&s->arena, "%016llx.macros",
							     (unsigned long long)key), NULL)))
		return line;	/* a -D the headers see: they are parsed after it */
	return arena_printf(&s->arena, "%s -include @DIR@/ctap_pch%d.h -include @DIR@/ctap_names%d.h%s",
			    w.flags, n, n, at);
}
