// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - pass 3's services for the providers and the generator: the C a
 * family writes, the names of its probes, where each sits in its table.
 *
 * Below both translate.c (which drives pass 3) and gen.c/autoprint.c and
 * probes/ (which use these): kept apart so that none of them calls back
 * up into the pass-3 driver.  Declared in xlate.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "analyses.h"
#include "xlate.h"

void emit_c(struct xlate *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(x->families, fmt, ap);
	va_end(ap);
}

const char *emit_probe_ref(struct xlate *x, const struct derived_probe *d)
{
	return arena_printf(x->a, "&ctap_probes[%d]", d->seq);
}

int emit_family_index(struct xlate *x, const struct derived_probe *d)
{
	int n = 0;

	for (int i = 0; i < d->seq; i++)
		n += x->probes[i].d->provider == d->provider;
	return n;
}

const char *emit_entry_probe(struct xlate *x, const struct derived_probe *d, const char **size)
{
	const struct xprobe *p = &x->probes[d->seq];

	if (p->entry < 0)
		return NULL;
	*size = arena_printf(x->a, "sizeof(struct probe_%d_saved)", p->handler);
	return arena_printf(x->a, "&ctap_entry_probes[%d]", p->entry);
}

bool emit_entry_args(struct xlate *x, const struct derived_probe *d)
{
	return sem_handler_of(x->s, d)->entry_args;
}

bool emit_args_only(struct xlate *x, const struct derived_probe *d)
{
	int h = x->probes[d->seq].handler;

	if (!x->regs_used[h])
		x->regs_used[h] = 1 + analyses_regs_used(x->s, sem_handler_of(x->s, d));
	return x->regs_used[h] - 1 <= REGS_ARGS;
}

void emit_session_probe(struct xlate *x, const struct derived_probe *d, enum xprobe_kind kind,
			int64_t order)
{
	x->probes[d->seq].kind = kind;
	x->probes[d->seq].order = order;
}

void emit_any_task_probe(struct xlate *x, const struct derived_probe *d)
{
	x->probes[d->seq].any_task = true;
}

void emit_family(struct xlate *x, const char *register_fn, const char *unregister_fn)
{
	fprintf(x->family_list_f, "\t{ .start = %s, .stop = %s },\n", register_fn, unregister_fn);
}

void emit_table_family(struct xlate *x, const char *table, const char *register_fn,
		       const char *unregister_fn)
{
	emit_c(x, "};\n\nstatic int %s_register(void)\n{\n\treturn %s(%s, ARRAY_SIZE(%s));\n}\n\n"
	       "static void %s_unregister(void)\n{\n\t%s(%s, ARRAY_SIZE(%s));\n}\n\n",
	       table, register_fn, table, table, table, unregister_fn, table, table);
	emit_family(x, arena_printf(x->a, "%s_register", table),
		    arena_printf(x->a, "%s_unregister", table));
}

bool xlate_user_global(const struct xlate *x, const struct var *v)
{
	return sem_user_global(x->s, v);
}
