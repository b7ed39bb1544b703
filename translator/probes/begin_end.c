// SPDX-License-Identifier: GPL-2.0
/*
 * begin_end.c - begin, end, error and never.
 *
 * begin runs when the session starts, end when it stops, error when it
 * stops after an error (instead of end), never never.  begin(N), end(N)
 * and error(N) order probes of one kind: lower N first, default 0.  init
 * runs before every begin (the argv tapset fills argv[] in one).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "xlate.h"

static const char *const patterns[] = {
	"begin", "begin(number)", "end", "end(number)", "error", "error(number)", "never",
	"init",
	NULL
};

static int be_resolve(struct elab *elab, const struct pp_match *m)
{
	const struct pp_component *c = m->comps[0];
	const char *kind = strchr(m->pattern_text, '(') ? m->pattern_text : NULL;
	struct derived_probe *d;
	int64_t *order;
	char name[64];

	if (c->arg)
		snprintf(name, sizeof(name), "%.*s(%lld)",
			 (int)(strchr(kind, '(') - kind), kind, (long long)c->arg->num);
	else
		snprintf(name, sizeof(name), "%s", m->pattern_text);
	d = elab_add(elab, m, name);
	order = arena_new(elab_arena(elab), int64_t);
	*order = c->arg ? c->arg->num : !strcmp(name, "init") ? INT64_MIN : 0;
	d->data = order;	/* the probe's own data: its N */
	return 1;
}

/* They run from the session (start and stop), not from a family; never
 * probes stay event probes that no family arms. */
static void be_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	for (int i = 0; i < n; i++) {
		const char *name = d[i]->name;
		int64_t order = *(const int64_t *)d[i]->data;

		if (!strncmp(name, "begin", 5) || !strcmp(name, "init"))
			emit_session_probe(x, d[i], XPROBE_BEGIN, order);
		else if (!strncmp(name, "end", 3))
			emit_session_probe(x, d[i], XPROBE_END, order);
		else if (!strncmp(name, "error", 5))
			emit_session_probe(x, d[i], XPROBE_ERROR, order);
	}
}

const struct provider begin_end_provider = {
	.name = "begin/end",
	.family = "CTAP_FAMILY_BEGIN_END",
	.user = true,
	.patterns = patterns,
	.resolve = be_resolve,
	.emit = be_emit,
};
