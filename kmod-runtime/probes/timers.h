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

int ctap_timers_start(struct ctap_timer *ts, int n);
void ctap_timers_stop(struct ctap_timer *ts, int n);

#endif /* CTAP_TIMERS_H */
