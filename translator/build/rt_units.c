// SPDX-License-Identifier: GPL-2.0
/*
 * rt_units.c - the runtime's objects: the core, and one per probe family.
 *
 * Compiling the runtime is most of a first build (about 5 s of CPU as one
 * unit).  Split in units -- the core, then each family the script uses
 * -- a first script pays only for its families, Kbuild compiles them in
 * parallel, and every unit is kept on its own: a script with another
 * family compiles that family alone.  Each is keyed on build.c's base key
 * (ctap's version, the runtime sources, the kernel), the -D options and
 * its name.  The units only meet at link time: the script hands its
 * probes to the runtime in tables, so no unit needs another's statics.
 *
 * `make prebuilt` (and `make install`) compiles every unit for the
 * configured kernel into the runtime directory's prebuilt/, under the same
 * keys: a first run then compiles the script alone.  A key that does not
 * match (another kernel, other sources, -D) is simply not found.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "elaborate.h"
#include "rt_units.h"
#include "strset.h"

/* The core's files (paths under the runtime dir): the portable core's
 * units, listed once in kmod-runtime/core/units.mk, then the kernel side. */
static const char *const core_files[] = {
#include "core_units.h"
	"session", "transport", "relay", "ctl", "output", "print", "stats", "target", "errno", "usyms", "scope", "monitor", NULL
};

const char *rt_file(struct session *s, const char *name, const char **store)
{
	const char *env = getenv("CTAP_PREBUILT_DIR"), *prebuilt;
	char path[4096];
	bool cacheable = cache_path(path, sizeof(path), arena_printf(&s->arena, "runtime/%s",
								     name)) == 0;

	if (store)
		*store = cacheable ? arena_strndup(&s->arena, path, strlen(path)) : NULL;
	if (s->opt.disable_cache)
		return NULL;
	if (cacheable && cache_file_ok(path) == 0)
		return arena_strndup(&s->arena, path, strlen(path));
	if (env && !*env)	/* CTAP_PREBUILT_DIR= : none */
		return NULL;
	prebuilt = env ? arena_printf(&s->arena, "%s/%s", env, name) :
		arena_printf(&s->arena, "%s/prebuilt/%s", session_runtime_dir(s), name);
	return cache_installed_ok(prebuilt) == 0 ? prebuilt : NULL;
}

/*
 * A unit's key: base, the -D options, its name, and for the core the
 * files this stap compiles into it: base hashes the runtime's sources,
 * not which of them a stap built from another tree links (a stap older
 * than a new core unit once cached a core without it, under the key of
 * the stap that has it).
 */
static uint64_t unit_key(struct session *s, uint64_t base, const char *src)
{
	uint64_t h = fnv1a(base, "unit", 5);

	for (int i = 0; i < s->opt.n_defines; i++)
		h = fnv1a(h, s->opt.defines[i], strlen(s->opt.defines[i]) + 1);
	if (!strcmp(src, "core"))
		for (int i = 0; core_files[i]; i++)
			h = fnv1a(h, core_files[i], strlen(core_files[i]) + 1);
	return fnv1a(h, src, strlen(src) + 1);
}

/* Every family's unit where CTAP_PREBUILD is set (`make prebuilt`), else
 * the script's. */
static const char **families(struct session *s)
{
	const char *env = getenv("CTAP_PREBUILD");

	return env && *env ? elab_all_runtime_families(s) : elab_runtime_families(s);
}

struct rt_unit *rt_units(struct session *s, uint64_t base)
{
	const char **fam = families(s);
	int n = 0;
	struct rt_unit *u;

	while (fam[n])
		n++;
	u = arena_alloc(&s->arena, (n + 2) * sizeof(*u));
	for (int i = 0; i <= n; i++) {
		const char *src = i ? fam[i - 1] : "core", *slash = strrchr(src, '/');
		uint64_t key = unit_key(s, base, src);

		u[i].src = src;
		u[i].obj = arena_printf(&s->arena, RT_UNIT_PREFIX "%s.o", slash ? slash + 1 : src);
		u[i].found = rt_file(s, arena_printf(&s->arena, "%016llx.o", (unsigned long long)key),
				     &u[i].store);
	}
	memset(&u[n + 1], 0, sizeof(*u));
	return u;
}

const char **rt_unit_objs(struct session *s, const struct rt_unit *u)
{
	int n = 0;
	const char **v;

	while (u[n].src)
		n++;
	v = arena_alloc(&s->arena, (n + 1) * sizeof(*v));
	for (int i = 0; i < n; i++)
		v[i] = u[i].obj;
	v[n] = NULL;
	return v;
}

int rt_units_missing(const struct rt_unit *u)
{
	int n = 0;

	for (; u->src; u++)
		n += !u->found;
	return n;
}

int rt_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -errno;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

char *rt_slurp(const char *path, size_t *len)
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

int rt_copy(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out;
	int ret = 0;

	if (!in)
		return -errno;
	out = fopen(to, "wb");
	if (!out) {
		ret = -errno;
		fclose(in);
		return ret;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -EIO;
	if (ferror(in))
		ret = -EIO;
	fclose(in);
	return fclose(out) == 0 ? ret : -EIO;
}

/* A unit's source: the -D options first (ctap_defines.h), then its files. */
static int write_source(struct session *s, const char *dir, const struct rt_unit *u)
{
	char *text = "/* A runtime unit (written by stap -p4). */\n#include \"ctap_defines.h\"\n";
	size_t n = strlen(u->obj);

	if (!strcmp(u->src, "core"))
		for (const char *const *f = core_files; *f; f++)
			text = arena_printf(&s->arena, "%s#include \"runtime/%s.c\"\n", text, *f);
	else
		text = arena_printf(&s->arena, "%s#include \"runtime/%s.c\"\n", text, u->src);
	return rt_write_text(arena_printf(&s->arena, "%s/%.*s.c", dir, (int)n - 2, u->obj), text);
}

int rt_units_write(struct session *s, const char *dir, const struct rt_unit *u, bool shipped)
{
	int ret = 0;

	for (; !ret && u->src; u++) {
		/* modpost reads each object's .cmd file (symbol versions: the
		 * runtime exports none), so an empty one goes with it. */
		if (u->found)
			ret = rt_copy(u->found, arena_printf(&s->arena, "%s/%s%s", dir, u->obj,
							       shipped ? "_shipped" : "")) ?:
			      rt_write_text(arena_printf(&s->arena, "%s/.%s.cmd", dir, u->obj), "");
		else
			ret = write_source(s, dir, u);
	}
	return ret;
}

void rt_keep(const char *path, const char *store)
{
	FILE *f = store ? fopen(path, "rb") : NULL;
	char *data;
	long n;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = malloc(n);
		if (data && fread(data, 1, n, f) == (size_t)n)
			cache_store(store, data, n);
		free(data);
	}
	fclose(f);
}

void rt_units_keep(const char *dir, const struct rt_unit *u)
{
	char path[4200];

	for (; u->src; u++) {
		if (u->found || !u->store)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, u->obj);
		rt_keep(path, u->store);
	}
}
