// SPDX-License-Identifier: GPL-2.0
/*
 * watchpoints.c - kernel.data("SYMBOL") and kernel.data(ADDRESS), each
 * [.length(N)] then .write or .rw: hardware data breakpoints (runtime side:
 * kmod-runtime/probes/watchpoints.c).
 *
 * A symbol the kernel exports (its build tree's Module.symvers says so)
 * the module declares under an assembler name, and the linker gives its
 * address.  Any other data symbol of the kernel image comes from the
 * symbol table (ksyms.h) at its link-time address, which the module
 * moves as the image was moved (KASLR): by how far the exported function
 * kfree is from its own link-time address.  N is 1, 2, 4 or 8 (1 by
 * default), an address aligned to it;
 * x86 has four debug registers, so at most four watchpoints.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ksyms.h"
#include "provider.h"
#include "session.h"
#include "xlate.h"

static const char *const patterns[] = {
	"kernel.data(string).write", "kernel.data(string).rw",
	"kernel.data(string).length(number).write", "kernel.data(string).length(number).rw",
	"kernel.data(number).write", "kernel.data(number).rw",
	"kernel.data(number).length(number).write", "kernel.data(number).length(number).rw",
	NULL
};

#define MAX_WATCHPOINTS	4
#define KASLR_ANCHOR	"kfree"		/* exported by every kernel */

/* A probe's own data (derived_probe.data). */
struct watch_point {
	const char *symbol;
	int64_t from_anchor;	/* not exported: its distance from KASLR_ANCHOR */
	bool relocated;
	uint64_t address;
	int64_t length;
	bool rw;
};

/* Whether the kernel exports name (a "CRC\tname\tvmlinux\tEXPORT_..." line). */
static bool exported(struct session *s, const char *name)
{
	char path[4096], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/Module.symvers", s->opt.kernel_build ? s->opt.kernel_build : "");
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sym = strchr(line, '\t'), *end;

		if (!sym || !(end = strchr(++sym, '\t')))
			continue;
		found = (size_t)(end - sym) == strlen(name) && !strncmp(sym, name, end - sym) &&
			!strncmp(end + 1, "vmlinux\t", 8);
	}
	fclose(f);
	return found;
}

static int watch_resolve(struct elab *elab, const struct pp_match *m)
{
	struct watch_point *w = arena_new(elab_arena(elab), struct watch_point);
	void **state = elab_provider_state(elab, m->provider);
	const struct expr *arg = m->comps[1]->arg;
	struct derived_probe *d;
	const char *name;

	w->rw = !strcmp(m->comps[m->ncomps - 1]->name, "rw");
	w->length = m->ncomps == 4 ? m->comps[2]->arg->num : 1;
	if (w->length != 1 && w->length != 2 && w->length != 4 && w->length != 8) {
		elab_error(elab, m, "a watchpoint's length is 1, 2, 4 or 8 bytes, not %lld",
			   (long long)w->length);
		return -EINVAL;
	}
	if (arg->kind == E_STRING) {
		struct ksyms *ks;
		const struct ksym *v, *anchor;

		w->symbol = arg->str;
		if (!exported(elab_session(elab), w->symbol)) {
			ks = session_ksyms(elab_session(elab));
			v = ks ? ksyms_var(ks, w->symbol) : NULL;
			anchor = ks ? ksyms_find(ks, KASLR_ANCHOR) : NULL;
			if (!v || !anchor) {
				elab_error(elab, m, "'%s' is neither a symbol the kernel exports (%s/"
					   "Module.symvers) nor a data symbol defined once in its "
					   "symbol table; watch an address instead", w->symbol,
					   elab_session(elab)->opt.kernel_build);
				return -EINVAL;
			}
			w->relocated = true;
			w->from_anchor = (int64_t)(v->addr - anchor->addr);
		}
		name = arena_printf(elab_arena(elab), "kernel.data(\"%s\")", w->symbol);
	} else {
		w->address = (uint64_t)arg->num;
		if (w->address % w->length) {
			elab_error(elab, m, "address %#llx is not aligned to the watched length %lld",
				   (unsigned long long)w->address, (long long)w->length);
			return -EINVAL;
		}
		name = arena_printf(elab_arena(elab), "kernel.data(%#llx)",
				    (unsigned long long)w->address);
	}
	if (!*state)
		*state = memset(arena_new(elab_arena(elab), int), 0, sizeof(int));
	if (++*(int *)*state > MAX_WATCHPOINTS) {
		elab_error(elab, m, "more than %d watchpoints (the CPU's debug registers)",
			   MAX_WATCHPOINTS);
		return -EINVAL;
	}
	if (m->ncomps == 4)
		name = arena_printf(elab_arena(elab), "%s.length(%lld)", name, (long long)w->length);
	d = elab_add(elab, m, arena_printf(elab_arena(elab), "%s.%s", name, w->rw ? "rw" : "write"));
	d->data = w;
	return 1;
}

static void watch_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	bool anchor = false;

	/* Another C name for the symbol: its header may declare it with a type. */
	for (int i = 0; i < n; i++) {
		const struct watch_point *w = d[i]->data;

		if (w->symbol && !w->relocated)
			emit_c(x, "extern const char ctap_watched_%d[] __asm__(%s);\n", i,
			       gen_c_string(x, w->symbol));
		if (w->relocated && !anchor) {
			emit_c(x, "/* Where the kernel image was moved to: an exported function's address. */\n"
			       "extern const char ctap_kaslr_anchor[] __asm__(\"%s\");\n", KASLR_ANCHOR);
			anchor = true;
		}
	}
	emit_c(x, "\nstatic struct ctap_watchpoint watchpoints[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct watch_point *w = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n", emit_probe_ref(x, d[i]));
		if (w->relocated)
			emit_c(x, "\t\t/* %s: not exported; as far from %s as at link time */\n"
			       "\t\t.address = (unsigned long)ctap_kaslr_anchor + %lldLL,\n",
			       w->symbol, KASLR_ANCHOR, (long long)w->from_anchor);
		else if (w->symbol)
			emit_c(x, "\t\t.address = (unsigned long)ctap_watched_%d,\n", i);
		else
			emit_c(x, "\t\t.address = %#llxULL,\n", (unsigned long long)w->address);
		emit_c(x, "\t\t.length = %lld,\n", (long long)w->length);
		if (w->rw)
			emit_c(x, "\t\t.rw = true,\n");
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "watchpoints", "ctap_watchpoints_register", "ctap_watchpoints_unregister");
}

const struct provider watchpoint_provider = {
	.name = "kernel.data",
	.family = "CTAP_FAMILY_WATCHPOINT",
	.patterns = patterns,
	.runtime = "probes/watchpoints",
	.resolve = watch_resolve,
	.emit = watch_emit,
};
