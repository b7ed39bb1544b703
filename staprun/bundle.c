// SPDX-License-Identifier: GPL-2.0
/*
 * bundle.c - a bundle of modules for several kernels (stap -p4 -m NAME -r
 * K1 -r K2 ..., translator/build/bundle.c): the one made for the running kernel,
 * by release and build id, is what gets loaded.
 *
 * The manifest is read bounded (CTAP_BUNDLE_MAX_HEADER bytes, at most
 * CTAP_BUNDLE_MAX_MODULES lines) and every offset checked against the
 * file's size; the chosen module is copied into a memfd of staprun's own,
 * which then stands for the file: its .modinfo is checked, and it is what
 * finit_module() loads, as for a plain module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "build_id.h"
#include "ctap_bundle.h"
#include "staprun.h"

/* The running kernel's GNU build id, hex, from /sys/kernel/notes (the
 * kernel's ELF notes); "" if it cannot be read. */
static void running_build_id(char *hex, size_t size)
{
	unsigned char notes[4096];
	ssize_t n = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	hex[0] = '\0';
	if (fd >= 0) {
		n = read(fd, notes, sizeof(notes));
		close(fd);
	}
	if (n > 0)
		notes_build_id(notes, n, hex, size);
}

/* size bytes of fd from off into a new memfd: its descriptor or -errno. */
static int copy_to_memfd(int fd, off_t off, size_t size)
{
	char buf[65536];
	int out = memfd_create("ctap-bundle-module", MFD_CLOEXEC), ret = 0;

	if (out < 0)
		return -errno;
	while (size > 0 && !ret) {
		ssize_t n = pread(fd, buf, size < sizeof(buf) ? size : sizeof(buf), off);

		if (n < 0)
			ret = -errno;
		else if (n == 0)
			ret = -EIO;	/* shorter than its manifest says */
		else if (write(out, buf, n) != n)
			ret = -ENOSPC;
		off += n;
		size -= n;
	}
	if (ret) {
		close(out);
		return ret;
	}
	return out;
}

/* One manifest line: "module RELEASE BUILD_ID OFFSET SIZE". */
struct entry {
	char release[128], build_id[130];
	unsigned long long off, size;
};

static int parse_manifest(const char *text, struct entry *e, int max, off_t file_size)
{
	const char *line = text + strlen(CTAP_BUNDLE_MAGIC);
	int n = 0;

	for (;;) {
		const char *end = strchr(line, '\n');
		char word[8];

		if (!end)
			return -EINVAL;
		if (!strncmp(line, "end\n", 4))
			return n;
		if (n == max || sscanf(line, "%7s %127s %129s %llu %llu", word, e[n].release,
				       e[n].build_id, &e[n].off, &e[n].size) != 5 ||
		    strcmp(word, "module") || e[n].off > (unsigned long long)file_size ||
		    e[n].size > (unsigned long long)file_size - e[n].off)
			return -EINVAL;
		n++;
		line = end + 1;
	}
}

int bundle_select(struct module_file *m, const char *arg, char *why, size_t size)
{
	char text[CTAP_BUNDLE_MAX_HEADER + 1], id[130];
	char have[CTAP_BUNDLE_MAX_MODULES * (sizeof(((struct entry *)0)->release) + 2)] = "";
	struct entry e[CTAP_BUNDLE_MAX_MODULES];
	struct utsname u;
	struct stat st;
	ssize_t len = pread(m->fd, text, sizeof(text) - 1, 0);
	int n, fd, pick = -1;

	if (len < (ssize_t)strlen(CTAP_BUNDLE_MAGIC) ||
	    memcmp(text, CTAP_BUNDLE_MAGIC, strlen(CTAP_BUNDLE_MAGIC)))
		return 0;	/* a module, not a bundle */
	text[len] = '\0';
	if (fstat(m->fd, &st) ||
	    (n = parse_manifest(text, e, CTAP_BUNDLE_MAX_MODULES, st.st_size)) < 0) {
		snprintf(why, size, "'%s': not a valid bundle of modules", arg);
		return -EINVAL;
	}
	uname(&u);
	running_build_id(id, sizeof(id));
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(have, ", ");
		strcat(have, e[i].release);	/* room for all: see have's size */
		if (strcmp(e[i].release, u.release))
			continue;
		/* the same release, rebuilt, is another kernel: its build id says */
		if (strcmp(e[i].build_id, "-") && *id && strcmp(e[i].build_id, id)) {
			snprintf(why, size, "'%s' has a module for %s built for the kernel with "
				 "build id %s; this one's is %s: rebuild the bundle with its headers",
				 arg, u.release, e[i].build_id, id);
			return -ENOEXEC;
		}
		pick = i;
	}
	if (pick < 0) {
		snprintf(why, size, "'%s' has no module for this kernel (%s); it has: %s", arg,
			 u.release, have);
		return -ENOEXEC;
	}
	fd = copy_to_memfd(m->fd, e[pick].off, e[pick].size);
	if (fd < 0) {
		snprintf(why, size, "cannot read the module for %s from '%s': %s", u.release, arg,
			 strerror(-fd));
		return fd;
	}
	close(m->fd);
	m->fd = fd;
	dbug("bundle %s: the module for %s (build id %s)\n", arg, u.release, id);
	return 0;
}
