// SPDX-License-Identifier: GPL-2.0
/*
 * udwarf.c - user functions' variables from DWARF (udwarf.h).
 *
 * At the probe address (in code built without optimization libdw's
 * dwarf_entry_breakpoints(): after the prologue, where the frame is set
 * up and the parameters are stored; else the function's entry), a
 * variable's location expression is reduced to a register or to memory
 * at a register plus an offset.  DW_OP_fbreg is relative to the frame
 * base, which gcc makes the CFA (DW_OP_call_frame_cfa); the CFA there is
 * a register plus an offset by the call frame information.  Anything
 * else (pieces, computed values, entry values) is not read: the variable
 * is listed, and using it is an error that says why.
 */
#include "config.h"	/* _GNU_SOURCE: asprintf */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "udwarf.h"
#include "udwarf_btf.h"

/* A function DIE by the address its code starts at. */
struct func_entry {
	Dwarf_Addr lo;
	Dwarf_Off die;
};

struct udwarf {
	Dwfl *dwfl;		/* found dw, and owns it */
	Dwfl_Callbacks cb;	/* dwfl keeps pointers to these two */
	char *debuginfo_path;
	Dwarf *dw;
	Dwarf_CFI *eh_cfi;	/* .eh_frame, owned */
	Dwarf_CFI *cfi;		/* .debug_frame (owned by dw), or eh_cfi */
	/* Every function of every CU, sorted by address: built on the
	 * first lookup, so that a wildcard over the symbol table reads the
	 * DWARF once, not once per symbol. */
	struct func_entry *funcs;
	size_t nfuncs, cap;
	bool indexed;
	/* The kernel's DWARF: a function is looked up in the one CU whose
	 * ranges hold it (.debug_aranges), never by indexing every CU, and
	 * a statement's variables are those with a location there. */
	bool cu_local;
	struct dwarf_btf *conv;	/* types as BTF (udwarf_btf.c), or NULL */
};

/* x86_64's DWARF register numbers, as struct pt_regs members. */
static const char *const dwarf_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

static const char *reg_name(Dwarf_Word n)
{
	return n < sizeof(dwarf_regs) / sizeof(dwarf_regs[0]) ? dwarf_regs[n] : NULL;
}

/*
 * libdwfl finds the DWARF: the file's own, else a separate file named by
 * its build-id or .gnu_debuglink under /usr/lib/debug (a -dbg package's;
 * under --sysroot, there) or beside it, checked against the debuglink's
 * CRC, else debuginfod's when DEBUGINFOD_URLS is set.  The file is laid
 * out at 0 (bias 0): addresses stay the file's link-time ones.
 */
struct udwarf *udwarf_open(Elf *elf, const char *file, const char *sysroot)
{
	struct udwarf *u = calloc(1, sizeof(*u));
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	if (!u || asprintf(&u->debuginfo_path, ":.debug:%s/usr/lib/debug",
			   sysroot ? sysroot : "") < 0) {
		free(u);
		return NULL;
	}
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	u->dwfl = dwfl_begin(&u->cb);
	mod = u->dwfl ? dwfl_report_elf(u->dwfl, file, file, -1, 0, false) : NULL;
	if (u->dwfl)
		dwfl_report_end(u->dwfl, NULL, NULL);
	u->dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!u->dw || bias) {
		udwarf_close(u);
		return NULL;
	}
	u->eh_cfi = dwarf_getcfi_elf(elf);
	u->cfi = dwarf_getcfi(u->dw);
	if (!u->cfi)
		u->cfi = u->eh_cfi;
	return u;
}

void udwarf_close(struct udwarf *u)
{
	if (!u)
		return;
	if (u->eh_cfi)
		dwarf_cfi_end(u->eh_cfi);
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->debuginfo_path);
	dwarf_btf_free(u->conv);
	free(u->funcs);
	free(u);
}

/* True if elf has a section of type. */
static bool has_section(Elf *elf, Elf32_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return true;
	return false;
}

Elf *udwarf_symbol_table(Elf *elf, struct udwarf *dw, Elf32_Word *type)
{
	Elf *debug = dw ? dwarf_getelf(dw->dw) : NULL;

	*type = SHT_SYMTAB;
	if (has_section(elf, SHT_SYMTAB))
		return elf;
	if (debug && debug != elf && has_section(debug, SHT_SYMTAB))
		return debug;
	*type = SHT_DYNSYM;
	return elf;
}

void udwarf_set_btf(struct udwarf *u, struct btf *btf)
{
	if (u && !u->conv)
		u->conv = dwarf_btf_new(btf);
}

/* ---- types ---- */

/* die's type without typedefs and qualifiers; false if none (void). */
static bool strip_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return false;
	for (int guard = 0; guard < 32; guard++) {
		int tag = dwarf_tag(&t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type)
			break;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
			return false;
	}
	*out = t;
	return true;
}

/* The name of die's type as -L shows it ("unsigned int", "char*"). */
static const char *type_name(struct arena *a, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	const char *name, *kind = "";

	if (depth > 8 || !dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return "void";
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		return arena_printf(a, "%s*", type_name(a, &t, depth + 1));
	/* after what they qualify, as SystemTap writes them ("char const*") */
	case DW_TAG_const_type:
		return arena_printf(a, "%s const", type_name(a, &t, depth + 1));
	case DW_TAG_volatile_type:
		return arena_printf(a, "%s volatile", type_name(a, &t, depth + 1));
	case DW_TAG_restrict_type:
		return type_name(a, &t, depth + 1);
	case DW_TAG_structure_type:
		kind = "struct ";
		break;
	case DW_TAG_union_type:
		kind = "union ";
		break;
	case DW_TAG_enumeration_type:
		kind = "enum ";
		break;
	case DW_TAG_array_type:
		return arena_printf(a, "%s[]", type_name(a, &t, depth + 1));
	}
	name = dwarf_diename(&t);
	return arena_printf(a, "%s%s", kind, name ? name : "{...}");
}

