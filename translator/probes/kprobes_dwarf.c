// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_dwarf.c - kprobes placed by the kernel's DWARF (kdwarf.h), when
 * it is installed: kernel.function("PATTERN@FILE"), kernel.statement(
 * "FUNC@FILE:LINE") with the locals in scope, .label("L"), inlined
 * instances, .callee("G")/.callees(N), module("M").function/statement by
 * file and line, and @var("NAME@FILE") for a kernel static.  The probes
 * are the kprobes family's (kprobes.h): the runtime arms them as any other.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "kbtf.h"
#include "kdwarf.h"
#include "kmodules.h"
#include "kprobes.h"
#include "ksyms.h"
#include "sem.h"
#include "session.h"
#include "unprobeable.h"
#include "xalloc.h"

/* The session's kernel DWARF: opened on first use, then kept. */
#define MAX_MODULE_DWARF	16

struct kdwarf_state {
	struct kdwarf *k;
	const char *bad;	/* a file that has no usable DWARF, or NULL */
	bool tried;
	/* modules' DWARF (module("M").statement), opened as named */
	struct kdwarf *mods[MAX_MODULE_DWARF];
	const char *modnames[MAX_MODULE_DWARF];
	int nmods;
};

/* The target kernel's DWARF, or NULL: opened once per session. */
static struct kdwarf_state *open_dwarf(struct elab *elab)
{
	void **slot = elab_provider_state(elab, &kernel_statement_provider);
	const struct session *s = elab_session(elab);
	struct kdwarf_state *st = *slot;

	if (!st)
		*slot = st = arena_new(elab_arena(elab), struct kdwarf_state);
	if (!st->tried) {
		st->tried = true;
		st->k = kdwarf_open(s->opt.kernel_release, s->opt.kernel_build,
				    s->opt.kernel_debuginfo, &st->bad);
	}
	return st;
}

bool kprobes_have_dwarf(struct elab *elab)
{
	return open_dwarf(elab)->k != NULL;
}

void kprobes_dwarf_release(void *state)
{
	struct kdwarf_state *st = state;

	kdwarf_close(st->k);
	for (int i = 0; i < st->nmods; i++)
		kdwarf_close(st->mods[i]);
}

/*
 * The target kernel's DWARF for probe point glob, or NULL after an error
 * saying what to install (what: why the point needs it).
 */
static struct kdwarf *kernel_dwarf(struct elab *elab, const struct pp_match *m, const char *glob,
				   const char *what)
{
	struct kdwarf_state *st = open_dwarf(elab);
	const char *rel = elab_session(elab)->opt.kernel_release;

	if (st->k)
		return st->k;
	if (st->bad)
		elab_error(elab, m, "'%s': %s; %s is not the DWARF of kernel %s (install "
			   "linux-image-%s-dbg, or give --kernel-debuginfo=DIR)", glob, what,
			   st->bad, rel, rel);
	else
		elab_error(elab, m, "'%s': %s; none is installed for kernel %s (install "
			   "linux-image-%s-dbg, or give --kernel-debuginfo=DIR); ctap knows kernel "
			   "functions by name (BTF and the symbol table)", glob, what, rel, rel);
	return NULL;
}

/* "FUNC@FILE[:LINE[-LINE2]|:*]" */
struct kline_spec {
	const char *func, *file;
	int line1, line2;	/* 0: no line; 1 to INT_MAX: ":*" */
};

static bool parse_kline(struct elab *elab, const struct pp_match *m, const char *arg,
			struct kline_spec *k)
{
	const char *at = strchr(arg, '@'), *colon;
	char *end;

	memset(k, 0, sizeof(*k));
	if (!at || at == arg) {
		elab_error(elab, m, "'%s': expected FUNCTION@FILE[:LINE]", arg);
		return false;
	}
	k->func = arena_strndup(elab_arena(elab), arg, at - arg);
	colon = strchr(at, ':');
	k->file = colon ? arena_strndup(elab_arena(elab), at + 1, colon - at - 1) : at + 1;
	if (!colon)
		return true;
	if (!strcmp(colon + 1, "*")) {
		k->line1 = 1;
		k->line2 = 1 << 20;
		return true;
	}
	errno = 0;
	k->line1 = strtol(colon + 1, &end, 10);
	k->line2 = *end == '-' ? strtol(end + 1, &end, 10) : k->line1;
	if (*end || errno || k->line1 < 1 || k->line2 < k->line1 || k->line2 >= 1 << 20) {
		elab_error(elab, m, "'%s': expected a line, LINE-LINE or *", arg);
		return false;
	}
	return true;
}

struct kline_walk {
	struct elab *elab;
	const struct pp_match *m;
	const struct kline_spec *k;
	struct udwarf *dw;
	const struct ksyms *ks;
	struct btf *btf;
	const __u32 *pointers;
	const char *cu;			/* the CU being walked */
	const struct udwarf_cufunc *f;	/* the function being walked */
	const struct udwarf_cufunc *in;	/* f an inlined instance: the function it is in */
	const struct ksym *sym;		/* the symbol of the code: f's, or in's */
	bool statement, wild, is_return;
	bool inline_only;		/* .inline: the inlined instances alone */
	bool exported;			/* .exported: global functions alone, no instance */
	const char *label;		/* .label("L"): L, a glob */
	const char *callee;		/* .callee("G"): G, a glob; .callees: "*" */
	int depth;			/* .callees(N): N */
	struct udwarf_cufunc top;	/* .callee: the function whose code is walked, */
	const struct udwarf_cufunc *caller;	/* the function or instance walked in it */
	const char *suffix;
	int64_t maxactive;
	int added, skipped, lines;
	const char *inline_why;		/* why an inlined instance was refused */
	const char *module;		/* module("M").statement: M, else NULL */
	struct kdwarf *kd;		/* the DWARF walked */
};

/* A DWARF type as the kernel's BTF has it ("struct file*", its qualifiers
 * dropped): its id, or 0. */
