/*
 * timer.c - timer.{ms,s,us,ns,hz,jiffies}(N)[.randomize(M)] and timer.profile.
 *
 * Interval timers fire on one CPU with the given period (hrtimers);
 * .randomize(M) adds a random 0..M units to each period.
 */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "xlate.h"

static const char *const patterns[] = {
	"timer.ms(number)", "timer.ms(number).randomize(number)",
	"timer.s(number)", "timer.s(number).randomize(number)",
	"timer.sec(number)", "timer.sec(number).randomize(number)",
	"timer.us(number)", "timer.us(number).randomize(number)",
	"timer.ns(number)", "timer.ns(number).randomize(number)",
	"timer.hz(number)",
	"timer.jiffies(number)", "timer.jiffies(number).randomize(number)",
	"timer.profile",
	NULL
};

#define HZ_OF_TARGET	250	/* Debian's CONFIG_HZ; read from .config later */

/* Nanoseconds per unit of each timer kind. */
static int64_t unit_ns(const char *unit)
{
	if (!strcmp(unit, "s") || !strcmp(unit, "sec"))
		return 1000000000;
	if (!strcmp(unit, "ms"))
		return 1000000;
	if (!strcmp(unit, "us"))
		return 1000;
	if (!strcmp(unit, "jiffies"))
		return 1000000000 / HZ_OF_TARGET;
	return 1;
}

static int timer_resolve(struct elab *e, const struct pp_match *m)
{
	const struct pp_component *kind = m->comps[1];
	struct derived_probe *d;
	int64_t n;
	char name[128];

	if (!strcmp(m->pattern_text, "timer.profile")) {
		elab_add(e, m, "timer.profile");
		return 1;
	}
	n = kind->arg->num;
	if (n <= 0) {
		elab_error(e, m, "timer interval must be positive, not %lld", (long long)n);
		return -1;
	}
	snprintf(name, sizeof(name), "timer.%s(%lld)", kind->name, (long long)n);
	d = elab_add(e, m, name);
	if (!strcmp(kind->name, "hz"))
		d->interval_ns = 1000000000 / n;
	else
		d->interval_ns = n * unit_ns(kind->name);
	if (m->ncomps > 2) {
		int64_t r = m->comps[2]->arg->num;

		if (r <= 0 || r * unit_ns(kind->name) >= d->interval_ns) {
			elab_error(e, m, "randomize must be positive and less than the interval");
			return -1;
		}
		d->randomize_ns = r * unit_ns(kind->name);
		d->name = arena_printf(elab_arena(e), "%s.randomize(%lld)", d->name, (long long)r);
	}
	return 1;
}

static void timer_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_timer timers[] = {\n");
	for (int i = 0; i < n; i++) {
		if (!d[i]->interval_ns) {
			gen_error(x, &d[i]->written->loc, "%s is not supported by pass 3 yet", d[i]->name);
			continue;
		}
		emit_c(x, "\t{ .probe = %s, .interval_ns = %lldULL, .randomize_ns = %lldULL },\n",
		       emit_probe_ref(x, d[i]), (long long)d[i]->interval_ns,
		       (long long)d[i]->randomize_ns);
	}
	emit_table_family(x, "timers", "ctap_timers_start", "ctap_timers_stop");
}

const struct provider timer_provider = {
	.name = "timer",
	.patterns = patterns,
	.resolve = timer_resolve,
	.emit = timer_emit,
};
