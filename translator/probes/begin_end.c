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
#include "xlate.h"

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

/* They run from the session (start and stop), not from a family; never
 * probes stay event probes that no family arms. */
static void be_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	for (int i = 0; i < n; i++) {
		const char *name = d[i]->name;

		if (!strncmp(name, "begin", 5))
			emit_session_probe(x, d[i], "CTAP_PROBE_BEGIN");
		else if (!strncmp(name, "end", 3))
			emit_session_probe(x, d[i], "CTAP_PROBE_END");
		else if (!strncmp(name, "error", 5))
			emit_session_probe(x, d[i], "CTAP_PROBE_ERROR");
	}
}

const struct provider begin_end_provider = {
	.name = "begin/end",
	.patterns = patterns,
	.resolve = be_resolve,
	.emit = be_emit,
};