/* A scalar's size and sign, or why it is not one. */
static const char *scalar(Dwarf_Die *die, int *size, bool *is_signed)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = DW_ATE_signed;
	Dwarf_Die t;

	if (!strip_type(die, &t))
		return "it has no type";
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		*size = 8;
		*is_signed = false;
		return NULL;
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &at))
			dwarf_formudata(&at, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
			return "a floating-point value";
		*is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		break;
	case DW_TAG_enumeration_type:
		*is_signed = false;
		break;
	default:
		return "not a number or a pointer (ctap reads scalars only)";
	}
	*size = dwarf_bytesize(&t);
	return *size == 1 || *size == 2 || *size == 4 || *size == 8 ? NULL : "of an unusual size";
}

/* ---- locations ---- */

/* The frame base at pc: a register and an offset. */
static int frame_base(struct udwarf *u, Dwarf_Die *func, Dwarf_Addr pc, const char **reg,
		      int64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr_integrate(func, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || n != 1)
		return -EINVAL;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = reg_name(ops[0].atom - DW_OP_breg0);
		*off = (int64_t)ops[0].number;
		return *reg ? 0 : -EINVAL;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -EINVAL;
	return udwarf_cfa(u, pc, reg, off);
}

int udwarf_cfa(struct udwarf *u, uint64_t pc, const char **reg, int64_t *off)
{
	Dwarf_Op *cfa;
	size_t ncfa;
	Dwarf_Frame *frame;
	int ret = -EINVAL;

	if (!u->cfi || dwarf_cfi_addrframe(u->cfi, pc, &frame))
		return -EINVAL;
	if (!dwarf_frame_cfa(frame, &cfa, &ncfa) && ncfa == 1 && cfa[0].atom == DW_OP_bregx &&
	    (*reg = reg_name(cfa[0].number))) {
		*off = (int64_t)cfa[0].number2;
		ret = 0;
	}
	free(frame);
	return ret;
}

/* The constant an expression computes (DW_OP_lit or DW_OP_const, then
 * DW_OP_stack_value: an inlined instance's constant arguments): true
 * and *v. */
static bool constant_value(const Dwarf_Op *ops, size_t n, int64_t *v)
{
	if (n != 2 || ops[1].atom != DW_OP_stack_value)
		return false;
	if (ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31) {
		*v = ops[0].atom - DW_OP_lit0;
		return true;
	}
	switch (ops[0].atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		*v = (int64_t)ops[0].number;	/* libdw sign-extends the signed ones */
		return true;
	}
	return false;
}

/* Where var is at pc, or why it cannot be read there. */
static const char *locate(struct udwarf *u, Dwarf_Die *func, Dwarf_Die *var, Dwarf_Addr pc,
			  struct sdt_arg *loc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;
	const char *reg;
	int64_t off;
	int size;
	bool is_signed;
	const char *why = scalar(var, &size, &is_signed);

	if (why)
		return why;
	memset(loc, 0, sizeof(*loc));
	loc->size = size;
	loc->is_signed = is_signed;
	loc->reg_width = 8;
	if (!dwarf_attr_integrate(var, DW_AT_location, &at)) {
		Dwarf_Sword k;

		if (dwarf_formsdata(dwarf_attr_integrate(var, DW_AT_const_value, &at), &k))
			return "optimized out";
		loc->kind = SDT_ARG_IMM;	/* a constant the compiler propagated */
		loc->disp = k;
		return NULL;
	}
	if (dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || !n)
		return "optimized out";
	if (constant_value(ops, n, &off)) {
		loc->kind = SDT_ARG_IMM;
		loc->disp = off;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value)
			return "its value at the function's entry (DW_OP_entry_value), which "
			       "nothing kept";
	if (n != 1)
		return "in a location ctap cannot read (an expression)";
	switch (ops[0].atom) {
	case DW_OP_fbreg:
		if (frame_base(u, func, pc, &reg, &off))
			return "relative to a frame base ctap cannot find";
		loc->kind = SDT_ARG_MEM;
		loc->base = reg;
		loc->disp = off + (int64_t)ops[0].number;
		return NULL;
	case DW_OP_regx:
		loc->kind = SDT_ARG_REG;
		loc->base = reg_name(ops[0].number);
		return loc->base ? NULL : "in an unknown register";
	case DW_OP_addr:
		loc->kind = SDT_ARG_RIP;	/* relative to the probe: PIE moves both */
		loc->disp = (int64_t)(ops[0].number - pc);
		return NULL;
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		loc->kind = SDT_ARG_REG;
		loc->base = reg_name(ops[0].atom - DW_OP_reg0);
		return loc->base ? NULL : "in an unknown register";
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		loc->kind = SDT_ARG_MEM;
		loc->base = reg_name(ops[0].atom - DW_OP_breg0);
		loc->disp = (int64_t)ops[0].number;
		return loc->base ? NULL : "in an unknown register";
	}
	return "in a location ctap cannot read";
}

/* Where an aggregate var (a structure on the stack) starts at pc: true
 * and *loc (SDT_ARG_MEM: the register and offset of its first byte). */
