// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes.c - process("PATH").function("PATTERN")[.call|.return|.inline|
 * .exported]: uprobes
 * (runtime side: kmod-runtime/probes/uprobes.c) on the functions of an
 * executable or library, found by name in its ELF symbol table; with
 * DWARF (udwarf.c) their variables are $vars, else int_arg() and
 * returnval() read the registers.
 *
 * PATH is absolute, or a name searched in $PATH, as SystemTap does; with
 * --sysroot DIR the file is read at DIR/PATH while the module probes PATH
 * on the target.  A probe is planted at the symbol's file offset (its
 * address within its PT_LOAD segment), which is what uprobe_register()
 * takes together with the file's inode.
 *
 * With DWARF, .function("F") is also each instance of F the compiler
 * inlined (a probe at the instance's entry pc, its variables there), as
 * SystemTap does; .inline is those instances only, .call and .return the
 * out-of-line code only.  .exported is the functions of global binding
 * in the symbol table (callable from outside the file), as SystemTap
 * checks it.
 *
 * process("PATH").mark("NAME") and process("PATH").provider("P").mark("NAME")
 * are the file's <sys/sdt.h> markers (sdt.c): a uprobe at the marker,
 * registered with the marker's semaphore (the kernel counts it up in
 * every process while the probe is armed), whose arguments the runtime
 * reads at the hit as the note describes them: $arg1..$argN, and
 * $$name and $$provider.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "kbtf.h"
#include "provider.h"
#include "sdt.h"
#include "uinsn.h"
#include "udwarf.h"
#include "usymtab.h"
#include "session.h"
#include "xlate.h"
#include "xalloc.h"

/* Each with PATH, without (the -c/-x target's program), and with
 * .library("LIB") after either (a library the program needs). */
static const char *const patterns[] = {
#define UPROBE_FORMS(P)							\
	P ".function(string)", P ".function(string).call",		\
	P ".function(string).return", P ".function(string).inline",	\
	P ".function(string).exported", P ".mark(string)",		\
	P ".provider(string).mark(string)", P ".plt", P ".plt(string)",	\
	P ".plt.return", P ".plt(string).return",			\
	P ".statement(string)", P ".statement(number)"
	UPROBE_FORMS("process(string)"),
	UPROBE_FORMS("process(number)"),
	UPROBE_FORMS("process"),
	UPROBE_FORMS("process(string).library(string)"),
	UPROBE_FORMS("process.library(string)"),
#undef UPROBE_FORMS
	"process(number).statement(number).absolute",
	NULL
};

/* A probe's own data (derived_probe.data). */
struct uprobe_point {
	const char *path;		/* the file, as the target sees it */
	uint64_t offset;		/* the function's offset in it */
	uint64_t vaddr;			/* and its link-time address, 0: unknown */
	const struct sdt_marker *sdt;	/* a marker's, or NULL */
	long long pid;			/* process(PID): its hits only; 0: any */
	bool bias_at_entry;		/* a .return's @var in a PIE: the load
					   bias is taken at the entry */
	uint64_t abs_addr;		/* .absolute: this address of process pid,
					   no path (the runtime finds the file) */
	/* A .return of unoptimized code: its entry part (parameters, @entry)
	 * is a uprobe of its own after the prologue, at entry_offset, where
	 * the CFA is register entry_cfa_reg plus entry_cfa_off; 0: none. */
	uint64_t entry_offset;
	const char *entry_cfa_reg;
	int64_t entry_cfa_off;
	/* The function around it (the symbol's link-time address and size):
	 * the user-space runtime's jump needs its bounds; 0: unknown. */
	uint64_t func_vaddr, func_size;
};

/* Where the runtime passes a marker's $$name and $$provider. */
#define SDT_NAME_ARG		SDT_MAX_ARGS
#define SDT_PROVIDER_ARG	(SDT_MAX_ARGS + 1)
/* ... and the load bias of the probe's file (uprobes.h CTAP_SDT_BIAS_ARG). */
#define SDT_BIAS_ARG		(SDT_MAX_ARGS + 2)

/*
 * process("./a.out"), process("bin/prog"): from the current directory,
 * as SystemTap takes them, made absolute (symbolic links resolved) since
 * the runtime and the -c command may start elsewhere.  Under --sysroot a
 * relative path has no meaning the target would share: refused.
 */
static const char *relative_target_path(struct elab *elab, const struct pp_match *m,
					const char *name, const char *sysroot)
{
	char *abs;
	const char *path;

	if (sysroot) {
		elab_error(elab, m, "process(\"%s\"): with --sysroot the path must be absolute, "
			   "or a name in $PATH", name);
		return NULL;
	}
	abs = realpath(name, NULL);
	if (!abs) {
		elab_error(elab, m, "cannot open '%s': %s", name, strerror(errno));
		return NULL;
	}
	path = arena_printf(elab_arena(elab), "%s", abs);
	free(abs);
	strset_add(&elab_session(elab)->target_files, path);
	return path;
}

/* The file a process("...") names, as the target sees it (absolute). */
const char *process_target_path(struct elab *elab, const struct pp_match *m, const char *name)
{
	const char *sysroot = elab_session(elab)->opt.sysroot;
	char *path, *dirs, *dir, *save = NULL;

	if (name[0] == '/') {
		/* Here, in pass 2: a missing file is a probe point that does
		 * not resolve ("?" makes it optional), not an error at run time. */
		path = arena_printf(elab_arena(elab), "%s%s", sysroot ? sysroot : "", name);
		if (access(path, F_OK)) {
			elab_error(elab, m, "cannot open '%s': %s", path, strerror(errno));
			return NULL;
		}
		strset_add(&elab_session(elab)->target_files, name);
		return name;
	}
	if (strchr(name, '/'))
		return relative_target_path(elab, m, name, sysroot);
	dirs = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		path = arena_printf(elab_arena(elab), "%s/%s", dir, name);
		if (access(arena_printf(elab_arena(elab), "%s%s", sysroot ? sysroot : "", path), X_OK) == 0)
			break;
	}
	free(dirs);
	if (!dir) {
		elab_error(elab, m, "cannot find executable '%s' in $PATH", name);
		return NULL;
	}
	strset_add(&elab_session(elab)->target_files, path);
	return path;
}

long long process_pid(struct elab *elab, const struct pp_match *m, long long num)
{
	if (num > 0 && num <= INT32_MAX)
		return num;
	elab_error(elab, m, "process(%lld): not a process id", num);
	return 0;
}

extern const struct provider process_provider;

/* The family's state in one pass 2. */
struct process_state {
	long long pid;		/* the process(PID) being resolved, or 0 */
};

static struct process_state *process_state(struct elab *elab)
{
	void **slot = elab_provider_state(elab, &process_provider);

