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
 * and -D options: its object is cached too (runtime/KEY.o), and a build
 * that finds it compiles only the script (Kbuild copies FILE_shipped to
 * FILE) -- half the time of a cold build.  Such a build does not even run
 * make: it replays the commands Kbuild ran the first time
 * (runtime/KEY.kbuild, kbuild_replay.c).
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
#include "sign.h"
#include "spawn.h"
#include "strset.h"
#include "xalloc.h"

/* Runtime files every module is built from (paths under the runtime dir):
 * the portable core's units, listed once in kmod-runtime/core/units.mk,
 * then the kernel side; the probe families' own follow
 * (elab_runtime_families()). */
static const char *const runtime_objs[] = {
#include "core_units.h"
	"session", "transport", "relay", "ctl", "output", "print", "stats", "target", "errno", "usyms", "scope", "monitor", NULL
};

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

/* Each runtime source (.c, .h) of dir, for hashing and copying. */
static int for_runtime_files(const char *dir, const char *sub,
			     int (*fn)(const char *path, const char *rel, void *ctx), void *ctx)
{
	char path[4096];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	snprintf(path, sizeof(path), "%s%s%s", dir, *sub ? "/" : "", sub);
	d = opendir(path);
	if (!d)
		return fail_errno();
	/* Sorted order would be nicer for a hash; readdir order is stable
	 * for an unchanged directory, which is all the cache needs. */
	while (!ret && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char file[8200], rel[512];

		if (n < 3 || de->d_name[n - 2] != '.' || !strchr("ch", de->d_name[n - 1]))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		snprintf(rel, sizeof(rel), "%s%s%s", sub, *sub ? "/" : "", de->d_name);
		ret = fn(file, rel, ctx);
	}
	closedir(d);
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
	snprintf(path, sizeof(path), "%s/Module.symvers", s->opt.kernel_build);
	if (stat(path, &st) == 0) {
		h = fnv1a(h, &st.st_size, sizeof(st.st_size));
		h = fnv1a(h, &st.st_mtime, sizeof(st.st_mtime));
	}
	return h;
}

/* What the runtime object is compiled from: base_key(), the families, -D. */
static uint64_t runtime_key(struct session *s, uint64_t base)
{
	uint64_t h = fnv1a(base, "runtime", 8);

	for (int i = 0; i < s->opt.n_defines; i++)
		h = fnv1a(h, s->opt.defines[i], strlen(s->opt.defines[i]) + 1);
	for (const char **o = elab_runtime_families(s); *o; o++)
		h = fnv1a(h, *o, strlen(*o) + 1);
	return h;
}

static int copy_one(const char *path, const char *rel, void *ctx)
{
	const char *dir = ctx;
	char dst[4096];
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	if (!text)
		return fail_errno();
	snprintf(dst, sizeof(dst), "%s/runtime/%s", dir, rel);
	ret = write_file(dst, text, len);
	free(text);
	return ret;
}

/*
 * Two objects, compiled in parallel: the script, and the whole runtime as
 * one unit (a compiler run per runtime file would cost more than the
 * compiling itself: each reads the kernel headers).
 */
static int write_kbuild(struct session *s, const char *dir, const char *name)
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
		"obj-m := %s.o\n%s-y := script.o runtime.o\n", name, name, name);

	snprintf(path, sizeof(path), "%s/Kbuild", dir);
	return write_file(path, text, strlen(text));
}

/*
 * ctap_defines.h: the -D options as #define lines, which the runtime's
 * unit includes first (the script's unit has them at its top).  Never
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

/* runtime.c: every runtime file the module needs, one unit, after the -D
 * options. */
static int write_runtime_unit(struct session *s, const char *dir)
{
	char path[4096];
	char *text = "/* The runtime, one unit (written by stap -p4). */\n"
		     "#include \"ctap_defines.h\"\n";

	for (const char *const *o = runtime_objs; *o; o++)
		text = arena_printf(&s->arena, "%s#include \"runtime/%s.c\"\n", text, *o);
	for (const char **o = elab_runtime_families(s); *o; o++)
		text = arena_printf(&s->arena, "%s#include \"runtime/%s.c\"\n", text, *o);
	snprintf(path, sizeof(path), "%s/runtime.c", dir);
	return write_file(path, text, strlen(text));
}

