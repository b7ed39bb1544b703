// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - interval timers on hrtimers.
 */
#include <linux/random.h>
#include <linux/math64.h>

#include "timers.h"

static u64 period(const struct ctap_timer *t)
{
	u64 ns = t->interval_ns;

	/* randomize_ns is at most a day: no overflow, but more than 32 bits. */
	if (t->randomize_ns) {
		u64 r;

		div64_u64_rem(get_random_u64(), t->randomize_ns + 1, &r);
		ns += r;
	}
	return ns;
}

static enum hrtimer_restart timer_fire(struct hrtimer *h)
{
	struct ctap_timer *t = container_of(h, struct ctap_timer, t);

	ctap_probe_run(t->probe, NULL, NULL, 0);
	hrtimer_forward_now(h, ns_to_ktime(period(t)));
	return HRTIMER_RESTART;
}

int ctap_timers_start(struct ctap_timer *ts, int n)
{
	for (int i = 0; i < n; i++) {
		hrtimer_init(&ts[i].t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		ts[i].t.function = timer_fire;
		hrtimer_start(&ts[i].t, ns_to_ktime(period(&ts[i])), HRTIMER_MODE_REL);
		ts[i].armed = true;
	}
	return 0;
}

void ctap_timers_stop(struct ctap_timer *ts, int n)
{
	for (int i = 0; i < n; i++) {
		if (ts[i].armed)
			hrtimer_cancel(&ts[i].t);
		ts[i].armed = false;
	}
}