	if (!*slot)
		*slot = arena_new(elab_arena(elab), struct process_state);
	return *slot;
}

/* A probe's data: at file offset off of path (as the target names it),
 * for the process(PID) being resolved if any. */
static struct uprobe_point *new_point(struct elab *elab, const char *path, uint64_t off)
{
	struct uprobe_point *u = arena_new(elab_arena(elab), struct uprobe_point);

	u->path = path;
	u->offset = off;
	u->pid = process_state(elab)->pid;
	return u;
}

/*
 * A function's variables from DWARF as the probe's $vars, read at the
 * hit as a marker's arguments are (a table of locations): its parameters
 * and locals after the prologue, or $return at the return.  A variable
 * ctap cannot read there is listed, and an error where it is used.
 */
static void add_dwarf_vars(struct elab *elab, struct derived_probe *d, struct uprobe_point *u,
			   const struct udwarf_func *fn, bool is_return)
{
	struct arena *a = elab_arena(elab);
	__s32 long_id = session_long_type(elab_session(elab));
	struct sdt_marker *k = arena_new(a, struct sdt_marker);
	struct probe_var *v;

	k->provider = "";
	k->name = d->symbol;
	k->argspec = is_return ? "parameters at entry, $return (DWARF)" : "DWARF variables";
	u->sdt = k;
	/* A .return probe's parameters are as they were at entry (read
	 * there, uprobes.c keeps them for the return), then $return. */
	for (const struct udwarf_var *w = fn->vars; w; w = w->next) {
		const char *name = arena_printf(a, "$%s", w->name);
		const struct probe_var *seen;

		if (is_return && !w->is_param)
			continue;
		for (seen = d->vars; seen && strcmp(seen->name, name); seen = seen->next)
			;
		if (seen)
			continue;	/* the first of a name (inner blocks come later) */
		v = elab_add_var(elab, d, name, w->type, w->btf_id ? w->btf_id : (__u32)long_id, k->nargs);
		if (w->btf_id)	/* a user type: read from user memory (target.c) */
			v->btf = elab_session(elab)->user_btf;
		v->is_local = !w->is_param;
		v->unavailable = w->why;
		if (!v->unavailable && k->nargs == SDT_MAX_ARGS - is_return)
			v->unavailable = "one variable too many (ctap reads 12 per probe)";
		if (!v->unavailable)
			k->args[k->nargs++] = w->loc;
	}
	if (!is_return)
		return;
	k->nentry = k->nargs;
	if (!fn->ret_type)
		return;
	v = elab_add_var(elab, d, "$return", fn->ret_type,
			 fn->ret_btf_id ? fn->ret_btf_id : (__u32)long_id, k->nargs);
	if (fn->ret_btf_id)
		v->btf = elab_session(elab)->user_btf;
	v->unavailable = fn->ret_why;
	v->reg = "ax";	/* a guru write changes what the caller gets */
	if (!fn->ret_why)
		k->args[k->nargs++] = fn->ret;
	/* -L lists $return first, as SystemTap does */
	for (struct probe_var **p = &d->vars; *p; p = &(*p)->next) {
		if (*p != v)
			continue;
		*p = v->next;
		v->next = d->vars;
		d->vars = v;
		break;
	}
}

/* A .function() or .statement() argument: "NAME[@FILE[:LINE[-LINE2]]]". */
struct func_spec {
	const char *name;
	const char *file;		/* NULL: any */
	int line, line2;		/* 0: any */
	bool statement;			/* a probe at the line, not the entry */
	bool has_offset;		/* NAME+OFFSET: a byte inside the function */
	uint64_t offset;
};

/* NAME, NAME@FILE[:LINE[-LINE2]] or NAME+OFFSET (ctap's, as kernel ones). */
static void parse_spec(struct arena *a, const char *arg, bool statement, struct func_spec *f)
{
	const char *at = strchr(arg, '@'), *colon, *plus = strchr(arg, '+');

	memset(f, 0, sizeof(*f));
	f->statement = statement;
	f->name = at ? arena_strndup(a, arg, at - arg) : arg;
	if (!at && plus && plus[1]) {
		char *end;

		f->offset = strtoull(plus + 1, &end, 0);
		if (!*end) {
			f->has_offset = true;
			f->name = arena_strndup(a, arg, plus - arg);
		}
	}
	if (!at)
		return;
	colon = strchr(at, ':');
	f->file = colon ? arena_strndup(a, at + 1, colon - at - 1) : at + 1;
	if (colon) {
		char *end;

		f->line = strtol(colon + 1, &end, 10);
		f->line2 = *end == '-' ? strtol(end + 1, NULL, 10) : f->line;
	}
}

/*
 * Whether the function fn (DWARF) is one spec names by its file and line,
 * and for a statement the address of the line in it (*pc).
 */
static bool spec_matches(struct udwarf *dw, const struct func_spec *f, uint64_t lo,
			 const struct udwarf_func *fn, uint64_t *pc)
{
	if (!f->file)
		return true;
	if (f->statement)
		return udwarf_line_addr(dw, f->file, f->line, lo, fn->hi, pc) == 0;
	return fn->decl_file && udwarf_file_matches(f->file, fn->decl_file) &&
	       (!f->line || (fn->decl_line >= f->line && fn->decl_line <= f->line2));
}

/*
 * Where vaddr of elf is, as SystemTap's -p2 notes it: a program linked at
 * a fixed address counts from its first page, a PIE or a library from 0.
 */
static const char *pc_note(struct arena *a, Elf *elf, uint64_t vaddr)
{
	uint64_t base = UINT64_MAX;
	GElf_Ehdr eh;
	size_t nph;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph))
		return NULL;
	if (eh.e_type == ET_DYN)
		return arena_printf(a, "pc=.dynamic+%#llx", (unsigned long long)vaddr);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < base)
			base = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	return base > vaddr ? NULL :
	       arena_printf(a, "pc=.absolute+%#llx", (unsigned long long)(vaddr - base));
}

/* The function a probe is in: its symbol's bounds, with the alignment
 * padding after it (a function shorter than the user-space runtime's
 * 5-byte jump gets one that covers the padding, never run). */
static void set_bounds(Elf *elf, struct uprobe_point *u, const GElf_Sym *sym)
{
	u->func_vaddr = sym->st_value;
	u->func_size = sym->st_size + uinsn_padding(elf, sym->st_value + sym->st_size);
}

/* A probe named pp at file offset off of path (link-time address vaddr
 * in elf), in the function name. */
static struct derived_probe *add_point(struct elab *elab, const struct pp_match *m, const char *pp,
				       Elf *elf, const char *path, uint64_t off, uint64_t vaddr,
				       const char *name)
{
	struct arena *a = elab_arena(elab);
	struct derived_probe *d = elab_add(elab, m, pp);
	struct uprobe_point *u = new_point(elab, path, off);

	u->vaddr = vaddr;
	d->process = path;
	d->where = pc_note(a, elf, vaddr);
	d->data = u;
	d->symbol = arena_strndup(a, name, strlen(name));
	return d;
}

