// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes.c - kernel.function("PATTERN") and kprobe.function("PATTERN"),
 * each [.call|.return[.maxactive(N)]]: kprobes and kretprobes on kernel
 * functions; kernel.statement("FUNC+OFFSET") and kprobe.function("FUNC+OFFSET"):
 * a kprobe inside one; kernel.statement(ADDR).absolute and
 * kprobe.statement(ADDR).absolute (guru mode): at an address (runtime
 * side: kmod-runtime/probes/kprobes.c).
 *
 * Functions come from the target's BTF and its symbol table (ksyms.h):
 * PATTERN is a glob over their names.  kernel.function probes get a BTF
 * function's parameters as typed $vars (and $return in .return probes);
 * kprobe.function probes, as SystemTap's debuginfo-less ones, get none,
 * nor do functions only the symbol table knows.  The symbol table also
 * bounds FUNC+OFFSET and refuses functions in text no probe may enter.
 * File, line, label and callee qualifiers need the kernel's DWARF: those
 * points are kprobes_dwarf.c's (kprobes.h), refused when it is not there.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "kbtf.h"
#include "kdwarf.h"
#include "kmodules.h"
#include "kprobes.h"
#include "ksyms.h"
#include "provider.h"
#include "session.h"
#include "unprobeable.h"
#include "xlate.h"
#include "xalloc.h"

static const char *const kernel_function_patterns[] = {
	"kernel.function(string)",
	"kernel.function(string).call",
	"kernel.function(string).inline",
	"kernel.function(string).exported",
	"kernel.function(string).return",
	"kernel.function(string).return.maxactive(number)",
	"kernel.function(string).callee(string)",
	"kernel.function(string).callee(string).call",
	"kernel.function(string).callee(string).return",
	"kernel.function(string).callees",
	"kernel.function(string).callees(number)",
	"module(string).function(string)",
	"module(string).function(string).call",
	"module(string).function(string).inline",
	"module(string).function(string).exported",
	"module(string).function(string).return",
	"module(string).function(string).return.maxactive(number)",
	NULL
};

static const char *const kprobe_patterns[] = {
	"kprobe.function(string)",
	"kprobe.function(string).return",
	"kprobe.function(string).return.maxactive(number)",
	"kprobe.module(string).function(string)",
	"kprobe.module(string).function(string).return",
	"kprobe.module(string).function(string).return.maxactive(number)",
	NULL
};

static const char *const label_patterns[] = {
	"kernel.function(string).label(string)",
	NULL
};

static const char *const statement_patterns[] = {
	"kernel.statement(string)",
	"module(string).statement(string)",
	"kernel.statement(number).absolute",
	"kprobe.statement(number).absolute",
	NULL
};

/*
 * .return.maxactive(N): the kernel allocates N instances of each such
 * kretprobe when it registers (its tracefs takes at most 4,096), each
 * with room for the entry's saved values; a wildcard multiplies them.
 * Both are bounded here, the sum over the whole script too.
 */
#define MAXACTIVE_MAX		4096
#define MAXACTIVE_TOTAL		(64 * MAXACTIVE_MAX)

/* FUNC+OFFSET: *offset and the function's name; offset 0 without '+'. */
static const char *split_offset(struct elab *elab, const struct pp_match *m, const char *s,
				uint64_t *offset)
{
	const char *plus = strchr(s, '+');
	char *end;

	*offset = 0;
	if (!plus)
		return s;
	errno = 0;
	*offset = strtoull(plus + 1, &end, 0);
	if (plus == s || !plus[1] || *end || errno || *offset > 0xfffffff) {
		elab_error(elab, m, "'%s': expected FUNCTION+OFFSET, a decimal or 0x offset", s);
		return NULL;
	}
	return arena_strndup(elab_arena(elab), s, plus - s);
}

/*
 * How many of the x86_64 argument slots (registers, then stack words) a
 * parameter of BTF type id takes: a struct or union passed by value of 9
 * to 16 bytes takes two (sockptr_t: tcp_setsockopt's optlen is in r9, not
 * r8), a larger one goes in memory of its own and takes none of them.
 */
static int arg_slots(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	__s64 size = btf__resolve_size(btf, id);

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || size <= 8)
		return 1;
	return size <= 16 ? 2 : 0;
}

