// SPDX-License-Identifier: GPL-2.0
/*
 * kdwarf.c - find and open the target kernel's DWARF (kdwarf.h).
 *
 * libdw reads a 600 MB vmlinux lazily: opening it costs nothing, and one
 * CU's functions and line table are read in milliseconds.  What would be
 * slow is to look at every CU for each probe point; the CUs' names and
 * offsets are read once (80 ms) and kept in the cache by build id, so a
 * later session finds fs/read_write.c's CU without reading the others.
 * (It lives with udwarf.c, which it reads through: the kernel's DWARF is
 * the same format as a program's.)
 */
#include "config.h"	/* _GNU_SOURCE: asprintf */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../../staprun/build_id.h"
#include "cache.h"
#include "kdwarf.h"
#include "kimage.h"
#include "xalloc.h"

/* The whole of a small file (a /sys or cache file): 0 and *data
 * (malloc'd, NUL-terminated), or -errno. */
static int read_small(const char *path, char **data, size_t *size)
{
	FILE *f = fopen(path, "re");
	size_t cap = 4096, n = 0, got;
	char *buf;

	if (!f)
		return -errno;
	buf = xmalloc(cap + 1);
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = '\0';
	*data = buf;
	*size = n;
	return 0;
}

struct kdwarf_cu {
	uint64_t die;
	const char *name;
};

struct kdwarf {
	char *path;
	int fd;
	Elf *elf;
	struct udwarf *dw;
	char build_id[41];	/* hex, "" if none */
	struct kdwarf_cu *cus;
	size_t ncus;
	char *names;		/* the cached index's text: cus' names point in it */
	uint64_t fentry;	/* __fentry__'s address, 0: none */
	bool fentry_known;
};

/* The GNU build id of an ELF file, as hex in out[41] (a SHA-1's 20 bytes). */
static bool elf_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE && (d = elf_getdata(scn, NULL)) &&
		    notes_build_id(d->d_buf, d->d_size, out, 41))
			return true;
	}
	return false;
}

/* The running kernel's build id (out[41]), if it is release. */
static bool running_build_id(const char *release, char *out)
{
	struct utsname u;
	char *notes;
	size_t size;
	bool ok;

	if (uname(&u) || strcmp(u.release, release) ||
	    read_small("/sys/kernel/notes", &notes, &size))
		return false;
	ok = notes_build_id(notes, size, out, 41);
	free(notes);
	return ok;
}

/* Whether path is an ELF file with a .debug_info section. */
static struct kdwarf *try_open(const char *path)
{
	struct kdwarf *k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool has_info = false;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		GElf_Shdr sh;

		while (!has_info && (scn = elf_nextscn(elf, scn))) {
			const char *n = gelf_getshdr(scn, &sh) ?
					elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

			has_info = n && !strcmp(n, ".debug_info") && sh.sh_type != SHT_NOBITS;
		}
	}
	if (!has_info) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->path = xstrdup(path);
	k->fd = fd;
	k->elf = elf;
	elf_build_id(elf, k->build_id);
	k->dw = udwarf_open(elf, path, NULL);
	if (!k->dw) {
		kdwarf_close(k);
		return NULL;
	}
	udwarf_set_cu_local(k->dw);
	return k;
}