/*
 * Whether an instruction starts at addr of the function name (symbol
 * sym): its first byte, a row of DWARF's line table, or an instruction
 * decoded from the function's start (uinsn.c).  A uprobe anywhere else
 * makes every process that maps the file run the middle of an
 * instruction.  Else false, the error given.
 */
static bool insn_starts(struct elab *elab, const struct pp_match *m, Elf *elf, struct udwarf *dw,
			const char *name, const GElf_Sym *sym, uint64_t addr)
{
	unsigned long long at = addr - sym->st_value;
	uint64_t insn;
	int ret;

	if (addr == sym->st_value || (dw && udwarf_starts_row(dw, addr)))
		return true;
	ret = uinsn_starts(elf, sym->st_value, sym->st_size, addr, &insn);
	if (!ret)
		return true;
	if (ret == -ERANGE)
		elab_error(elab, m, "%#llx ('%s+0x%llx') is inside the instruction at %#llx ('%s+0x%llx'): "
			   "a uprobe must be put where an instruction starts",
			   (unsigned long long)addr, name, at, (unsigned long long)insn, name,
			   (unsigned long long)(insn - sym->st_value));
	else if (ret == -ENOEXEC)
		elab_error(elab, m, "no instruction is known to start at '%s+0x%llx': the code of '%s' "
			   "does not decode from '%s+0x%llx' on", name, at, name, name,
			   (unsigned long long)(insn - sym->st_value));
	else
		elab_error(elab, m, "no instruction is known to start at '%s+0x%llx': the address must "
			   "be one of the DWARF line table (objdump --dwarf=decodedline)", name, at);
	return false;
}

/*
 * process("P").function("NAME+OFFSET") (or .statement): a probe on the
 * byte OFFSET into NAME, with NAME's variables as they are there, where
 * an instruction starts.  0 if added, else -EINVAL with the error given.
 */
static int add_offset(struct elab *elab, const struct pp_match *m, Elf *elf, struct udwarf *dw,
		      const char *path, const struct func_spec *f, const char *name,
		      const GElf_Sym *sym)
{
	struct arena *a = elab_arena(elab);
	uint64_t addr = sym->st_value + f->offset, off;
	struct derived_probe *d;
	struct udwarf_func fn;

	if (strstr(m->pattern_text, ".return")) {
		elab_error(elab, m, "a .return probe is on a whole function, not '%s+%#llx'", name,
			   (unsigned long long)f->offset);
		return -EINVAL;
	}
	if (f->offset >= sym->st_size) {
		elab_error(elab, m, "offset %#llx is past the end of '%s' (%llu bytes)",
			   (unsigned long long)f->offset, name, (unsigned long long)sym->st_size);
		return -EINVAL;
	}
	if (!insn_starts(elab, m, elf, dw, name, sym, addr))
		return -EINVAL;
	if (sdt_file_offset(elf, addr, true, &off)) {
		elab_error(elab, m, "'%s+%#llx' is in no loadable segment", name,
			   (unsigned long long)f->offset);
		return -EINVAL;
	}
	d = add_point(elab, m, arena_printf(a, "process(\"%s\").%s(\"%s+%#llx\")", path,
					 f->statement ? "statement" : "function", name,
					 (unsigned long long)f->offset), elf, path, off, addr, name);
	set_bounds(elf, d->data, sym);
	if (dw && !udwarf_function_at(dw, a, name, sym->st_value, addr, &fn))
		add_dwarf_vars(elab, d, d->data, &fn, false);
	return 0;
}

/*
 * A probe per instance of the functions f names that the compiler
 * inlined, at the instance's entry, pp() naming the function's
 * declaration (DWARF has no symbol for an instance).
 */
static int add_inlines(struct elab *elab, const struct pp_match *m, Elf *elf, struct udwarf *dw,
		       const char *path, const struct func_spec *f, const char *suffix)
{
	struct arena *a = elab_arena(elab);
	bool more;
	struct udwarf_inline *list = udwarf_inlines(dw, a, f->name, &more);
	int added = 0;

	if (more)
		diag_warning(&m->pp->components->loc, "more than %d inlined instances of '%s' in "
			     "'%s': the first %d are probed", UDWARF_MAX_INLINES, f->name, path,
			     UDWARF_MAX_INLINES);
	for (struct udwarf_inline *i = list; i; i = i->next) {
		const char *where = i->name;
		struct derived_probe *d;
		uint64_t off, pc;

		if (!spec_matches(dw, f, i->fn.probe_addr, &i->fn, &pc) ||
		    sdt_file_offset(elf, i->fn.probe_addr, true, &off))
			continue;
		if (i->fn.decl_file)
			where = arena_printf(a, "%s@%s:%d", i->name, i->fn.decl_file, i->fn.decl_line);
		d = add_point(elab, m, arena_printf(a, "process(\"%s\").function(\"%s\")%s", path,
						 where, suffix), elf, path, off, i->fn.probe_addr, i->name);
		add_dwarf_vars(elab, d, d->data, &i->fn, false);
		added++;
	}
	return added;
}

/*
 * Where a .return probe's entry part reads the parameters and @entry
 * values: as SystemTap does (its PR14436), after the prologue in
 * unoptimized code, where fn's variables are located and the prologue
 * has stored the parameters into the frame (at the entry they are still
 * in registers, and their DWARF locations hold what the stack had), else
 * at the entry, addr, where the uretprobe is.  The part after the prologue
 * keys its call by the stack pointer at the entry, 8 below the CFA there;
 * without a CFA rule the parameters are read at the entry as before.
 */
static void return_entry_part(struct elab *elab, Elf *elf, struct udwarf *dw, struct uprobe_point *u,
			      const char *name, uint64_t addr, struct udwarf_func *fn)
{
	uint64_t off;

	if (fn->probe_addr != addr &&
	    (udwarf_cfa(dw, fn->probe_addr, &u->entry_cfa_reg, &u->entry_cfa_off) ||
	     sdt_file_offset(elf, fn->probe_addr, true, &off) || !off))
		udwarf_function_at(dw, elab_arena(elab), name, addr, addr, fn);
	else if (fn->probe_addr != addr)
		u->entry_offset = off;
	fn->probe_addr = addr;
}

/*
 * Add a probe per defined function of the symbol table matching f, and
 * with DWARF per inlined instance: suffix is the point's kind, "",
 * ".call", ".return", ".inline" or ".exported" (see the top).
 */