static __u32 btf_ctype(struct btf *btf, const __u32 *pointers, const char *type)
{
	static const char *const quals[] = { " const", " volatile" };
	char buf[256], *p;
	__u32 id;

	snprintf(buf, sizeof(buf), "%s", type);
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(quals[i]);

		/* the word alone: "char const*", not "struct constraint" */
		for (p = buf; (p = strstr(p, quals[i]));)
			if (p[n] == '_' || isalnum((unsigned char)p[n]))
				p += n;
			else
				memmove(p, p + n, strlen(p + n) + 1);
	}
	return !kbtf_find_ctype(btf, pointers, buf, &id) ? id : 0;
}

/* A DWARF type as the kernel's BTF has it, else long. */
static __u32 kernel_type(struct kline_walk *w, const char *type)
{
	__u32 id = btf_ctype(w->btf, w->pointers, type);

	return id ? id : (__u32)session_long_type(elab_session(w->elab));
}

/*
 * d's variables, as the DWARF gives them where it reads them: each read
 * at the hit into the handler's arguments (kp->locs).  A static's
 * DW_OP_addr is a distance from where the DWARF was read; the runtime
 * counts it from the probe's address, skip bytes before.
 */
static void add_dwarf_vars(struct kline_walk *w, struct derived_probe *d,
			   const struct udwarf_var *vars, int64_t skip)
{
	struct kprobe_point *kp = d->data;

	for (const struct udwarf_var *u = vars; u; u = u->next) {
		const char *name = arena_printf(elab_arena(w->elab), "$%s", u->name);
		struct probe_var *v;

		if (sem_probe_var(d, name))
			continue;	/* the innermost of a name comes first */
		v = elab_add_var(w->elab, d, name, u->type, kernel_type(w, u->type), kp->nlocs);
		v->is_local = !u->is_param;
		v->unavailable = u->at_address ? NULL : u->why;
		/* a DW_OP_addr static: its distance from the code is libdwfl's
		 * layout of the relocatable .ko, not where the kernel loads it */
		if (!v->unavailable && w->module && u->loc.kind == SDT_ARG_RIP) {
			v->unavailable = "a module's data is not at a fixed distance from its code";
			v->unlisted = true;	/* SystemTap's -L lists what it reads */
		}
		if (!v->unavailable && kp->nlocs == SDT_MAX_ARGS)
			v->unavailable = "one variable too many (ctap reads 12 per statement)";
		if (v->unavailable)
			continue;
		kp->locs[kp->nlocs] = u->loc;
		if (u->loc.kind == SDT_ARG_RIP)
			kp->locs[kp->nlocs].disp += skip;
		/* a structure on the stack: its address, for its members */
		kp->addr_of[kp->nlocs] = v->arg_is_address = u->at_address;
		kp->nlocs++;
	}
}

/* A probe called name at addr in the walk's function (w->f, inlined in
 * w->in if not NULL), with the variables DWARF gives there. */
static struct derived_probe *add_dwarf_probe(struct kline_walk *w, const char *name,
					     uint64_t addr)
{
	struct arena *a = elab_arena(w->elab);
	struct udwarf_func fn;
	struct derived_probe *d;
	struct kprobe_point *kp;
	uint64_t entry = w->in ? w->in->entry : w->f->entry;

	/* (a line in another part of the function, its .cold one: not placed) */
	if (addr < entry || (w->sym->size && addr - entry >= w->sym->size))
		return NULL;
	d = elab_add(w->elab, w->m, name);
	kp = arena_new(a, struct kprobe_point);
	d->symbol = w->sym->name;
	d->data = kp;
	kp->module = w->module;
	kp->offset = addr - entry;
	kp->link_addr = w->module ? 0 : addr;
	kp->optional = w->wild || (d->written && d->written->optional);
	w->added++;
	if (w->in ? udwarf_inline_at(w->dw, a, w->in->die, w->f->die, addr, !w->statement, &fn) :
		    udwarf_function_at(w->dw, a, w->f->name, w->f->entry, addr, &fn))
		return d;
	add_dwarf_vars(w, d, fn.vars, 0);
	return d;
}

static int add_statement(void *arg, int line, uint64_t addr)
{
	struct kline_walk *w = arg;

	w->lines++;
	add_dwarf_probe(w, arena_printf(elab_arena(w->elab), "%s.statement(\"%s@%s:%d\")",
					w->module ? arena_printf(elab_arena(w->elab),
								 "module(\"%s\")", w->module) :
						    "kernel", w->f->name, w->cu, line), addr);
	return 0;
}

/*
 * Why code of function name (declared in file, in function in of the CU
 * walked if inlined there) may not be probed, or NULL with *sym the
 * symbol a kprobe goes by: the refusal lists apply to both names and
 * both files, and the kprobe needs a symbol of one name.
 */
static const char *kline_refused(struct kline_walk *w, const char *name, const char *in,
				 const char *file, const struct ksym **sym)
{
	const char *code = in ? in : name;
	const char *why = elab_unprobeable(w->elab, name, w->is_return);

	if (!why && in)
		why = elab_unprobeable(w->elab, in, false);
	if (!why)
		why = unprobeable_file_why(w->cu);
	if (!why)
		why = unprobeable_file_why(file);
	if (w->module) {	/* a module's function: its DWARF file's symbol */
		struct ksym *m = arena_new(elab_arena(w->elab), struct ksym);

		m->name = code;
		m->size = kdwarf_func_size(w->kd, code, &m->copies);
		*sym = m->size ? m : NULL;
	} else {
		*sym = w->ks ? ksyms_find(w->ks, code) : NULL;
	}
	if (!why && *sym && (*sym)->why)
		why = (*sym)->why;
	if (!why && !*sym)
		why = in ? arena_printf(elab_arena(w->elab), "%s, which it is inlined in, has no "
					"symbol of its own", in) :
			   "it has no symbol of its own (inlined, or a compiler's clone)";
	if (!why && (*sym)->copies > 1)
		why = arena_printf(elab_arena(w->elab), "%d %s are called %s, and ctap places "
				   "kprobes by name", (*sym)->copies,
				   w->module ? arena_printf(elab_arena(w->elab), "functions of module %s",
							    w->module) : "kernel functions", code);
	return why;
}

