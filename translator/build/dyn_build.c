// SPDX-License-Identifier: GPL-2.0
/*
 * dyn_build.c - pass 4 of --runtime=dyninst: the generated C into a shared
 * object (NAME.so) with the host compiler, no Kbuild and no kernel
 * headers (docs/userspace.md).
 *
 * The runtime (dyn-runtime/'s units, kmod-runtime's portable core and the
 * kernel runtime's units that are portable once ctap_platform.h stands in
 * for the kernel: output, print, stats, errno) is compiled once into an
 * archive kept in the cache, keyed by its sources, the -D options and
 * this stap; a warm build compiles the script's unit and links.  The .so
 * itself is cached by that key and the C, as the kernel's modules are.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "cache.h"
#include "dyn_build.h"
#include "rt_units.h"
#include "session.h"
#include "spawn.h"
#include "strset.h"

/* The runtime's units: dyn-runtime/'s, then kmod-runtime's by path. */
static const char *const dyn_units[] = {
	"shm", "session", "transport", "calendar", "timers", "uprobes", "tasks", "target", "merge",
	/* the instrumentation engine (patch.h) */
	"patch", "reloc", "tramp", "text", "trap", "retprobe", "uread", "sweep",
	"usyms", NULL
};
static const char *const kmod_units[] = {
#include "core_units.h"
	"output", "print", "stats", "errno", NULL
};
/* Headers whose change must rebuild the runtime. */
static const char *const headers[] = {
	"dyn:ctap_platform.h", "dyn:dyn_abi.h", "dyn:dyn_internal.h", "dyn:target.h",
	"dyn:probes/timers.h", "dyn:probes/uprobes.h", "dyn:probes/tasks.h", "dyn:patch.h", "dyn:patch_int.h",
	"kmod:probes/sdt_args.h", "kmod:probes/uprobe_table.h", "kmod:target.h", "kmod:probe_entry.h",
	"dyn:shared.ld", "kmod:ctap_runtime.h", "kmod:transport.h",
	"kmod:core/portable.h", "kmod:core/ctap_limits.h", "kmod:core/outbuf.h", "kmod:core/json.h",
	"kmod:core/stat.h", "kmod:core/format.h", "kmod:core/map.h", "kmod:core/regex_match.h",
	"kmod:core/quote.h", "kmod:core/umod.h", "kmod:usyms.h", NULL
};

#define CC	"cc"
#define CFLAGS	"-std=gnu11", "-O2", "-fPIC", "-Wall", "-Wno-unused-function", \
		"-Wno-unused-variable", "-Wno-unused-label", \
		"-Werror=implicit-function-declaration", "-DCTAP_USERSPACE"

struct dyn_build {
	struct session *s;
	const char *dyn, *kmod;		/* the two runtime directories */
	const char *dir;		/* the build directory */
};

static uint64_t hash_file(uint64_t h, const char *path)
{
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "rb");

	h = fnv1a(h, path, strlen(path));
	if (!f)
		return fnv1a(h, "-", 1);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		h = fnv1a(h, buf, n);
	fclose(f);
	return h;
}

static const char *src_path(struct dyn_build *b, const char *dir, const char *unit)
{
	return arena_printf(&b->s->arena, "%s/%s.c", dir, unit);
}

/* The runtime archive's key: every source and header, -D, this stap. */
static uint64_t runtime_key(struct dyn_build *b)
{
	uint64_t h = FNV1A_INIT;
	unsigned long exe = cache_exe_id();

	for (int i = 0; dyn_units[i]; i++)
		h = hash_file(h, src_path(b, b->dyn, dyn_units[i]));
	for (int i = 0; kmod_units[i]; i++)
		h = hash_file(h, src_path(b, b->kmod, kmod_units[i]));
	for (int i = 0; headers[i]; i++) {
		bool dyn = !strncmp(headers[i], "dyn:", 4);

		h = hash_file(h, arena_printf(&b->s->arena, "%s/%s", dyn ? b->dyn : b->kmod,
					      strchr(headers[i], ':') + 1));
	}
	for (int i = 0; i < b->s->opt.n_defines; i++)
		h = fnv1a(h, b->s->opt.defines[i], strlen(b->s->opt.defines[i]) + 1);
	return fnv1a(h, &exe, sizeof(exe));
}