static int add_functions(struct elab *elab, const struct pp_match *m, Elf *elf, const char *path,
			 const char *file, const struct func_spec *f, const char *suffix,
			 bool is_return)
{
	bool inline_only = !strcmp(suffix, ".inline");
	bool exported = !strcmp(suffix, ".exported");
	const char *glob = f->name;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int added = 0;
	struct udwarf *dw = udwarf_open(elf, file, elab_session(elab)->opt.sysroot);
	Elf32_Word type;
	Elf *syms = udwarf_symbol_table(elf, dw, &type);

	udwarf_set_btf(dw, session_user_btf(elab_session(elab)));
	while (!inline_only && (scn = elf_nextscn(syms, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t off, vaddr;
			struct derived_probe *d;
			struct udwarf_func fn;
			const char *where;
			bool have_dwarf;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    (exported && GELF_ST_BIND(sym.st_info) == STB_LOCAL))
				continue;
			name = elf_strptr(syms, sh.sh_link, sym.st_name);
			/* NAME@VERSION: .symver's alias of a function listed by
			 * its own name, and not a name a probe point can spell */
			if (!name || strchr(name, '@') || fnmatch(glob, name, 0))
				continue;
			/* _start has no caller and no return address: a
			 * uretprobe there would read argc as one (SystemTap
			 * refuses it too); a wildcard skips it. */
			if (is_return && !strcmp(name, "_start")) {
				if (!strpbrk(glob, "*?["))
					elab_error(elab, m, "'_start' never returns: no .return probe "
						   "on it");
				continue;
			}
			/* With DWARF, an entry probe of unoptimized code goes after
			 * the prologue (as SystemTap places it), where the variables
			 * are stored. */
			/* a .return probe's parameters: at the entry, where
			 * its uretprobe is */
			if (f->has_offset) {
				if (add_offset(elab, m, elf, dw, path, f, name, &sym) < 0) {
					udwarf_close(dw);
					return -EINVAL;
				}
				added++;
				continue;
			}
			have_dwarf = dw && !udwarf_function(dw, elab_arena(elab), name, sym.st_value,
							    elab_session(elab)->opt.prologue_never, &fn);
			where = name;
			if (f->file) {
				/* By file and line: DWARF's, and SystemTap's pp() */
				uint64_t pc;

				if (!have_dwarf || !spec_matches(dw, f, sym.st_value, &fn, &pc))
					continue;
				if (f->statement)
					udwarf_function_at(dw, elab_arena(elab), name, sym.st_value, pc, &fn);
				where = arena_printf(elab_arena(elab), "%s@%s:%d", name, fn.decl_file,
						     f->statement ? f->line : fn.decl_line);
			} else if (have_dwarf && fn.decl_file) {
				/* pp() names the declaration, as SystemTap's does */
				where = arena_printf(elab_arena(elab), "%s@%s:%d", name, fn.decl_file,
						     fn.decl_line);
			}
			vaddr = have_dwarf && !is_return ? fn.probe_addr : sym.st_value;
			if (sdt_file_offset(elf, vaddr, true, &off))
				continue;
			d = add_point(elab, m, arena_printf(elab_arena(elab), "process(\"%s\").%s(\"%s\")%s",
							 path, f->statement ? "statement" : "function",
							 where, suffix), elf, path, off, vaddr, name);
			d->is_return = is_return;
			set_bounds(elf, d->data, &sym);
			if (have_dwarf && is_return)
				return_entry_part(elab, elf, dw, d->data, name, sym.st_value, &fn);
			if (have_dwarf)
				add_dwarf_vars(elab, d, d->data, &fn, is_return);
			added++;
		}
	}
	if (dw && (inline_only || !*suffix) && !f->has_offset && !f->statement)
		added += add_inlines(elab, m, elf, dw, path, f, suffix);
	udwarf_close(dw);
	return added;
}

/* process("P").statement(ADDR)'s address. */
static uint64_t statement_addr(const struct pp_match *m)
{
	for (int i = 0; i < m->ncomps; i++)
		if (!strcmp(m->comps[i]->name, "statement") && m->comps[i]->arg)
			return (uint64_t)m->comps[i]->arg->num;
	return 0;
}

/*
 * process("P").statement(ADDR): a probe at a link-time address inside a
 * function of the symbol table where an instruction starts, with the
 * function's variables as they are there when the program has DWARF.
 * pp() is the point as written.  1 if added, 0 if ADDR is in no
 * function, -EINVAL (error given) if it is inside an instruction.
 */
