// SPDX-License-Identifier: GPL-2.0
/*
 * kmodules.c - names, BTF and global functions of the target kernel's modules.
 *
 * modules.dep lists each module as "kernel/fs/ext4/ext4.ko: deps...";
 * a module's name is its file name without .ko (and a compression
 * suffix), with '-' read as '_' as the kernel does.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kbtf.h"
#include "kimage.h"
#include "kmodules.h"

/* A module file's name: "kernel/fs/binfmt_misc.ko" -> "binfmt_misc". */
static char *module_name(struct arena *a, const char *path, size_t len)
{
	const char *base = path, *dot;
	char *name;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	dot = memchr(base, '.', len - (base - path));
	name = arena_strndup(a, base, dot ? (size_t)(dot - base) : len - (base - path));
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* Each "path: deps" line's path, with its module name; calls fn until it returns nonzero. */
static int each_module(struct arena *a, const char *moddir,
		       int (*fn)(void *arg, const char *name, const char *path), void *arg)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/modules.dep", moddir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		/* the path outlives line, which the next getline() reuses */
		ret = fn(arg, module_name(a, line, colon - line),
			 line[0] == '/' ? arena_strndup(a, line, colon - line) :
					  arena_printf(a, "%s/%s", moddir, line));
	}
	free(line);
	fclose(f);
	return ret < 0 ? ret : 0;
}

struct collect {
	struct arena *a;
	const char *glob;
	const char **v;
	int n, cap;
};

static int collect(void *arg, const char *name, const char *path)
{
	struct collect *c = arg;

	(void)path;
	if (fnmatch(c->glob, name, 0))
		return 0;
	if (c->n == c->cap) {
		const char **bigger = arena_alloc(c->a, (c->cap = c->cap * 2 + 16) * sizeof(*bigger));

		if (c->n)
			memcpy(bigger, c->v, c->n * sizeof(*bigger));
		c->v = bigger;
	}
	c->v[c->n++] = name;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kmod_names(struct arena *a, const char *moddir, const char *glob, const char ***names)
{
	struct collect c = { a, NULL, NULL, 0, 0 };
	char *g = arena_strndup(a, glob, strlen(glob));
	int ret;

	for (char *p = g; *p; p++)
		if (*p == '-')
			*p = '_';
	c.glob = g;
	ret = each_module(a, moddir, collect, &c);
	if (ret)
		return ret;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_str);
	*names = c.v;
	return c.n;
}

struct find {
	const char *name;
	const char *path;
};

static int find(void *arg, const char *name, const char *path)
{
	struct find *f = arg;

	if (strcmp(name, f->name))
		return 0;
	f->path = path;
	return 1;
}

/* Raw BTF data on top of base: through a private temporary file, as this
 * libbpf (1.1) parses split BTF from files only. */
static struct btf *raw_split(const char *data, size_t size, struct btf *base)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct btf *btf = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/ctap-btf-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size)
		btf = btf__parse_raw_split(path, base);
	close(fd);
	unlink(path);
	return btf;
}

int kmod_btf(struct arena *a, const char *release, const char *moddir, const char *name,
	     struct btf *base, struct btf **btf)
{
	struct utsname u;
	struct find f = { name, NULL };
	char path[4096], *elf, *data;
	size_t len, size;
	int ret;

	*btf = NULL;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", name);
	if (uname(&u) == 0 && !strcmp(u.release, release) && access(path, R_OK) == 0) {
		*btf = btf__parse_split(path, base);
		return *btf ? 0 : -ENODATA;
	}
	ret = each_module(a, moddir, find, &f);
	if (ret)
		return ret;
	if (!f.path)
		return -ENOENT;
	/* .ko, or compressed (.ko.xz, .ko.zst), which libbpf cannot read */
	if (kimage_read_unpacked(f.path, &elf, &len))
		return -ENODATA;
	ret = kbtf_elf_section(elf, len, &data, &size);
	free(elf);
	if (ret)
		return -ENODATA;
	*btf = raw_split(data, size, base);
	free(data);
	return *btf ? 0 : -ENODATA;
}

int kmod_path(struct arena *a, const char *moddir, const char *name, const char **path)
{
	struct find f = { .name = name };
	int ret = each_module(a, moddir, find, &f);

	if (ret)
		return ret;
	*path = f.path;
	return f.path ? 0 : -ENOENT;
}

/* Each global (or weak) function of the ELF image's symbol table, in g
 * (arena memory, not sorted); how many, or -ENODATA. */
static int elf_globals(struct arena *a, char *image, size_t len, const char ***g)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	int n = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory(image, len);
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	d = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	if (!d) {
		elf_end(elf);
		return -ENODATA;
	}
	*g = arena_alloc(a, (sh.sh_size / sh.sh_entsize) * sizeof(**g));
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;
		int bind;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_shndx || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		if (bind == STB_GLOBAL || bind == STB_WEAK)
			(*g)[n++] = arena_strndup(a, name, strlen(name));
	}
	elf_end(elf);
	return n;
}

int kmod_globals(struct arena *a, const char *moddir, const char *name, const char ***globals)
{
	const char *path;
	char *image;
	size_t len;
	int ret = kmod_path(a, moddir, name, &path);

	if (ret)
		return ret;
	if (kimage_read_unpacked(path, &image, &len))
		return -ENODATA;
	ret = elf_globals(a, image, len, globals);
	free(image);
	if (ret > 0)
		qsort(*globals, ret, sizeof(**globals), cmp_str);
	return ret;
}

bool kmod_is_global(const char *const *globals, int n, const char *name)
{
	return n > 0 && bsearch(&name, globals, n, sizeof(*globals), cmp_str);
}
