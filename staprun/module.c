/*
 * module.c - insert and remove the ctap kernel module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "staprun.h"

/*
 * The kernel names a module after its file, with '-' read as '_'; the
 * debugfs directory and delete_module() use that name.
 */
int module_name_from_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len >= 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= size)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[len] = '\0';
	return 0;
}

bool module_is_loaded(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

/* The descriptor module_open() checked: the file is not looked up again. */
int module_load(int fd, const char *params)
{
	if (syscall(SYS_finit_module, fd, params ? params : "", 0) != 0)
		return -errno;
	return 0;
}

int module_unload(const char *name)
{
	/* The module holds no references once stopped, so this won't wait. */
	for (int tries = 0; tries < 50; tries++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(100 * 1000);
	}
	return -EBUSY;
}