void kprobes_add_vars(struct elab *elab, struct derived_probe *d, const struct btf *btf,
		      __u32 func_id, bool is_return)
{
	/* A module's types are its BTF's, which holds the kernel's too. */
	const struct btf *own = btf__base_btf(btf) ? btf : NULL;
	const struct btf_type *proto = btf__type_by_id(btf, btf__type_by_id(btf, func_id)->type);
	const struct btf_param *p = btf_params(proto);
	struct arena *a = elab_arena(elab);

	/* x86_64's argument registers: what a guru-mode write at entry changes */
	static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };
	int slot = 0;		/* the argument register (or stack slot) a parameter starts in */

	for (int i = 0; i < btf_vlen(proto); i++, p++) {
		const char *name = btf__name_by_offset(btf, p->name_off);
		struct probe_var *v;
		int at = slot;

		slot += arg_slots(btf, p->type);
		if (!name || !*name)
			continue;	/* varargs, unnamed */
		v = elab_add_var(elab, d, arena_printf(a, "$%s", name),
				 kbtf_type_name(a, btf, p->type), p->type, at);
		v->btf = own;
		if (!is_return && at < 6)
			v->reg = arg_regs[at];
	}
	if (is_return && proto->type) {
		struct probe_var *v = elab_add_var(elab, d, "$return", kbtf_type_name(a, btf, proto->type),
						   proto->type, -1);

		v->btf = own;
		v->reg = "ax";
	}
}

static void no_match(struct elab *elab, const struct pp_match *m, const struct btf *btf,
		     const struct ksyms *ks, const char *glob)
{
	const char *similar[5];
	int n = strpbrk(glob, "*?[") ? 0 : ks ? ksyms_similar(ks, glob, similar, 5) :
		kbtf_similar_funcs(btf, glob, similar, 5);
	char hint[512] = "";

	for (int i = 0; i < n; i++)
		snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "%s%s",
			 i ? ", " : " (similar: ", similar[i]);
	if (n)
		strcat(hint, ")");
	elab_error(elab, m, "no match for kernel function '%s'%s", glob, hint);
}

/* Counts a kretprobe's maxactive instances into the script's total;
 * an error (once) when the total passes MAXACTIVE_TOTAL. */
static void claim_instances(struct elab *elab, const struct pp_match *m, int64_t maxactive)
{
	struct total {
		int64_t instances;
		bool reported;
	};
	void **slot = elab_provider_state(elab, &kernel_function_provider);
	struct total *t = *slot;

	if (!t)
		*slot = t = arena_new(elab_arena(elab), struct total);
	t->instances += maxactive;
	if (t->instances > MAXACTIVE_TOTAL && !t->reported) {
		elab_limit_error(elab, m, "the .return probes' maxactive instances add up to more than %d "
			   "(each is kernel memory allocated when the probe registers)",
			   MAXACTIVE_TOTAL);
		t->reported = true;
	}
}

struct derived_probe *kprobes_add_probe(struct elab *elab, const struct pp_match *m,
					const char *family, const char *func, const char *suffix,
					bool is_return, int64_t maxactive, uint64_t offset, bool wild)
{
	const char *at = offset ? arena_printf(elab_arena(elab), "+%#llx", (unsigned long long)offset) : "";
	struct derived_probe *d = elab_add(elab, m, arena_printf(elab_arena(elab), "%s(\"%s%s\")%s",
							      family, func, at, suffix));
	struct kprobe_point *kp = arena_new(elab_arena(elab), struct kprobe_point);

	d->symbol = func;	/* BTF's or the script's: both live as long as the session */
	d->is_return = is_return;
	d->data = kp;
	kp->maxactive = maxactive;
	kp->offset = offset;
	kp->optional = wild || (d->written && d->written->optional);
	if (is_return && maxactive)
		claim_instances(elab, m, maxactive);
	return d;
}

/* The components from index from on, as written (".return.maxactive(4)");
 * NULL after an error. */
const char *kprobes_point_suffix(struct elab *elab, const struct pp_match *m, int from,
				 int64_t *maxactive)
{
	const char *suffix = "";

	for (int i = from; i < m->ncomps; i++) {
		if (m->comps[i]->arg && !strcmp(m->comps[i]->name, "maxactive")) {
			*maxactive = m->comps[i]->arg->num;
			if (*maxactive < 1 || *maxactive > MAXACTIVE_MAX) {
				elab_error(elab, m, "maxactive must be 1 to %d (the kernel's own limit), "
					   "not %lld", MAXACTIVE_MAX, (long long)*maxactive);
				return NULL;
			}
		}
		suffix = m->comps[i]->arg ?
			arena_printf(elab_arena(elab), "%s.%s(%lld)", suffix, m->comps[i]->name,
				     (long long)m->comps[i]->arg->num) :
			arena_printf(elab_arena(elab), "%s.%s", suffix, m->comps[i]->name);
	}
	return suffix;
}

