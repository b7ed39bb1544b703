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
 * unit's first headers (the -D options and ctap_kheaders.h for the
 * script; <linux/module.h> for the .mod.c) go into one header,
 * ctap_pchN.h, precompiled once per compile command, compiler and -D
 * options, and kept with the runtime objects (KEY.gch, rt_units.c).
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
static uint64_t pch_key(uint64_t key, const char *flags)
{
	size_t n = strcspn(flags, " ");
	const char *path = getenv("PATH");
	char file[4096];
	struct stat st;

	key = fnv1a(key, flags, strlen(flags) + 1);
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s/%.*s", (int)len, path, (int)n, flags);
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
static bool names_unused(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	bool ok = text != NULL;

	for (size_t i = 0; ok && i < sizeof(unused) / sizeof(*unused); i++)
		ok = !strstr(text, unused[i]);
	free(text);
	return ok;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -errno;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

/* Make dir/ctap_pchN.h.gch by flags, check it, keep it at store. */
static int make_pch(struct session *s, const char *dir, const char *name, const char *flags,
		    int n, const char *store, const char *log)
{
	const char *h = arena_printf(&s->arena, "@DIR@/ctap_pch%d.h", n);
	const char *gch = arena_printf(&s->arena, "%s/ctap_pch%d.h.gch", dir, n);
	const char *dU = arena_printf(&s->arena, "%s/ctap_pch%d.i", dir, n);
	size_t len;
	char *data;
	int ret;

	ret = kbuild_run(s, dir, name, arena_printf(&s->arena, "%s -E -dU -o %.*s.i %s", flags,
					      (int)strlen(h) - 2, h, h), log);
	if (ret || !names_unused(dU)) {
		unlink(dU);
		/* the headers use them: never try again for this key */
		if (!ret)
			cache_store(arena_printf(&s->arena, "%.*s.nopch", (int)strlen(store) - 4,
						 store), "", 0);
		return -EINVAL;
	}
	unlink(dU);
	ret = kbuild_run(s, dir, name, arena_printf(&s->arena, "%s -x c-header -o %s.gch %s", flags, h, h),
			 log);
	data = ret ? NULL : slurp(gch, &len);
	if (!data) {
		unlink(gch);
		return -EIO;
	}
	cache_store(store, data, len);
	free(data);
	return 0;
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
		arena_printf(&s->arena, "#include \"%s/ctap_defines.h\"\n"
			     "#include \"%s/runtime/ctap_kheaders.h\"\n", dir, dir);
	key = pch_key(fnv1a(keys[n], w.includes, strlen(w.includes)), w.flags);
	if (n)
		key = fnv1a(key, head, strlen(head));
	if (!*head || rt_file(s, arena_printf(&s->arena, "%016llx.nopch", (unsigned long long)key),
			      NULL))
		return line;
	found = rt_file(s, arena_printf(&s->arena, "%016llx.gch", (unsigned long long)key), &store);
	if (write_text(arena_printf(&s->arena, "%s/ctap_pch%d.h", dir, n),
		       arena_printf(&s->arena, "/* Precompiled (stap -p4). */\n%s%s",
				    w.includes, head)) ||
	    write_text(arena_printf(&s->arena, "%s/ctap_names%d.h", dir, n),
		       kbuild_replace(&s->arena, w.names, "@NAME@", name)))
		return line;
	if (found ? symlink(found, arena_printf(&s->arena, "%s/ctap_pch%d.h.gch", dir, n)) :
	    !store || make_pch(s, dir, name, w.flags, n, store, log))
		return line;
	return arena_printf(&s->arena, "%s -include @DIR@/ctap_pch%d.h -include @DIR@/ctap_names%d.h%s",
			    w.flags, n, n, at);
}
