// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - timer.{ms,s,us,ns,hz,jiffies}(N)[.randomize(M)] and timer.profile
 * (runtime side: kmod-runtime/probes/timers.c).
 *
 * Interval timers fire on one CPU with the given period (hrtimers);
 * .randomize(M) adds a random 0..M units to each period.  timer.profile
 * fires on every CPU at the kernel's tick rate, with the registers of
 * what it interrupted (probefunc(), user_mode()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "session.h"
#include "timers.h"
#include "xlate.h"

extern const struct provider timer_provider;

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

/* A probe's own data (derived_probe.data). */
struct timer_point {
	int64_t interval_ns;
	int64_t randomize_ns;
	bool profile;		/* timer.profile: every CPU, each tick */
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

/* SystemTap's bounds on a period: a shorter one would have the timer
 * take the CPU, a longer one is surely a typo. */
#define MIN_PERIOD_NS	TIMER_MIN_PERIOD_NS	/* 100 us */
#define MAX_PERIOD_NS	86400000000000LL	/* a day */

/*
 * ... and on all of them: interval timers each fire on one CPU, perf
 * clock samplers on every CPU, so their rates add up on one CPU at
 * worst.  Any number of timer.us(100) probes (10,000 hits a second each)
 * used to add up without a bound; five of them are the most.
 */
#define TIMER_MAX_RATE		(5 * 1000000000LL / MIN_PERIOD_NS)

bool timers_claim_rate(struct elab *elab, const struct pp_match *m, int64_t period_ns)
{
	struct rate {
		int64_t millihertz;
		bool reported;
	};
	void **slot = elab_provider_state(elab, &timer_provider);
	struct rate *r = *slot;

	if (!r)
		*slot = r = arena_new(elab_arena(elab), struct rate);
	r->millihertz += 1000000000000LL / period_ns;
	if (r->millihertz <= TIMER_MAX_RATE * 1000 || r->reported)
		return !r->reported;
	elab_limit_error(elab, m, "the script's timers and perf clock samplers add up to %lld hits "
			 "a second on a CPU, more than %lld", (long long)(r->millihertz / 1000),
			 (long long)TIMER_MAX_RATE);
	r->reported = true;
	return false;
}

/* n units of unit_ns each, if within the bounds (checked before multiplying,
 * so no n overflows); else an error saying the bounds in those units. */
static int64_t period_ns(struct elab *elab, const struct pp_match *m, int64_t n, int64_t unit)
{
	int64_t lo = (MIN_PERIOD_NS + unit - 1) / unit, hi = MAX_PERIOD_NS / unit;

	if (n < lo || n > hi) {
		elab_error(elab, m, "interval value out of range (%lld, %lld)", (long long)lo,
			   (long long)hi);
		return -EINVAL;
	}
	return n * unit;
}

static int timer_resolve(struct elab *elab, const struct pp_match *m)
{
	const struct pp_component *kind = m->comps[1];
	struct derived_probe *d;
	struct timer_point *t;
	int64_t n, unit = unit_ns(kind->name), ns;
	char name[128];

	if (!strcmp(m->pattern_text, "timer.profile")) {
		/* It samples what every CPU runs: the kernel's view. */
		if (elab_session(elab)->opt.dyninst) {
			elab_error(elab, m, "probe point 'timer.profile' is not available with "
				   "--runtime=dyninst (it needs the kernel)");
			return -EINVAL;
		}
		d = elab_add(elab, m, "timer.profile");
		/* SystemTap 4.8 runs it from perf.sw.cpu_clock where the
		 * kernel has no profile timer hook (all of ours) */
		d->family = "CTAP_FAMILY_PERF";
		t = arena_new(elab_arena(elab), struct timer_point);
		t->interval_ns = 1000000000 / HZ_OF_TARGET;
		t->randomize_ns = 0;
		t->profile = true;
		d->data = t;
		return 1;
	}
	n = kind->arg->num;
	if (!strcmp(kind->name, "hz")) {
		if (n <= 0) {
			elab_error(elab, m, "frequency must be greater than 0");
			return -EINVAL;
		}
		ns = period_ns(elab, m, 1000000000 / n, 1);
	} else if (!strcmp(kind->name, "jiffies") && (n <= 0 || n > MAX_PERIOD_NS / unit)) {
		elab_error(elab, m, "invalid interval for jiffies timer");
		return -EINVAL;
	} else {
		ns = period_ns(elab, m, n, unit);
	}
	if (ns < 0 || !timers_claim_rate(elab, m, ns))
		return -EINVAL;
	snprintf(name, sizeof(name), "timer.%s(%lld)", kind->name, (long long)n);
	d = elab_add(elab, m, name);
	/* An hrtimer here too, but SystemTap's runs from a kernel timer and
	 * probe_type() says so */
	if (!strcmp(kind->name, "jiffies"))
		d->family = "CTAP_FAMILY_TIMER";
	t = arena_new(elab_arena(elab), struct timer_point);
	t->interval_ns = ns;
	d->data = t;
	if (m->ncomps > 2) {
		int64_t r = m->comps[2]->arg->num;

		if (r < 0 || r > n) {
			elab_error(elab, m, "randomization value out of range");
			return -EINVAL;
		}
		t->randomize_ns = r * unit;
		d->name = arena_printf(elab_arena(elab), "%s.randomize(%lld)", d->name, (long long)r);
	}
	return 1;
}

static void timer_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_timer timers[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct timer_point *t = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n\t\t.interval_ns = %lldULL,\n",
		       emit_probe_ref(x, d[i]), (long long)t->interval_ns);
		if (t->randomize_ns)
			emit_c(x, "\t\t.randomize_ns = %lldULL,\n", (long long)t->randomize_ns);
		if (t->profile)
			emit_c(x, "\t\t.profile = true,\n");
		else
			emit_any_task_probe(x, d[i]);
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "timers", "ctap_timers_register", "ctap_timers_unregister");
}

const struct provider timer_provider = {
	.name = "timer",
	.family = "CTAP_FAMILY_HRTIMER",
	.user = true,
	.patterns = patterns,
	.runtime = "probes/timers",
	.resolve = timer_resolve,
	.emit = timer_emit,
};
