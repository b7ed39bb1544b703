// SPDX-License-Identifier: GPL-2.0
/*
 * vmroot.c - the files of this machine a --vm guest needs: the -c
 * command's program, each program or library a process() probe names, each
 * -d file, with the dynamic loader and the shared libraries each needs,
 * copied to their own paths under a directory that the guest harness
 * (guest-run -r) merges at the guest's /.  A uprobe is planted on a path,
 * so the guest must have the file at the path the module names; and the -c
 * command starts in the same directory as here, which the guest has too.
 *
 * The guest is otherwise a static busybox: a -c command named without a
 * '/' runs the guest's own (busybox's applets, /ctap/bin), never this
 * machine's.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strset.h"
#include "usymtab.h"
#include "vmroot.h"

/* Programs and libraries shipped at most: a chain of DT_NEEDED is short,
 * this bounds a loop of them. */
#define VMROOT_MAX_FILES	256

struct vmroot {
	struct session *s;
	const char *root;		/* here: the directory merged at the guest's / */
	struct strset seen;		/* target paths shipped (or said missing) */
	int n;
	int failed;
};

/* The file here (followed if a symlink: the guest gets its contents) to
 * to, a new file; its permission bits but set-id ones. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	struct stat st;
	ssize_t n = 0;
	int in, out, ret = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		return -EINVAL;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0755);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	if (n < 0)
		ret = -errno;
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

/* The dynamic loader an ELF file names (PT_INTERP), or NULL. */
static const char *interpreter(struct session *s, const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	const char *interp = NULL;
	size_t n = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n && !interp; i++) {
			GElf_Phdr ph;
			size_t size;
			char *image;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP)
				continue;
			image = elf_rawfile(elf, &size);
			if (image && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset &&
			    ph.p_filesz > 1)
				interp = arena_strndup(&s->arena, image + ph.p_offset,
						       strnlen(image + ph.p_offset, ph.p_filesz));
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return interp;
}

/*
 * path, as the target names it, into the root, with what it loads; what
 * says what asked for it, for the message when it is not here.  False if
 * it is not here.
 */
static bool ship(struct vmroot *v, const char *path, const char *what)
{
	struct session *s = v->s;
	const char *file = s->opt.sysroot ? arena_printf(&s->arena, "%s%s", s->opt.sysroot, path) : path;
	const char *needed[USYMS_MAX_MODULES], *interp;
	char *to;
	int n, ret;

	if (path[0] != '/' || !strset_add(&v->seen, path))
		return true;
	if (++v->n > VMROOT_MAX_FILES) {
		if (v->n == VMROOT_MAX_FILES + 1)
			fprintf(stderr, "stap: --vm: more than %d files to copy into the guest; "
				"%s and later ones are left out\n", VMROOT_MAX_FILES, path);
		return true;
	}
	if (access(file, R_OK)) {
		fprintf(stderr, "stap: --vm: %s %s is not on this machine (%s): the guest "
			"will not have it\n", what, path, strerror(errno));
		return false;
	}
	to = arena_printf(&s->arena, "%s%s", v->root, path);
	ret = session_mkdirs(to, 0755);
	if (!ret)
		ret = copy_file(file, to);
	if (ret && ret != -EEXIST) {
		fprintf(stderr, "stap: --vm: cannot copy %s into the guest: %s\n", path,
			strerror(-ret));
		v->failed = 1;
		return true;
	}
	if (s->opt.verbose > 1)
		fprintf(stderr, "Pass 5: the guest gets %s (%s)\n", path, what);
	interp = interpreter(s, file);
	if (interp)
		ship(v, interp, "the dynamic loader");
	n = usyms_needed(s, file, needed, USYMS_MAX_MODULES);
	for (int i = 0; i < n; i++)
		ship(v, needed[i], arena_printf(&s->arena, "a library of %s,", path));
	return true;
}

/* The -c command's program, when named by a path: absolute, from cwd. */
static const char *command_program(struct session *s, const char *cwd)
{
	const char *cmd = s->opt.cmd;
	size_t len;

	cmd += strspn(cmd, " \t");
	len = strcspn(cmd, " \t\n;&|<>");
	if (!len || !memchr(cmd, '/', len))
		return NULL;
	if (cmd[0] == '/')
		return arena_strndup(&s->arena, cmd, len);
	for (; len > 2 && !strncmp(cmd, "./", 2); len -= 2)
		cmd += 2;
	return arena_printf(&s->arena, "%s/%.*s", strcmp(cwd, "/") ? cwd : "", (int)len, cmd);
}

int vmroot_build(struct session *s, const char *root, const char **cwd)
{
	struct vmroot v = { .s = s, .root = root };
	char here[PATH_MAX];
	const char *program;
	char *dir;
	int ret;

	*cwd = NULL;
	if (getcwd(here, sizeof(here)) && here[0] == '/') {
		*cwd = arena_strndup(&s->arena, here, strlen(here));
		dir = arena_printf(&s->arena, "%s%s/", root, here);
		ret = session_mkdirs(dir, 0755);
		if (ret) {
			fprintf(stderr, "stap: --vm: cannot make %s for the guest: %s\n", dir,
				strerror(-ret));
			return -1;
		}
	}
	program = s->opt.cmd && *cwd ? command_program(s, *cwd) : NULL;
	/* without it, the guest's run could only fail: not booted */
	if (program && !ship(&v, program, "the -c command's program"))
		v.failed = 1;
	for (size_t i = 0; i < s->target_files.cap; i++)
		if (s->target_files.slots[i])
			ship(&v, s->target_files.slots[i], "the probed program");
	for (int i = 0; usyms_path(s, i); i++)
		ship(&v, usyms_path(s, i), "the -d file");
	strset_free(&v.seen);
	return v.failed ? -1 : 0;
}
