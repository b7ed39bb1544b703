/*
 * kfuncs.c - kernel functions from BTF, for kernel.function and kprobe.function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "kbtf.h"
#include "kfuncs.h"
#include "session.h"
#include "xlate.h"

static void add_vars(struct elab *e, struct derived_probe *d, const struct btf *btf,
		     __u32 func_id, bool is_return)
{
	const struct btf_type *proto = btf__type_by_id(btf, btf__type_by_id(btf, func_id)->type);
	const struct btf_param *p = btf_params(proto);
	struct arena *a = elab_arena(e);

	for (int i = 0; i < btf_vlen(proto); i++, p++) {
		const char *name = btf__name_by_offset(btf, p->name_off);

		if (!name || !*name)
			continue;	/* varargs, unnamed */
		elab_add_var(e, d, arena_printf(a, "$%s", name),
			     kbtf_type_name(a, btf, p->type), p->type, i);
	}
	if (is_return && proto->type)
		elab_add_var(e, d, "$return", kbtf_type_name(a, btf, proto->type), proto->type, -1);
}

static void no_match(struct elab *e, const struct pp_match *m, const struct btf *btf,
		     const char *glob)
{
	const char *similar[5];
	int n = strpbrk(glob, "*?[") ? 0 : kbtf_similar_funcs(btf, glob, similar, 5);
	char hint[512] = "";

	for (int i = 0; i < n; i++)
		snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "%s%s",
			 i ? ", " : " (similar: ", similar[i]);
	if (n)
		strcat(hint, ")");
	elab_error(e, m, "no match for kernel function '%s'%s", glob, hint);
}

int kfuncs_resolve(struct elab *e, const struct pp_match *m, const char *family,
		   bool is_return, bool vars)
{
	const struct pp_component *fc = m->comps[1];
	const char *glob = fc->arg->str, *suffix;
	struct kbtf_func *funcs;
	struct btf *btf;
	int64_t maxactive = 0;
	int n, added = 0, skipped = 0;
	bool wild = strpbrk(glob, "*?[") != NULL;
	const char *why;

	if (strchr(glob, '@') || strchr(glob, ':')) {
		elab_error(e, m, "'%s': file and line qualifiers need DWARF debuginfo; ctap "
			   "finds kernel functions by name in BTF", glob);
		return -1;
	}
	/* An explicit name that may not be probed is an error; a wildcard
	 * skips such functions below. */
	if (!wild && (why = elab_unprobeable(e, glob, is_return))) {
		elab_error(e, m, "kernel function '%s' cannot be probed: %s", glob, why);
		return -1;
	}
	btf = elab_btf(e);
	if (!btf)
		return -1;
	n = kbtf_funcs(btf, glob, &funcs);
	if (n < 0)
		return -1;
	suffix = "";	/* .call, .return, .return.maxactive(N) as written */
	for (int i = 2; i < m->ncomps; i++) {
		if (m->comps[i]->arg && !strcmp(m->comps[i]->name, "maxactive"))
			maxactive = m->comps[i]->arg->num;
		suffix = m->comps[i]->arg ?
			arena_printf(elab_arena(e), "%s.%s(%lld)", suffix, m->comps[i]->name,
				     (long long)m->comps[i]->arg->num) :
			arena_printf(elab_arena(e), "%s.%s", suffix, m->comps[i]->name);
	}
	for (int i = 0; i < n; i++) {
		struct derived_probe *d;

		if (wild && elab_unprobeable(e, funcs[i].name, is_return)) {
			skipped++;
			continue;
		}
		d = elab_add(e, m, arena_printf(elab_arena(e), "%s(\"%s\")%s", family,
						funcs[i].name, suffix));
		d->symbol = funcs[i].name;
		d->is_return = is_return;
		d->maxactive = maxactive;
		if (vars)
			add_vars(e, d, btf, funcs[i].id, is_return);
		added++;
	}
	free(funcs);
	/* kprobe.function needs only a symbol: one BTF does not describe
	 * (__x64_sys_getpid, say) may still be in kallsyms, and the kernel
	 * says so when the probe registers. */
	if (skipped && wild && elab_session(e)->verbose)
		fprintf(stderr, "%s(\"%s\"): %d functions skipped: a probe may not go "
			"there (see translator/unprobeable.c)\n", family, glob, skipped);
	if (!added && n == 0 && !vars && !wild) {
		struct derived_probe *d = elab_add(e, m, arena_printf(elab_arena(e), "%s(\"%s\")%s",
								  family, glob, suffix));

		d->symbol = arena_strndup(elab_arena(e), glob, strlen(glob));
		d->is_return = is_return;
		d->maxactive = maxactive;
		return 1;
	}
	if (!added && n == 0)
		no_match(e, m, btf, glob);
	else if (!added && wild)
		elab_error(e, m, "no match for kernel function '%s': the %d functions it "
			   "matches may not be probed", glob, skipped);
	return added ? added : -1;
}

void kfuncs_emit(struct xlate *x, const struct derived_probe *const *d, int n,
		 const char *prefix)
{
	emit_c(x, "static struct ctap_kprobe %s_table[] = {\n", prefix);
	for (int i = 0; i < n; i++) {
		/* One function of a wildcard, or of a "?" point: the kernel
		 * refusing it is a warning at run time, not the end. */
		bool optional = strpbrk(d[i]->match->comps[1]->arg->str, "*?[") ||
				d[i]->written->optional;

		emit_c(x, "\t{ .probe = %s, .symbol = %s, .is_return = %s%s%s%s },\n",
		       emit_probe_ref(x, d[i]), gen_c_string(x, d[i]->symbol),
		       d[i]->is_return ? "true" : "false",
		       emit_entry_args(x, d[i]) ? ", .entry_args = true" : "",
		       d[i]->maxactive ? arena_printf(x->a, ", .maxactive = %lld",
						      (long long)d[i]->maxactive) : "",
		       optional ? ", .optional = true" : "");
	}
	emit_table_family(x, arena_printf(x->a, "%s_table", prefix), "ctap_kprobes_register",
			  "ctap_kprobes_unregister");
}
