// SPDX-License-Identifier: GPL-2.0
/*
 * usymtab.c - the tables behind usymname(), usymdata(), umodname() and the
 * user backtraces (runtime: kmod-runtime/usyms.c).
 *
 * For each user module -- every process("PATH") probe's file, each -d
 * FILE, and with --ldd the shared libraries those need, as SystemTap
 * gathers them -- three tables are written into the module:
 *   - its PT_LOAD segments, which turn a file offset into an ELF address;
 *   - its function symbols (.symtab, else its separate debuginfo's
 *     .symtab -- a -dbg package's, libc6-dbg's -- else .dynsym), each
 *     sized to the next one, as SystemTap sizes them;
 *   - its call frame information (libdw over .eh_frame), one row per
 *     address range: the CFA as rsp or rbp plus an offset, and whether
 *     the caller's rbp was saved and where.  x86-64 code needs no more to
 *     be unwound; a range whose rules say something else is a row that
 *     stops the walk.
 * The ranges start at each FDE of .eh_frame_hdr's table (and each
 * symbol), so functions with no symbol are covered too.
 * When the script calls usymfileline(), usymfile() or usymline() ("pragma:
 * lines"), a fourth: the DWARF line table, a row per address where the
 * source line changes (line 0 past the end of a sequence), and its files.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "sdt.h"
#include "sem.h"
#include "session.h"
#include "udwarf.h"
#include "usymtab.h"
#include "xlate.h"
#include "xalloc.h"

struct umod_note {
	struct umod_note *next;
	const char *path;		/* on the target */
	const char *file;		/* here */
};

void usyms_add(struct session *s, const char *path, const char *file)
{
	struct umod_note **p = &s->umods;
	int n = 0;

	for (; *p; p = &(*p)->next, n++)
		if (!strcmp((*p)->path, path))
			return;
	if (n >= USYMS_MAX_MODULES)
		return;
	*p = arena_alloc(&s->arena, sizeof(**p));
	(*p)->path = arena_strndup(&s->arena, path, strlen(path));
	(*p)->file = arena_strndup(&s->arena, file, strlen(file));
}

void usyms_add_option(struct session *s, const char *arg)
{
	char cwd[4096];
	const char *path = arg;

	if (!strchr(arg, '/'))
		return;		/* "kernel" or a kernel module */
	if (arg[0] != '/' && getcwd(cwd, sizeof(cwd)))
		path = arena_printf(&s->arena, "%s/%s", cwd, arg);
	usyms_add(s, path, s->opt.sysroot ? arena_printf(&s->arena, "%s%s", s->opt.sysroot, path) : path);
}

const char *usyms_path(struct session *s, int i)
{
	struct umod_note *u = s->umods;

	while (u && i-- > 0)
		u = u->next;
	return u ? u->path : NULL;
}

/* ---- reading one module ---- */

struct usym {
	uint64_t addr, size;
	size_t index;			/* in its symbol table: the later wins */
	const char *name;
};

struct urow {
	uint64_t pc;
	int64_t cfa_off, bp_off;
	const char *cfa_reg, *bp_rule;	/* the runtime's enum names */
};

struct uline {
	uint64_t addr;
	uint32_t line;			/* 0: no line (a sequence's end) */
	uint32_t file;			/* in the module's files */
	size_t seq;			/* its place in the tables */
};

/* The most rows of a line table written for one module: about 3 MB of
 * module; a larger table (a whole libc's) is left out with a warning. */
#define MAX_ULINES	200000

struct umod {
	const char *path, *file;
	bool ok;			/* read: its tables are written */
	uint64_t base;
	GElf_Phdr *segs;
	size_t nsegs;
	struct usym *syms;
	size_t nsyms;
	struct urow *rows;
	size_t nrows, cap;
	struct uline *lines;
	size_t nlines, lines_cap;
	const char **files;		/* the line rows' source files (arena copies) */
	size_t nfiles, files_cap;
};

static int by_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The function symbols of the first table of type (SHT_SYMTAB or
 * SHT_DYNSYM), sorted by address. */