/* cc's arguments up to the sources: flags, -D, -I (dyn-runtime first:
 * its target.h and probes/ stand in for the kernel's). */
static int cc_args(struct dyn_build *b, const char **argv)
{
	static const char *const flags[] = { CC, CFLAGS };
	int n = 0;

	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++)
		argv[n++] = flags[i];
	for (int i = 0; i < b->s->opt.n_defines; i++)
		argv[n++] = arena_printf(&b->s->arena, "-D%s", b->s->opt.defines[i]);
	argv[n++] = arena_printf(&b->s->arena, "-I%s", b->dyn);
	argv[n++] = arena_printf(&b->s->arena, "-I%s", b->kmod);
	return n;
}

static int run(struct dyn_build *b, const char **argv)
{
	const char *log = arena_printf(&b->s->arena, "%s/build.log", b->dir);

	if (b->s->opt.verbose > 2) {
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
		fputc('\n', stderr);
	}
	return spawn_logged(argv, b->dir, log, true, NULL);
}

/* Each unit to an object, then one archive at archive. */
static int build_runtime(struct dyn_build *b, const char *archive)
{
	const char *argv[64 + MAX_DEFINES], *ar[64] = { "ar", "rcs", archive };
	int nar = 3;

	for (int pass = 0; pass < 2; pass++) {
		const char *const *units = pass ? kmod_units : dyn_units;
		const char *dir = pass ? b->kmod : b->dyn;

		for (int i = 0; units[i]; i++) {
			int n = cc_args(b, argv);
			const char *obj = arena_printf(&b->s->arena, "%s/rt%d_%d.o", b->dir, pass, i);

			argv[n++] = "-c";
			argv[n++] = src_path(b, dir, units[i]);
			argv[n++] = "-o";
			argv[n++] = obj;
			argv[n] = NULL;
			if (run(b, argv))
				return -EIO;
			ar[nar++] = obj;
		}
	}
	ar[nar] = NULL;
	return run(b, ar) ? -EIO : 0;
}