static bool locate_object(struct udwarf *u, Dwarf_Die *func, Dwarf_Die *var, Dwarf_Addr pc,
			  struct sdt_arg *loc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	Dwarf_Die t;
	size_t n;
	const char *reg;
	int64_t off;
	int tag;

	if (!strip_type(var, &t))
		return false;
	tag = dwarf_tag(&t);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_array_type)
		return false;
	if (!dwarf_attr_integrate(var, DW_AT_location, &at) ||
	    dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || n != 1)
		return false;	/* in pieces of registers: no address */
	memset(loc, 0, sizeof(*loc));
	loc->kind = SDT_ARG_MEM;
	loc->size = 8;
	loc->reg_width = 8;
	if (ops[0].atom == DW_OP_fbreg) {
		if (frame_base(u, func, pc, &reg, &off))
			return false;
		loc->base = reg;
		loc->disp = off + (int64_t)ops[0].number;
		return true;
	}
	if (ops[0].atom < DW_OP_breg0 || ops[0].atom > DW_OP_breg31)
		return false;
	loc->base = reg_name(ops[0].atom - DW_OP_breg0);
	loc->disp = (int64_t)ops[0].number;
	return loc->base != NULL;
}

/* ---- the function ---- */

static int index_func(Dwarf_Die *die, void *arg)
{
	struct udwarf *u = arg;
	Dwarf_Addr lo;

	if (dwarf_lowpc(die, &lo))
		return DWARF_CB_OK;
	if (u->nfuncs == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 256;
		struct func_entry *v = realloc(u->funcs, cap * sizeof(*v));

		if (!v)
			return DWARF_CB_ABORT;
		u->funcs = v;
		u->cap = cap;
	}
	u->funcs[u->nfuncs++] = (struct func_entry){ .lo = lo, .die = dwarf_dieoffset(die) };
	return DWARF_CB_OK;
}

static int cmp_funcs(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_funcs(struct udwarf *u)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	u->indexed = true;
	while (!dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(u->dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, index_func, u, 0);
		off = next;
	}
	if (u->nfuncs)
		qsort(u->funcs, u->nfuncs, sizeof(*u->funcs), cmp_funcs);
}

/* Where die's code starts: its entry or low pc, else (code split in hot
 * and cold parts, DW_AT_ranges only) the start of its first range. */
static int code_entry(Dwarf_Die *die, Dwarf_Addr *entry)
{
	Dwarf_Addr base, lo, hi;

	if (!dwarf_entrypc(die, entry))
		return 0;
	if (dwarf_ranges(die, 0, &base, &lo, &hi) > 0) {
		*entry = lo;
		return 0;
	}
	return -1;
}

struct cu_find {
	const char *name;
	Dwarf_Addr addr;
	Dwarf_Die *die;
	int at;			/* functions starting at addr */
};

static int cu_find_one(Dwarf_Die *fn, void *arg)
{
	struct cu_find *f = arg;
	Dwarf_Addr lo;
	const char *n;

	if (code_entry(fn, &lo) || lo != f->addr)
		return DWARF_CB_OK;
	f->at++;
	*f->die = *fn;
	n = dwarf_diename(fn);
	return n && !strcmp(n, f->name) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* find_func() within the CU whose ranges hold addr. */
static bool find_func_in_cu(struct udwarf *u, const char *name, Dwarf_Addr addr, Dwarf_Die *die)
{
	struct cu_find f = { .name = name, .addr = addr, .die = die };
	Dwarf_Die cu;

	if (!dwarf_addrdie(u->dw, addr, &cu))
		return false;
	if (dwarf_getfuncs(&cu, cu_find_one, &f, 0) > 0)
		return true;	/* stopped at the one by name */
	return f.at == 1;
}

/* The DIE of function name starting at addr. */
static bool find_func(struct udwarf *u, const char *name, Dwarf_Addr addr, Dwarf_Die *die)
{
	size_t lo = 0, hi;

	if (u->cu_local)
		return find_func_in_cu(u, name, addr, die);
	if (!u->indexed)
		index_funcs(u);
	hi = u->nfuncs;
	while (lo < hi) {		/* the first entry at addr or above */
		size_t mid = lo + (hi - lo) / 2;

		if (u->funcs[mid].lo < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* By name, else the one function there: a symbol that is another
	 * name for it (libc's malloc is __libc_malloc's alias). */
	size_t at = 0;

	for (size_t i = lo; i < u->nfuncs && u->funcs[i].lo == addr; i++, at++) {
		const char *n;

		if (dwarf_offdie(u->dw, u->funcs[i].die, die) && (n = dwarf_diename(die)) &&
		    !strcmp(n, name))
			return true;
	}
	return at == 1 && dwarf_offdie(u->dw, u->funcs[lo].die, die);
}

/* Whether var has a location at pc (a plain one, or a list's entry). */
static bool has_location_at(Dwarf_Die *var, Dwarf_Addr pc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	return dwarf_attr_integrate(var, DW_AT_location, &at) &&
	       dwarf_getlocation_addr(&at, pc, &ops, &n, 1) == 1 && n;
}

/* Add the parameters (params) or locals of scope in scope at pc. */
static void add_vars(struct udwarf *u, struct arena *a, Dwarf_Die *func, Dwarf_Die *scope,
		     Dwarf_Addr pc, bool params, struct udwarf_var ***tail, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(scope, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		struct udwarf_var *v;

		if (tag == DW_TAG_lexical_block && !params) {
			if (dwarf_haspc(&child, pc) == 1)
				add_vars(u, a, func, &child, pc, false, tail, depth + 1);
			continue;
		}
		if (!name || tag != (params ? DW_TAG_formal_parameter : DW_TAG_variable))
			continue;
		/* A local the optimizer keeps nowhere here is not one of the
		 * probe's variables, as SystemTap lists them (a parameter is,
		 * but at a kernel statement SystemTap leaves it out too). */
		if ((!params || u->cu_local) && !has_location_at(&child, pc))
			continue;
		v = arena_new(a, struct udwarf_var);
		v->name = arena_strndup(a, name, strlen(name));
		v->type = type_name(a, &child, 0);
		v->btf_id = dwarf_btf_type(u->conv, &child);
		v->why = locate(u, func, &child, pc, &v->loc);
		if (v->why)
			v->at_address = locate_object(u, func, &child, pc, &v->loc);
		v->is_param = params;
		**tail = v;
		*tail = &v->next;
	} while (!dwarf_siblingof(&child, &child));
}

/*
 * Whether die's CU was compiled with optimization: its DW_AT_producer's
 * last -O option is not -O0 (gcc records its options there).  SystemTap
 * 4.8 (--prologue-searching=auto) looks for the end of the prologue only
 * in code that was not optimized, where parameters live on the stack
 * once the prologue stored them; optimized code's location lists cover
 * the entry itself.
 */
static bool cu_optimized(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die cu;
	const char *p, *o;
	bool optimized = false;

	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    !(p = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &attr))))
		return false;
	while ((o = strstr(p, " -O"))) {
		optimized = o[3] != '0';
		p = o + 3;
	}
	return optimized;
}