/* What one function of a match is, from BTF (its prototype), the symbol
 * table (its size, its section), or both. */
struct kfunc {
	const char *name;
	const char *symbol;		/* to probe: name, or its .isra/.constprop clone */
	__u32 btf_id;			/* 0: no prototype, so no $vars */
	const struct ksym *sym;		/* NULL: not in the symbol table, or none loaded */
};

/* How long the function's own name is in a compiler's clone of it
 * ("foo" in "foo.isra.0", "foo.constprop.0"); 0 if name is no clone. */
static size_t clone_base_len(const char *name)
{
	const char *dot = strchr(name, '.');

	if (!dot || (strncmp(dot, ".isra.", 6) && strncmp(dot, ".constprop.", 11)))
		return 0;
	return dot - name;
}

/* An explicit name that only a compiler's clone of the function carries
 * (finish_task_switch.isra.0): the clone, when there is exactly one. */
static const struct ksym *clone_of(const struct ksyms *ks, const char *name)
{
	char glob[600];
	const struct ksym **v, *found = NULL;
	int n, clones = 0;

	snprintf(glob, sizeof(glob), "%s.*", name);
	n = ksyms_match(ks, glob, &v);
	for (int i = 0; i < n; i++)
		if (clone_base_len(v[i]->name) == strlen(name)) {
			found = v[i];
			clones++;
		}
	if (n >= 0)
		free(v);	/* allocated even for no match */
	return clones == 1 ? found : NULL;
}

/*
 * A function found only as a clone goes by its own name, as SystemTap's
 * DWARF names it; a clone of a function that has its own symbol is left
 * out (its callers are the compiler's business).  false: leave f out.
 */
static bool name_clone(struct arena *a, const struct ksyms *ks, struct kfunc *f)
{
	size_t len = clone_base_len(f->name);
	char *base;

	if (!len)
		return true;
	base = arena_strndup(a, f->name, len);
	/* (a function BTF describes has a symbol of its own: no BTF lookup,
	 * which is a linear walk of 100,000 types) */
	if (ksyms_find(ks, base))
		return false;
	f->name = base;
	return true;
}

/*
 * The functions glob names: the union of BTF's and the symbol table's,
 * sorted by name, in *out (free() it).  Returns how many, or -ENOMEM.
 */
static int match_funcs(struct arena *a, const struct btf *btf, const struct ksyms *ks,
		       const char *glob, struct kfunc **out)
{
	struct kbtf_name *bf = NULL;
	const struct ksym **sf = NULL;
	int nb = kbtf_funcs(btf, glob, &bf), ns = ks ? ksyms_match(ks, glob, &sf) : 0;
	int i = 0, j = 0, n = 0;
	struct kfunc *v;

	if (nb < 0 || ns < 0) {
		free(bf);
		free(sf);
		return nb < 0 ? nb : ns;
	}
	v = xcalloc(nb + ns + 1, sizeof(*v));
	while (i < nb || j < ns) {
		int c = i == nb ? 1 : j == ns ? -1 : strcmp(bf[i].name, sf[j]->name);

		v[n].name = c <= 0 ? bf[i].name : sf[j]->name;
		v[n].symbol = v[n].name;
		if (c <= 0)
			v[n].btf_id = bf[i++].id;
		if (c >= 0)
			v[n].sym = sf[j++];
		if (c <= 0 || name_clone(a, ks, &v[n]))
			n++;
	}
	if (!n && ks && !strpbrk(glob, "*?[") && (v[0].sym = clone_of(ks, glob))) {
		v[0].name = v[0].sym->name;
		v[0].symbol = v[0].sym->name;
		n = 1;
	}
	free(bf);
	free(sf);
	*out = v;
	return n;
}

/* Why f may not be probed: the runtime's list, or its text section. */
static const char *kfunc_unprobeable(struct elab *elab, const struct kfunc *f, bool is_return)
{
	const char *why = elab_unprobeable(elab, f->name, is_return);

	return why ? why : f->sym ? f->sym->why : NULL;
}

