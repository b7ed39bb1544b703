// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - pass 4: the module's C to a .ko, through the kernel's Kbuild,
 * or straight from the module cache.
 *
 * The cache key is a hash of everything that can change the module: the
 * generated C (which already holds the script, the tapsets it used and
 * every -D/-G/-m option), the runtime sources, the target kernel (its
 * release, build tree and Module.symvers) and ctap's version.  A hit
 * costs passes 1-3 and one stat; a miss builds in a temporary directory
 * (kept with -k) with a copy of the runtime, so that concurrent builds
 * never share object files.
 *
 * The runtime is the same C for every script with the same probe families
 * and -D options: its objects are cached too, one per unit (the core, each
 * family: rt_units.c), and a build that finds them compiles only the
 * script (Kbuild copies FILE_shipped to FILE).  Such a build does not even
 * run make: it replays the commands Kbuild ran the first time, the same
 * for any families (runtime/KEY.kbuild, kbuild_replay.c), with the kernel
 * headers precompiled.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "dyn_build.h"
#include "elaborate.h"
#include "cache.h"
#include "kbuild_replay.h"
#include "kfeatures.h"
#include "rt_units.h"
#include "sign.h"
#include "spawn.h"
#include "strset.h"
#include "xalloc.h"

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = xmalloc(n + 1);
		if (fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len = n;
		}
	}
	fclose(f);
	return buf;
}

/* The failed call's -errno (-EIO if it set none). */
static int fail_errno(void)
{
	return errno ? -errno : -EIO;
}

static int copy_path(const char *from, const char *to);

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return fail_errno();
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : fail_errno();
}

static int runtime_source(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return n >= 3 && de->d_name[n - 2] == '.' && strchr("ch", de->d_name[n - 1]);
}

/* Each runtime source (.c, .h) of dir, for hashing and copying; in sorted
 * order, so that a copy of the directory (an installed runtime, whose
 * prebuilt objects were keyed on the source tree's) hashes the same. */
static int for_runtime_files(const char *dir, const char *sub,
			     int (*fn)(const char *path, const char *rel, void *ctx), void *ctx)
{
	char path[4096];
	struct dirent **de;
	int ret = 0, n;

	snprintf(path, sizeof(path), "%s%s%s", dir, *sub ? "/" : "", sub);
	n = scandir(path, &de, runtime_source, alphasort);
	if (n < 0)
		return fail_errno();
	for (int i = 0; i < n; i++) {
		char file[8200], rel[512];

		snprintf(file, sizeof(file), "%s/%s", path, de[i]->d_name);
		snprintf(rel, sizeof(rel), "%s%s%s", sub, *sub ? "/" : "", de[i]->d_name);
		if (!ret)
			ret = fn(file, rel, ctx);
		free(de[i]);
	}
	free(de);
	return ret;
}

static int hash_one(const char *path, const char *rel, void *ctx)
{
	uint64_t *h = ctx;
	size_t len;
	char *text = read_file(path, &len);

	if (!text)
		return fail_errno();
	*h = fnv1a(*h, rel, strlen(rel) + 1);
	*h = fnv1a(*h, text, len);
	free(text);
	return 0;
}

/* The hash of ctap's version, how pass 4 builds (the replay's format),
 * the runtime sources and the target kernel
 * (with what its BTF says of its interfaces: features). */
static uint64_t base_key(struct session *s, const char *features)
{
	uint64_t h = FNV1A_INIT;
	char path[4096];
	struct stat st;

	h = fnv1a(h, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	h = fnv1a(h, KBUILD_REPLAY_FORMAT, sizeof(KBUILD_REPLAY_FORMAT));
	for_runtime_files(session_runtime_dir(s), "", hash_one, &h);
	for_runtime_files(session_runtime_dir(s), "core", hash_one, &h);
	for_runtime_files(session_runtime_dir(s), "probes", hash_one, &h);
	h = fnv1a(h, s->opt.kernel_build, strlen(s->opt.kernel_build) + 1);
	h = fnv1a(h, s->opt.kernel_release, strlen(s->opt.kernel_release) + 1);
	h = fnv1a(h, features, strlen(features) + 1);
	/* The kernel's exports and configuration: a rebuilt tree of the
	 * same release never reuses an object (nor a prebuilt one). */
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", s->opt.kernel_build,
			 i ? "include/generated/autoconf.h" : "Module.symvers");
		if (stat(path, &st) == 0) {
			h = fnv1a(h, &st.st_size, sizeof(st.st_size));
			h = fnv1a(h, &st.st_mtime, sizeof(st.st_mtime));
		}
	}
	return h;
}

/* Where copy_one() copies, and which files: "h" or "c". */
struct copy_to {
	const char *dir;
	char ext;
};