int udwarf_function_at(struct udwarf *u, struct arena *a, const char *name, uint64_t addr,
		       uint64_t pc, struct udwarf_func *out)
{
	struct udwarf_var **tail;
	Dwarf_Die die;
	Dwarf_Addr hi;
	const char *file;
	int size;
	bool is_signed;

	if (!find_func(u, name, addr, &die))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	tail = &out->vars;
	out->probe_addr = pc;
	if ((file = dwarf_decl_file(&die)))
		out->decl_file = arena_strndup(a, file, strlen(file));
	dwarf_decl_line(&die, &out->decl_line);
	out->hi = dwarf_highpc(&die, &hi) == 0 ? hi : addr + 1;
	add_vars(u, a, &die, &die, pc, true, &tail, 0);
	add_vars(u, a, &die, &die, pc, false, &tail, 0);
	/* $return: the value in rax (x86_64's calling convention) */
	out->ret_type = type_name(a, &die, 0);
	out->ret_btf_id = dwarf_btf_type(u->conv, &die);
	if (!strcmp(out->ret_type, "void")) {
		out->ret_type = NULL;
	} else if (!(out->ret_why = scalar(&die, &size, &is_signed))) {
		out->ret.kind = SDT_ARG_REG;
		out->ret.size = size;
		out->ret.is_signed = is_signed;
		out->ret.reg_width = 8;
		out->ret.base = "ax";
	}
	return 0;
}

int udwarf_function(struct udwarf *u, struct arena *a, const char *name, uint64_t addr,
		    bool at_symbol, struct udwarf_func *out)
{
	Dwarf_Addr *bkpts;
	Dwarf_Die die;
	uint64_t pc = addr;

	if (!find_func(u, name, addr, &die))
		return -ENOENT;
	if (!at_symbol && !cu_optimized(&die) && dwarf_entry_breakpoints(&die, &bkpts) > 0) {
		pc = bkpts[0];
		free(bkpts);
	}
	return udwarf_function_at(u, a, name, addr, pc, out);
}

/* ---- inlined instances ---- */

struct inline_walk {
	struct udwarf *u;
	struct arena *a;
	const char *glob;
	struct udwarf_inline *list, **tail;
	int n;
	bool more;		/* instances past UDWARF_MAX_INLINES */
};

/* Stops at a function declared inline whose name the walk's glob matches. */
static int inline_named(Dwarf_Die *die, void *arg)
{
	struct inline_walk *w = arg;
	const char *name = dwarf_diename(die);

	if (dwarf_func_inline(die) && name && !fnmatch(w->glob, name, 0))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static int cmp_vars(const void *a, const void *b)
{
	return strcmp((*(struct udwarf_var *const *)a)->name, (*(struct udwarf_var *const *)b)->name);
}

/* The list by name: what SystemTap 4.8 lists for an inlined instance. */
static void sort_vars(struct udwarf_var **list)
{
	struct udwarf_var *v[64];
	size_t n = 0;

	for (struct udwarf_var *p = *list; p; p = p->next)
		if (n++ == sizeof(v) / sizeof(v[0]))
			return;	/* left as DWARF has them */
	n = 0;
	for (struct udwarf_var *p = *list; p; p = p->next)
		v[n++] = p;
	qsort(v, n, sizeof(v[0]), cmp_vars);
	for (size_t i = 0; i < n; i++)
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	*list = n ? v[0] : NULL;
}

/* inl, an inlined instance inside the concrete function func (whose
 * frame it shares), if it is one the walk wants. */
static void add_inline(struct inline_walk *w, Dwarf_Die *func, Dwarf_Die *inl)
{
	const char *name = dwarf_diename(inl), *file;
	struct udwarf_inline *i;
	struct udwarf_var **tail;
	Dwarf_Addr entry, base, lo, hi;
	ptrdiff_t r = 0;

	if (!name || fnmatch(w->glob, name, 0) || dwarf_entrypc(inl, &entry))
		return;
	if (w->n == UDWARF_MAX_INLINES) {
		w->more = true;
		return;
	}
	i = arena_new(w->a, struct udwarf_inline);
	i->name = arena_strndup(w->a, name, strlen(name));
	i->fn.probe_addr = entry;
	i->fn.hi = entry + 1;
	while ((r = dwarf_ranges(inl, r, &base, &lo, &hi)) > 0)
		if (hi > i->fn.hi)
			i->fn.hi = hi;
	if ((file = dwarf_decl_file(inl)))
		i->fn.decl_file = arena_strndup(w->a, file, strlen(file));
	dwarf_decl_line(inl, &i->fn.decl_line);
	tail = &i->fn.vars;
	add_vars(w->u, w->a, func, inl, entry, true, &tail, 0);
	add_vars(w->u, w->a, func, inl, entry, false, &tail, 0);
	sort_vars(&i->fn.vars);
	*w->tail = i;
	w->tail = &i->next;
	w->n++;
}

/* The inlined instances in scope (func's code), nested ones too. */
static void walk_inlines(struct inline_walk *w, Dwarf_Die *func, Dwarf_Die *scope, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(scope, &child))
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			add_inline(w, func, &child);
			walk_inlines(w, func, &child, depth + 1);
			break;
		case DW_TAG_lexical_block:
			walk_inlines(w, func, &child, depth + 1);
			break;
		}
	} while (!dwarf_siblingof(&child, &child));
}

