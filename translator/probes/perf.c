// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - perf.type(T).config(C)[.sample(N)] (runtime side:
 * kmod-runtime/probes/perf.c); perf.sw.*, perf.hw.* and perf.hw_cache.*
 * are aliases of it in tapsets/perf.stp.
 *
 * A counter on every CPU of the kernel's perf event T/C (PERF_TYPE_*,
 * and its config values); every N events (1,000,000 unless given) its
 * overflow runs the probe.  Hardware counters need a PMU: without one
 * (an emulated CPU) the probe fails to register.
 *
 * .process("PATH"): a counter per thread of the processes running PATH
 * instead (.process alone: of the target process, -c/-x), which runs the
 * probe likewise; .counter("NAME"): it only counts, and @perf("NAME") in
 * a probe of the same process reads the thread's count (perf_counter()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "elaborate.h"
#include "perf.h"
#include "provider.h"
#include "session.h"
#include "timers.h"
#include "xlate.h"

static const char *const patterns[] = {
	"perf.type(number).config(number)",
	"perf.type(number).config(number).sample(number)",
	"perf.type(number).config(number).process",
	"perf.type(number).config(number).process(string)",
	"perf.type(number).config(number).sample(number).process",
	"perf.type(number).config(number).sample(number).process(string)",
	"perf.type(number).config(number).counter(string)",
	"perf.type(number).config(number).process.counter(string)",
	"perf.type(number).config(number).process(string).counter(string)",
	NULL
};

#define DEFAULT_SAMPLE	1000000
#define MAX_TYPE	5	/* PERF_TYPE_BREAKPOINT: the last generic one */

/* A probe's own data (derived_probe.data). */
struct perf_point {
	int64_t type, config, sample;	/* sample 0: a .counter */
	bool process;			/* per thread of path's processes, */
	const char *path;		/* ... or NULL: of the target's */
	const char *counter;		/* .counter("NAME"), or NULL */
};

extern const struct provider perf_provider;

/* A clock the kernel samples with an hrtimer (PERF_TYPE_SOFTWARE's
 * cpu_clock and task_clock): its period is in nanoseconds, its floor
 * the kernel's 10 us. */
static bool is_clock(const struct perf_point *p)
{
	return p->type == 1 && (p->config == 0 || p->config == 1);
}

/* .process[("PATH")] and .counter("NAME") of m, into p; the name's suffix. */
static const char *process_parts(struct elab *elab, const struct pp_match *m, struct perf_point *p)
{
	struct arena *a = elab_arena(elab);
	const char *suffix = "";

	for (int i = 3; i < m->ncomps; i++) {
		const struct pp_component *c = m->comps[i];

		if (!strcmp(c->name, "process")) {
			p->process = true;
			if (c->arg) {
				p->path = process_target_path(elab, m, c->arg->str);
				if (!p->path)
					return NULL;	/* said why */
				suffix = arena_printf(a, "%s.process(\"%s\")", suffix, p->path);
			} else if (!elab_session(elab)->opt.cmd && !elab_session(elab)->opt.target_pid) {
				elab_error(elab, m, ".process without a path is the target process: "
					   "name one with -c or -x (or give the path)");
				return NULL;
			} else {
				suffix = arena_printf(a, "%s.process", suffix);
			}
		} else if (!strcmp(c->name, "counter")) {
			if (!*c->arg->str) {
				elab_error(elab, m, "a perf counter needs a name: .counter(\"NAME\")");
				return NULL;
			}
			p->counter = c->arg->str;
			p->sample = 0;
			suffix = arena_printf(a, "%s.counter(\"%s\")", suffix, p->counter);
		}
	}
	/* A counter of no process is the target's (-c, -x), as SystemTap's;
	 * without one it counts nothing. */
	if (p->counter)
		p->process = true;
	return suffix;
}