struct kdwarf *kdwarf_open(const char *release, const char *build_dir, const char *dir,
			   const char **path)
{
	/* --kernel-debuginfo=DIR: there only, nothing installed counts */
	const char *roots[2] = { dir, dir ? NULL : "" };
	char id[41] = "", p[4096];
	bool by_id = running_build_id(release, id);
	struct kdwarf *k = NULL;

	*path = NULL;
	for (int r = 0; r < 2 && !k; r++) {
		const char *root = roots[r];
		const char *const tries[] = { "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
					      "%s/usr/lib/debug/boot/vmlinux-%s",
					      "%s/usr/lib/debug/lib/modules/%s/vmlinux",
					      "%s/boot/vmlinux-%s", "%s/vmlinux-%s" };

		if (!root)
			continue;
		for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]) && !k; t++) {
			if (t == 0 && !by_id)
				continue;
			if (t == 0)
				snprintf(p, sizeof(p), tries[0], root, id, id + 2);
			else if (t > 2 && !*root)
				continue;	/* /boot's vmlinux has no DWARF */
			else
				snprintf(p, sizeof(p), tries[t], root, release);
			if (access(p, R_OK))
				continue;
			k = try_open(p);
			if (!k && !*path)
				*path = xstrdup(p);
		}
		if (!k && root && *root) {
			snprintf(p, sizeof(p), "%s/vmlinux", root);
			if (!access(p, R_OK) && !(k = try_open(p)) && !*path)
				*path = xstrdup(p);
		}
	}
	if (!k && build_dir && !dir) {
		snprintf(p, sizeof(p), "%s/vmlinux", build_dir);
		k = try_open(p);	/* a build tree's vmlinux may have none: no error */
	}
	/* A file of another build of release: the running kernel says which. */
	if (k && by_id && *k->build_id && strcmp(k->build_id, id)) {
		*path = xstrdup(k->path);
		kdwarf_close(k);
		return NULL;
	}
	return k;
}

/* The build id of the installed module at path (a .ko, or a .ko.xz or
 * .ko.zst: decompressed), or false. */
static bool file_build_id(const char *path, char *out)
{
	char *data;
	size_t size;
	Elf *elf;
	bool ok;

	if (kimage_read_unpacked(path, &data, &size))
		return false;
	elf_version(EV_CURRENT);
	elf = elf_memory(data, size);
	ok = elf && elf_build_id(elf, out);
	elf_end(elf);
	free(data);
	return ok;
}

/* rel without a compression suffix: its length. */
static size_t uncompressed_len(const char *rel)
{
	size_t len = strlen(rel);

	if (len > 3 && !strcmp(rel + len - 3, ".xz"))
		return len - 3;
	if (len > 4 && !strcmp(rel + len - 4, ".zst"))
		return len - 4;
	return len;
}

struct kdwarf *kdwarf_open_module(const char *release, const char *moddir, const char *ko,
				  const char *dir, const char **path, const char **why)
{
	size_t n = strlen(moddir), len;
	const char *rel = !strncmp(ko, moddir, n) && ko[n] == '/' ? ko + n + 1 : ko;
	char id[41] = "", p[4096];
	struct kdwarf *k = NULL;

	*path = NULL;
	*why = "is not the DWARF of";
	/* the -dbg package's copy has the installed file's path (without a
	 * compression suffix), under /usr/lib/debug/lib/modules/RELEASE */
	len = uncompressed_len(rel);
	snprintf(p, sizeof(p), "%s/usr/lib/debug/lib/modules/%s/%.*s", dir ? dir : "", release,
		 (int)len, rel);
	if (!access(p, R_OK) && !(k = try_open(p)))
		*path = xstrdup(p);
	if (!k && dir) {
		snprintf(p, sizeof(p), "%s/%.*s", dir, (int)len, rel);
		if (!access(p, R_OK) && !(k = try_open(p)) && !*path)
			*path = xstrdup(p);
	}
	if (!k)
		return NULL;
	/* another build of the module: the installed file says which; a
	 * DWARF that cannot be checked is not used either */
	if (!*k->build_id)
		*why = "has no build id to check against";
	else if (!file_build_id(ko, id))
		*why = "cannot be checked (no build id read from the installed module) against";
	else if (!strcmp(k->build_id, id))
		return k;
	free((char *)*path);
	*path = xstrdup(k->path);
	kdwarf_close(k);
	return NULL;
}

/* Each symbol of the file's symbol table: fn(arg, it, its name) until fn
 * returns nonzero; returns that. */