/*
 * "NAME@FILE" without DWARF: the file cannot be checked, only be made
 * unnecessary.  If exactly one function is called NAME, FILE can only be
 * its file (scripts name files to tell static functions apart), so NAME
 * stands for it.  Wildcards over files and lines (":N") need DWARF.
 */
static const char *without_file(struct elab *elab, const struct pp_match *m, const char *glob,
				const struct ksyms *ks)
{
	const char *at = strchr(glob, '@');
	const char *name = arena_strndup(elab_arena(elab), glob, at - glob);
	const struct ksym *sym;

	if (strpbrk(at, ":+") || strpbrk(name, "*?[") || !ks) {
		elab_error(elab, m, "'%s': choosing functions by source file or line needs DWARF "
			   "debuginfo; ctap knows kernel functions by name (BTF and the symbol table)",
			   glob);
		return NULL;
	}
	sym = ksyms_find(ks, name);
	if (sym && sym->copies > 1) {
		elab_error(elab, m, "'%s': %d kernel functions are called %s; without DWARF "
			   "debuginfo ctap cannot tell which one is in %s", glob, sym->copies,
			   name, at + 1);
		return NULL;
	}
	return name;
}

static int resolve(struct elab *elab, const struct pp_match *m, const char *family, bool vars)
{
	bool is_return = strstr(m->pattern_text, ".return") != NULL;
	const struct pp_component *fc = m->comps[1];
	const char *glob = fc->arg->str, *suffix;
	uint64_t offset;
	struct kfunc *funcs;
	const struct ksyms *ks;
	struct btf *btf;
	int64_t maxactive = 0;
	int n, added = 0, skipped = 0, statics = 0;
	bool wild = strpbrk(glob, "*?[") != NULL;
	bool exported = strstr(m->pattern_text, ".exported") != NULL;
	const char *why;

	if (m->ncomps > 2 && !strncmp(m->comps[2]->name, "callee", 6))
		return kprobes_resolve_callees(elab, m);
	/* the inlined instances are the DWARF's alone */
	if (m->ncomps > 2 && !strcmp(m->comps[2]->name, "inline"))
		return kprobes_resolve_dwarf(elab, m, false, ".inline", 0);
	ks = session_ksyms(elab_session(elab));
	if (exported && !ks) {
		elab_error(elab, m, "'%s': .exported needs the kernel's symbol table (which "
			   "functions are global); none was found for kernel %s", glob,
			   elab_session(elab)->opt.kernel_release);
		return -EINVAL;
	}
	/* With DWARF a file names functions; without, "NAME@FILE" is NAME
	 * when only one function has that name (without_file). */
	if (vars && strchr(glob, '@') && !strchr(glob, '+') && kprobes_have_dwarf(elab)) {
		suffix = kprobes_point_suffix(elab, m, 2, &maxactive);
		if (!suffix)
			return -EINVAL;
		return kprobes_resolve_dwarf(elab, m, false, suffix, maxactive);
	}
	if (strchr(glob, '@') && !(glob = without_file(elab, m, glob, ks)))
		return -EINVAL;
	if (strchr(glob, ':')) {
		elab_error(elab, m, "'%s': a line needs DWARF debuginfo; ctap knows kernel functions "
			   "by name (BTF and the symbol table)", glob);
		return -EINVAL;
	}
	glob = split_offset(elab, m, glob, &offset);
	if (!glob)
		return -EINVAL;
	if (offset && (is_return || strpbrk(glob, "*?["))) {
		elab_error(elab, m, "an offset goes with one function, not with %s",
			   is_return ? "a .return probe" : "a wildcard");
		return -EINVAL;
	}
	/* Inside a function the registers no longer hold its arguments. */
	if (offset && vars) {
		elab_error(elab, m, "kernel.function takes a function; for a place inside one, "
			   "kernel.statement(\"%s\")", fc->arg->str);
		return -EINVAL;
	}
	/* An explicit name that may not be probed is an error; a wildcard
	 * skips such functions below. */
	if (!wild && (why = elab_unprobeable(elab, glob, is_return))) {
		elab_error(elab, m, "kernel function '%s' cannot be probed: %s", glob, why);
		return -EINVAL;
	}
	btf = elab_btf(elab);
	if (!btf)
		return -EINVAL;
	suffix = kprobes_point_suffix(elab, m, 2, &maxactive);
	if (!suffix)
		return -EINVAL;
	n = match_funcs(elab_arena(elab), btf, ks, glob, &funcs);	/* freed below: no return before that */
	if (n < 0)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		const struct kfunc *f = &funcs[i];
		struct derived_probe *d;

		if (exported && (!f->sym || !f->sym->global)) {
			statics++;	/* not .exported's: no refusal either */
			continue;
		}
		if ((why = kfunc_unprobeable(elab, f, is_return))) {
			skipped++;
			if (!wild)
				elab_error(elab, m, "kernel function '%s' cannot be probed: %s",
					   f->name, why);
			continue;
		}
		if (offset && f->sym && f->sym->size && offset >= f->sym->size) {
			elab_error(elab, m, "'%s+%#llx' is past the end of %s, which is %llu bytes",
				   f->name, (unsigned long long)offset, f->name,
				   (unsigned long long)f->sym->size);
			skipped++;
			continue;
		}
		d = kprobes_add_probe(elab, m, family, wild ? f->name : glob, suffix, is_return, maxactive,
				      offset, wild);
		d->symbol = f->symbol;
		if (vars && f->btf_id)
			kprobes_add_vars(elab, d, btf, f->btf_id, is_return);
		if (vars && !is_return && !wild && !offset)
			kprobes_by_name_entry_vars(elab, m, d);
		added++;
	}
	free(funcs);
	if (skipped && wild && elab_session(elab)->opt.verbose)
		fprintf(stderr, "%s(\"%s\"): %d functions skipped: a probe may not go "
			"there (see translator/kernel/unprobeable.c)\n", family, glob, skipped);
	if (added || (skipped && !wild))
		return added ? added : -EINVAL;
	/* Without a symbol table kprobe.function tries a name BTF does not
	 * describe: the kernel says whether it exists when the probe registers. */
	if (n == 0 && !ks && !vars && !wild) {
		kprobes_add_probe(elab, m, family, glob, suffix, is_return, maxactive, offset, false);
		return 1;
	}
	/*
	 * A function with no symbol, only ever inlined (a static one, or a
	 * header's): its inlined instances, by the DWARF when it is installed,
	 * as SystemTap's.  That walks every CU (seconds), so an optional point
	 * ("?", "!"), which tapsets write for names that come and go between
	 * kernels, is not looked for there: it is skipped, as before.
	 */
	if (n == 0 && vars && !wild && !offset && !strchr(fc->arg->str, '@') &&
	    !elab_optional(elab, m) && kprobes_have_dwarf(elab)) {
		added = kprobes_resolve_dwarf(elab, m, false, suffix, maxactive);
		if (added)
			return added;
	}
	if (exported && kprobes_suffix_wild(m))
		return 0;	/* ".*": the function's other probes, if it is static */
	if (n == 0)
		no_match(elab, m, btf, ks, glob);
	else if (!skipped)
		elab_error(elab, m, "no match for kernel function '%s': %s not global (what "
			   ".exported probes)", glob, statics > 1 ? "the functions it matches are" :
			   "it is");
	else
		elab_error(elab, m, "no match for kernel function '%s': the %d functions it "
			   "matches may not be probed", glob, skipped);
	return -EINVAL;
}

