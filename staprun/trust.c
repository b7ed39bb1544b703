// SPDX-License-Identifier: GPL-2.0
/*
 * trust.c - what staprun does for a user when it is installed setuid root
 * (as SystemTap's packaging installs its staprun for the stapusr group).
 *
 * Run by root, staprun loads the module it is given.  Run setuid by a
 * user, the user chooses only among what the administrator installed:
 *
 *  - the module is a file of /lib/modules/RELEASE/systemtap (SystemTap's
 *    directory for stapusr), a directory reached from / one name at a
 *    time, each directory on the way root's and writable by no one else;
 *  - the file is opened once, and the descriptor checked and loaded
 *    (finit_module): a root-owned regular file writable by no one else,
 *    carrying the ctap_protocol tag the runtime puts into every module
 *    (transport.c).  Nothing renamed or re-linked meanwhile counts;
 *  - the parameters are only those the module declares, each value passed
 *    to the kernel as one value.
 *
 * Everything else staprun does on the user's behalf runs with the user's
 * uid: the -c command and system() (drop_privileges, child.c), the output
 * files (output.c, through as_user()).
 *
 * module_prepare() and module_insert() are the session's two calls: the
 * module checked and opened, then loaded, each refusal said to the user
 * with its reason.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "staprun.h"

#define LINK_HOPS	40	/* symlinks followed in one path, as the kernel */

bool setuid_run(void)
{
	return geteuid() != getuid();
}

void drop_privileges(void)
{
	gid_t gid = getgid();
	uid_t uid = getuid();

	if (!setuid_run())
		return;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		errmsg("cannot drop privileges: %s\n", strerror(errno));
		_exit(127);
	}
}

int as_user(void)
{
	if (setuid_run() && seteuid(getuid()))
		return -errno;
	return 0;
}

void as_root(void)
{
	/* Back from as_user(): the saved uid is root, so this cannot fail. */
	if (geteuid() != 0 && seteuid(0))
		abort();
}

static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Descends from fd (closed) to comp: the new descriptor or -errno. */
static int descend(int fd, const char *comp)
{
	struct stat st;
	int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret = next < 0 ? -errno : 0;

	close(fd);
	if (ret)
		return ret;
	if (fstat(next, &st)) {
		ret = -errno;
		close(next);
		return ret;
	}
	if (!root_only(&st)) {
		close(next);
		return -EPERM;
	}
	return next;
}

/* "/", checked like every directory after it. */
static int open_top(char *where, size_t wsize)
{
	snprintf(where, wsize, "/");
	return descend(open("/", O_PATH | O_CLOEXEC), ".");
}

/*
 * If comp is a symlink in fd: todo becomes its target followed by rest.
 * 1 if it was one, 0 if not, or -errno.
 */
static int splice_link(int fd, const char *comp, const char *rest, char *todo, size_t size)
{
	char link[PATH_MAX];
	ssize_t n = readlinkat(fd, comp, link, sizeof(link) - 1);

	if (n < 0)
		return errno == EINVAL ? 0 : -errno;	/* EINVAL: not a symlink */
	link[n] = '\0';
	if (snprintf(todo, size, "%s/%s", link, rest) >= (int)size)
		return -ENAMETOOLONG;
	return 1;
}

/*
 * The directory path, opened from / one name at a time: each directory on
 * the way must be root's and writable by no one else.  A symlink on the
 * way lies in such a directory, so root made it; its target is walked the
 * same way (Debian's /lib is a link to usr/lib).  Returns an O_PATH
 * descriptor or -errno, with the directory reached last in where.
 */
static int open_root_dir(const char *path, char *where, size_t wsize)
{
	char todo[PATH_MAX], rest[PATH_MAX], comp[NAME_MAX + 1];
	int fd, ret, hops = 0;
	const char *p = todo;

	if (path[0] != '/' || snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
		return -EINVAL;
	for (fd = open_top(where, wsize); fd >= 0;) {
		size_t len, wlen;

		p += strspn(p, "/");
		if (!*p)
			return fd;
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		strcpy(rest, p + len);
		ret = splice_link(fd, comp, rest, todo, sizeof(todo));
		if (ret > 0 && ++hops > LINK_HOPS)
			ret = -ELOOP;
		if (ret < 0) {
			close(fd);
			return ret;
		}
		if (ret) {	/* a symlink: on from its target */
			p = todo;
			if (todo[0] == '/') {
				close(fd);
				fd = open_top(where, wsize);
			}
			continue;
		}
		p += len;
		wlen = strlen(where);
		snprintf(where + wlen, wsize - wlen, "%s%s", wlen > 1 ? "/" : "", comp);
		fd = descend(fd, comp);
	}
	return fd;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * Setuid: the directory the user named (as the user sees it) must be the
 * administrator's, admin_fd; then the file is looked up in admin_fd, not
 * by the user's path again.
 */
static int same_dir_as_user(const char *arg, int admin_fd)
{
	struct stat a, b;
	int fd = parent_dir_open_as_user(arg), ret = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &a) || fstat(admin_fd, &b))
		ret = -errno;
	else if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		ret = -EPERM;
	close(fd);
	return ret;
}

