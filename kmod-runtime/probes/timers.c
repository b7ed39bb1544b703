// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - interval timers on hrtimers.
 */
#include <linux/random.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <asm/irq_regs.h>

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

/* A profile tick: the registers are those of what the timer interrupted. */
static enum hrtimer_restart profile_fire(struct hrtimer *h)
{
	struct ctap_profile_cpu *pc = container_of(h, struct ctap_profile_cpu, t);

	ctap_probe_run(pc->owner->probe, get_irq_regs(), NULL, 0);
	hrtimer_forward_now(h, ns_to_ktime(pc->owner->interval_ns));
	return HRTIMER_RESTART;
}

/* On each CPU, by IPI: a pinned timer fires where it was started. */
static void profile_start_here(void *info)
{
	struct ctap_timer *t = info;

	hrtimer_start(&this_cpu_ptr(t->cpus)->t, ns_to_ktime(t->interval_ns),
		      HRTIMER_MODE_REL_PINNED);
}

/* Every possible CPU's timer is initialized (so that stop can cancel them
 * all); those online now start.  A CPU brought up later has none. */
static int profile_start(struct ctap_timer *t)
{
	int cpu;

	t->cpus = alloc_percpu(struct ctap_profile_cpu);
	if (!t->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ctap_profile_cpu *pc = per_cpu_ptr(t->cpus, cpu);

		hrtimer_init(&pc->t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		pc->t.function = profile_fire;
		pc->owner = t;
	}
	on_each_cpu(profile_start_here, t, 1);
	return 0;
}

static void profile_stop(struct ctap_timer *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(t->cpus, cpu)->t);
	free_percpu(t->cpus);
	t->cpus = NULL;
}

int ctap_timers_register(struct ctap_timer *ts, int n)
{
	for (int i = 0; i < n; i++) {
		if (ts[i].profile) {
			int ret = profile_start(&ts[i]);

			if (ret) {
				ctap_timers_unregister(ts, i);
				return ret;
			}
			ts[i].armed = true;
			continue;
		}
		hrtimer_init(&ts[i].t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		ts[i].t.function = timer_fire;
		hrtimer_start(&ts[i].t, ns_to_ktime(period(&ts[i])), HRTIMER_MODE_REL);
		ts[i].armed = true;
	}
	return 0;
}

void ctap_timers_unregister(struct ctap_timer *ts, int n)
{
	for (int i = 0; i < n; i++) {
		if (ts[i].armed && ts[i].profile)
			profile_stop(&ts[i]);
		else if (ts[i].armed)
			hrtimer_cancel(&ts[i].t);
		ts[i].armed = false;
	}
}