static int add_statement_addr(struct elab *elab, const struct pp_match *m, Elf *elf, const char *file,
			      const char *path)
{
	struct arena *a = elab_arena(elab);
	uint64_t addr = statement_addr(m), off;
	struct udwarf *dw;
	struct udwarf_func fn;
	struct derived_probe *d;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name = NULL;

	while (!name && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(data, i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    sym.st_shndx != SHN_UNDEF && addr >= sym.st_value &&
			    addr < sym.st_value + sym.st_size &&
			    (name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				break;
	}
	if (!name || sdt_file_offset(elf, addr, true, &off))
		return 0;
	dw = udwarf_open(elf, file, elab_session(elab)->opt.sysroot);
	if (!insn_starts(elab, m, elf, dw, name, &sym, addr)) {
		udwarf_close(dw);
		return -EINVAL;
	}
	d = add_point(elab, m, arena_printf(a, "process(\"%s\").statement(%#llx)", path,
					 (unsigned long long)addr), elf, path, off, addr, name);
	set_bounds(elf, d->data, &sym);
	udwarf_set_btf(dw, session_user_btf(elab_session(elab)));
	if (dw && !udwarf_function_at(dw, a, name, sym.st_value, addr, &fn))
		add_dwarf_vars(elab, d, d->data, &fn, false);
	udwarf_close(dw);
	d->symbol = NULL;	/* ppfunc() is "": the point names no function */
	return 1;
}

/* Add a probe per marker whose provider and name match. */
static int add_markers(struct elab *elab, const struct pp_match *m, Elf *elf, const char *path,
		       const char *provider, const char *glob)
{
	struct arena *a = elab_arena(elab);
	struct sdt_marker *list;
	__s32 long_id;
	int added = 0;

	if (!elab_btf(elab))
		return -EINVAL;
	long_id = session_long_type(elab_session(elab));
	sdt_markers(a, elf, &list);
	for (const struct sdt_marker *k = list; k; k = k->next) {
		struct derived_probe *d;
		struct uprobe_point *u;

		if (fnmatch(glob, k->name, 0) || (provider && fnmatch(provider, k->provider, 0)))
			continue;
		d = elab_add(elab, m, arena_printf(a, "process(\"%s\").mark(\"%s\")", path, k->name));
		d->process = path;
		/* pp() as SystemTap 4.8 gives it: the marker's address */
		d->pp = arena_printf(a, "process(\"%s\").statement(%#llx)", path,
				     (unsigned long long)k->address);
		u = new_point(elab, path, k->offset);
		u->sdt = k;
		d->data = u;
		for (int i = 0; i < k->nargs; i++)
			elab_add_var(elab, d, arena_printf(a, "$arg%d", i + 1), "long", long_id,
				     i)->parms_name = arena_printf(a, "$arg%d", i + 1);
		elab_add_var(elab, d, "$$name", "string", 0, SDT_NAME_ARG)->is_string = true;
		elab_add_var(elab, d, "$$provider", "string", 0, SDT_PROVIDER_ARG)->is_string = true;
		added++;
	}
	return added;
}

/* The argument of m's component named name ("function"), or NULL. */
static const char *comp_arg(const struct pp_match *m, const char *name)
{
	for (int i = 0; i < m->ncomps; i++)
		if (!strcmp(m->comps[i]->name, name) && m->comps[i]->arg &&
		    m->comps[i]->arg->kind == E_STRING)
			return m->comps[i]->arg->str;
	return NULL;
}

/*
 * process("PATH").plt("GLOB"): a probe on the PLT entry of each function
 * the file calls through its procedure linkage table, $$name the
 * function's name.  The Nth R_X86_64_JUMP_SLOT relocation of .rela.plt
 * is the Nth 16-byte entry of .plt.sec when the file has one (IBT), else
 * of .plt after its first (the resolver's) entry.  pp() is the entry's
 * address, as SystemTap 4.8 gives it.  .plt.return: a return probe there
 * (at the PLT entry the return address is the caller's, as at a
 * function's entry).
 */
static int add_plt(struct elab *elab, const struct pp_match *m, Elf *elf, const char *path,
		   const char *glob)
{
	bool is_return = strstr(m->pattern_text, ".return") != NULL;
	struct arena *a = elab_arena(elab);
	GElf_Shdr rela_sh, plt_sh, sym_sh;
	Elf_Scn *rela = sdt_section(elf, ".rela.plt", &rela_sh), *plt, *syms;
	Elf_Data *rdata, *sdata;
	uint64_t first;
	int added = 0;

	if (!rela || !rela_sh.sh_entsize)
		return 0;
	if ((plt = sdt_section(elf, ".plt.sec", &plt_sh)))
		first = plt_sh.sh_addr;
	else if ((plt = sdt_section(elf, ".plt", &plt_sh)))
		first = plt_sh.sh_addr + 16;
	else
		return 0;
	syms = elf_getscn(elf, rela_sh.sh_link);
	if (!syms || !gelf_getshdr(syms, &sym_sh))
		return 0;
	rdata = elf_getdata(rela, NULL);
	sdata = elf_getdata(syms, NULL);
	for (size_t i = 0; rdata && sdata && i < rela_sh.sh_size / rela_sh.sh_entsize; i++) {
		uint64_t addr = first + 16 * i, off;
		struct sdt_marker *k;
		struct derived_probe *d;
		struct uprobe_point *u;
		const char *name;
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(rdata, i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(sdata, GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(elf, sym_sh.sh_link, sym.st_name)) ||
		    (glob && fnmatch(glob, name, 0)) || addr + 16 > plt_sh.sh_addr + plt_sh.sh_size ||
		    sdt_file_offset(elf, addr, true, &off))
			continue;
		d = elab_add(elab, m, arena_printf(a, "process(\"%s\").plt(\"%s\")%s", path, name,
						   is_return ? ".return" : ""));
		d->process = path;
		d->is_return = is_return;
		d->pp = arena_printf(a, "process(\"%s\").statement(%#llx)%s", path,
				     (unsigned long long)addr, is_return ? ".return" : "");
		d->symbol = arena_strndup(a, name, strlen(name));
		k = arena_new(a, struct sdt_marker);
		k->provider = "";
		k->name = d->symbol;
		k->argspec = "PLT entry";
		u = new_point(elab, path, off);
		u->sdt = k;
		d->data = u;
		elab_add_var(elab, d, "$$name", "string", 0, SDT_NAME_ARG)->is_string = true;
		added++;
	}
	return added;
}

/* What follows .function("..."): "", ".call", ".return", ".inline", ".exported". */
static const char *function_kind(const struct pp_match *m)
{
	static const char *const kinds[] = { ".call", ".return", ".inline", ".exported" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(m->pattern_text, kinds[i]))
			return kinds[i];
	return "";
}

/*
 * The probes of m in one file: path as the target sees it, file where it
 * is read.  quiet: one of the files a path wildcard matched, which need
 * not have what m asks for (0, no error).
 */
static int resolve_file(struct elab *elab, const struct pp_match *m, const char *path,
			const char *file, bool quiet)
{
	const char *glob = comp_arg(m, "function");
	bool is_return = strstr(m->pattern_text, ".return") != NULL;
	int fd, added = quiet ? 0 : -EINVAL;
	const char *what = "function", *where = "symbol table";
	Elf *elf;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (quiet)
			return 0;
		elab_error(elab, m, "cannot open '%s': %s", file, strerror(errno));
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (!quiet)
			elab_error(elab, m, "'%s' is not an ELF file", file);
		goto out;
	}
	if (strstr(m->pattern_text, ".plt")) {
		glob = comp_arg(m, "plt");
		added = add_plt(elab, m, elf, path, glob);
		what = "PLT entry";
		where = ".rela.plt";
		glob = glob ? glob : "*";
	} else if (strstr(m->pattern_text, ".mark(")) {
		const char *provider = comp_arg(m, "provider");

		glob = comp_arg(m, "mark");
		added = add_markers(elab, m, elf, path, provider, glob);
		what = "marker";
		where = ".note.stapsdt notes";
	} else if (strstr(m->pattern_text, ".statement(number)")) {
		added = add_statement_addr(elab, m, elf, file, path);
		what = "function holding the address";
		glob = arena_printf(elab_arena(elab), "%#llx", (unsigned long long)statement_addr(m));
	} else {
		const char *kind = function_kind(m);
		struct func_spec f;
		bool statement = !glob;

		if (statement)
			glob = comp_arg(m, "statement");
		parse_spec(elab_arena(elab), glob, statement, &f);
		if (statement && (!f.file || !f.line) && !f.has_offset) {
			elab_error(elab, m, "a statement is FUNCTION@FILE:LINE or FUNCTION+OFFSET");
			added = -EINVAL;
			goto out;
		}
		added = add_functions(elab, m, elf, path, file, &f, kind, is_return);
		if (statement)
			what = "statement";
		if (f.file)
			where = "DWARF";
		if (!strcmp(kind, ".inline")) {
			what = "inlined instance of a function";
			where = "DWARF";
		} else if (!strcmp(kind, ".exported")) {
			what = "global function";
		}
	}
	if (!added && !quiet && is_return && !strcmp(glob, "_start")) {
		added = -EINVAL;	/* said why above */
	} else if (!added && !quiet) {
		elab_error(elab, m, "no %s '%s' in the %s of '%s'", what, glob, where, file);
		added = -EINVAL;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (added > 0)	/* its symbols for usymname() and user backtraces */
		usyms_add(elab_session(elab), path, file);
	return added;
}

/* process("/usr/lib/x86_64-linux-gnu/libssl.so.*"): every file the wildcard matches
 * (under --sysroot, there), as SystemTap expands it. */
static int resolve_wildcard(struct elab *elab, const struct pp_match *m, const char *pattern)
{
	const char *sysroot = elab_session(elab)->opt.sysroot;
	size_t skip = sysroot ? strlen(sysroot) : 0;
	glob_t g;
	int added = 0, files = 0;

	if (glob(arena_printf(elab_arena(elab), "%s%s", sysroot ? sysroot : "", pattern), 0, NULL, &g)) {
		elab_error(elab, m, "no file matches '%s'", pattern);
		return -EINVAL;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *file = g.gl_pathv[i];
		struct stat st;
		int r;

		if (stat(file, &st) || !S_ISREG(st.st_mode))
			continue;
		files++;
		r = resolve_file(elab, m, arena_printf(elab_arena(elab), "%s", file + skip), file, true);
		if (r > 0)
			added += r;
	}
	globfree(&g);
	if (!added) {
		bool mark = strstr(m->pattern_text, ".mark(") != NULL;
		bool plt = strstr(m->pattern_text, ".plt") != NULL;
		const char *what = comp_arg(m, mark ? "mark" : plt ? "plt" : "function");

		elab_error(elab, m, "none of the %d files matching '%s' has %s '%s'", files, pattern,
			   mark ? "marker" : plt ? "PLT entry" : "function", what ? what : "*");
		return -EINVAL;
	}
	return added;
}

/* The program of the -c command or of the -x process, for a
 * process.function(...) without a path, as the target sees it. */
static const char *target_program(struct elab *elab, const struct pp_match *m)
{
	struct session *s = elab_session(elab);
	char link[64], exe[4096];
	ssize_t n;

	if (s->opt.cmd) {
		size_t len = strcspn(s->opt.cmd, " \t");

		return process_target_path(elab, m, arena_strndup(elab_arena(elab), s->opt.cmd, len));
	}
	if (s->opt.target_pid && !s->opt.sysroot) {
		snprintf(link, sizeof(link), "/proc/%d/exe", s->opt.target_pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0)
			return arena_strndup(elab_arena(elab), exe, n);
		elab_error(elab, m, "cannot find the program of process %d: %s", s->opt.target_pid,
			   strerror(errno));
		return NULL;
	}
	elab_error(elab, m, "a process probe without a path needs the target program: -c CMD or -x PID");
	return NULL;
}

/* The probes of m in one file, path as the target names it. */
static int resolve_path(struct elab *elab, const struct pp_match *m, const char *path, bool quiet)
{
	const char *sysroot = elab_session(elab)->opt.sysroot;

	return resolve_file(elab, m, path, sysroot ? arena_printf(elab_arena(elab), "%s%s", sysroot, path)
					      : path, quiet);
}

/* process("PROG").library("LIB"): the probes in each library PROG needs
 * whose name (or path, if LIB is one) LIB matches; else LIB's own, if it
 * is a file's path, as SystemTap's (a library PROG dlopen()s). */
static int resolve_library(struct elab *elab, const struct pp_match *m, const char *prog,
			   const char *lib)
{
	struct session *s = elab_session(elab);
	const char *paths[USYMS_MAX_MODULES];
	const char *file = s->opt.sysroot ? arena_printf(elab_arena(elab), "%s%s", s->opt.sysroot, prog) : prog;
	int n = usyms_needed(s, file, paths, USYMS_MAX_MODULES), added = 0, libs = 0;

	for (int i = 0; i < n; i++) {
		const char *name = lib[0] == '/' ? paths[i] : strrchr(paths[i], '/') + 1;
		int r;

		if (fnmatch(lib, name, 0))
			continue;
		libs++;
		r = resolve_path(elab, m, paths[i], true);
		if (r > 0)
			added += r;
	}
	if (!libs && lib[0] == '/' && !strpbrk(lib, "*?[") &&
	    !access(s->opt.sysroot ? arena_printf(elab_arena(elab), "%s%s", s->opt.sysroot, lib) : lib,
		    R_OK))
		return resolve_path(elab, m, lib, false);
	if (!libs) {
		elab_error(elab, m, "'%s' needs no library matching '%s'", prog, lib);
		return -EINVAL;
	}
	if (!added) {
		elab_error(elab, m, "none of the %d libraries of '%s' matching '%s' has it", libs, prog,
			   lib);
		return -EINVAL;
	}
	return added;
}

/* Whether the point as written named its components by a wildcard. */
static bool written_wildcard(const struct pp_match *m)
{
	for (const struct pp_component *c = m->pp->components; c; c = c->next)
		if (strpbrk(c->name, "*?[{"))
			return true;
	return false;
}

/*
 * process(PID): the program the process runs, /proc/PID/exe, read when
 * the translator runs (SystemTap's way); under --sysroot DIR the link
 * is DIR/proc/PID/exe, a path as the target sees it.
 */
static const char *pid_program(struct elab *elab, const struct pp_match *m, long long pid)
{
	const char *sysroot = elab_session(elab)->opt.sysroot;
	char exe[PATH_MAX];
	ssize_t n;

	if (!process_pid(elab, m, pid))
		return NULL;
	n = readlink(arena_printf(elab_arena(elab), "%s/proc/%lld/exe", sysroot ? sysroot : "", pid),
		     exe, sizeof(exe) - 1);
	if (n <= 0) {
		elab_error(elab, m, "process(%lld): cannot find the program it runs: %s", pid,
			   strerror(errno));
		return NULL;
	}
	return process_target_path(elab, m, arena_strndup(elab_arena(elab), exe, n));
}

/*
 * process(PID).statement(ADDR).absolute (guru mode): a uprobe at a virtual
 * address of a running process, unchecked, no $vars; the runtime finds
 * the file mapped there when it arms the probe.
 */
static int resolve_absolute(struct elab *elab, const struct pp_match *m)
{
	uint64_t addr = statement_addr(m);
	struct derived_probe *d;
	struct uprobe_point *u;
	long long pid;

	if (!elab_session(elab)->opt.guru) {
		elab_error(elab, m, "probes at an absolute address need guru mode (stap -g)");
		return -EINVAL;
	}
	if (elab_session(elab)->opt.dyninst) {
		elab_error(elab, m, "probes at an absolute address are not available with "
			   "--runtime=dyninst");
		return -EINVAL;
	}
	pid = process_pid(elab, m, m->comps[0]->arg->num);
	if (!pid)
		return -EINVAL;	/* said why */
	d = elab_add(elab, m, arena_printf(elab_arena(elab), "process(%lld).statement(%#llx).absolute",
					pid, (unsigned long long)addr));
	u = new_point(elab, NULL, 0);
	u->pid = pid;
	u->abs_addr = addr;
	d->data = u;
	return 1;
}

/* The probes of m in path (or its library lib), each for process pid only. */
static int resolve_pid(struct elab *elab, const struct pp_match *m, const char *path,
		       const char *lib, long long pid)
{
	struct process_state *ps = process_state(elab);
	int added;

	ps->pid = pid;	/* new_point() gives it to each probe */
	added = lib ? resolve_library(elab, m, path, lib) : resolve_path(elab, m, path, false);
	ps->pid = 0;
	return added;
}

static int process_resolve(struct elab *elab, const struct pp_match *m)
{
	const char *name = comp_arg(m, "process"), *lib = comp_arg(m, "library");
	const struct pp_component *proc = m->comps[0];
	struct session *s = elab_session(elab);
	const char *path;

	if (strstr(m->pattern_text, ".absolute"))
		return resolve_absolute(elab, m);
	if (proc->arg && proc->arg->kind != E_STRING) {
		path = pid_program(elab, m, proc->arg->num);
		return path ? resolve_pid(elab, m, path, lib, proc->arg->num) : -EINVAL;
	}

	/* "probe **" means the path-less forms only if there is a target. */
	if (!name && !s->opt.cmd && !s->opt.target_pid && written_wildcard(m))
		return 0;

	if (name && name[0] == '/' && strpbrk(name, "*?[") && !lib)
		return resolve_wildcard(elab, m, name);
	path = name ? process_target_path(elab, m, name) : target_program(elab, m);
	if (!path)
		return -EINVAL;	/* said why */
	/* Without a path under -x PID: process(PID), as SystemTap makes it
	 * (under -c the pid is not known yet: every process of the program). */
	if (!name && !s->opt.cmd && s->opt.target_pid)
		return resolve_pid(elab, m, path, lib, s->opt.target_pid);
	if (lib)
		return resolve_library(elab, m, path, lib);
	return resolve_path(elab, m, path, false);
}

static const char *const arg_kinds[] = {
	[SDT_ARG_REG] = "CTAP_SDT_REG",
	[SDT_ARG_IMM] = "CTAP_SDT_IMM",
	[SDT_ARG_MEM] = "CTAP_SDT_MEM",
	[SDT_ARG_RIP] = "CTAP_SDT_RIP",
};

static const char *reg_offset(struct xlate *x, const char *member)
{
	return member ? arena_printf(x->a, "offsetof(struct pt_regs, %s)", member) : "-1";
}

/* Marker i's argument table and description: sdt_N. */
static void emit_marker(struct xlate *x, int i, const struct sdt_marker *k)
{
	emit_c(x, "/* %s:%s, arguments \"%s\" */\n", gen_c_comment(x->a, k->provider),
	       gen_c_comment(x->a, k->name), gen_c_comment(x->a, k->argspec));
	if (k->nargs > 0) {
		emit_c(x, "static const struct ctap_sdt_arg sdt_args_%d[] = {\n", i);
		for (int j = 0; j < k->nargs; j++) {
			const struct sdt_arg *g = &k->args[j];

			emit_c(x, "\t{ .kind = %s, .size = %d, .is_signed = %s, .shift = %d, "
			       ".reg_width = %d, .base = %s, .index = %s, .scale = %d, "
			       ".disp = %lldLL },\n",
			       arg_kinds[g->kind], g->size, g->is_signed ? "true" : "false", g->shift,
			       g->reg_width, reg_offset(x, g->base), reg_offset(x, g->index), g->scale,
			       (long long)g->disp);
		}
		emit_c(x, "};\n");
	}
	emit_c(x, "static const struct ctap_sdt sdt_%d = {\n\t.provider = %s,\n\t.name = %s,\n",
	       i, gen_c_string(x, k->provider), gen_c_string(x, k->name));
	if (k->nargs > 0)
		emit_c(x, "\t.args = sdt_args_%d,\n\t.nargs = %d,\n", i, k->nargs);
	if (k->nentry > 0)
		emit_c(x, "\t.nentry = %d,\n", k->nentry);
	emit_c(x, "};\n\n");
}

/* Whether an entry probe's arguments are each a whole register or a
 * constant (DWARF's usual case): a generated handler reads them. */
static bool direct_args(const struct derived_probe *d, const struct sdt_marker *k)
{
	if (d->is_return || !k)
		return false;
	for (int j = 0; j < k->nargs; j++) {
		const struct sdt_arg *g = &k->args[j];

		if (g->kind != SDT_ARG_IMM &&
		    (g->kind != SDT_ARG_REG || !g->base || g->shift || g->reg_width != 8))
			return false;
	}
	return true;
}

/* A register's value cut to size bytes, as sdt_arg_read() reads it. */
static const char *reg_cast(int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? "(long)(s8)" : "(u8)";
	case 2:
		return is_signed ? "(long)(s16)" : "(u16)";
	case 4:
		return is_signed ? "(long)(s32)" : "(u32)";
	}
	return "";
}

/* The variable a probe reads as argument j, for a comment. */
static const char *arg_name(const struct derived_probe *d, int j)
{
	for (const struct probe_var *v = d->vars; v; v = v->next)
		if (v->arg == j && !v->unavailable)
			return v->name;
	return "";
}

/* Whether d's handler may read $$name and $$provider (a .mark). */
static bool has_marker_names(const struct derived_probe *d)
{
	for (const struct probe_var *v = d->vars; v; v = v->next)
		if (v->arg == SDT_NAME_ARG || v->arg == SDT_PROVIDER_ARG)
			return true;
	return false;
}

/*
 * Probe i's own entry handler: each variable read in one statement from
 * the registers (what the runtime's table walk in sdt_hit() would do,
 * without the walk: a third of a uprobe's handler cost).
 */
static void emit_direct_handler(struct xlate *x, int i, const struct derived_probe *d,
				const struct uprobe_point *u)
{
	const struct sdt_marker *k = u->sdt;

	emit_c(x, "/* %s: its variables straight from the registers */\n",
	       gen_c_comment(x->a, d->name));
	emit_c(x, "static __no_stack_protector int uprobe_hit_%d(struct uprobe_consumer *uc, "
	       "struct pt_regs *regs)\n{\n", i);
	emit_c(x, "\tunsigned long args[CTAP_SDT_ARGS] __uninitialized;\n\n");
	if (u->pid)
		emit_c(x, "\tif (task_tgid_nr(current) != %lld)\t/* process(%lld) only */\n"
		       "\t\treturn UPROBE_HANDLER_REMOVE;\n", u->pid, u->pid);
	for (int j = 0; j < k->nargs; j++) {
		const struct sdt_arg *g = &k->args[j];

		if (g->kind == SDT_ARG_IMM)
			emit_c(x, "\targs[%d] = (unsigned long)%lldLL;\t/* %s */\n", j,
			       (long long)g->disp, gen_c_comment(x->a, arg_name(d, j)));
		else
			emit_c(x, "\targs[%d] = %sregs->%s;\t/* %s */\n", j,
			       reg_cast(g->size, g->is_signed), g->base, gen_c_comment(x->a, arg_name(d, j)));
	}
	/* only a marker has $$name and $$provider to pass */
	emit_c(x, "\tctap_uprobe_run%s(&uprobes[%d], regs, args);\n\treturn 0;\n}\n\n",
	       has_marker_names(d) ? "" : "_unnamed", i);
}

static void process_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_uprobe uprobes[%d];\n\n", n);
	for (int i = 0; i < n; i++) {
		const struct uprobe_point *u = d[i]->data;

		if (u->sdt)
			emit_marker(x, i, u->sdt);
		if (direct_args(d[i], u->sdt))
			emit_direct_handler(x, i, d[i], u);
	}
	emit_c(x, "static struct ctap_uprobe uprobes[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct uprobe_point *u = d[i]->data;
		const char *entry, *size;

		emit_c(x, "\t{\n\t\t.probe = %s,\n", emit_probe_ref(x, d[i]));
		if (u->abs_addr)
			emit_c(x, "\t\t.abs_addr = %#llx,\n", (unsigned long long)u->abs_addr);
		else
			emit_c(x, "\t\t.path = %s,\n\t\t.offset = %#llx,\n", gen_c_string(x, u->path),
			       (unsigned long long)u->offset);
		if (u->vaddr)
			emit_c(x, "\t\t.vaddr = %#llx,\n", (unsigned long long)u->vaddr);
		if (u->pid)
			emit_c(x, "\t\t.pid = %lld,\n", u->pid);
		if (u->bias_at_entry)
			emit_c(x, "\t\t.bias_at_entry = true,\n");
		if (u->sdt)
			emit_c(x, "\t\t.sdt = &sdt_%d,\n\t\t.ref_ctr_offset = %#llx,\n", i,
			       (unsigned long long)u->sdt->semaphore_offset);
		if (d[i]->is_return)
			emit_c(x, "\t\t.is_return = true,\n");
		if (u->entry_offset)
			emit_c(x, "\t\t.entry_offset = %#llx,\t/* after the prologue */\n"
			       "\t\t.entry_cfa_reg = %s,\n\t\t.entry_cfa_off = %lld,\n",
			       (unsigned long long)u->entry_offset, reg_offset(x, u->entry_cfa_reg),
			       (long long)u->entry_cfa_off);
		if (direct_args(d[i], u->sdt))
			emit_c(x, "\t\t.handler = uprobe_hit_%d,\n", i);
		if ((entry = emit_entry_probe(x, d[i], &size)))
			emit_c(x, "\t\t.entry_probe = %s,\n\t\t.saved_size = %s,\n", entry, size);
		if (x->s->opt.dyninst && u->func_size)
			emit_c(x, "\t\t.func_vaddr = %#llx,\n\t\t.func_size = %llu,\n",
			       (unsigned long long)u->func_vaddr, (unsigned long long)u->func_size);
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "uprobes", "ctap_uprobes_register", "ctap_uprobes_unregister");
	/* --runtime=dyninst: the table goes into each target process from
	 * there, when the module is loaded (dyn-runtime/uprobes.c); first of
	 * the module's constructors, before the one that arms it. */
	if (x->s->opt.dyninst)
		emit_c(x, "__attribute__((constructor(101))) static void uprobes_table(void)\n{\n"
		       "\tctap_dyn_uprobes_table(uprobes, ARRAY_SIZE(uprobes));\n}\n\n");
}