static void show_log(struct dyn_build *b)
{
	const char *log = arena_printf(&b->s->arena, "%s/build.log", b->dir);
	FILE *f = fopen(log, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fclose(f);
}

/* The module from the script's C and the runtime archive. */
static int build_module(struct dyn_build *b, const char *c_text, size_t len,
			const char *archive, const char *so)
{
	const char *argv[64 + MAX_DEFINES];
	const char *c_file = arena_printf(&b->s->arena, "%s/script.c", b->dir);
	FILE *f = fopen(c_file, "w");
	int n;

	if (!f || fwrite(c_text, 1, len, f) != len) {
		if (f)
			fclose(f);
		return -EIO;
	}
	if (fclose(f))
		return -EIO;
	n = cc_args(b, argv);
	argv[n++] = "-shared";
	/* The module's calls to its own runtime bind in the module: no PLT
	 * jump on a hit's path, and a target's symbol of the same name is
	 * never called from a handler. */
	argv[n++] = "-Wl,-Bsymbolic";
	/* Its calls into libc bound when it is loaded, before any probe is
	 * armed: a handler's first call to a function never enters the
	 * loader's lazy binding, which saves the vector registers on the
	 * target thread's stack (1.8 KiB of a 16 KiB one here:
	 * transok/dyninst_small_stack). */
	argv[n++] = "-Wl,-z,now";
	argv[n++] = "-o";
	argv[n++] = so;
	argv[n++] = c_file;
	argv[n++] = "-Wl,--whole-archive";
	argv[n++] = archive;
	argv[n++] = "-Wl,--no-whole-archive";
	argv[n++] = arena_printf(&b->s->arena, "-Wl,-T,%s/shared.ld", b->dyn);
	argv[n++] = "-lZydis";		/* the engine's decoder */
	argv[n++] = "-lpthread";
	argv[n] = NULL;
	return run(b, argv) ? -EIO : 0;
}

const char *dyn_runtime_dir(struct session *s)
{
	const char *env = getenv("CTAP_DYN_RUNTIME");

	if (env && *env)
		return env;
	return session_data_dir(s, "dyn-runtime");
}

int dyn_build(struct session *s, const char *c_text, size_t len, const char **so)
{
	struct dyn_build b = { .s = s, .dyn = dyn_runtime_dir(s), .kmod = session_runtime_dir(s) };
	const char *name = session_module_name(s);
	char archive[4096], cached[4096];
	uint64_t rkey;
	int ret = -EIO;
	char *dir;

	if (!b.dyn) {
		fprintf(stderr, "stap: no dyn-runtime directory (set CTAP_DYN_RUNTIME)\n");
		return -ENOENT;
	}
	/* Absolute: the compiler runs in the build directory. */
	b.dyn = realpath(b.dyn, NULL) ?: b.dyn;
	b.kmod = realpath(b.kmod, NULL) ?: b.kmod;
	rkey = runtime_key(&b);
	if (cache_path(archive, sizeof(archive), arena_printf(&s->arena, "dynruntime/%016llx.a",
							       (unsigned long long)rkey)) ||
	    cache_path(cached, sizeof(cached), arena_printf(&s->arena, "dynmodules/%016llx/%s.so",
	    (unsigned long long)fnv1a(rkey, c_text, len), name))) {
		fprintf(stderr, "stap: the cache cannot be used safely (set CTAP_CACHE_DIR)\n");
		return -EPERM;
	}
	if (cache_file_ok(cached) == 0 && !s->opt.disable_cache && !s->opt.keep_tmpdir) {
		if (s->opt.verbose)
			fprintf(stderr, "Pass 4: using cached %s\n", cached);
		goto found;
	}
	dir = session_mkdtemp(s, "ctapdyn");
	if (!dir) {
		fprintf(stderr, "stap: cannot create a build directory: %s\n", strerror(errno));
		return -errno;
	}
	b.dir = dir;
	if (cache_file_ok(archive) || s->opt.disable_cache) {
		const char *tmp = arena_printf(&s->arena, "%s.%d", archive, (int)getpid());

		if (s->opt.verbose > 1)
			fprintf(stderr, "Pass 4: compiling the runtime (%s, %s)\n", b.dyn, b.kmod);
		if (build_runtime(&b, tmp) || rename(tmp, archive)) {
			unlink(tmp);
			goto fail;
		}
	} else if (s->opt.verbose > 1) {
		fprintf(stderr, "Pass 4: using the cached runtime %s\n", archive);
	}
	{
		const char *tmp = arena_printf(&s->arena, "%s.%d", cached, (int)getpid());

		if (build_module(&b, c_text, len, archive, tmp) || rename(tmp, cached)) {
			unlink(tmp);
			goto fail;
		}
	}
	ret = 0;
	goto out;
fail:
	show_log(&b);
	fprintf(stderr, "Pass 4: compilation failed.  [man error::pass4]\n");
out:
	if (s->opt.keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", dir);
	else
		session_rmtree(dir);
	if (ret)
		return ret;
found:
	*so = arena_strndup(&s->arena, cached, strlen(cached));
	/* -m NAME: a copy in the current directory, as for a .ko. */
	if (s->opt.module_name && rt_copy(cached, arena_printf(&s->arena, "%s.so", name))) {
		fprintf(stderr, "stap: cannot write %s.so: %s\n", name, strerror(errno));
		return -EIO;
	}
	return 0;
}
