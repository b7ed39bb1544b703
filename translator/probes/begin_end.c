/*
 * begin_end.c - begin, end, error and never.
 *
 * begin runs when the session starts, end when it stops, error when it
 * stops after an error (instead of end), never never.  begin(N), end(N)
 * and error(N) order probes of one kind: lower N first, default 0.
 */
#include <stdio.h>
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"begin", "begin(number)", "end", "end(number)", "error", "error(number)", "never",
	NULL
};

static int be_resolve(struct elab *e, const struct pp_match *m)
{
	const struct pp_component *c = m->comps[0];
	const char *kind = strchr(m->pattern_text, '(') ? m->pattern_text : NULL;
	struct derived_probe *d;
	char name[64];

	if (c->arg)
		snprintf(name, sizeof(name), "%.*s(%lld)",
			 (int)(strchr(kind, '(') - kind), kind, (long long)c->arg->num);
	else
		snprintf(name, sizeof(name), "%s", m->pattern_text);
	d = elab_add(e, m, name);
	d->order = c->arg ? c->arg->num : 0;
	return 1;
}

const struct provider begin_end_provider = {
	.name = "begin/end",
	.patterns = patterns,
	.resolve = be_resolve,
};