/* A label's probe: -L and pn() name its label, pp() does not (SystemTap
 * 4.8's is the function at the label's line: kernel.function("F@FILE:N")). */
static int add_label(void *arg, const char *name, uint64_t addr, int line)
{
	struct kline_walk *w = arg;
	struct arena *a = elab_arena(w->elab);
	const char *at = arena_printf(a, "kernel.function(\"%s@%s:%d\")", w->f->name, w->cu, line);
	struct derived_probe *d;

	d = add_dwarf_probe(w, arena_printf(a, "%s.label(\"%s\")", at, name), addr);
	if (d) {
		d->pn = d->pn ? d->pn : d->name;	/* pnlabel() reads it there */
		d->pp = at;
	}
	return 0;
}

/* The function probes' family: kernel.function, or module("M").function. */
static const char *kline_family(const struct kline_walk *w)
{
	return w->module ? arena_printf(elab_arena(w->elab), "module(\"%s\").function", w->module) :
			   "kernel.function";
}

/* The statement probes of f's lines (code inlined in in, if in). */
static void add_kline_lines(struct kline_walk *w, const struct udwarf_cufunc *f,
			    const struct udwarf_cufunc *in, const struct ksym *sym)
{
	int lo = w->k->line1, hi = w->k->line2;

	w->f = f;
	w->in = in;
	w->sym = sym;
	if (hi == 1 << 20 && f->decl_line > 0)	/* ":*": the function's own lines */
		lo = f->decl_line, hi = f->decl_line + 65535;
	udwarf_func_lines(w->dw, f->die, w->k->file, lo, hi, add_statement, w);
}

/* An inlined instance of a function the point names: its lines' probes. */
static int add_kline_inline(void *arg, const struct udwarf_cufunc *f,
			    const struct udwarf_cufunc *in)
{
	struct kline_walk *w = arg;
	const struct ksym *sym;

	if (f->decl_file && !udwarf_file_matches(w->k->file, f->decl_file))
		return 0;	/* a header's function inlined into this file */
	if ((w->inline_why = kline_refused(w, f->name, in->name, f->decl_file, &sym))) {
		w->inline_why = arena_printf(elab_arena(w->elab), "inlined in %s: %s", in->name,
					     w->inline_why);
		w->skipped++;
		return 0;
	}
	if (w->label) {		/* an instance's labels are its function's */
		w->f = f;
		w->in = in;
		w->sym = sym;
		udwarf_func_labels(w->dw, f->die, w->label, add_label, w);
		return 0;
	}
	if (w->statement) {
		add_kline_lines(w, f, in, sym);
		return 0;
	}
	/* kernel.function: a probe at the instance's entry, as SystemTap's
	 * (not .call, and no .return: an instance does not return), named
	 * by the file that declares it (a header's, for a header's function) */
	const char *file = udwarf_decl_file(w->dw, f->die);

	w->f = f;
	w->in = in;
	w->sym = sym;
	add_dwarf_probe(w, arena_printf(elab_arena(w->elab), "%s(\"%s@%s:%d\")%s", kline_family(w),
					f->name, file ? file : w->cu, f->decl_line, w->suffix),
			f->entry);
	return 0;
}

/*
 * .callee: a probe at a callee's entry (an instance inlined in w->top,
 * perhaps through the instances between: caller), named by its caller
 * and itself as SystemTap names it, with its variables there.
 */
static int add_callee(void *arg, const struct udwarf_cufunc *callee,
		      const struct udwarf_cufunc *caller)
{
	struct kline_walk *w = arg;
	struct arena *a = elab_arena(w->elab);
	const struct ksym *sym;
	struct derived_probe *d;
	const char *file;

	if (kline_refused(w, callee->name, w->top.name, callee->decl_file, &sym)) {
		w->skipped++;
		return UDWARF_PRUNE;
	}
	if (!caller) {
		caller = w->caller;
		file = udwarf_decl_file(w->dw, caller->die);
	} else {
		file = caller->decl_file;
	}
	w->f = callee;
	w->in = &w->top;
	w->sym = sym;
	d = add_dwarf_probe(w, arena_printf(a, "kernel.function(\"%s@%s:%d\").callee(\"%s@%s:%d\")",
					    caller->name, file ? file : w->cu, caller->decl_line,
					    callee->name, callee->decl_file, callee->decl_line),
			    callee->entry);
	/* pp() is the callee's own point, as SystemTap's (-L shows the derivation) */
	if (d)
		d->pp = arena_printf(a, "kernel.function(\"%s@%s:%d\")", callee->name,
				     callee->decl_file, callee->decl_line);
	return 0;
}

/* .callee in an instance of a function the point names, inlined in in. */
static int add_callee_inline(void *arg, const struct udwarf_cufunc *f,
			     const struct udwarf_cufunc *in)
{
	struct kline_walk *w = arg;

	if (w->k->file && f->decl_file && !udwarf_file_matches(w->k->file, f->decl_file))
		return 0;	/* a header's function inlined into this file */
	if (elab_unprobeable(w->elab, f->name, false)) {
		w->skipped++;
		return 0;
	}
	w->top = *in;
	w->caller = f;
	return udwarf_func_callees(w->dw, f->die, w->callee, w->depth, add_callee, w);
}

/* Whether a handler (the probe's body and its aliases') names a local of
 * vars: $name, or $$vars/$$locals. */
struct local_use {
	const struct udwarf_var *vars;
	bool used;
};

static void local_used(struct expr *e, void *arg)
{
	struct local_use *u = arg;

	if (e->kind != E_TARGET || !e->name || e->name[0] != '$')
		return;
	if (!strcmp(e->name, "$$vars") || !strcmp(e->name, "$$locals"))
		u->used = true;
	for (const struct udwarf_var *v = u->vars; v && !u->used; v = v->next)
		u->used = !v->is_param && (!v->why || v->at_address) &&
			  !strcmp(e->name + 1, v->name);
}