/*
 * module("M").function("F")... and kprobe.module("M").function("F")...: for
 * each module M names (a glob over modules.dep), the functions F names in
 * its BTF, their $vars typed from it (module() only).  The probe registers
 * on "M:F": the module must be loaded when the session starts.
 */

static int resolve_module(struct elab *elab, const struct pp_match *m, bool vars)
{
	int fi = vars ? 1 : 2;
	const char *mglob = m->comps[fi - 1]->arg->str, *fglob = m->comps[fi]->arg->str;
	const char *moddir = elab_session(elab)->opt.kernel_moddir, *suffix, **mods;
	bool is_return = strstr(m->pattern_text, ".return") != NULL;
	bool wild = strpbrk(mglob, "*?[") || strpbrk(fglob, "*?[");
	bool exported = strstr(m->pattern_text, ".exported") != NULL;
	int64_t maxactive = 0;
	int nmods, added = 0, statics = 0;

	/* by file, and the inlined instances: the module's DWARF */
	if (vars && ((strchr(fglob, '@') && !strchr(fglob, '+')) ||
		     (m->ncomps > fi + 1 && !strcmp(m->comps[fi + 1]->name, "inline"))))
		return kprobes_resolve_module_dwarf(elab, m, false);
	if (strpbrk(fglob, "@:+")) {
		elab_error(elab, m, "'%s': a module function is found by name in the module's BTF, "
			   "or by its file in its DWARF (no line or offset)", fglob);
		return -EINVAL;
	}
	suffix = kprobes_point_suffix(elab, m, fi + 1, &maxactive);
	if (!suffix)
		return -EINVAL;
	nmods = kmod_names(elab_arena(elab), moddir, mglob, &mods);
	if (nmods < 0) {
		elab_error(elab, m, "cannot read %s/modules.dep: %s", moddir, strerror(-nmods));
		return -EINVAL;
	}
	for (int k = 0; k < nmods; k++) {
		const char *family = arena_printf(elab_arena(elab), "%smodule(\"%s\").function",
						  vars ? "" : "kprobe.", mods[k]);
		struct kbtf_name *funcs = NULL;
		struct btf *btf;
		const char **globals = NULL;
		int n, nglobals = 0, err = session_module_btf(elab_session(elab), mods[k], &btf);

		if (err && !wild && vars) {
			elab_error(elab, m, "module '%s' has no BTF: %s", mods[k],
				   err == -ENODATA ? "none in its .ko (a kernel built without CONFIG_DEBUG_INFO_BTF_MODULES?)" : strerror(-err));
			return -EINVAL;
		}
		n = err ? 0 : kbtf_funcs(btf, fglob, &funcs);
		if (n < 0)
			return -EINVAL;
		if (exported && n)
			nglobals = kmod_globals(elab_arena(elab), moddir, mods[k], &globals);
		for (int i = 0; i < n; i++) {
			struct derived_probe *d;

			if (exported && !kmod_is_global(globals, nglobals, funcs[i].name)) {
				statics++;
				continue;
			}
			d = kprobes_add_probe(elab, m, family, funcs[i].name, suffix, is_return,
					      maxactive, 0, wild);

			((struct kprobe_point *)d->data)->module = mods[k];
			if (vars)
				kprobes_add_vars(elab, d, btf, funcs[i].id, is_return);
			added++;
		}
		free(funcs);
		/* kprobe.module needs only a symbol, as kprobe.function. */
		if (!n && !vars && !wild) {
			struct derived_probe *d = kprobes_add_probe(elab, m, family, fglob, suffix, is_return,
								    maxactive, 0, false);

			((struct kprobe_point *)d->data)->module = mods[k];
			added++;
		}
	}
	if (!added && exported && kprobes_suffix_wild(m))
		return 0;	/* ".*": the function's other probes, if it is static */
	if (!added)
		elab_error(elab, m, "no match for function '%s' in module%s '%s'%s", fglob,
			   strpbrk(mglob, "*?[") ? "s" : "", mglob,
			   !nmods ? " (no such module of this kernel)" :
			   statics ? " (.exported: none of its functions that match is global)" : "");
	return added ? added : -EINVAL;
}