static int each_sym(struct kdwarf *k, int (*fn)(void *arg, const GElf_Sym *sym, const char *name),
		    void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = 0;

	while ((scn = elf_nextscn(k->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	for (size_t i = 0; !ret && d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;

		if (gelf_getsym(d, (int)i, &sym) && (name = elf_strptr(k->elf, sh.sh_link, sym.st_name)))
			ret = fn(arg, &sym, name);
	}
	return ret;
}

struct func_size {
	const char *name;
	uint64_t size;
	int copies;
	bool global;		/* one of them is global or weak */
};

static int func_size_sym(void *arg, const GElf_Sym *sym, const char *name)
{
	struct func_size *f = arg;
	int bind = GELF_ST_BIND(sym->st_info);

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || strcmp(name, f->name))
		return 0;
	if (!f->copies++)
		f->size = sym->st_size;
	f->global |= bind == STB_GLOBAL || bind == STB_WEAK;
	return 0;
}

uint64_t kdwarf_func_size(struct kdwarf *k, const char *name, int *copies)
{
	struct func_size f = { .name = name };

	each_sym(k, func_size_sym, &f);
	*copies = f.copies;
	return f.size;
}

bool kdwarf_func_global(struct kdwarf *k, const char *name)
{
	struct func_size f = { .name = name };

	each_sym(k, func_size_sym, &f);
	return f.global;
}

struct static_bounds {
	uint64_t stext, end;
	bool have_stext, have_end;
};

static int bounds_sym(void *arg, const GElf_Sym *sym, const char *name)
{
	struct static_bounds *b = arg;

	if (!strcmp(name, "_stext")) {
		b->stext = sym->st_value;
		b->have_stext = true;
	} else if (!strcmp(name, "_end")) {
		b->end = sym->st_value;
		b->have_end = true;
	}
	return b->have_stext && b->have_end;
}

const char *kdwarf_static_why(struct kdwarf *k, uint64_t addr)
{
	struct static_bounds b = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;
	const char *name;

	if (!elf_getshdrstrndx(k->elf, &strndx))
		while ((scn = elf_nextscn(k->elf, scn)))
			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(k->elf, strndx, sh.sh_name)) &&
			    !strcmp(name, ".data..percpu") && addr - sh.sh_addr < sh.sh_size)
				return "it is per-CPU: its address is an offset in each CPU's copy of "
				       ".data..percpu, not in the kernel image";
	each_sym(k, bounds_sym, &b);
	if (!b.have_stext || !b.have_end)
		return "the vmlinux has no _stext and _end to check its address against";
	if (addr < b.stext || addr >= b.end)
		return "its address is outside the kernel image [_stext, _end) (per-CPU or absolute)";
	return NULL;
}

/* n bytes of the file's code at link-time address addr into buf, or false. */
static bool code_at(struct kdwarf *k, uint64_t addr, unsigned char *buf, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(k->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
		    addr - sh.sh_addr + n > sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + n > d->d_size)
			return false;
		memcpy(buf, (const char *)d->d_buf + (addr - sh.sh_addr), n);
		return true;
	}
	return false;
}

static int fentry_sym(void *arg, const GElf_Sym *sym, const char *name)
{
	if (strcmp(name, "__fentry__"))
		return 0;
	*(uint64_t *)arg = sym->st_value;
	return 1;
}

uint64_t kdwarf_entry_pc(struct kdwarf *k, uint64_t entry)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned char c[5];
	uint64_t pc = entry;
	int32_t rel;

	if (!k->fentry_known) {
		k->fentry_known = true;
		each_sym(k, fentry_sym, &k->fentry);
	}
	if (code_at(k, pc, c, 4) && !memcmp(c, endbr64, sizeof(endbr64)))
		pc += 4;
	if (!k->fentry || !code_at(k, pc, c, 5) || c[0] != 0xe8)	/* call rel32 */
		return entry;
	memcpy(&rel, c + 1, 4);
	return pc + 5 + (uint64_t)(int64_t)rel == k->fentry ? pc + 5 : entry;
}

void kdwarf_close(struct kdwarf *k)
{
	if (!k)
		return;
	udwarf_close(k->dw);
	elf_end(k->elf);
	close(k->fd);
	free(k->path);
	free(k->cus);
	free(k->names);
	free(k);
}

struct udwarf *kdwarf_dwarf(struct kdwarf *k)
{
	return k->dw;
}

const char *kdwarf_path(const struct kdwarf *k)
{
	return k->path;
}

const char *kdwarf_install_hint(void)
{
	return "apt-get install linux-image-RELEASE-dbg, or --kernel-debuginfo=DIR";
}

/* ---- the CU index ---- */