static bool handler_uses_local(const struct derived_probe *d, const struct udwarf_var *vars)
{
	struct local_use u = { .vars = vars };

	if (d->probe)
		ast_walk_stmt(d->probe->body, local_used, &u);
	for (int i = 0; i < d->naliases && !u.used; i++) {
		ast_walk_stmt(d->aliases[i]->body, local_used, &u);
		ast_walk_stmt(d->aliases[i]->epilogue, local_used, &u);
	}
	return u.used;
}

/*
 * A kernel.function entry probe placed by the DWARF (f): its variables
 * where the DWARF reads them (kdwarf_entry_pc), as SystemTap 4.8 lists and
 * reads them.  A handler that reads a local live there ($op in
 * do_sys_openat2) gets them all from the DWARF, read at the hit as a
 * statement's (a kprobe, not ftrace); any other keeps BTF's parameters,
 * read from the registers (the probe stays on ftrace), with the locals
 * listed but not read, -L naming the types as the DWARF does.  Either
 * way @var reads statics there (kp->link_addr).
 */
static void entry_vars(struct kline_walk *w, struct derived_probe *d,
		       const struct udwarf_cufunc *f)
{
	uint64_t pc = kdwarf_entry_pc(w->kd, f->entry);
	struct kprobe_point *kp = d->data;
	const struct udwarf_var *u;
	struct udwarf_func fn;

	kp->link_addr = w->module ? 0 : f->entry;	/* (a module's data moves apart) */
	if (udwarf_function_at(w->dw, elab_arena(w->elab), f->name, f->entry, pc, &fn))
		return;
	if (handler_uses_local(d, fn.vars)) {
		d->vars = NULL;
		add_dwarf_vars(w, d, fn.vars, (int64_t)(pc - f->entry));
		return;
	}
	for (struct probe_var *v = d->vars; v; v = v->next)
		for (u = fn.vars; u; u = u->next)
			if (!strcmp(v->name + 1, u->name))
				v->type = u->type;
	for (u = fn.vars; u; u = u->next) {
		const char *name = arena_printf(elab_arena(w->elab), "$%s", u->name);
		struct probe_var *v;

		if (u->is_param || sem_probe_var(d, name))
			continue;
		v = elab_add_var(w->elab, d, name, u->type, kernel_type(w, u->type), 0);
		v->is_local = true;
		v->unavailable = u->why && !u->at_address ? u->why :
				 "not read: the handler names no local";
	}
}

/*
 * Whether function name is what SystemTap's .exported calls exported: a
 * global (or weak) function symbol of the kernel's (or module's) own
 * symbol table, not the EXPORT_SYMBOL list (4.8's .exported has vfs_read,
 * which 6.1 no longer exports to modules).
 */
static bool kline_global(struct kline_walk *w, const char *name)
{
	const struct ksym *sym;

	if (w->module)
		return kdwarf_func_global(w->kd, name);
	sym = w->ks ? ksyms_find(w->ks, name) : NULL;
	return sym && sym->global;
}

/* One function of a CU the file names: its probe, or its lines' probes. */
static int add_kline_func(void *arg, const struct udwarf_cufunc *f)
{
	struct kline_walk *w = arg;
	const struct ksym *sym;
	const char *why;

	if (w->exported && !kline_global(w, f->name))
		return 0;	/* a static function: not .exported's, not refused */
	why = kline_refused(w, f->name, NULL, f->decl_file, &sym);
	if (why) {
		w->skipped++;
		if (!w->wild)
			elab_error(w->elab, w->m, "kernel function '%s' cannot be probed: %s",
				   f->name, why);
		return 0;
	}
	if (w->label) {
		w->f = f;
		w->in = NULL;
		w->sym = sym;
		udwarf_func_labels(w->dw, f->die, w->label, add_label, w);
		return 0;
	}
	if (w->callee) {
		w->top = *f;
		w->caller = f;
		udwarf_func_callees(w->dw, f->die, w->callee, w->depth, add_callee, w);
		return 0;
	}
	if (w->statement) {
		add_kline_lines(w, f, NULL, sym);
		return 0;
	}
	/* named as SystemTap names it: by its file and line */
	const char *name = arena_printf(elab_arena(w->elab), "%s@%s:%d", f->name,
					f->decl_file ? w->cu : "", f->decl_line);
	struct derived_probe *d = kprobes_add_probe(w->elab, w->m, kline_family(w), name,
						    w->suffix, w->is_return, w->maxactive, 0, w->wild);
	struct kbtf_name *bf = NULL;

	d->symbol = sym->name;
	((struct kprobe_point *)d->data)->module = w->module;
	if (kbtf_funcs(w->btf, f->name, &bf) == 1)
		kprobes_add_vars(w->elab, d, w->btf, bf[0].id, w->is_return);
	free(bf);
	if (!w->is_return)
		entry_vars(w, d, f);
	w->added++;
	return 0;
}

static int walk_cu(void *arg, uint64_t die, const char *name)
{
	struct kline_walk *w = arg;

	int ret;

	w->cu = name;
	/* .inline: the instances alone; .call, .exported, .return: the
	 * functions alone (an instance is not called, is no symbol, and
	 * does not return), as SystemTap's */
	ret = w->inline_only ? 0 : udwarf_cu_funcs(w->dw, die, w->k->func, add_kline_func, w);
	if (!ret && w->callee)
		ret = udwarf_cu_inlines(w->dw, die, w->k->func, add_callee_inline, w);
	else if (!ret && (w->statement || (!w->is_return && !w->exported &&
					   !strstr(w->suffix, ".call"))))
		ret = udwarf_cu_inlines(w->dw, die, w->k->func, add_kline_inline, w);
	return ret;
}