static int kernel_function_resolve(struct elab *elab, const struct pp_match *m)
{
	if (!strcmp(m->comps[0]->name, "module"))
		return resolve_module(elab, m, true);
	return resolve(elab, m, "kernel.function", true);
}

static int kprobe_resolve(struct elab *elab, const struct pp_match *m)
{
	if (!strcmp(m->comps[1]->name, "module"))
		return resolve_module(elab, m, false);
	return resolve(elab, m, "kprobe.function", false);
}

static int statement_resolve(struct elab *elab, const struct pp_match *m)
{
	struct derived_probe *d;
	struct kprobe_point *kp;
	const char *family = m->comps[0]->name;

	if (!strcmp(family, "module"))
		return kprobes_resolve_module_dwarf(elab, m, true);
	if (m->comps[1]->arg->kind == E_STRING && strchr(m->comps[1]->arg->str, '@') &&
	    !strchr(m->comps[1]->arg->str, '+'))
		return kprobes_resolve_dwarf(elab, m, true, "", 0);
	if (m->comps[1]->arg->kind == E_STRING)
		return resolve(elab, m, "kernel.statement", false);
	if (!elab_session(elab)->opt.guru) {
		elab_error(elab, m, "probes at an absolute address need guru mode (stap -g)");
		return -EINVAL;
	}
	d = elab_add(elab, m, arena_printf(elab_arena(elab), "%s.statement(%#llx).absolute", family,
					(unsigned long long)m->comps[1]->arg->num));
	kp = arena_new(elab_arena(elab), struct kprobe_point);
	kp->address = (uint64_t)m->comps[1]->arg->num;
	d->data = kp;
	return 1;
}