/* The index's text: "DIE-OFFSET NAME\n" per CU. */
struct index_text {
	char *buf;
	size_t len, cap;
};

static int add_cu_line(void *arg, uint64_t die, const char *name)
{
	struct index_text *t = arg;
	size_t need = strlen(name) + 24;

	if (strchr(name, '\n'))
		return 0;
	if (t->len + need > t->cap) {
		t->cap = 2 * (t->cap + need);
		t->buf = xrealloc(t->buf, t->cap);
	}
	t->len += sprintf(t->buf + t->len, "%llx %s\n", (unsigned long long)die, name);
	return 0;
}

/* Parse the index text (owned by k from now on). */
static void parse_index(struct kdwarf *k, char *text)
{
	size_t n = 0, cap = 0;

	k->names = text;
	for (char *line = text, *nl; *line; line = nl + 1) {
		char *sp;

		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			k->cus = xrealloc(k->cus, cap * sizeof(*k->cus));
		}
		k->cus[n].die = strtoull(line, NULL, 16);
		k->cus[n].name = sp + 1;
		n++;
	}
	k->ncus = n;
}

/* The CUs, from the cache when an earlier session indexed this build. */
static void load_index(struct kdwarf *k)
{
	char cache[4096], name[128];
	struct index_text t = { 0 };
	const char *cached = NULL;
	size_t size;
	char *text;

	if (*k->build_id) {
		snprintf(name, sizeof(name), "kdwarf-%s.cus", k->build_id);
		cached = cache_path(cache, sizeof(cache), name) ? NULL : cache;
	}
	if (cached && cache_file_ok(cached) == 0 && !read_small(cached, &text, &size)) {
		parse_index(k, text);
		return;
	}
	udwarf_each_cu(k->dw, add_cu_line, &t);
	if (!t.buf)
		t.buf = xstrdup("");
	else
		t.buf[t.len] = '\0';	/* cap > len: each line left room */
	if (cached)
		cache_store(cached, t.buf, t.len);
	parse_index(k, t.buf);
}

int kdwarf_each_cu(struct kdwarf *k, const char *glob,
		   int (*fn)(void *arg, uint64_t die, const char *name), void *arg)
{
	int ret = 0;

	if (!k->cus)
		load_index(k);
	for (size_t i = 0; !ret && i < k->ncus; i++)
		if (udwarf_file_matches(glob, k->cus[i].name))
			ret = fn(arg, k->cus[i].die, k->cus[i].name);
	return ret;
}

static int cmp_cu(const void *a, const void *b)
{
	uint64_t x = ((const struct kdwarf_cu *)a)->die, y = ((const struct kdwarf_cu *)b)->die;

	return x < y ? -1 : x > y;
}

/*
 * The CUs that define the functions glob names, found by the vmlinux's
 * own symbol table (a name's address, then the CU whose ranges hold it)
 * rather than by reading every CU's functions.
 */
struct func_cus {
	struct kdwarf *k;
	const char *glob;
	struct kdwarf_cu *cus;
	size_t n, cap;
};

static int func_cu_sym(void *arg, const GElf_Sym *sym, const char *name)
{
	struct func_cus *f = arg;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || fnmatch(f->glob, name, 0))
		return 0;
	if (f->n == f->cap)
		f->cus = xrealloc(f->cus, (f->cap = f->cap ? 2 * f->cap : 16) * sizeof(*f->cus));
	if (!udwarf_cu_at(f->k->dw, sym->st_value, &f->cus[f->n].die, &f->cus[f->n].name))
		f->n++;
	return 0;
}

int kdwarf_func_cus(struct kdwarf *k, const char *glob,
		    int (*fn)(void *arg, uint64_t die, const char *name), void *arg)
{
	struct func_cus f = { .k = k, .glob = glob };
	int ret = 0;

	each_sym(k, func_cu_sym, &f);
	if (f.n)
		qsort(f.cus, f.n, sizeof(*f.cus), cmp_cu);
	for (size_t i = 0; !ret && i < f.n; i++)
		if (!i || f.cus[i].die != f.cus[i - 1].die)
			ret = fn(arg, f.cus[i].die, f.cus[i].name);
	free(f.cus);
	return ret;
}