/*
 * What a walk of the kernel's DWARF for w->m starts with: F of k not
 * refused by name, the DWARF (else an error saying what needs it: what),
 * BTF, the symbols.  The DWARF, or NULL after an error.
 */
static struct kdwarf *kline_walk_start(struct kline_walk *w, const struct kline_spec *k,
				       const char *arg, const char *what)
{
	struct elab *elab = w->elab;
	struct kdwarf *kd;
	const char *why;

	if (!strpbrk(k->func, "*?[") && (why = elab_unprobeable(elab, k->func, false))) {
		elab_error(elab, w->m, "kernel function '%s' cannot be probed: %s", k->func, why);
		return NULL;
	}
	kd = kernel_dwarf(elab, w->m, arg, what);
	w->btf = elab_btf(elab);
	if (!kd || !w->btf)
		return NULL;
	w->k = k;
	w->kd = kd;
	w->dw = kdwarf_dwarf(kd);
	w->ks = session_ksyms(elab_session(elab));
	w->pointers = kbtf_pointer_index(elab_arena(elab), w->btf);
	return kd;
}

bool kprobes_suffix_wild(const struct pp_match *m)
{
	const struct pp_component *c = m->pp->components;

	for (int i = 0; c; c = c->next, i++)
		if (i >= 2 && strpbrk(c->name, "*?["))
			return true;
	return false;
}

/*
 * kernel.function("FUNC@FILE") and kernel.statement("FUNC@FILE:LINE"),
 * FUNC and FILE globs, LINE a line, LINE-LINE or *: the functions defined
 * in the compilation units FILE names (their CUs, from the cached index),
 * a statement probe at each line's first address in each.  Needs DWARF.
 * kernel.function("FUNC[@FILE]").inline: the inlined instances alone, by
 * name in every CU (a header's function is inlined anywhere), as
 * SystemTap 4.8 finds them; .exported (FUNC@FILE): the global functions.
 */
int kprobes_resolve_dwarf(struct elab *elab, const struct pp_match *m, bool statement,
			  const char *suffix, int64_t maxactive)
{
	const char *arg = m->comps[1]->arg->str;
	struct kline_walk w = { .elab = elab, .m = m, .statement = statement, .suffix = suffix,
				.maxactive = maxactive };
	bool by_file = strchr(arg, '@') != NULL;

	if (m->ncomps > 2 && !strcmp(m->comps[2]->name, "label"))
		w.label = m->comps[2]->arg->str;
	w.inline_only = strstr(m->pattern_text, ".inline") != NULL;
	w.exported = strstr(m->pattern_text, ".exported") != NULL;
	struct kline_spec k;
	struct kdwarf *kd;

	/* ".*" and ".**" reach .inline too; without DWARF it adds nothing to them. */
	if (w.inline_only && kprobes_suffix_wild(m) && !open_dwarf(elab)->k)
		return 0;

	/* F alone (a label's function, or a function resolve() found neither
	 * in BTF nor in the symbols): in any file, found by its CUs below */
	if (!by_file)
		k = (struct kline_spec){ .func = arg, .file = "*" };
	else if (!parse_kline(elab, m, arg, &k))
		return -EINVAL;
	if (!statement && k.line1) {
		elab_error(elab, m, "'%s': kernel.function takes no line; for a probe at a line, "
			   "kernel.statement(\"%s\")", arg, arg);
		return -EINVAL;
	}
	if (statement && !k.line1 && !w.label) {
		elab_error(elab, m, "'%s': a kernel.statement by file needs a line (FILE:LINE, "
			   "FILE:LINE-LINE or FILE:*)", arg);
		return -EINVAL;
	}
	/* A function that may not be probed is refused with or without DWARF. */
	kd = kline_walk_start(&w, &k, arg, w.inline_only ? "finding a function's inlined "
			      "instances needs DWARF debuginfo" : "choosing functions by source "
			      "file or line needs DWARF debuginfo");
	if (!kd)
		return -EINVAL;
	/* (F by name alone names one function, in whichever file) */
	w.wild = strpbrk(k.func, "*?[") || (strpbrk(k.file, "*?[") && (w.label || by_file)) ||
		 k.line1 != k.line2 || (w.label && strpbrk(w.label, "*?["));
	w.is_return = strstr(m->pattern_text, ".return") != NULL;
	if (strchr(arg, '@') || w.inline_only)
		kdwarf_each_cu(kd, k.file, walk_cu, &w);
	else if (!kdwarf_func_cus(kd, k.func, walk_cu, &w) && !w.f && !w.skipped)
		kdwarf_each_cu(kd, "*", walk_cu, &w);	/* only ever inlined: no symbol */
	if (w.added)
		return w.added;
	if (w.skipped && !w.wild && w.inline_why && !by_file && !w.label)
		elab_error(elab, m, "kernel function '%s' cannot be probed: %s", k.func,
			   w.inline_why);
	if (w.skipped && !w.wild)
		return -EINVAL;
	if (w.inline_only && !w.skipped && kprobes_suffix_wild(m))
		return 0;	/* ".*": the function's other probes, if it has no instance */
	if (w.inline_only && !w.skipped) {
		elab_error(elab, m, "no match for '%s': no inlined instance of %s%s%s in %s", arg,
			   k.func, by_file ? " defined in a file " : "", by_file ? k.file : "",
			   kdwarf_path(kd));
		return -EINVAL;
	}
	if (!by_file && !w.label)
		return 0;	/* resolve()'s error says what BTF and the symbols know */
	if (w.skipped)
		elab_error(elab, m, "no match for '%s': the %d functions it matches may not be "
			   "probed", arg, w.skipped);
	else if (w.label && w.f)
		elab_error(elab, m, "no match for '%s': no label %s in %s (%s)", arg, w.label, k.func,
			   kdwarf_path(kd));
	else if (statement && w.f)
		elab_error(elab, m, "no match for '%s': no code at %s line %d in %s (%s)", arg,
			   k.file, k.line1, k.func, kdwarf_path(kd));
	else
		elab_error(elab, m, "no match for '%s': no %sfunction %s defined in a file %s names "
			   "in %s", arg, w.exported ? "global " : "", k.func, k.file, kdwarf_path(kd));
	return -EINVAL;
}