static int copy_one(const char *path, const char *rel, void *ctx)
{
	const struct copy_to *to = ctx;
	char dst[4096];
	size_t len;
	char *text;
	int ret;

	if (rel[strlen(rel) - 1] != to->ext)
		return 0;
	text = read_file(path, &len);
	if (!text)
		return fail_errno();
	snprintf(dst, sizeof(dst), "%s/runtime/%s", to->dir, rel);
	ret = write_file(dst, text, len);
	free(text);
	return ret;
}

/*
 * The runtime's headers (ext 'h') or its sources ('c') copied into
 * dir/runtime: a replayed build compiles only the script's unit, which
 * reads the headers; the sources only if Kbuild is run (each file made
 * in /tmp cost 0.15 ms, 10 ms for all of them).
 */
static int copy_runtime(struct session *s, const char *dir, char ext)
{
	struct copy_to to = { dir, ext };

	return for_runtime_files(session_runtime_dir(s), "", copy_one, &to) ||
	       for_runtime_files(session_runtime_dir(s), "core", copy_one, &to) ||
	       for_runtime_files(session_runtime_dir(s), "probes", copy_one, &to) ? -EIO : 0;
}

/*
 * The script and the runtime's units (rt_units.c), compiled in parallel
 * (a unit per family, not per file: each compiler run reads the kernel
 * headers again).
 */
static int write_kbuild(struct session *s, const char *dir, const char *name,
			const char **objs)
{
	char path[4096];
	char *text = arena_printf(&s->arena,
		"# Kbuild for %s, written by ctap's stap -p4.\n"
		"# C11 as the kernel itself since 5.18; older trees ask for gnu89.\n"
		"# No -Wrestrict (off in the kernel until 6.x): embedded C that formats a\n"
		"# string argument into its return value, two members of one frame, trips it.\n"
		"# Declarations after statements, as the kernel allows from 6.5 on.\n"
		"ccflags-y := -I$(src)/runtime -std=gnu11 -Wno-restrict "
		"-Wno-declaration-after-statement\n"
		"obj-m := %s.o\n%s-y := script.o", name, name, name);

	for (; *objs; objs++)
		text = arena_printf(&s->arena, "%s %s", text, *objs);
	text = arena_printf(&s->arena, "%s\n", text);

	snprintf(path, sizeof(path), "%s/Kbuild", dir);
	return write_file(path, text, strlen(text));
}

/*
 * ctap_defines.h: the -D options as #define lines, which the runtime's
 * units include first (the script's unit has them at its top).  Never
 * compiler flags in the Kbuild file: make would expand a $(...) in them.
 */
static int write_defines(struct session *s, const char *dir)
{
	char path[4096];
	char *text = "/* stap's -D options (written by stap -p4). */\n";

	for (int i = 0; i < s->opt.n_defines; i++)
		text = arena_printf(&s->arena, "%s%s", text, session_define_line(s, s->opt.defines[i]));
	snprintf(path, sizeof(path), "%s/ctap_defines.h", dir);
	return write_file(path, text, strlen(text));
}

/* Run make; its output goes to DIR/build.log (and to stderr with -vv). */
static int run_make(struct session *s, const char *dir)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	const char *log = arena_printf(&s->arena, "%s/build.log", dir);
	const char *argv[] = { "make", "-s", "-C", s->opt.kernel_build,
			       arena_printf(&s->arena, "M=%s", dir),
			       arena_printf(&s->arena, "-j%ld", n > 0 ? n : 1), "modules", NULL };

	return spawn_logged(argv, NULL, log, false, NULL) ? -EIO : 0;
}

/* The compiler's messages, with -v all of the log. */
static void show_log(struct session *s, const char *dir, bool failed)
{
	char path[4096], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/build.log", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (failed || s->opt.verbose > 1 || strstr(line, "warning:"))
			fputs(line, stderr);
	fclose(f);
}

static int copy_path(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	int ret;

	if (!data)
		return fail_errno();
	ret = write_file(to, data, len);
	free(data);
	return ret;
}

/*
 * -m NAME's ./NAME.ko, written so that nothing planted there is written
 * through: a name that is not a regular file (a symlink, a FIFO) is
 * refused; the module goes to a new file (O_EXCL: never an existing one,
 * nor a symlink's target) renamed over the name, so a hard link to
 * another file loses the name and the file keeps its content.
 */