static int perf_resolve(struct elab *elab, const struct pp_match *m)
{
	struct perf_point *p = arena_new(elab_arena(elab), struct perf_point);
	struct derived_probe *d;
	const char *suffix = "";
	char name[128];

	p->type = m->comps[1]->arg->num;
	p->config = m->comps[2]->arg->num;
	p->sample = m->ncomps > 3 && !strcmp(m->comps[3]->name, "sample") ? m->comps[3]->arg->num
									 : DEFAULT_SAMPLE;
	if (strstr(m->pattern_text, "process") || strstr(m->pattern_text, "counter")) {
		suffix = process_parts(elab, m, p);
		if (!suffix)
			return -EINVAL;
	}
	if (p->counter && perf_counter(elab_session(elab), p->counter, NULL, NULL)) {
		elab_error(elab, m, "counter \"%s\" is defined twice", p->counter);
		return -EINVAL;
	}
	if (p->type < 0 || p->type > MAX_TYPE || p->config < 0) {
		elab_error(elab, m, "perf type %lld config %lld: the type is 0 to %d (PERF_TYPE_*), "
			   "the config not negative", (long long)p->type, (long long)p->config,
			   MAX_TYPE);
		return -EINVAL;
	}
	if (p->sample < 1 && !p->counter) {
		elab_error(elab, m, "perf sample period must be positive");
		return -EINVAL;
	}
	if (is_clock(p) && !p->counter && p->sample < TIMER_MIN_PERIOD_NS) {
		elab_error(elab, m, "a perf clock sampler's period is at least %lld ns, as a timer's, "
			   "not %lld", TIMER_MIN_PERIOD_NS, (long long)p->sample);
		return -EINVAL;
	}
	if (is_clock(p) && !p->counter && !timers_claim_rate(elab, m, p->sample))
		return -EINVAL;
	snprintf(name, sizeof(name), "perf.type(%lld).config(%lld)", (long long)p->type,
		 (long long)p->config);
	d = elab_add(elab, m, name);
	if (m->ncomps > 3 && !strcmp(m->comps[3]->name, "sample"))
		d->name = arena_printf(elab_arena(elab), "%s.sample(%lld)", d->name,
				       (long long)p->sample);
	d->name = arena_printf(elab_arena(elab), "%s%s", d->name, suffix);
	d->data = p;
	d->acts = p->counter != NULL;
	return 1;
}

const struct derived_probe *perf_counter(struct session *s, const char *name,
					 const struct derived_probe *site, const char **why)
{
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next) {
		const struct perf_point *p = d->data;

		if (d->provider != &perf_provider || !p->counter || strcmp(p->counter, name))
			continue;
		/* In a probe of the program's code: at process.begin a thread's
		 * counter is not made yet (SystemTap's transko/perf01). */
		if (site && strcmp(site->provider->name, "process")) {
			*why = arena_printf(&s->arena, "@perf reads a counter in a probe of a "
					    "program's code (process(...).function, .statement, "
					    ".mark), not in %s", site->name);
			return NULL;
		}
		if (site && p->path && (!site->process || strcmp(site->process, p->path))) {
			*why = arena_printf(&s->arena, "counter \"%s\" counts process(\"%s\"), not "
					    "this probe's", name, p->path);
			return NULL;
		}
		return d;	/* the target's: any probe (SystemTap does not check) */
	}
	if (why)
		*why = arena_printf(&s->arena, "no perf counter named \"%s\" (a probe "
				    "perf.*.process(\"PATH\").counter(\"%s\") {} defines it)",
				    name, name);
	return NULL;
}

static void perf_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_perf perf_events[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct perf_point *p = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n\t\t.type = %lld,\n\t\t.config = %#llx,\n"
		       "\t\t.sample_period = %lld,\n", emit_probe_ref(x, d[i]),
		       (long long)p->type, (long long)p->config, (long long)p->sample);
		if (p->process)
			emit_c(x, "\t\t.process = true,\n");
		if (p->path)
			emit_c(x, "\t\t.path = %s,\n", gen_c_string(x, p->path));
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "perf_events", "ctap_perf_register", "ctap_perf_unregister");
}

const struct provider perf_provider = {
	.name = "perf",
	.family = "CTAP_FAMILY_PERF",
	.patterns = patterns,
	.runtime = "probes/perf",
	.resolve = perf_resolve,
	.emit = perf_emit,
	.counter = perf_counter,
};