/*
 * The cached runtime object as DIR/runtime.o_shipped, if there is one;
 * modpost reads each object's .cmd file (symbol versions: the runtime
 * exports none), so an empty one goes with it.
 */
static bool ship_runtime(const char *cached, const char *dir)
{
	char path[4200];

	if (cache_file_ok(cached))
		return false;
	snprintf(path, sizeof(path), "%s/.runtime.o.cmd", dir);
	if (write_file(path, "", 0))
		return false;
	snprintf(path, sizeof(path), "%s/runtime.o_shipped", dir);
	return copy_path(cached, path) == 0;
}

/* After a build that compiled the runtime: its object into the cache. */
static void keep_runtime(const char *cached, const char *dir)
{
	char path[4200];
	size_t len;
	char *data;

	snprintf(path, sizeof(path), "%s/runtime.o", dir);
	data = read_file(path, &len);
	if (data)
		cache_store(cached, data, len);
	free(data);
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

/* kbuild_replay() with the shipped runtime as runtime.o; on failure the
 * directory is left as Kbuild expects it. */
static int replay_build(struct session *s, const char *dir, const char *name, const char *replay)
{
	char from[4200], to[4200];
	int ret;

	if (s->opt.disable_cache)
		return -ENOENT;
	snprintf(from, sizeof(from), "%s/runtime.o_shipped", dir);
	snprintf(to, sizeof(to), "%s/runtime.o", dir);
	if (link(from, to))
		return -errno;
	ret = kbuild_replay(s, dir, name, replay);
	if (ret)
		unlink(to);
	return ret;
}

int pass4_build(struct session *s, const char *c_text, size_t len, const char **ko)
{
	const char *name = session_module_name(s);
	char cached[4096], runtime[4096], path[4200], tmp[4300], *dir;
	const char *features = kfeatures_header(&s->arena, session_btf_quiet(s),
						 s->opt.kernel_build);
	uint64_t base = base_key(s, features);	/* reads every runtime file: once */
	uint64_t key = fnv1a(base, c_text, len);
	bool cacheable, shipped;
	const char *replay;
	int ret;

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
	    for_runtime_files(session_runtime_dir(s), "", copy_one, dir) ||
	    for_runtime_files(session_runtime_dir(s), "core", copy_one, dir) ||
	    for_runtime_files(session_runtime_dir(s), "probes", copy_one, dir)) {
		fprintf(stderr, "stap: cannot copy the runtime from %s\n", session_runtime_dir(s));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/runtime/ctap_kernel.h", dir);
	if (write_file(path, features, strlen(features)))
		goto out;
	snprintf(path, sizeof(path), "%s/script.c", dir);
	if (write_file(path, c_text, len) || write_kbuild(s, dir, name))
		goto out;
	/* The module cache's directory was checked above; so is this one. */
	cacheable = cache_path(runtime, sizeof(runtime),
			       arena_printf(&s->arena, "runtime/%016llx.o",
					    (unsigned long long)runtime_key(s, base))) == 0;
	shipped = cacheable && !s->opt.disable_cache && ship_runtime(runtime, dir);
	if (!shipped && (write_defines(s, dir) || write_runtime_unit(s, dir)))
		goto out;
	if (s->opt.verbose > 1)
		fprintf(stderr, "Pass 4: %s (%s)\n", shipped ? "using the cached runtime object" :
			"compiling the runtime", session_runtime_dir(s));
	/* With the runtime's object, Kbuild's recorded commands do the rest
	 * (kbuild_replay.c); else, or if they fail, Kbuild itself. */
	replay = arena_printf(&s->arena, "%.*s.kbuild", (int)strlen(runtime) - 2, runtime);
	if (shipped && replay_build(s, dir, name, replay) == 0) {
		if (s->opt.verbose > 1)
			fprintf(stderr, "Pass 4: replayed Kbuild's commands (%s)\n", replay);
	} else if (run_make(s, dir)) {
		show_log(s, dir, true);
		fprintf(stderr, "Pass 4: compilation failed.  [man error::pass4]\n");
		goto out;
	} else if (cacheable) {
		kbuild_record(s, dir, name, replay);
	}
	show_log(s, dir, false);
	if (cacheable && !shipped)
		keep_runtime(runtime, dir);
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