struct udwarf_inline *udwarf_inlines(struct udwarf *u, struct arena *a, const char *glob,
				     bool *more)
{
	struct inline_walk w = { .u = u, .a = a, .glob = glob };
	Dwarf_Off off = 0, next;
	size_t hsize;

	w.tail = &w.list;
	for (; !dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL); off = next) {
		Dwarf_Die cu, child;
		Dwarf_Addr lo;

		/* Only a CU declaring a matching inline function has
		 * instances of it: the others are not walked (libc's). */
		if (!dwarf_offdie(u->dw, off + hsize, &cu) ||
		    dwarf_getfuncs(&cu, inline_named, &w, 0) <= 0 || dwarf_child(&cu, &child))
			continue;
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_entrypc(&child, &lo) == 0)
				walk_inlines(&w, &child, &child, 0);
		} while (!dwarf_siblingof(&child, &child));
	}
	*more = w.more;
	return w.list;
}

/* The variable NAME at a fixed address (one DW_OP_addr) among the CU's top-level DIEs. */
static bool cu_fixed_var(Dwarf_Die *cu, const char *name, Dwarf_Die *var, uint64_t *addr)
{
	if (dwarf_child(cu, var))
		return false;
	do {
		Dwarf_Attribute at;
		Dwarf_Op *ops;
		size_t nops;
		const char *n;

		if (dwarf_tag(var) != DW_TAG_variable || !(n = dwarf_diename(var)) ||
		    strcmp(n, name) || !dwarf_attr(var, DW_AT_location, &at) ||
		    dwarf_getlocation(&at, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_addr)
			continue;
		*addr = ops[0].number;
		return true;
	} while (dwarf_siblingof(var, var) == 0);
	return false;
}

int udwarf_global(struct udwarf *u, const char *name, const char *cu, uint64_t *addr,
		  __u32 *type)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	for (; !dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL); off = next) {
		Dwarf_Die cudie, var;
		const char *cuname;

		if (!dwarf_offdie(u->dw, off + hsize, &cudie))
			continue;
		cuname = dwarf_diename(&cudie);
		if (cu && (!cuname || !udwarf_file_matches(cu, cuname)))
			continue;
		if (cu_fixed_var(&cudie, name, &var, addr)) {
			*type = dwarf_btf_type(u->conv, &var);
			return 0;
		}
	}
	return -ENOENT;
}

bool udwarf_file_matches(const char *glob, const char *file)
{
	if (!fnmatch(glob, file, 0))
		return true;
	for (const char *p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (!fnmatch(glob, p + 1, 0))
			return true;
	return false;
}

int udwarf_each_line(struct udwarf *u, int (*fn)(void *arg, uint64_t addr, const char *file,
						 int line, bool end), void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int ret = 0;

	for (; !ret && !dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL); off = next) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (!dwarf_offdie(u->dw, off + hsize, &cu) || dwarf_getsrclines(&cu, &lines, &n))
			continue;
		for (size_t i = 0; !ret && i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr a;
			const char *file;
			bool end = false;
			int no;

			if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &no) ||
			    dwarf_lineendsequence(l, &end) || !(file = dwarf_linesrc(l, NULL, NULL)))
				continue;
			ret = fn(arg, a, file, no, end);
		}
	}
	return ret;
}

bool udwarf_starts_row(struct udwarf *u, uint64_t addr)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;

	if (!dwarf_addrdie(u->dw, addr, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;

		if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) && a == addr)
			return true;
	}
	return false;
}

int udwarf_line_addr(struct udwarf *u, const char *glob, int line, uint64_t lo, uint64_t hi,
		     uint64_t *addr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool found = false;

	while (!dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(u->dw, off + hsize, &cu) && !dwarf_getsrclines(&cu, &lines, &n)) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				const char *file;
				int no;

				if (!l || dwarf_lineno(l, &no) || no != line || dwarf_lineaddr(l, &a) ||
				    a < lo || a >= hi || (found && a >= *addr) ||
				    !(file = dwarf_linesrc(l, NULL, NULL)) ||
				    !udwarf_file_matches(glob, file))
					continue;
				*addr = a;
				found = true;
			}
		}
		off = next;
	}
	return found ? 0 : -ENOENT;
}