static void read_symbols(struct arena *a, Elf *elf, Elf32_Word type, struct umod *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize)
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh.sh_size / sh.sh_entsize;

	m->syms = xcalloc(n + 1, sizeof(*m->syms));
	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int t;

		if (!gelf_getsym(data, i, &sym))
			continue;
		t = GELF_ST_TYPE(sym.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value || sym.st_value < m->base)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		m->syms[m->nsyms++] = (struct usym){
			.addr = sym.st_value, .size = sym.st_size, .index = i,
			.name = arena_strndup(a, name, strlen(name)),	/* outlives the Elf */
		};
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), by_addr);
}

static void add_row(struct umod *m, struct urow r)
{
	if (m->nrows) {
		struct urow *last = &m->rows[m->nrows - 1];

		if (last->cfa_reg == r.cfa_reg && last->cfa_off == r.cfa_off &&
		    last->bp_rule == r.bp_rule && last->bp_off == r.bp_off)
			return;		/* the same rules go on */
		if (last->pc == r.pc) {
			*last = r;
			return;
		}
	}
	if (m->nrows == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->rows = xrealloc(m->rows, m->cap * sizeof(*m->rows));
	}
	m->rows[m->nrows++] = r;
}

/* Where a register was saved: "CFA + off" is DW_OP_call_frame_cfa,
 * DW_OP_plus_uconst off (libdw's form for the offset rule). */
static bool saved_at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n != 2 || ops[0].atom != DW_OP_call_frame_cfa || ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

/* The row of frame: its rules reduced to what the runtime can follow. */
static struct urow frame_row(Dwarf_Frame *f, uint64_t pc)
{
	struct urow r = { .pc = pc, .cfa_reg = "CTAP_UCFA_UNKNOWN", .bp_rule = "CTAP_UBP_UNDEFINED" };
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	int reg = -1;

	if (dwarf_frame_cfa(f, &ops, &n) || n != 1)
		return r;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	}
	if (reg != 6 && reg != 7)	/* DWARF's rbp and rsp */
		return r;
	/* The return address (DWARF register 16) must be just below the CFA. */
	if (dwarf_frame_register(f, 16, mem, &ops, &n) || !saved_at_cfa(ops, n, &r.bp_off) ||
	    r.bp_off != -8) {
		r.bp_off = 0;
		return r;
	}
	r.bp_off = 0;
	if (dwarf_frame_register(f, 6, mem, &ops, &n) == 0) {
		if (!ops)
			r.bp_rule = "CTAP_UBP_SAME";
		else if (saved_at_cfa(ops, n, &r.bp_off))
			r.bp_rule = "CTAP_UBP_SAVED";
	}
	r.cfa_reg = reg == 7 ? "CTAP_UCFA_SP" : "CTAP_UCFA_BP";
	r.cfa_off = off;
	return r;
}

/* The FDEs' first addresses from .eh_frame_hdr's search table, in the
 * encoding every x86-64 linker writes (a 4-byte count, pairs of 4-byte
 * offsets from the header); none for another. */
static size_t fde_starts(Elf *elf, uint64_t **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sdt_section(elf, ".eh_frame_hdr", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *p = d ? d->d_buf : NULL;
	uint32_t count;

	*out = NULL;
	if (!p || d->d_size < 12 || p[0] != 1 || (p[1] & 0x0f) != DW_EH_PE_sdata4 ||
	    p[2] != DW_EH_PE_udata4 || p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return 0;
	memcpy(&count, p + 8, 4);
	if (12 + (uint64_t)count * 8 > d->d_size)
		return 0;
	*out = xcalloc(count + 1, sizeof(**out));
	for (uint32_t i = 0; i < count; i++) {
		int32_t rel;

		memcpy(&rel, p + 12 + 8 * i, 4);
		(*out)[i] = sh.sh_addr + rel;
	}
	return count;
}

/* Every row, from each FDE and symbol start to the next one's. */
static void read_rows(Elf *elf, struct umod *m)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	uint64_t *seeds;
	size_t n = fde_starts(elf, &seeds);

	if (!cfi) {
		free(seeds);
		return;
	}
	seeds = xrealloc(seeds, (n + m->nsyms + 1) * sizeof(*seeds));
	for (size_t i = 0; i < m->nsyms; i++)
		seeds[n++] = m->syms[i].addr;
	qsort(seeds, n, sizeof(*seeds), by_u64);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = seeds[i], end = i + 1 < n ? seeds[i + 1] : UINT64_MAX;
		Dwarf_Frame *f;
		Dwarf_Addr start, stop;

		if (i + 1 < n && a == end)
			continue;
		while (a < end && dwarf_cfi_addrframe(cfi, a, &f) == 0) {
			if (dwarf_frame_info(f, &start, &stop, NULL) < 0 || stop <= a) {
				free(f);
				break;
			}
			add_row(m, frame_row(f, a));
			free(f);
			a = stop;
		}
		if (a < end && end != UINT64_MAX)	/* no rules here: stop */
			add_row(m, (struct urow){ .pc = a, .cfa_reg = "CTAP_UCFA_UNKNOWN",
						  .bp_rule = "CTAP_UBP_UNDEFINED" });
	}
	free(seeds);
	dwarf_cfi_end(cfi);
}