/*
 * kernel.function("F").callee("G") and .callees[(N)]: a probe at each
 * callee of the functions F names (F@FILE: defined in the files FILE
 * names) whose name G matches ("*" for .callees), N levels down, as
 * SystemTap 4.8 finds them in the kernel's DWARF (udwarf_func_callees:
 * the inlined ones).  The refusal lists apply to each callee and to the
 * function its code is in.  Needs DWARF.
 */
int kprobes_resolve_callees(struct elab *elab, const struct pp_match *m)
{
	const char *arg = m->comps[1]->arg->str;
	const struct pp_component *c = m->comps[2];
	struct kline_walk w = { .elab = elab, .m = m, .suffix = "", .depth = 1, .callee = "*" };
	struct kline_spec k = { .func = arg, .file = NULL };
	struct kdwarf *kd;

	/* ".*" and ".**" reach .callees too; without DWARF it adds nothing to them. */
	if (kprobes_suffix_wild(m) && !open_dwarf(elab)->k)
		return 0;
	if (!strcmp(c->name, "callee"))
		w.callee = c->arg->str;
	else if (c->arg && (c->arg->num < 1 || c->arg->num > 64)) {
		elab_error(elab, m, ".callees(N) takes N from 1 to 64, not %lld",
			   (long long)c->arg->num);
		return -EINVAL;
	} else if (c->arg) {
		w.depth = (int)c->arg->num;
	}
	/* What 4.8 finds here are inlined instances: no return, no call of their own. */
	if (m->ncomps > 3) {
		elab_error(elab, m, "'%s': ctap finds a function's inlined callees (as SystemTap "
			   "4.8 does with the kernel's DWARF 5), which have no .%s", arg,
			   m->comps[3]->name);
		return -EINVAL;
	}
	if (strchr(arg, '@') && !parse_kline(elab, m, arg, &k))
		return -EINVAL;
	if (k.line1) {
		elab_error(elab, m, "'%s': kernel.function takes no line", arg);
		return -EINVAL;
	}
	kd = kline_walk_start(&w, &k, arg, "finding a function's callees needs DWARF debuginfo");
	if (!kd)
		return -EINVAL;
	w.wild = strpbrk(arg, "*?[") || strpbrk(w.callee, "*?[") || w.depth > 1;
	/* By name alone: the CUs of the symbols it names, else (a function
	 * only ever inlined has none) every CU, as SystemTap reads them. */
	if (k.file)
		kdwarf_each_cu(kd, k.file, walk_cu, &w);
	else {
		kdwarf_func_cus(kd, k.func, walk_cu, &w);
		if (!w.top.name)
			kdwarf_each_cu(kd, "*", walk_cu, &w);
	}
	if (w.added)
		return w.added;
	if (w.skipped)
		elab_error(elab, m, "no match for '%s': the %d callees it matches may not be "
			   "probed", arg, w.skipped);
	else if (!w.top.name)
		elab_error(elab, m, "no match for '%s': no function %s%s%s in %s", arg, k.func,
			   k.file ? " defined in a file " : "", k.file ? k.file : "",
			   kdwarf_path(kd));
	else
		elab_error(elab, m, "no match for '%s': %s has no inlined callee %s (ctap, as "
			   "SystemTap 4.8, finds the functions inlined into it; %s)", arg, k.func,
			   w.callee, kdwarf_path(kd));
	return -EINVAL;
}

/* kernel.function("F") by name, with the kernel's DWARF installed: F's
 * variables at its entry by the DWARF too (entry_vars), its name staying
 * F's.  The first function called F that the symbol's CUs define. */
struct entry_find {
	struct kline_walk *w;
	struct derived_probe *d;
};

static int entry_func(void *arg, const struct udwarf_cufunc *f)
{
	struct entry_find *e = arg;

	entry_vars(e->w, e->d, f);
	return 1;
}

static int entry_cu(void *arg, uint64_t die, const char *cu)
{
	struct entry_find *e = arg;

	(void)cu;
	return udwarf_cu_funcs(e->w->dw, die, e->d->symbol, entry_func, e) > 0;
}

void kprobes_by_name_entry_vars(struct elab *elab, const struct pp_match *m, struct derived_probe *d)
{
	struct kline_spec k = { .func = d->symbol };
	struct kline_walk w = { .elab = elab, .m = m };
	struct entry_find e = { .w = &w, .d = d };

	if (open_dwarf(elab)->k && kline_walk_start(&w, &k, d->symbol, ""))
		kdwarf_func_cus(w.kd, d->symbol, entry_cu, &e);
}

/*
 * One probe per kernel function matching m's first argument, named
 * "<family>(\"<function>\")<suffix>"; with vars, the function's
 * parameters (and $return for return probes) are its context variables.
 * Functions are BTF's and the symbol table's: one without a prototype in
 * BTF gets no $vars.
 */
/* Module name's DWARF, or NULL after an error saying what to install
 * (what: why the point needs it). */
static struct kdwarf *module_dwarf(struct elab *elab, const struct pp_match *m, const char *name,
				   const char *what)
{
	struct kdwarf_state *st = open_dwarf(elab);
	const struct session *s = elab_session(elab);
	const char *rel = s->opt.kernel_release, *ko, *bad, *why;
	struct kdwarf *k;
	int err;

	for (int i = 0; i < st->nmods; i++)
		if (!strcmp(st->modnames[i], name))
			return st->mods[i];
	err = kmod_path(elab_arena(elab), s->opt.kernel_moddir, name, &ko);
	if (err) {
		elab_error(elab, m, "no module '%s' in %s/modules.dep%s", name, s->opt.kernel_moddir,
			   err == -ENOENT ? "" : arena_printf(elab_arena(elab), ": %s", strerror(-err)));
		return NULL;
	}
	if (st->nmods == MAX_MODULE_DWARF) {
		elab_limit_error(elab, m, "statements in more than %d modules", MAX_MODULE_DWARF);
		return NULL;
	}
	k = kdwarf_open_module(rel, s->opt.kernel_moddir, ko, s->opt.kernel_debuginfo, &bad, &why);
	if (!k) {
		elab_error(elab, m, "module '%s': %s needs its DWARF; %s (install "
			   "linux-image-%s-dbg, or give --kernel-debuginfo=DIR)", name, what,
			   bad ? arena_printf(elab_arena(elab), "%s %s %s", bad, why, ko) :
				 "none is installed", rel);
		free((char *)bad);
		return NULL;
	}
	st->modnames[st->nmods] = name;
	st->mods[st->nmods++] = k;
	return k;
}