/* Setuid: arg's file in the administrator's directory, checked. */
static int open_admin_module(const char *arg, const char *admin, struct module_file *m,
			     char *why, size_t size)
{
	char where[PATH_MAX], base[NAME_MAX + 1];
	const char *slash = strrchr(arg, '/');
	struct stat st;
	int dfd, ret;

	dfd = open_root_dir(admin, where, sizeof(where));
	if (dfd == -EPERM) {
		snprintf(why, size, "'%s' is not root's alone: it loads no module from %s", where,
			 admin);
		return dfd;
	}
	if (dfd < 0) {
		snprintf(why, size, "%s: %s", admin, strerror(-dfd));
		return dfd;
	}
	/* A bare name is NAME.ko of the directory, a path must lead there. */
	if (snprintf(base, sizeof(base), "%s%s", slash ? slash + 1 : arg,
		     slash || ends_with(arg, ".ko") ? "" : ".ko") >= (int)sizeof(base))
		ret = -ENAMETOOLONG;
	else if (slash || ends_with(arg, ".ko"))
		ret = same_dir_as_user(arg, dfd);
	else
		ret = 0;
	if (!ret) {
		m->fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		ret = m->fd < 0 ? -errno : 0;
	}
	close(dfd);
	if (ret == -EPERM)
		snprintf(why, size, "it loads only modules in %s, not '%s'", admin, arg);
	else if (ret)
		snprintf(why, size, "cannot open module '%s': %s", arg, strerror(-ret));
	if (ret)
		return ret;
	if (fstat(m->fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode) || !root_only(&st))
		ret = -EPERM;
	if (ret)
		snprintf(why, size, "'%s' is not a regular file root alone can write", arg);
	return ret;
}

/*
 * The module's own name, which the kernel, its debugfs directory and
 * delete_module() use: modpost's name= tag, else the file's name with
 * '-' read as '_', as the kernel does.
 */
static int module_own_name(const char *arg, struct module_file *m)
{
	const char *name = m->info.text ? modinfo_get(&m->info, "name") : NULL;

	if (!name)
		return module_name_from_path(arg, m->name, sizeof(m->name));
	if (!name[0] || strlen(name) >= sizeof(m->name))
		return -EINVAL;
	strcpy(m->name, name);
	return 0;
}

int module_open(const char *arg, struct module_file *m, char *why, size_t size)
{
	char admin[PATH_MAX], path[PATH_MAX];
	bool bare = !strchr(arg, '/') && !ends_with(arg, ".ko") && !ends_with(arg, ".ctap");
	const char *proto;
	struct utsname u;
	int ret;

	m->fd = -1;
	m->info.text = NULL;
	uname(&u);
	snprintf(admin, sizeof(admin), "/lib/modules/%s/systemtap", u.release);
	if (setuid_run()) {
		ret = open_admin_module(arg, admin, m, why, size);
	} else {
		/* Root: the path as given; a bare name is in the directory. */
		snprintf(path, sizeof(path), bare ? "%s/%s.ko" : "%s%s", bare ? admin : "", arg);
		m->fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = m->fd < 0 ? -errno : 0;
		if (ret)
			snprintf(why, size, "cannot open module '%s': %s", path, strerror(-ret));
	}
	if (ret)
		goto fail;
	/* a bundle: the module in it for this kernel (bundle.c) */
	ret = bundle_select(m, arg, why, size);
	if (ret)
		goto fail;
	ret = modinfo_read(m->fd, &m->info);
	proto = ret ? NULL : modinfo_get(&m->info, CTAP_MODINFO_TAG);
	if (setuid_run() && (!proto || strcmp(proto, CTAP_PROTOCOL))) {
		snprintf(why, size, "'%s' is not a ctap module (no %s=%s in its .modinfo)", arg,
			 CTAP_MODINFO_TAG, CTAP_PROTOCOL);
		ret = -EPERM;
		goto fail;
	}
	ret = module_own_name(arg, m);
	if (ret) {
		snprintf(why, size, "invalid module name '%s'", arg);
		goto fail;
	}
	return 0;
fail:
	module_close(m);
	return ret;
}