static int copy_here(const char *from, const char *here)
{
	char tmp[4200], buf[65536];
	struct stat st;
	ssize_t n = 0;
	int in, out = -1, ret = 0;

	if (lstat(here, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "stap: %s exists and is not a regular file; not writing the module "
			"there\n", here);
		return -EEXIST;
	}
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		ret = fail_errno();
	for (int i = 0; !ret && out < 0 && i < 100; i++) {
		snprintf(tmp, sizeof(tmp), ".%s.%d.%d", here, (int)getpid(), i);
		out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (out < 0 && errno != EEXIST)
			ret = fail_errno();
	}
	if (!ret && out < 0)
		ret = -EEXIST;
	while (!ret && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ret = fail_errno();
	if (!ret && n < 0)
		ret = fail_errno();
	if (out >= 0 && close(out) && !ret)
		ret = fail_errno();
	if (out >= 0 && !ret && rename(tmp, here))
		ret = fail_errno();
	if (out >= 0 && ret)
		unlink(tmp);
	if (in >= 0)
		close(in);
	if (ret)
		fprintf(stderr, "stap: cannot write %s: %s\n", here, strerror(-ret));
	return ret;
}

/* The precompiled headers' keys: the script's unit's and the .mod.c's
 * (kbuild_pch.c). */
static struct kbuild_pch *pch_keys(struct session *s, uint64_t base)
{
	uint64_t *key = arena_alloc(&s->arena, 2 * sizeof(*key));
	struct kbuild_pch *pch = arena_alloc(&s->arena, sizeof(*pch));

	key[0] = fnv1a(base, "pch script.c", 12);
	key[1] = fnv1a(base, "pch mod.c", 9);
	memset(pch, 0, sizeof(*pch));
	pch->keys = key;
	return pch;
}

/* kbuild_replay() with the runtime's units found (cached or prebuilt). */
static int replay_build(struct session *s, const char *dir, const char *name,
			const struct rt_unit *units, const char *replay, uint64_t base)
{
	if (!replay || rt_units_missing(units) || rt_units_write(s, dir, units, false))
		return -ENOENT;
	return kbuild_replay(s, dir, name, rt_unit_objs(s, units), replay, pch_keys(s, base));
}

/*
 * ctap_kernel.h's text (kfeatures.c), kept in the cache with the size and
 * time of each file it may be read from (the BTF where kbtf_load() looks
 * for it, the boot image, Module.symvers) and used while none of them
 * changes: a script whose passes 1-3 needed no BTF then loads none (its
 * parse, a dozen lookups and Module.symvers: 15 ms of each new script).
 */
static const char *kernel_features(struct session *s)
{
	const char *inputs[] = {
		"/sys/kernel/btf/vmlinux",
		arena_printf(&s->arena, "%s/vmlinux", s->opt.kernel_build),
		NULL,	/* the cache's BTF */
		s->opt.kernel_image,
		arena_printf(&s->arena, "%s/Module.symvers", s->opt.kernel_build),
	};
	char btf[4096], path[4096], *key, *text;
	const char *features;
	size_t len;

	if (cache_path(btf, sizeof(btf), arena_printf(&s->arena, "vmlinux-%s.btf",
						      s->opt.kernel_release)) ||
	    cache_path(path, sizeof(path), arena_printf(&s->arena, "kfeatures-%s.h",
						       s->opt.kernel_release)))
		return kfeatures_header(&s->arena, session_btf_quiet(s), s->opt.kernel_build);
	inputs[2] = btf;
	key = arena_printf(&s->arena, "/* ctap kfeatures 1 %lx\n", cache_exe_id());
	for (size_t i = 0; i < sizeof(inputs) / sizeof(*inputs); i++) {
		struct stat st;

		if (!inputs[i] || stat(inputs[i], &st))
			memset(&st, 0, sizeof(st));
		key = arena_printf(&s->arena, "%s * %s %lld %lld.%09ld\n", key, inputs[i] ? inputs[i] : "",
				   (long long)st.st_size, (long long)st.st_mtim.tv_sec,
				   st.st_mtim.tv_nsec);
	}
	key = arena_printf(&s->arena, "%s */\n", key);
	text = cache_file_ok(path) == 0 ? read_file(path, &len) : NULL;
	if (text && len > strlen(key) && !memcmp(text, key, strlen(key))) {
		features = arena_strndup(&s->arena, text + strlen(key), len - strlen(key));
		free(text);
		return features;
	}
	free(text);
	features = kfeatures_header(&s->arena, session_btf_quiet(s), s->opt.kernel_build);
	if (session_btf_quiet(s)) {	/* without BTF: nothing to save */
		text = arena_printf(&s->arena, "%s%s", key, features);
		cache_store(path, text, strlen(text));
	}
	return features;
}

int pass4_build(struct session *s, const char *c_text, size_t len, const char **ko)
{
	const char *name = session_module_name(s);
	char cached[4096], path[4200], tmp[4300], *dir;
	const char *features = kernel_features(s);
	uint64_t base = base_key(s, features);	/* reads every runtime file: once */
	uint64_t key = fnv1a(base, c_text, len);
	const char *replay, *record, **objs;
	struct rt_unit *units;
	int ret, missing;

	if (s->opt.dyninst)		/* a shared object, not a kernel module */
		return dyn_build(s, c_text, len, ko);

	/* --sign-module: a signed module is another module, keyed on the
	 * certificate it is signed for. */
	if (s->opt.sign) {
		size_t cert_len;
		char *cert;

		if (sign_prepare(s))
			return -EPERM;
		cert = read_file(s->sign_cert, &cert_len);
		if (!cert) {
			fprintf(stderr, "stap: cannot read %s: %s\n", s->sign_cert, strerror(errno));
			return -EIO;
		}
		key = fnv1a(fnv1a(key, "signed", 6), cert, cert_len);
		free(cert);
	}

	ret = cache_path(cached, sizeof(cached), arena_printf(&s->arena, "modules/%016llx/%s.ko",
							  (unsigned long long)key, name));
	if (ret) {
		fprintf(stderr, "stap: the module cache cannot be used safely: %s (a directory "
			"in it is not yours alone; set CTAP_CACHE_DIR to one that is)\n",
			strerror(-ret));
		return ret;
	}
	ret = -EIO;	/* until the module is in the cache */
	if (cache_file_ok(cached) == 0 && !s->opt.keep_tmpdir && !s->opt.disable_cache) {
		if (s->opt.verbose)
			fprintf(stderr, "Pass 3: using cached %s\nPass 4: using cached %s\n", cached, cached);
		ret = 0;
		goto found;
	}
	dir = session_mkdtemp(s, "ctap");
	if (!dir) {
		fprintf(stderr, "stap: cannot create a build directory: %s\n", strerror(errno));
		return fail_errno();
	}
	snprintf(path, sizeof(path), "%s/runtime/probes", dir);
	if (mkdir(arena_printf(&s->arena, "%s/runtime", dir), 0755) || mkdir(path, 0755) ||
	    mkdir(arena_printf(&s->arena, "%s/runtime/core", dir), 0755) ||
	    copy_runtime(s, dir, 'h')) {
		fprintf(stderr, "stap: cannot copy the runtime from %s\n", session_runtime_dir(s));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/runtime/ctap_kernel.h", dir);
	if (write_file(path, features, strlen(features)))
		goto out;
	snprintf(path, sizeof(path), "%s/script.c", dir);
	if (write_file(path, c_text, len) || write_defines(s, dir))
		goto out;
	units = rt_units(s, base);
	objs = rt_unit_objs(s, units);
	replay = rt_file(s, arena_printf(&s->arena, "%016llx.kbuild",
					 (unsigned long long)fnv1a(base, "replay", 6)), &record);
	missing = rt_units_missing(units);
	if (s->opt.verbose > 1)
		fprintf(stderr, "Pass 4: %s (%s)\n", missing ? "compiling the runtime" :
			"using the cached runtime object", session_runtime_dir(s));
	/* With the runtime's objects, Kbuild's recorded commands do the rest
	 * (kbuild_replay.c); else, or if they fail, Kbuild itself, which
	 * compiles the missing units beside the script. */
	if (replay_build(s, dir, name, units, replay, base) == 0) {
		if (s->opt.verbose > 1)
			fprintf(stderr, "Pass 4: replayed Kbuild's commands (%s)\n", replay);
	} else if (copy_runtime(s, dir, 'c') || write_kbuild(s, dir, name, objs) ||
		   rt_units_write(s, dir, units, true)) {
		fprintf(stderr, "stap: cannot write the build directory %s\n", dir);
		goto out;
	} else if (run_make(s, dir)) {
		show_log(s, dir, true);
		fprintf(stderr, "Pass 4: compilation failed.  [man error::pass4]\n");
		goto out;
	} else {
		rt_units_keep(dir, units);
		if (record)
			kbuild_record(s, dir, name, objs, record, pch_keys(s, base));
	}
	show_log(s, dir, false);
	snprintf(path, sizeof(path), "%s/%s.ko", dir, name);
	if (s->opt.sign && sign_module(s, path))
		goto out;
	/* Into the cache atomically: a concurrent stap sees all or nothing. */
	snprintf(tmp, sizeof(tmp), "%s.%d", cached, (int)getpid());
	if (copy_path(path, tmp) || rename(tmp, cached)) {
		fprintf(stderr, "stap: cannot write %s: %s\n", cached, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (s->opt.keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", dir);
	else
		session_rmtree(dir);
	if (ret)
		return ret;
found:
	*ko = arena_strndup(&s->arena, cached, strlen(cached));
	/* -m NAME: the module also goes to the current directory, as
	 * SystemTap's; pass 5 still loads the cache's copy. */
	if (s->opt.module_name) {
		ret = copy_here(cached, arena_printf(&s->arena, "%s.ko", name));
		if (ret)
			return ret;
	}
	return 0;
}
