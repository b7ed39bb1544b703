// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the cache directory, and whether what is in it can be trusted.
 *
 * The cache holds modules that staprun loads as root, so it must be the
 * invoking user's own: never a shared directory such as /tmp (another
 * local user could plant a module there), always under the real user's
 * home, found through the password database when $HOME is unset.  Every
 * directory from the cache's root down, and every file read from it, must
 * be owned by that user, not a symlink, and writable by nobody else;
 * otherwise the cache is not used at all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cache.h"
#include "xalloc.h"

/* Ours, not a symlink, writable only by us; 0 or -errno (EPERM: not safe). */
static int owned(const char *path, bool dir)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if ((dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
	    st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

/* mkdir -p with mode 0700 for what is created; directories that exist
 * already above the cache's root (the home directory) are left alone. */
static void make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	mkdir(path, 0700);
}

static int cache_root(char *buf, size_t size)
{
	const char *dir = getenv("CTAP_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct passwd *pw;
	int n;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (dir && *dir)
		n = snprintf(buf, size, "%s", dir);
	else if (xdg && *xdg)
		n = snprintf(buf, size, "%s/ctap", xdg);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.cache/ctap", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cache_path(char *buf, size_t size, const char *name)
{
	size_t len;
	int ret = cache_root(buf, size), n;
	char *p;

	if (ret)
		return ret;
	make_dirs(buf);
	if ((ret = owned(buf, true)))
		return ret;
	len = strlen(buf);
	n = snprintf(buf + len, size - len, "/%s", name);
	if (n < 0 || (size_t)n >= size - len)
		return -ENAMETOOLONG;
	/* Each directory of name, created if needed, then checked. */
	for (p = buf + len + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(buf, 0700);
		ret = owned(buf, true);
		*p = '/';
		if (ret)
			return ret;
	}
	return 0;
}

int cache_file_ok(const char *path)
{
	return owned(path, false);
}

/* Root's or ours, not a symlink, writable by nobody else: what an installed
 * runtime is also trusted as (the prebuilt objects beside it). */
static int installed(const char *path, bool dir)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if ((dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
	    (st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

int cache_installed_ok(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int ret = installed(path, false);

	if (ret || !slash || (size_t)(slash - path) >= sizeof(dir))
		return ret ? ret : -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return installed(dir, true);
}

void cache_store(const char *path, const char *data, size_t size)
{
	char tmp[4200];
	FILE *f;
	bool ok;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "wbe");
	if (!f)
		return;
	ok = fwrite(data, 1, size, f) == size;
	if (fclose(f) || !ok || rename(tmp, path))
		unlink(tmp);
}

unsigned long cache_exe_id(void)
{
	struct stat self;

	if (stat("/proc/self/exe", &self))
		return 0;
	return (unsigned long)self.st_mtim.tv_sec * 1000003 + self.st_mtim.tv_nsec +
	       (unsigned long)self.st_size;
}

struct aged {
	char *name;
	struct timespec mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Removes a file of ours, or a directory of ours and the files in it. */
static void remove_entry(int root, const char *name)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(root, name, &st, AT_SYMLINK_NOFOLLOW) || st.st_uid != getuid())
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(root, name, 0);
		return;
	}
	fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	unlinkat(root, name, AT_REMOVEDIR);
}

/* name is prefix...suffix */
static bool named(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(name), p = strlen(prefix), s = strlen(suffix);

	return n >= p + s && !strncmp(name, prefix, p) && !strcmp(name + n - s, suffix);
}

/* The entry name of suffix, with also instead. */
static void remove_companion(int dir, const char *name, const char *suffix, const char *also)
{
	size_t stem = strlen(name) - strlen(suffix);
	char *other = xmalloc(stem + strlen(also) + 1);

	sprintf(other, "%.*s%s", (int)stem, name, also);
	remove_entry(dir, other);
	free(other);
}

void cache_prune(const char *sub, const char *prefix, const char *suffix, size_t keep,
		 const char *also)
{
	char root[4096];
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (cache_root(root, sizeof(root)) || (*sub && strlen(root) + strlen(sub) + 2 > sizeof(root)))
		return;
	if (*sub)
		strcat(strcat(root, "/"), sub);
	if (owned(root, true) || !(d = opendir(root)))
		return;
	while ((e = readdir(d))) {
		if (!named(e->d_name, prefix, suffix) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n].name = xstrdup(e->d_name);
		v[n].mtime = st.st_mtim;
		n++;
	}
	if (n > keep) {
		qsort(v, n, sizeof(*v), newest_first);
		for (size_t i = keep; i < n; i++) {
			remove_entry(dirfd(d), v[i].name);
			if (also)
				remove_companion(dirfd(d), v[i].name, suffix, also);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
}