/*
 * module("M").statement("FUNC@FILE:LINE") and module("M").function("FUNC@FILE")
 * (statement false): kernel.statement's and kernel.function's probes in
 * module M (a name, no wildcard), by its DWARF from the -dbg package; the
 * kprobes go by "M:FUNC"+offset, so M must be loaded when they register.
 */
int kprobes_resolve_module_dwarf(struct elab *elab, const struct pp_match *m, bool statement)
{
	const char *mod = m->comps[0]->arg->str, *arg = m->comps[1]->arg->str;
	struct kline_walk w = { .elab = elab, .m = m, .statement = statement, .suffix = "",
				.module = mod };
	const char *what = statement ? "statement" : "function";
	struct kline_spec k = { .func = arg, .file = "*" };
	struct btf *btf;

	w.inline_only = strstr(m->pattern_text, ".inline") != NULL;
	w.exported = strstr(m->pattern_text, ".exported") != NULL;
	if (w.inline_only && kprobes_suffix_wild(m) && !open_dwarf(elab)->k)
		return 0;	/* ".*" without the DWARF: no instances to add */
	if (m->comps[1]->arg->kind != E_STRING || strchr(arg, '+') ||
	    (!strchr(arg, '@') && !w.inline_only)) {
		elab_error(elab, m, "module(\"%s\").statement takes FUNCTION@FILE:LINE", mod);
		return -EINVAL;
	}
	if (strpbrk(mod, "*?[")) {
		elab_error(elab, m, "'%s': module(\"M\").%s by file needs one module, not a wildcard",
			   mod, what);
		return -EINVAL;
	}
	if (strchr(arg, '@') && !parse_kline(elab, m, arg, &k))
		return -EINVAL;
	if (statement && !k.line1) {
		elab_error(elab, m, "'%s': a statement by file needs a line (FILE:LINE, "
			   "FILE:LINE-LINE or FILE:*)", arg);
		return -EINVAL;
	}
	if (!statement && k.line1) {
		elab_error(elab, m, "'%s': module(\"%s\").function takes no line; for a probe at a "
			   "line, module(\"%s\").statement(\"%s\")", arg, mod, mod, arg);
		return -EINVAL;
	}
	if (!statement && !(w.suffix = kprobes_point_suffix(elab, m, 2, &w.maxactive)))
		return -EINVAL;
	w.is_return = strstr(m->pattern_text, ".return") != NULL;
	if (!strpbrk(k.func, "*?[") && elab_unprobeable(elab, k.func, w.is_return)) {
		elab_error(elab, m, "function '%s' cannot be probed: %s", k.func,
			   elab_unprobeable(elab, k.func, w.is_return));
		return -EINVAL;
	}
	w.kd = module_dwarf(elab, m, mod, w.inline_only ? "finding its inlined instances" :
			    "choosing its code by source file or line");
	if (!w.kd || !elab_btf(elab))
		return -EINVAL;
	/* its locals' types: the module's BTF (on top of the kernel's) */
	w.btf = session_module_btf(elab_session(elab), mod, &btf) ? elab_btf(elab) : btf;
	w.k = &k;
	w.dw = kdwarf_dwarf(w.kd);
	w.pointers = kbtf_pointer_index(elab_arena(elab), w.btf);
	w.wild = strpbrk(k.func, "*?[") || (strpbrk(k.file, "*?[") && strchr(arg, '@')) ||
		 k.line1 != k.line2;
	kdwarf_each_cu(w.kd, k.file, walk_cu, &w);
	if (w.added)
		return w.added;
	if (w.inline_only && !w.skipped && kprobes_suffix_wild(m))
		return 0;
	if (w.inline_only && !w.skipped) {
		elab_error(elab, m, "no match for '%s': no inlined instance of %s in module %s (%s)",
			   arg, k.func, mod, kdwarf_path(w.kd));
		return -EINVAL;
	}
	if (w.skipped && !w.wild)
		return -EINVAL;
	if (w.skipped)
		elab_error(elab, m, "no match for '%s': the %d functions it matches may not be "
			   "probed", arg, w.skipped);
	else if (statement && w.f)
		elab_error(elab, m, "no match for '%s': no code at %s line %d in %s (%s)", arg,
			   k.file, k.line1, k.func, kdwarf_path(w.kd));
	else
		elab_error(elab, m, "no match for '%s': no function %s defined in a file %s names "
			   "in module %s (%s)", arg, k.func, k.file, mod, kdwarf_path(w.kd));
	return -EINVAL;
}

/* kernel.statement("FUNC+OFFSET"), or an absolute address in guru mode. */
/* The search for @var's NAME in FILE's CUs: one, at a fixed address. */
struct atvar_find {
	struct udwarf *dw;
	struct arena *a;
	const char *name, *type;
	uint64_t addr;
	int found;
};

static int atvar_cu(void *arg, uint64_t die, const char *cu)
{
	struct atvar_find *f = arg;

	(void)cu;
	if (!udwarf_cu_global(f->dw, f->a, die, f->name, &f->addr, &f->type))
		f->found++;
	return f->found > 1;
}

