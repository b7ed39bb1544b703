/*
 * cache.c - the cache directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"

/* mkdir -p; a failure shows up when the file cannot be written. */
static void make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

int cache_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("CTAP_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (dir)
		n = snprintf(buf, size, "%s", dir);
	else if (xdg)
		n = snprintf(buf, size, "%s/ctap", xdg);
	else
		n = snprintf(buf, size, "%s/.cache/ctap", home ? home : "/tmp");
	if (n < 0 || (size_t)n >= size)
		return -1;
	make_dirs(buf);
	size_t len = strlen(buf);

	n = snprintf(buf + len, size - len, "/%s", name);
	return n < 0 || (size_t)n >= size - len ? -1 : 0;
}
