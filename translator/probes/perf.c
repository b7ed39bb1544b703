/*
 * perf.c - perf.type(T).config(C)[.sample(N)] (runtime side:
 * kmod-runtime/probes/perf.c); perf.sw.*, perf.hw.* and perf.hw_cache.*
 * are aliases of it in tapsets/perf.stp.
 *
 * A counter on every CPU of the kernel's perf event T/C (PERF_TYPE_*,
 * and its config values); every N events (1,000,000 unless given) its
 * overflow runs the probe.  Hardware counters need a PMU: without one
 * (an emulated CPU) the probe fails to register.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "xlate.h"

static const char *const patterns[] = {
	"perf.type(number).config(number)",
	"perf.type(number).config(number).sample(number)",
	"perf.type(number).config(number).process",
	"perf.type(number).config(number).process(string)",
	"perf.type(number).config(number).counter(string)",
	"perf.type(number).config(number).process.counter(string)",
	"perf.type(number).config(number).process(string).counter(string)",
	NULL
};

#define DEFAULT_SAMPLE	1000000
#define MAX_TYPE	5	/* PERF_TYPE_BREAKPOINT: the last generic one */

/* A probe's own data (derived_probe.data). */
struct perf_point {
	int64_t type, config, sample;
};

static int perf_resolve(struct elab *e, const struct pp_match *m)
{
	struct perf_point *p = arena_new(elab_arena(e), struct perf_point);
	struct derived_probe *d;
	char name[128];

	if (strstr(m->pattern_text, "process") || strstr(m->pattern_text, "counter")) {
		elab_error(e, m, "perf counters of a process (.process, .counter, @perf) are "
			   "not supported yet; sample every CPU with .sample(N)");
		return -EINVAL;
	}
	p->type = m->comps[1]->arg->num;
	p->config = m->comps[2]->arg->num;
	p->sample = m->ncomps > 3 ? m->comps[3]->arg->num : DEFAULT_SAMPLE;
	if (p->type < 0 || p->type > MAX_TYPE || p->config < 0) {
		elab_error(e, m, "perf type %lld config %lld: the type is 0 to %d (PERF_TYPE_*), "
			   "the config not negative", (long long)p->type, (long long)p->config,
			   MAX_TYPE);
		return -EINVAL;
	}
	if (p->sample < 1) {
		elab_error(e, m, "perf sample period must be positive");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "perf.type(%lld).config(%lld)", (long long)p->type,
		 (long long)p->config);
	d = elab_add(e, m, name);
	if (m->ncomps > 3)
		d->name = arena_printf(elab_arena(e), "%s.sample(%lld)", d->name,
				       (long long)p->sample);
	d->data = p;
	return 1;
}

static void perf_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_perf perf_events[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct perf_point *p = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n\t\t.type = %lld,\n\t\t.config = %#llx,\n"
		       "\t\t.sample_period = %lld,\n\t},\n", emit_probe_ref(x, d[i]),
		       (long long)p->type, (long long)p->config, (long long)p->sample);
	}
	emit_table_family(x, "perf_events", "ctap_perf_start", "ctap_perf_stop");
}

const struct provider perf_provider = {
	.name = "perf",
	.patterns = patterns,
	.runtime = "probes/perf",
	.resolve = perf_resolve,
	.emit = perf_emit,
};