/* Both families' probes, one table: prefix names it. */
static const char *const kloc_kinds[] = {
	[SDT_ARG_REG] = "CTAP_KLOC_REG",
	[SDT_ARG_IMM] = "CTAP_KLOC_IMM",
	[SDT_ARG_MEM] = "CTAP_KLOC_MEM",
	[SDT_ARG_RIP] = "CTAP_KLOC_PCREL",
};

/* Probe i's statement variables: PREFIX_locs_I. */
static void emit_locs(struct xlate *x, const struct derived_probe *d, int i, const char *prefix)
{
	const struct kprobe_point *kp = d->data;

	emit_c(x, "/* %s */\nstatic const struct ctap_kloc %s_locs_%d[] = {\n",
	       gen_c_comment(x->a, d->name), prefix, i);
	for (int j = 0; j < kp->nlocs; j++) {
		const struct sdt_arg *g = &kp->locs[j];
		const char *name = "";

		for (const struct probe_var *v = d->vars; v; v = v->next)
			if (v->arg == j && !v->unavailable)
				name = v->name;
		if (kp->addr_of[j] && !*name)
			name = "@var";
		emit_c(x, "\t{ .kind = %s, .size = %d, .is_signed = %s, .base = %s, "
		       ".disp = %lldLL },\t/* %s */\n",
		       kp->addr_of[j] ? "CTAP_KLOC_ADDR" : kloc_kinds[g->kind], g->size,
		       g->is_signed ? "true" : "false",
		       g->base ? arena_printf(x->a, "offsetof(struct pt_regs, %s)", g->base) : "-1",
		       (long long)g->disp, gen_c_comment(x->a, name));
	}
	emit_c(x, "};\n");
	/* the runtime reads CTAP_KLOC_MAX values; pass 2 allows SDT_MAX_ARGS */
	emit_c(x, "_Static_assert(ARRAY_SIZE(%s_locs_%d) <= CTAP_KLOC_MAX, \"more values than the "
	       "runtime reads\");\n\n", prefix, i);
}

/* d is an entry the runtime may arm through ftrace (kprobes.c) whose
 * handler reads no register but the arguments. */
static bool args_only_entry(struct xlate *x, const struct derived_probe *d)
{
	const struct kprobe_point *kp = d->data;

	return !d->is_return && !kp->offset && !kp->address && !kp->nlocs && emit_args_only(x, d);
}

/* The table's one args-only entry probe, or -1 (none, or several). */
static int ftrace_one(struct xlate *x, const struct derived_probe *const *d, int n)
{
	int one = -1;

	for (int i = 0; i < n; i++) {
		if (!args_only_entry(x, d[i]))
			continue;
		if (one >= 0)
			return -1;
		one = i;
	}
	return one;
}

/*
 * A kernel function's link-time distance from sprint_symbol(), which the
 * runtime arms by (kmod-runtime/probes/kprobes.c: symbol_address()); not
 * for a name the image defines twice (the kernel's lookup by name picks
 * one) nor without addresses (/proc/kallsyms read by a user shows 0).
 */
static void emit_delta(struct xlate *x, const struct derived_probe *d)
{
	const struct kprobe_point *kp = d->data;
	const struct ksyms *ks = kp->module || kp->address ? NULL : session_ksyms(x->s);
	const struct ksym *f = ks ? ksyms_find(ks, d->symbol) : NULL;
	const struct ksym *ref = f ? ksyms_find(ks, "sprint_symbol") : NULL;

	if (!ref || f->copies != 1 || !f->addr || !ref->addr)
		return;
	emit_c(x, "\t\t.delta = %lldL,\n\t\t.has_delta = true,\n",
	       (long long)(f->addr - ref->addr));
}