/* Reading m's line rows. */
struct line_reader {
	struct arena *a;
	struct umod *m;
	const char *last_file;		/* libdw gives a CU's rows one string: */
	uint32_t last_index;		/* its index, found once */
};

/* The index of file in the module's files, added if new. */
static uint32_t file_index(struct line_reader *r, const char *file)
{
	struct umod *m = r->m;

	if (file == r->last_file)
		return r->last_index;
	r->last_file = file;
	for (size_t i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i], file))
			return r->last_index = i;
	if (m->nfiles == m->files_cap) {
		m->files_cap = m->files_cap ? 2 * m->files_cap : 64;
		m->files = xrealloc(m->files, m->files_cap * sizeof(*m->files));
	}
	m->files[m->nfiles] = arena_strndup(r->a, file, strlen(file));
	return r->last_index = m->nfiles++;
}

static int add_line(void *arg, uint64_t addr, const char *file, int line, bool end)
{
	struct line_reader *r = arg;
	struct umod *m = r->m;
	struct uline l = { .addr = addr, .line = end ? 0 : line, .seq = m->nlines };

	if (addr < m->base)
		return 0;
	l.file = file_index(r, file);
	if (m->nlines && m->lines[m->nlines - 1].line == l.line &&
	    m->lines[m->nlines - 1].file == l.file && m->lines[m->nlines - 1].addr <= addr)
		return 0;	/* the same line goes on */
	if (m->nlines == MAX_ULINES)
		return -E2BIG;
	if (m->nlines == m->lines_cap) {
		m->lines_cap = m->lines_cap ? 2 * m->lines_cap : 1024;
		m->lines = xrealloc(m->lines, m->lines_cap * sizeof(*m->lines));
	}
	m->lines[m->nlines++] = l;
	return 0;
}

static int by_line_addr(const void *a, const void *b)
{
	const struct uline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->line != 0) != (y->line != 0))
		return (x->line != 0) - (y->line != 0);	/* a sequence's end first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* m's line table, sorted by address, from its DWARF (dw). */
static void read_lines(struct arena *a, struct udwarf *dw, struct umod *m)
{
	struct line_reader r = { .a = a, .m = m };

	if (!dw)
		return;
	if (udwarf_each_line(dw, add_line, &r)) {
		diag_warning(NULL, "no source lines for '%s': its line table has over %d rows",
			     m->path, MAX_ULINES);
		m->nlines = 0;
		return;
	}
	qsort(m->lines, m->nlines, sizeof(*m->lines), by_line_addr);
	/* One row an address: the last (as libdw's dwarf_getsrc_die() finds
	 * it), a row of code over the end of the sequence before it. */
	size_t n = 0;

	for (size_t i = 0; i < m->nlines; i++) {
		if (n && m->lines[n - 1].addr == m->lines[i].addr)
			n--;
		m->lines[n++] = m->lines[i];
	}
	m->nlines = n;
}

/* m's tables from its file; -errno with a warning if it cannot be read.
 * with_lines: its line table too. */
