// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the files staprun writes the script's output to: -o FILE and
 * its rotations (FILE.1, FILE.2 ...), -b's per-CPU files.
 *
 * They are the user's files: created with the real user's uid (as_user),
 * never through a symlink.  stapdyn writes its -o files with this file and
 * relay.c's rotation too (as the user it runs as: its as_user() is none).  -o's rotations are opened and removed relative
 * to FILE's directory as opened at the start, so that a directory renamed
 * or re-linked during the session cannot send them, or the removal of an
 * old one, anywhere else.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

int open_output_at(int dir_fd, const char *name)
{
	int fd, ret = as_user();

	if (ret)
		return ret;
	fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	ret = fd < 0 ? -errno : fd;
	as_root();
	return ret;
}

int open_output(const char *path)
{
	return open_output_at(AT_FDCWD, path);
}

int unlink_output_at(int dir_fd, const char *name)
{
	int ret = as_user();

	if (ret)
		return ret;
	ret = unlinkat(dir_fd, name, 0) ? -errno : 0;
	as_root();
	return ret;
}

/* path's directory (O_PATH), opened as the user. */
int parent_dir_open_as_user(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, ret;

	if (!slash)
		strcpy(dir, ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (!dir[0])
		strcpy(dir, "/");
	ret = as_user();
	if (ret)
		return ret;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ret = fd < 0 ? -errno : fd;
	as_root();
	return ret;
}

int output_dir_open(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');

	*name = slash ? slash + 1 : path;
	if (!**name)
		return -EISDIR;
	return parent_dir_open_as_user(path);
}

int output_file_name(char *buf, size_t size, const char *base, int fnum)
{
	int n = fnum < 0 ? snprintf(buf, size, "%s", base)
			 : snprintf(buf, size, "%s.%d", base, fnum);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int output_open_first(const char *path, bool numbered, int *dir_fd, const char **name)
{
	char first[NAME_MAX + 1];
	int ret;

	*dir_fd = output_dir_open(path, name);
	if (*dir_fd < 0)
		return *dir_fd;
	ret = output_file_name(first, sizeof(first), *name, numbered ? 0 : -1);
	return ret ? ret : open_output_at(*dir_fd, first);
}