/* ---- the kernel's DWARF: one CU at a time ---- */

void udwarf_set_cu_local(struct udwarf *u)
{
	u->cu_local = true;
}

int udwarf_each_cu(struct udwarf *u, int (*fn)(void *arg, uint64_t die, const char *name),
		   void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int ret = 0;

	for (; !ret && !dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL); off = next) {
		Dwarf_Die cu;
		const char *name;

		if (dwarf_offdie(u->dw, off + hsize, &cu) && (name = dwarf_diename(&cu)))
			ret = fn(arg, off + hsize, name);
	}
	return ret;
}

struct cu_funcs {
	const char *glob;
	int (*fn)(void *arg, const struct udwarf_cufunc *f);
	void *arg;
	int ret;
};

static int cu_func(Dwarf_Die *die, void *arg)
{
	struct cu_funcs *w = arg;
	struct udwarf_cufunc f = { .name = dwarf_diename(die) };
	Dwarf_Addr base, lo, hi;
	ptrdiff_t r = 0;

	if (!f.name || fnmatch(w->glob, f.name, 0) || code_entry(die, &f.entry))
		return DWARF_CB_OK;
	f.die = dwarf_dieoffset(die);
	f.lo = f.entry;
	while ((r = dwarf_ranges(die, r, &base, &lo, &hi)) > 0) {
		if (lo < f.lo)
			f.lo = lo;
		if (hi > f.hi)
			f.hi = hi;
	}
	f.decl_file = dwarf_decl_file(die);
	dwarf_decl_line(die, &f.decl_line);
	w->ret = w->fn(w->arg, &f);
	return w->ret ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int udwarf_cu_funcs(struct udwarf *u, uint64_t cu_die, const char *glob,
		    int (*fn)(void *arg, const struct udwarf_cufunc *f), void *arg)
{
	struct cu_funcs w = { .glob = glob, .fn = fn, .arg = arg };
	Dwarf_Die cu;

	if (!dwarf_offdie(u->dw, cu_die, &cu))
		return -ENOENT;
	dwarf_getfuncs(&cu, cu_func, &w, 0);
	return w.ret;
}

/* The address ranges of the inlined instances directly in scope (through
 * lexical blocks, not into the instances): code that is theirs. */
struct inl_ranges {
	struct inl_range {
		Dwarf_Addr lo, hi;
		Dwarf_Word call_line;	/* where it is called: the caller's line */
	} *r;
	size_t n, cap;
};

static void inlined_ranges(Dwarf_Die *scope, const char *glob, struct inl_ranges *v, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(scope, &child))
		return;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;
		const char *file;

		if (dwarf_tag(&child) == DW_TAG_lexical_block ||
		    dwarf_tag(&child) == DW_TAG_inlined_subroutine)
			inlined_ranges(&child, glob, v, depth + 1);
		if (dwarf_tag(&child) != DW_TAG_inlined_subroutine ||
		    !(file = dwarf_decl_file(&child)) || !udwarf_file_matches(glob, file))
			continue;
		Dwarf_Attribute at;
		Dwarf_Word call_line = 0;

		dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &at), &call_line);
		while ((r = dwarf_ranges(&child, r, &base, &lo, &hi)) > 0) {
			if (v->n == v->cap) {
				v->cap = v->cap ? 2 * v->cap : 16;
				v->r = realloc(v->r, v->cap * sizeof(*v->r));
				if (!v->r) {
					v->n = v->cap = 0;
					return;
				}
			}
			v->r[v->n++] = (struct inl_range){ .lo = lo, .hi = hi, .call_line = call_line };
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* Whether line at a is code inlined there (not the call's own line). */
static bool in_ranges(const struct inl_ranges *v, Dwarf_Addr a, int line)
{
	for (size_t i = 0; i < v->n; i++)
		if (a >= v->r[i].lo && a < v->r[i].hi && (Dwarf_Word)line != v->r[i].call_line)
			return true;
	return false;
}

int udwarf_func_lines(struct udwarf *u, uint64_t func_die, const char *glob, int line1,
		      int line2, int (*fn)(void *arg, int line, uint64_t addr), void *arg)
{
	Dwarf_Die func, cu;
	Dwarf_Lines *lines;
	size_t n;
	int ret = 0, span;
	uint64_t *first;
	struct inl_ranges inl = { 0 };

	if (line2 < line1 || line2 - line1 > 100000 || !dwarf_offdie(u->dw, func_die, &func) ||
	    !dwarf_diecu(&func, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n))
		return -ENOENT;
	span = line2 - line1 + 1;
	first = calloc(span, sizeof(*first));
	if (!first)
		return -ENOMEM;
	/* In a function, a line of code inlined from another function of
	 * the file is that function's (SystemTap's listing names it by that
	 * one); an inlined instance's lines are all its own. */
	if (dwarf_tag(&func) == DW_TAG_subprogram)
		inlined_ranges(&func, glob, &inl, 0);
	/* Each line's lowest address inside the function (0: none). */
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		const char *file;
		bool end = false;
		int no;

		if (!l || dwarf_lineno(l, &no) || no < line1 || no > line2 || dwarf_lineaddr(l, &a) ||
		    dwarf_lineendsequence(l, &end) || end || dwarf_haspc(&func, a) != 1 ||
		    (first[no - line1] && first[no - line1] <= a) || in_ranges(&inl, a, no) ||
		    !(file = dwarf_linesrc(l, NULL, NULL)) || !udwarf_file_matches(glob, file))
			continue;
		first[no - line1] = a;
	}
	/* A line whose address an earlier line has is left out: one probe
	 * per address, named by the first line there, as SystemTap does;
	 * but the function's own first line (its name's) gives way to any
	 * other line there (an inlined instance's entry). */
	int kept = 0, decl = 0;	/* kept: the lines kept so far, packed at the front */

	if (!dwarf_decl_line(&func, &decl) && decl >= line1 && decl <= line2 && first[decl - line1])
		for (int i = 0; i < span; i++)
			if (i != decl - line1 && first[i] == first[decl - line1]) {
				first[decl - line1] = 0;
				break;
			}

	for (int i = 0; !ret && i < span; i++) {
		bool taken = false;

		for (int j = 0; first[i] && !taken && j < kept; j++)
			taken = first[j] == first[i];
		if (!first[i] || taken)
			continue;
		ret = fn(arg, line1 + i, first[i]);
		first[kept++] = first[i];	/* kept <= i: nothing unread is lost */
	}
	free(first);
	free(inl.r);
	return ret;
}

struct cu_inlines {
	struct udwarf *u;
	const char *glob;
	int (*fn)(void *arg, const struct udwarf_cufunc *inst, const struct udwarf_cufunc *in);
	void *arg;
	struct udwarf_cufunc in;	/* the concrete function walked */
	int ret;
};

static void cu_inline_walk(struct cu_inlines *w, Dwarf_Die *scope, int depth)
{
	Dwarf_Die child;

	if (w->ret || depth > 64 || dwarf_child(scope, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		struct udwarf_cufunc f = { .name = dwarf_diename(&child) };
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (tag == DW_TAG_inlined_subroutine && f.name && !fnmatch(w->glob, f.name, 0) &&
		    !code_entry(&child, &f.entry)) {
			f.die = dwarf_dieoffset(&child);
			f.lo = f.entry;
			Dwarf_Attribute at;
		Dwarf_Word call_line = 0;

		dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &at), &call_line);
		while ((r = dwarf_ranges(&child, r, &base, &lo, &hi)) > 0) {
				if (lo < f.lo)
					f.lo = lo;
				if (hi > f.hi)
					f.hi = hi;
			}
			f.decl_file = dwarf_decl_file(&child);
			dwarf_decl_line(&child, &f.decl_line);
			w->ret = w->fn(w->arg, &f, &w->in);
		}
		cu_inline_walk(w, &child, depth + 1);
	} while (!w->ret && !dwarf_siblingof(&child, &child));
}