void module_close(struct module_file *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	modinfo_free(&m->info);
}

/*
 * One NAME=VALUE for the kernel's parser, which splits at white space
 * outside double quotes and cannot escape a quote: a value with white
 * space goes in quotes.  Setuid, NAME must be one the module declares
 * (no dyndbg=, no async_probe=) and VALUE must be one value.
 */
/* The runtime's relay buffer size in MB per CPU (staprun -s; transport.c). */
#define BUFFER_PARAM	"ctap_buffer_mb"

/*
 * A user of a setuid staprun may not size the output buffers past a
 * quarter of the machine's memory in all: the runtime allocates them for
 * every CPU, kernel memory nothing reclaims, and 4,095 MB a CPU (what -s
 * takes) would have the OOM killer run.  Whether value (MB a CPU) is
 * within that; why if not.
 */
static bool buffer_allowed(const char *value, char *why, size_t size)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long mb, want, have;
	struct sysinfo si;
	char *end;

	mb = strtoull(value, &end, 10);
	if (*end || sysinfo(&si) || cpus < 1) {
		snprintf(why, size, "-s '%s': not a size staprun can check", value);
		return false;
	}
	want = mb * cpus;
	have = ((unsigned long long)si.totalram * si.mem_unit) >> 20;
	if (want <= have / 4)
		return true;
	snprintf(why, size, "-s %llu asks for %llu MB of kernel buffers (%llu MB on each of "
		 "%ld CPUs), more than a quarter of this machine's %llu MB", mb, want, mb, cpus,
		 have);
	return false;
}

static int add_param(const struct module_file *m, const char *arg, char *out, size_t osize,
		     char *why, size_t size)
{
	const char *eq = strchr(arg, '=');
	bool quote = false;
	size_t len = strlen(out);

	if (!eq || eq == arg) {
		snprintf(why, size, "module parameter '%s' is not name=value", arg);
		return -EINVAL;
	}
	for (const char *p = eq + 1; *p; p++) {
		if (setuid_run() && (*p == '"' || (unsigned char)*p < ' ' || *p == 0x7f)) {
			snprintf(why, size, "the value of module parameter '%s' has a character "
				 "the kernel cannot take in a value", arg);
			return -EINVAL;
		}
		quote |= *p == ' ' || *p == '\t' || *p == '\n';
	}
	if (quote && strchr(arg, '"'))
		quote = false;	/* root quoted it already */
	if (setuid_run() && (!m->info.text || !modinfo_declares(&m->info, arg, eq - arg))) {
		snprintf(why, size, "module parameter '%.*s' is not one %s declares",
			 (int)(eq - arg), arg, m->name);
		return -EPERM;
	}
	if (setuid_run() && eq - arg == (int)strlen(BUFFER_PARAM) &&
	    !strncmp(arg, BUFFER_PARAM, eq - arg) && !buffer_allowed(eq + 1, why, size))
		return -EPERM;
	snprintf(out + len, osize - len, "%s%.*s=%s%s%s", len ? " " : "", (int)(eq - arg), arg,
		 quote ? "\"" : "", eq + 1, quote ? "\"" : "");
	return 0;
}

int module_params(const struct module_file *m, const char *const *args, int n, char **params,
		  char *why, size_t size)
{
	size_t total = 1;
	char *out;

	for (int i = 0; i < n; i++)
		total += strlen(args[i]) + 3;
	out = calloc(1, total);
	if (!out)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		int ret = add_param(m, args[i], out, total, why, size);

		if (ret) {
			free(out);
			return ret;
		}
	}
	*params = out;
	return 0;
}

int module_prepare(const char *arg, const char *const *args, int n, struct module_file *m,
		   char **params)
{
	char why[PATH_MAX + 256];
	int ret;

	ret = module_open(arg, m, why, sizeof(why));
	if (!ret)
		ret = module_params(m, args, n, params, why, sizeof(why));
	if (ret == -EPERM && setuid_run())
		errmsg("staprun runs setuid: %s\n", why);
	else if (ret)
		errmsg("%s\n", why);
	return ret;
}

int module_insert(struct module_file *m, const char *shown, const char *params)
{
	int ret;

	dbug("loading %s (%s)\n", shown, params);
	ret = module_load(m->fd, params);
	if (ret && module_refusal(m->fd, ret))
		errmsg("couldn't insert module '%s': %s: %s\n", shown, strerror(-ret),
		       module_refusal(m->fd, ret));
	else if (ret)
		errmsg("couldn't insert module '%s': %s\n", shown, strerror(-ret));
	module_close(m);
	return ret;
}