static void emit_table(struct xlate *x, const struct derived_probe *const *d, int n,
		       const char *prefix)
{
	int one = ftrace_one(x, d, n);

	for (int i = 0; i < n; i++)
		if (((const struct kprobe_point *)d[i]->data)->nlocs)
			emit_locs(x, d[i], i, prefix);
	/* Its own ftrace callback, the handler inline (kmod-runtime/probes/kprobes.h). */
	if (one >= 0)
		emit_c(x, "CTAP_FTRACE_ONE(%s_ftrace_one, %s);\n\n", prefix, emit_probe_ref(x, d[one]));
	emit_c(x, "static struct ctap_kprobe %s_table[] = {\n", prefix);
	for (int i = 0; i < n; i++) {
		const struct kprobe_point *kp = d[i]->data;
		const char *entry, *size;

		emit_c(x, "\t{\n\t\t.probe = %s,\n", emit_probe_ref(x, d[i]));
		if (kp->address)
			emit_c(x, "\t\t.address = %#llxULL,\n", (unsigned long long)kp->address);
		else if (kp->module)
			emit_c(x, "\t\t.symbol = %s,\n", gen_c_string(x, arena_printf(x->a, "%s:%s",
			       kp->module, d[i]->symbol)));
		else
			emit_c(x, "\t\t.symbol = %s,\n", gen_c_string(x, d[i]->symbol));
		emit_delta(x, d[i]);
		if (kp->offset)
			emit_c(x, "\t\t.offset = %#llx,\n", (unsigned long long)kp->offset);
		if (d[i]->is_return)
			emit_c(x, "\t\t.is_return = true,\n");
		if (emit_entry_args(x, d[i]))
			emit_c(x, "\t\t.entry_args = true,\n");
		if ((entry = emit_entry_probe(x, d[i], &size)))
			emit_c(x, "\t\t.entry_probe = %s,\n\t\t.saved_size = %s,\n", entry, size);
		if (kp->maxactive)
			emit_c(x, "\t\t.maxactive = %lld,\n", (long long)kp->maxactive);
		if (kp->nlocs)
			emit_c(x, "\t\t.locs = %s_locs_%d,\n\t\t.nlocs = %d,\n", prefix, i,
			       kp->nlocs);
		if (kp->optional)
			emit_c(x, "\t\t.optional = true,\n");
		if (args_only_entry(x, d[i]))
			emit_c(x, "\t\t.args_only = true,\n");
		if (i == one)
			emit_c(x, "\t\t.ftrace_one = %s_ftrace_one,\n", prefix);
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, arena_printf(x->a, "%s_table", prefix), "ctap_kprobes_register",
			  "ctap_kprobes_unregister");
}

static void kernel_function_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_table(x, d, n, "kfuncs");
}

static void kprobe_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_table(x, d, n, "kprobes");
}

static void statement_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_table(x, d, n, "kstatements");
}

static void label_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_table(x, d, n, "klabels");
}

const struct provider kernel_function_provider = {
	.name = "kernel.function",
	.family = "CTAP_FAMILY_KPROBE",
	.patterns = kernel_function_patterns,
	.runtime = "probes/kprobes",
	.resolve = kernel_function_resolve,
	.emit = kernel_function_emit,
	.global_var = kprobes_global_var,
};

const struct provider kprobe_provider = {
	.name = "kprobe.function",
	.family = "CTAP_FAMILY_KPROBE",
	.patterns = kprobe_patterns,
	.runtime = "probes/kprobes",
	.resolve = kprobe_resolve,
	.emit = kprobe_emit,
};

/*
 * kernel.function("F@FILE").label("L"): a kprobe at each label L (a glob)
 * of the functions F@FILE (or F, in whichever file) names, with the
 * variables in scope there, by the kernel's DWARF; probes of the
 * statement family.
 */
static int label_resolve(struct elab *elab, const struct pp_match *m)
{
	return kprobes_resolve_dwarf(elab, m, true, "", 0);
}

const struct provider kernel_label_provider = {
	.name = "kernel.function.label",
	.family = "CTAP_FAMILY_KPROBE",
	.patterns = label_patterns,
	.runtime = "probes/kprobes",
	.resolve = label_resolve,
	.emit = label_emit,
	.global_var = kprobes_global_var,
};

const struct provider kernel_statement_provider = {
	.name = "kernel.statement",
	.family = "CTAP_FAMILY_KPROBE",
	.patterns = statement_patterns,
	.runtime = "probes/kprobes",
	.resolve = statement_resolve,
	.emit = statement_emit,
	.release = kprobes_dwarf_release,
	.global_var = kprobes_global_var,
};