static int cu_inline_func(Dwarf_Die *die, void *arg)
{
	struct cu_inlines *w = arg;

	w->in = (struct udwarf_cufunc){ .name = dwarf_diename(die), .die = dwarf_dieoffset(die) };
	if (!w->in.name || code_entry(die, &w->in.entry))
		return DWARF_CB_OK;
	cu_inline_walk(w, die, 0);
	return w->ret ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int udwarf_cu_inlines(struct udwarf *u, uint64_t cu_die, const char *glob,
		      int (*fn)(void *arg, const struct udwarf_cufunc *inst,
				const struct udwarf_cufunc *in), void *arg)
{
	struct cu_inlines w = { .u = u, .glob = glob, .fn = fn, .arg = arg };
	Dwarf_Die cu;

	if (!dwarf_offdie(u->dw, cu_die, &cu))
		return -ENOENT;
	dwarf_getfuncs(&cu, cu_inline_func, &w, 0);
	return w.ret;
}

/*
 * The variables in scope at pc as SystemTap lists them at a statement in
 * an inlined instance: the innermost lexical block's first, each scope's
 * parameters and locals in the DWARF's order.
 */
static void add_inner_first(struct udwarf *u, struct arena *a, Dwarf_Die *func,
			    Dwarf_Die *scope, Dwarf_Addr pc, struct udwarf_var ***tail, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(scope, &child))
		return;
	do {
		if (depth >= 0 && dwarf_tag(&child) == DW_TAG_lexical_block &&
		    dwarf_haspc(&child, pc) == 1)
			add_inner_first(u, a, func, &child, pc, tail, depth + 1);
	} while (!dwarf_siblingof(&child, &child));
	dwarf_child(scope, &child);
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		struct udwarf_var *v;

		if (!name || (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) ||
		    !has_location_at(&child, pc))
			continue;
		v = arena_new(a, struct udwarf_var);
		v->name = arena_strndup(a, name, strlen(name));
		v->type = type_name(a, &child, 0);
		v->btf_id = dwarf_btf_type(u->conv, &child);
		v->why = locate(u, func, &child, pc, &v->loc);
		if (v->why)
			v->at_address = locate_object(u, func, &child, pc, &v->loc);
		v->is_param = tag == DW_TAG_formal_parameter;
		**tail = v;
		*tail = &v->next;
	} while (!dwarf_siblingof(&child, &child));
}

int udwarf_inline_at(struct udwarf *u, struct arena *a, uint64_t func_die, uint64_t inst_die,
		     uint64_t pc, bool outer_only, struct udwarf_func *out)
{
	struct udwarf_var **tail;
	Dwarf_Die func, inst;
	const char *file;

	if (!dwarf_offdie(u->dw, func_die, &func) || !dwarf_offdie(u->dw, inst_die, &inst))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->probe_addr = pc;
	if ((file = dwarf_decl_file(&inst)))
		out->decl_file = arena_strndup(a, file, strlen(file));
	dwarf_decl_line(&inst, &out->decl_line);
	tail = &out->vars;
	add_inner_first(u, a, &func, &inst, pc, &tail, outer_only ? -1 : 0);
	return 0;
}

