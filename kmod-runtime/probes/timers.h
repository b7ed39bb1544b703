/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - timer.ms/s/us/ns/hz/jiffies(N)[.randomize(M)]: one hrtimer
 * each, on whichever CPU armed it; timer.profile: one on every CPU, whose
 * handler sees the registers it interrupted.
 */
#ifndef CTAP_TIMERS_H
#define CTAP_TIMERS_H

#include <linux/hrtimer.h>

#include "ctap_runtime.h"

struct ctap_profile_cpu {
	struct hrtimer t;
	const struct ctap_timer *owner;
};

struct ctap_timer {
	const struct ctap_probe *probe;
	u64 interval_ns;
	u64 randomize_ns;		/* 0..M more, drawn for each period */
	bool profile;			/* on every CPU (online when armed) */
	struct hrtimer t;
	struct ctap_profile_cpu __percpu *cpus;	/* .profile's */
	bool armed;
};

/**
 * ctap_timers_register - start the timers of a table
 * @ts: the table
 * @n: its length
 *
 * An hrtimer each, or with .profile one on every online CPU.  Process
 * context.  Returns 0, or the -errno of a .profile timer's allocation,
 * nothing left running.
 */
int ctap_timers_register(struct ctap_timer *ts, int n);

/**
 * ctap_timers_unregister - stop the timers of a table
 * @ts: the table
 * @n: its length
 *
 * Returns once no handler of them runs (hrtimer_cancel()).
 */
void ctap_timers_unregister(struct ctap_timer *ts, int n);

#endif /* CTAP_TIMERS_H */
