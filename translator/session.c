// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - what the passes share through the session: the target's
 * BTF (loaded once: the matcher, pass 2's $vars and -L all use it), the
 * module's name, where the runtime is, which runtime families it needs.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "elaborate.h"
#include "kbtf.h"
#include "kmodules.h"
#include "ksyms.h"
#include "session.h"
#include "strset.h"

struct btf *session_btf(struct session *s)
{
	const char *release = s->opt.kernel_release;
	int ret;

	if (s->btf || s->btf_failed)
		return s->btf;
	ret = kbtf_load(release, s->opt.kernel_build, s->opt.kernel_image, &s->btf);
	s->btf_failed = ret != 0;
	if (ret == -ENOENT)
		diag_error("semantic", NULL, NULL, "no BTF for kernel %s: it is not the running "
			   "kernel, %s/vmlinux and %s do not exist (install "
			   "linux-image-%s)", release, s->opt.kernel_build, s->opt.kernel_image, release);
	else if (ret == -ENODATA)
		diag_error("semantic", NULL, NULL, "no BTF for kernel %s: no .BTF section in "
			   "%s (a kernel built without CONFIG_DEBUG_INFO_BTF?)",
			   release, s->opt.kernel_image);
	else if (ret)
		diag_error("semantic", NULL, NULL, "the .BTF of %s does not parse", s->opt.kernel_image);
	/* An error even where points are optional (-l): nothing was checked. */
	if (ret)
		diag_error("semantic", NULL, NULL, "kernel probe points cannot be resolved "
			   "without the BTF of kernel %s", release);
	return s->btf;
}

struct btf *session_btf_quiet(struct session *s)
{
	if (!s->btf && !s->btf_failed)
		s->btf_failed = kbtf_load(s->opt.kernel_release, s->opt.kernel_build, s->opt.kernel_image,
					  &s->btf) != 0;
	return s->btf;
}

struct ksyms *session_ksyms(struct session *s)
{
	int ret;

	if (s->ksyms || s->ksyms_failed)
		return s->ksyms;
	ret = ksyms_load(s->opt.kernel_release, s->opt.kernel_build, s->opt.kernel_image, &s->ksyms);
	s->ksyms_failed = ret != 0;
	if (ret && s->opt.verbose)
		fprintf(stderr, "no symbol table for kernel %s (%s): kernel functions "
			"are those its BTF describes\n", s->opt.kernel_release, strerror(-ret));
	else if (!ret && s->opt.verbose > 1)
		fprintf(stderr, "%d kernel functions from %s\n", s->ksyms->n, s->ksyms->source);
	return s->ksyms;
}

struct module_btf {
	struct module_btf *next;
	const char *name;
	struct btf *btf;
	int err;
};

int session_module_btf(struct session *s, const char *name, struct btf **btf)
{
	struct btf *base = session_btf(s);
	struct module_btf *m;

	for (m = s->module_btfs; m; m = m->next)
		if (!strcmp(m->name, name))
			break;
	if (!m && base) {
		m = arena_new(&s->arena, struct module_btf);
		m->name = arena_strndup(&s->arena, name, strlen(name));
		m->err = kmod_btf(&s->arena, s->opt.kernel_release, s->opt.kernel_moddir, name, base,
				  &m->btf);
		m->next = s->module_btfs;
		s->module_btfs = m;
	}
	*btf = m ? m->btf : NULL;
	return m ? m->err : -ENODATA;
}

__s32 session_long_type(struct session *s)
{
	struct btf *btf;

	if (!s->long_type_known) {
		btf = session_btf(s);
		s->long_type = btf ? kbtf_find(btf, "long int", BTF_KIND_INT) : 0;
		if (s->long_type < 0)
			s->long_type = 0;
		s->long_type_known = true;
	}
	return s->long_type;
}

struct btf *session_user_btf(struct session *s)
{
	if (!s->user_btf)
		s->user_btf = btf__new_empty();
	return s->user_btf;
}

void session_free(struct session *s)
{
	for (struct module_btf *m = s->module_btfs; m; m = m->next) {
		kbtf_forget(m->btf);
		btf__free(m->btf);
	}
	s->module_btfs = NULL;
	kbtf_forget(s->btf);
	btf__free(s->btf);
	s->btf = NULL;
	kbtf_forget(s->user_btf);
	btf__free(s->user_btf);
	s->user_btf = NULL;
	ksyms_free(s->ksyms);
	s->ksyms = NULL;
	strset_free(&s->target_files);
}

long long session_define(const struct session *s, const char *name, long long fallback)
{
	size_t len = strlen(name);

	for (int i = 0; i < s->opt.n_defines; i++)
		if (!strncmp(s->opt.defines[i], name, len) && s->opt.defines[i][len] == '=')
			fallback = strtoll(s->opt.defines[i] + len + 1, NULL, 0);
	return fallback;
}

const char *session_module_name(struct session *s)
{
	uint64_t h = FNV1A_INIT;

	if (s->opt.module_name)
		return s->opt.module_name;
	h = fnv1a(h, s->user->src->text, s->user->src->len);
	for (int i = 0; i < s->opt.n_defines; i++)
		h = fnv1a(h, s->opt.defines[i], strlen(s->opt.defines[i]) + 1);
	return arena_printf(&s->arena, "stap_%016llx", (unsigned long long)h);
}

/* This stap's own directory (from /proc/self/exe), arena memory; NULL if
 * it cannot be known. */
static const char *self_dir(struct session *s)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return arena_printf(&s->arena, "%s", self);
}