/*
 * A kernel.function entry probe whose $vars are BTF's parameters, read
 * from the registers (ctap_arg()), gets them as its first locations, so
 * that one more (@var's address) can follow: a probe that reads
 * locations hands the handler those instead of the registers.  At the
 * entry the first six are in registers, the rest on the stack above the
 * return address.  0, or -E2BIG past SDT_MAX_ARGS.
 */
static int args_as_locs(const struct derived_probe *d)
{
	static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };
	struct kprobe_point *kp = d->data;
	int n = 0;

	if (kp->nlocs)
		return 0;	/* the DWARF's locations already */
	for (const struct probe_var *v = d->vars; v; v = v->next)
		if (!v->unavailable && v->arg >= n)
			n = v->arg + 1;
	if (n >= SDT_MAX_ARGS)
		return -E2BIG;
	for (int i = 0; i < n; i++)
		kp->locs[i] = i < 6 ? (struct sdt_arg){ .kind = SDT_ARG_REG, .size = 8,
							.base = arg_regs[i], .reg_width = 8 } :
				      (struct sdt_arg){ .kind = SDT_ARG_MEM, .size = 8, .base = "sp",
							.disp = 8 * (i - 5) };
	kp->nlocs = n;
	return 0;
}

/* Whether the target kernel's DWARF is installed. */
static bool dwarf_installed(struct session *s)
{
	const char *bad;
	struct kdwarf *kd = kdwarf_open(s->opt.kernel_release, s->opt.kernel_build,
					s->opt.kernel_debuginfo, &bad);

	bool found = kd != NULL;

	free((char *)bad);
	kdwarf_close(kd);
	return found;
}

/*
 * @var("NAME@FILE") in a probe placed by the kernel's DWARF (a statement,
 * a label, a callee): the static or global NAME that FILE's CU defines,
 * by the DWARF.  KASLR moves the kernel's code and data together, so its
 * address is the probe's own at run time plus their link-time distance:
 * one more argument of the probe (CTAP_KLOC_ADDR), not read there; its
 * fields are read through the handler's fault-safe kernel reads.  A
 * per-CPU variable (an offset in .data..percpu) or anything else outside
 * the image has no such distance: refused (kdwarf_static_why()).
 */
int kprobes_global_var(struct session *s, const struct derived_probe *d, const char *spec,
		       struct global_var *out)
{
	struct kprobe_point *kp = d->data;
	const char *at = strchr(spec, '@'), *bad, *not_static;
	struct atvar_find f = { .a = &s->arena };
	struct kdwarf *kd;
	struct btf *btf = session_btf(s);
	__u32 id = 0;
	int64_t disp;

	memset(out, 0, sizeof(*out));
	if (kp && !kp->link_addr && d->provider == &kernel_function_provider && !d->is_return &&
	    !kp->module && !kp->offset && !dwarf_installed(s)) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): finding a kernel static needs the "
					"kernel's DWARF; none is installed for kernel %s (install "
					"linux-image-%s-dbg, or give --kernel-debuginfo=DIR)", spec,
					s->opt.kernel_release, s->opt.kernel_release);
		return -EINVAL;
	}
	if (!kp || !kp->link_addr) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): ctap reads kernel statics in probes "
					"placed by the kernel's DWARF (kernel.statement(\"F@FILE:LINE\"), "
					".label, .callee, a kernel.function entry), not in %s", spec, d->name);
		return -EINVAL;
	}
	if (!at || at == spec || !at[1]) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): a kernel static is named with its "
					"file: @var(\"NAME@FILE\")", spec);
		return -EINVAL;
	}
	kd = kdwarf_open(s->opt.kernel_release, s->opt.kernel_build, s->opt.kernel_debuginfo, &bad);
	free((char *)bad);
	if (!kd) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): the kernel's DWARF is not installed",
					spec);
		return -EINVAL;
	}
	f.dw = kdwarf_dwarf(kd);
	f.name = arena_strndup(&s->arena, spec, at - spec);
	kdwarf_each_cu(kd, at + 1, atvar_cu, &f);
	not_static = f.found == 1 ? kdwarf_static_why(kd, f.addr) : NULL;
	kdwarf_close(kd);
	if (f.found != 1) {
		out->why = arena_printf(&s->arena, f.found ? "@var(\"%s\"): more than one '%s' in the "
					"files %s names" : "@var(\"%s\"): no variable '%s' at a fixed "
					"address in a file %s names", spec, f.name, at + 1);
		return -EINVAL;
	}
	if (not_static) {	/* its distance from the probe would be garbage */
		out->why = arena_printf(&s->arena, "@var(\"%s\"): ctap cannot read '%s': %s", spec,
					f.name, not_static);
		return -EINVAL;
	}
	if (!btf || !(id = btf_ctype(btf, kbtf_pointer_index(&s->arena, btf), f.type ? f.type : ""))) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): its type '%s' is not in the kernel's "
					"BTF", spec, f.type ? f.type : "?");
		return -EINVAL;
	}
	if (args_as_locs(d)) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): too many values at %s (ctap reads "
					"%d per probe)", spec, d->name, SDT_MAX_ARGS);
		return -EINVAL;
	}
	disp = (int64_t)(f.addr - kp->link_addr);
	for (int i = 0; i < kp->nlocs; i++)
		if (kp->addr_of[i] && !kp->locs[i].base && kp->locs[i].disp == disp) {
			out->addr_arg = i;
			goto found;
		}
	if (kp->nlocs == SDT_MAX_ARGS) {
		out->why = arena_printf(&s->arena, "@var(\"%s\"): one value too many at %s (ctap reads "
					"%d per statement)", spec, d->name, SDT_MAX_ARGS);
		return -EINVAL;
	}
	out->addr_arg = kp->nlocs;
	kp->locs[kp->nlocs] = (struct sdt_arg){ .kind = SDT_ARG_RIP, .size = 8, .disp = disp };
	kp->addr_of[kp->nlocs++] = true;
found:
	out->addr_in_arg = true;
	out->type = id;
	out->btf = NULL;	/* the kernel's */
	return 0;
}