static int read_umod(struct arena *a, struct umod *m, const char *sysroot, bool with_lines)
{
	int fd = open(m->file, O_RDONLY | O_CLOEXEC);
	struct udwarf *dw;
	Elf *elf, *syms;
	Elf32_Word type;
	size_t nph;
	int ret = 0;

	if (fd < 0) {
		diag_warning(NULL, "no symbols for '%s': %s", m->path, strerror(errno));
		return -errno;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph)) {
		diag_warning(NULL, "no symbols for '%s': not an ELF file", m->path);
		ret = -EINVAL;
		goto out;
	}
	m->segs = xcalloc(nph + 1, sizeof(*m->segs));
	m->base = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD) {
			m->segs[m->nsegs++] = ph;
			if (ph.p_vaddr < m->base)
				m->base = ph.p_vaddr & ~(uint64_t)0xfff;
		}
	}
	if (!m->nsegs || m->segs[m->nsegs - 1].p_vaddr + m->segs[m->nsegs - 1].p_memsz -
	    m->base > UINT32_MAX) {
		diag_warning(NULL, "no symbols for '%s': no loadable segments in 4 GB", m->path);
		ret = -EINVAL;
		goto out;
	}
	dw = udwarf_open(elf, m->file, sysroot);
	syms = udwarf_symbol_table(elf, dw, &type);
	read_symbols(a, syms, type, m);
	if (with_lines)
		read_lines(a, dw, m);
	udwarf_close(dw);
	/* a .symtab without functions: the exported ones */
	if (!m->nsyms && type == SHT_SYMTAB) {
		free(m->syms);
		m->syms = NULL;
		read_symbols(a, elf, SHT_DYNSYM, m);
	}
	read_rows(elf, m);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* ---- --ldd: the libraries a module needs ---- */

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", NULL
};