/*
 * @var("NAME[@CU]") in a process probe: the program's global from its
 * DWARF, read from user memory.  A program linked at a fixed address has
 * it at its link-time address; a PIE or a library where it is loaded,
 * the link-time address plus the load bias the runtime passes (the
 * probe's address at the hit less its link-time one; a .return probe,
 * which hits in the caller, takes it at the entry).
 */
static int process_global_var(struct session *s, const struct derived_probe *d,
			      const char *spec, struct global_var *out)
{
	const struct uprobe_point *u = d->data;
	const char *file = !u->path || !s->opt.sysroot ? u->path :
			   arena_printf(&s->arena, "%s%s", s->opt.sysroot, u->path);
	const char *at = strchr(spec, '@');
	const char *name = at ? arena_strndup(&s->arena, spec, at - spec) : spec;
	int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1, ret = -ENOENT;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	struct udwarf *dw = elf ? udwarf_open(elf, file, s->opt.sysroot) : NULL;
	GElf_Ehdr eh;

	memset(out, 0, sizeof(*out));
	if (!u->path) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): a probe at an absolute address "
					"has no program to read it from", spec);
	} else if (!dw) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): '%s' has no DWARF", spec, u->path);
	} else if (!gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): '%s' is not a program or a "
					"library", spec, u->path);
	} else if (eh.e_type == ET_DYN && (!u->vaddr || !u->sdt)) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): '%s' is position-independent; ctap "
					"finds where it is loaded in probes of functions with DWARF, "
					"not in this one", spec, u->path);
	} else {
		/* A .return hits in the caller: where the file is loaded is
		 * taken at the function's entry, kept for its return. */
		if (eh.e_type == ET_DYN && d->is_return)
			((struct uprobe_point *)u)->bias_at_entry = true;
		out->load_biased = eh.e_type == ET_DYN;
		out->bias_arg = SDT_BIAS_ARG;
		udwarf_set_btf(dw, session_user_btf(s));
		ret = udwarf_global(dw, name, at ? at + 1 : NULL, &out->addr, &out->type);
		if (ret)
			out->why = arena_printf(&s->arena, "@var(\"%s\"): no global '%s' in the DWARF "
						"of '%s'", spec, name, u->path);
		else if (!out->type)
			out->why = arena_printf(&s->arena, "@var(\"%s\"): a type ctap cannot read",
						spec);
		out->btf = s->user_btf;
	}
	udwarf_close(dw);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return out->why ? -EINVAL : 0;
}

const struct provider process_provider = {
	.name = "process",
	.family = "CTAP_FAMILY_UPROBE",
	.patterns = patterns,
	.runtime = "probes/uprobes",
	.user = true,		/* dyn-runtime/uprobes.c */
	.resolve = process_resolve,
	.emit = process_emit,
	.global_var = process_global_var,
};