/*
 * SUB of the source tree, for the build tree's own stap (translator/stap
 * of the tree that was configured) alone: a stap installed from it never
 * reads, compiles or runs the build machine's source files.  NULL if this
 * is not that stap.
 */
static const char *source_dir(struct session *s, const char *sub)
{
	const char *self = self_dir(s);
	struct stat a, b;

	if (!self || stat(self, &a) || stat(CTAP_BUILDDIR "/translator", &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return NULL;
	return arena_printf(&s->arena, "%s/%s", CTAP_SRCDIR, sub);
}

/*
 * DIR/SUB of what ctap installs for itself (INSTALLED: the configured
 * place, FROM_BIN: the same relative to the bin directory).  The build
 * tree's own stap takes the source tree's SOURCE; an installed one the
 * files installed with it, beside it (a moved tree, or a package unpacked
 * somewhere else, as `dpkg-deb -x` does), else the configured place (a
 * stap copied alone).  NULL if none has it.
 */
static const char *installed_path(struct session *s, const char *installed, const char *from_bin,
				  const char *sub, const char *source)
{
	const char *self = self_dir(s), *path = source ? source_dir(s, source) : NULL;

	if (path && access(path, R_OK) == 0)
		return path;
	path = self ? arena_printf(&s->arena, "%s/%s/%s", self, from_bin, sub) : NULL;
	if (path && access(path, R_OK) == 0)
		return path;
	path = arena_printf(&s->arena, "%s/%s", installed, sub);
	return access(path, R_OK) == 0 ? path : NULL;
}

const char *session_data_dir(struct session *s, const char *sub)
{
	static const struct { const char *installed, *source; } dirs[] = {
		{ "tapset", "tapsets" }, { "runtime", "kmod-runtime" },
		{ "dyn-runtime", "dyn-runtime" },
	};
	const char *source = NULL;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		if (!strcmp(sub, dirs[i].installed))
			source = dirs[i].source;
	return installed_path(s, CTAP_PKGDATADIR, "../share/ctap", sub, source);
}

const char *session_libexec(struct session *s, const char *name)
{
	return installed_path(s, CTAP_PKGLIBEXECDIR, "../libexec/ctap", name,
			      arena_printf(&s->arena, "testsuite/%s", name));
}

const char *session_runtime_dir(struct session *s)
{
	const char *env = getenv("SYSTEMTAP_RUNTIME"), *installed;

	if (s->opt.runtime_dir)
		return s->opt.runtime_dir;
	if (env && *env)
		return env;
	installed = session_data_dir(s, "runtime");
	/* none: the configured place, which the error message names */
	return installed ? installed : CTAP_PKGDATADIR "/runtime";
}

const char *session_define_line(struct session *s, const char *d)
{
	const char *eq = strchr(d, '=');

	if (!eq)
		return arena_printf(&s->arena, "#define %s 1\n", d);
	return arena_printf(&s->arena, "#define %.*s %s\n", (int)(eq - d), d, eq + 1);
}

int session_mkdirs(char *path, mode_t mode)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, mode) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

char *session_mkdtemp(struct session *s, const char *prefix)
{
	const char *t = getenv("TMPDIR");

	return mkdtemp(arena_printf(&s->arena, "%s/%sXXXXXX", t && *t ? t : "/tmp", prefix));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int session_rmtree(const char *dir)
{
	/* FTW_PHYS: a symlink in the tree is removed, never followed. */
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) ? -errno : 0;
}