static int labels_in(Dwarf_Die *scope, const char *glob,
		     int (*fn)(void *arg, const char *name, uint64_t addr, int line), void *arg,
		     int depth)
{
	Dwarf_Die child;
	int ret = 0;

	if (depth > 64 || dwarf_child(scope, &child))
		return 0;
	do {
		const char *name = dwarf_diename(&child);
		Dwarf_Addr addr;
		int line = 0;

		if (dwarf_tag(&child) == DW_TAG_lexical_block)
			ret = labels_in(&child, glob, fn, arg, depth + 1);
		else if (dwarf_tag(&child) == DW_TAG_label && name && !fnmatch(glob, name, 0) &&
			 !dwarf_lowpc(&child, &addr)) {
			dwarf_decl_line(&child, &line);
			ret = fn(arg, name, addr, line);
		}
	} while (!ret && !dwarf_siblingof(&child, &child));
	return ret;
}

int udwarf_func_labels(struct udwarf *u, uint64_t func_die, const char *glob,
		       int (*fn)(void *arg, const char *name, uint64_t addr, int line), void *arg)
{
	Dwarf_Die func;

	if (!dwarf_offdie(u->dw, func_die, &func))
		return -ENOENT;
	return labels_in(&func, glob, fn, arg, 0);
}

int udwarf_cu_at(struct udwarf *u, uint64_t addr, uint64_t *cu_die, const char **name)
{
	Dwarf_Die cu;

	if (!dwarf_addrdie(u->dw, addr, &cu) || !(*name = dwarf_diename(&cu)))
		return -ENOENT;
	*cu_die = dwarf_dieoffset(&cu);
	return 0;
}

/* die's declaring file as the kernel's DWARF names it, relative to its
 * CU's directory ("include/linux/fs.h", as SystemTap prints it). */
static const char *decl_file_rel(Dwarf_Die *die)
{
	const char *file = dwarf_decl_file(die), *dir;
	Dwarf_Attribute at;
	Dwarf_Die cu;
	size_t n;

	if (!file || !dwarf_diecu(die, &cu, NULL, NULL) ||
	    !(dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at))))
		return file;
	n = strlen(dir);
	return !strncmp(file, dir, n) && file[n] == '/' ? file + n + 1 : file;
}

const char *udwarf_decl_file(struct udwarf *u, uint64_t die_off)
{
	Dwarf_Die die;

	return dwarf_offdie(u->dw, die_off, &die) ? decl_file_rel(&die) : NULL;
}

struct callee_walk {
	const char *glob;
	int (*fn)(void *arg, const struct udwarf_cufunc *callee, const struct udwarf_cufunc *caller);
	void *arg;
	int ret;
};

/*
 * The callees in scope (through its blocks, not into functions defined
 * there) whose names glob matches, as SystemTap 4.8 finds them: the
 * inlined instances that have one address range (a low_pc); with depth
 * > 1, their callees too, each called with its caller.  Calls to
 * functions of their own (DW_TAG_call_site) are not followed: 4.8 reads
 * only DWARF 4's DW_TAG_GNU_call_site, and would check the caller on the
 * stack at the callee's entry, which ctap's kprobes do not.
 */
static void callees_in(struct callee_walk *w, Dwarf_Die *scope, const struct udwarf_cufunc *caller,
		       int depth, int level)
{
	Dwarf_Die child, origin;
	Dwarf_Attribute at;

	if (w->ret || level > 64 || dwarf_child(scope, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		struct udwarf_cufunc f = { .name = dwarf_diename(&child) };
		Dwarf_Addr hi;

		if (tag == DW_TAG_inlined_subroutine) {
			if (!f.name || fnmatch(w->glob, f.name, 0) ||
			    !dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &at), &origin) ||
			    dwarf_lowpc(&child, &f.entry))
				continue;
			f.die = dwarf_dieoffset(&child);
			f.lo = f.hi = f.entry;
			if (!dwarf_highpc(&child, &hi))
				f.hi = hi;
			f.decl_file = decl_file_rel(&origin);
			dwarf_decl_line(&origin, &f.decl_line);
			w->ret = w->fn(w->arg, &f, caller);
			if (w->ret == UDWARF_PRUNE)	/* refused: not its callees either */
				w->ret = 0;
			else if (depth > 1)
				callees_in(w, &child, &f, depth - 1, level + 1);
		} else if (tag != DW_TAG_subprogram && dwarf_haschildren(&child)) {
			callees_in(w, &child, caller, depth, level + 1);
		}
	} while (!w->ret && !dwarf_siblingof(&child, &child));
}

int udwarf_func_callees(struct udwarf *u, uint64_t func_die, const char *glob, int depth,
			int (*fn)(void *arg, const struct udwarf_cufunc *callee,
				  const struct udwarf_cufunc *caller), void *arg)
{
	struct callee_walk w = { .glob = glob, .fn = fn, .arg = arg };
	Dwarf_Die func;

	if (!dwarf_offdie(u->dw, func_die, &func))
		return -ENOENT;
	callees_in(&w, &func, NULL, depth, 0);
	return w.ret;
}

int udwarf_cu_global(struct udwarf *u, struct arena *a, uint64_t cu_die, const char *name,
		     uint64_t *addr, const char **type)
{
	Dwarf_Die cu, var;

	if (!dwarf_offdie(u->dw, cu_die, &cu) || !cu_fixed_var(&cu, name, &var, addr))
		return -ENOENT;
	*type = type_name(a, &var, 0);
	return 0;
}