int usyms_needed(struct session *s, const char *file, const char **paths, int max)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && n < max; i++) {
			GElf_Dyn dyn;
			const char *lib;

			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag != DT_NEEDED ||
			    !(lib = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			for (const char *const *dir = lib_dirs; *dir; dir++) {
				const char *path = arena_printf(&s->arena, "%s/%s", *dir, lib);

				const char *root = s->opt.sysroot ? s->opt.sysroot : "";

				if (access(arena_printf(&s->arena, "%s%s", root, path), R_OK) == 0) {
					paths[n++] = path;
					break;
				}
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

static void add_needed(struct session *s, const char *file)
{
	const char *paths[USYMS_MAX_MODULES];
	int n = usyms_needed(s, file, paths, USYMS_MAX_MODULES);

	for (int i = 0; i < n; i++)
		usyms_add(s, paths[i], s->opt.sysroot ? arena_printf(&s->arena, "%s%s", s->opt.sysroot,
								 paths[i]) : paths[i]);
}

/* ---- pass 3 ---- */

/* Whether a function the script uses says it needs what (pragma:vma:
 * the tables; pragma:lines: the line tables too). */
static bool needed(struct session *s, const char *what)
{
	for (const struct sem_function *f = sem_functions(s); f; f = f->next)
		if (f->used && f->fn->embedded && strstr(f->fn->embedded, what))
			return true;
	return false;
}

static void emit_umod(struct xlate *x, int i, struct umod *m)
{
	uint32_t name_off = 0;

	emit_c(x, "/* %s: %zu function symbols, %zu unwind rows */\n", gen_c_comment(x->a, m->path),
	       m->nsyms, m->nrows);
	emit_c(x, "static const struct ctap_useg umod_%d_segs[] = {\n", i);
	for (size_t j = 0; j < m->nsegs; j++)
		emit_c(x, "\t{ %#llx, %#llx, %#llx },\n", (unsigned long long)m->segs[j].p_offset,
		       (unsigned long long)m->segs[j].p_vaddr,
		       (unsigned long long)m->segs[j].p_filesz);
	emit_c(x, "};\n\nstatic const struct ctap_usym umod_%d_syms[] = {\n", i);
	for (size_t j = 0; j < m->nsyms; j++) {
		const struct usym *y = &m->syms[j];
		uint64_t end;

		if (j + 1 < m->nsyms && m->syms[j + 1].addr == y->addr)
			continue;	/* one name an address: the table's later one */
		end = j + 1 < m->nsyms ? m->syms[j + 1].addr : y->addr + (y->size ? y->size : 1);
		emit_c(x, "\t{ %#llx, %#llx, %u },\t/* %s */\n",
		       (unsigned long long)(y->addr - m->base), (unsigned long long)(end - y->addr),
		       name_off, gen_c_comment(x->a, y->name));
		name_off += strlen(y->name) + 1;
	}
	emit_c(x, "};\n\nstatic const char umod_%d_names[] =\n", i);
	for (size_t j = 0; j < m->nsyms; j++)
		if (j + 1 >= m->nsyms || m->syms[j + 1].addr != m->syms[j].addr)
			emit_c(x, "\t%s \"\\0\"\n", gen_c_string(x, m->syms[j].name));
	emit_c(x, "\t\"\";\n\nstatic const struct ctap_urow umod_%d_rows[] = {\n", i);
	for (size_t j = 0; j < m->nrows; j++) {
		const struct urow *r = &m->rows[j];

		emit_c(x, "\t{ %#llx, %lld, %lld, %s, %s },\n",
		       (unsigned long long)(r->pc - m->base), (long long)r->cfa_off,
		       (long long)r->bp_off, r->cfa_reg, r->bp_rule);
	}
	emit_c(x, "};\n\n");
	if (!m->nlines)
		return;
	emit_c(x, "/* %s: %zu line rows */\n", gen_c_comment(x->a, m->path), m->nlines);
	emit_c(x, "static const char *const umod_%d_files[] = {\n", i);
	for (size_t j = 0; j < m->nfiles; j++)
		emit_c(x, "\t%s,\n", gen_c_string(x, m->files[j]));
	emit_c(x, "};\n\nstatic const struct ctap_uline umod_%d_lines[] = {\n", i);
	for (size_t j = 0; j < m->nlines; j++)
		emit_c(x, "\t{ %#llx, %u, %u },\n", (unsigned long long)(m->lines[j].addr - m->base),
		       m->lines[j].line, m->lines[j].file);
	emit_c(x, "};\n\n");
}

void usyms_emit(struct xlate *x)
{
	struct session *s = x->s;
	struct umod mods[USYMS_MAX_MODULES];
	int n = 0;

	bool with_lines = needed(s, "pragma:lines");

	if (!needed(s, "pragma:vma"))
		return;
	for (int i = 0; i < s->opt.n_d_options; i++)
		usyms_add_option(s, s->opt.d_options[i]);
	if (s->opt.ldd)
		for (struct umod_note *u = s->umods; u; u = u->next)
			add_needed(s, u->file);
	emit_c(x, "/* ---- user modules: usymname(), print_ubacktrace()... ---- */\n\n");
	for (struct umod_note *u = s->umods; u && n < USYMS_MAX_MODULES; u = u->next) {
		struct umod *m = &mods[n];

		memset(m, 0, sizeof(*m));
		m->path = u->path;
		m->file = u->file;
		m->ok = read_umod(x->a, m, s->opt.sysroot, with_lines) == 0;
		if (m->ok)
			emit_umod(x, n, m);
		n++;
	}
	emit_c(x, "static struct ctap_umod umods[] = {\n");
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(mods[i].path, '/');

		if (mods[i].ok)
			emit_c(x, "\t{\n\t\t.path = %s,\n\t\t.name = %s,\n\t\t.base = %#llx,\n"
			       "\t\t.segs = umod_%d_segs,\n\t\t.nsegs = ARRAY_SIZE(umod_%d_segs),\n"
			       "\t\t.syms = umod_%d_syms,\n\t\t.nsyms = ARRAY_SIZE(umod_%d_syms),\n"
			       "\t\t.names = umod_%d_names,\n"
			       "\t\t.rows = umod_%d_rows,\n\t\t.nrows = ARRAY_SIZE(umod_%d_rows),\n",
			       gen_c_string(x, mods[i].path), gen_c_string(x, slash ? slash + 1 : mods[i].path),
			       (unsigned long long)mods[i].base, i, i, i, i, i, i, i);
		if (mods[i].ok && mods[i].nlines)
			emit_c(x, "\t\t.lines = umod_%d_lines,\n\t\t.nlines = ARRAY_SIZE(umod_%d_lines),\n"
			       "\t\t.files = umod_%d_files,\n", i, i, i);
		if (mods[i].ok)
			emit_c(x, "\t},\n");
		free(mods[i].segs);
		free(mods[i].syms);
		free(mods[i].rows);
		free(mods[i].lines);
		free(mods[i].files);
	}
	emit_table_family(x, "umods", "ctap_usyms_register", "ctap_usyms_unregister");
	/* --runtime=dyninst: each process the module is loaded into has its
	 * own copy of the tables, given to the runtime before its probes
	 * are armed (dyn-runtime/usyms.c), as the uprobe table is. */
	if (s->opt.dyninst)
		emit_c(x, "__attribute__((constructor(101))) static void umods_table(void)\n{\n"
		       "\tctap_dyn_usyms_table(umods, ARRAY_SIZE(umods));\n}\n\n");
}
