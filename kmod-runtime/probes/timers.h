/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - timer.ms/s/us/ns/hz/jiffies(N)[.randomize(M)]: one hrtimer
 * each, on whichever CPU armed it.
 */
#ifndef CTAP_TIMERS_H
#define CTAP_TIMERS_H

#include <linux/hrtimer.h>

#include "ctap_runtime.h"

struct ctap_timer {
	const struct ctap_probe *probe;
	u64 interval_ns;
	u64 randomize_ns;		/* 0..M more, drawn for each period */
	struct hrtimer t;
	bool armed;
};

int ctap_timers_start(struct ctap_timer *ts, int n);
void ctap_timers_stop(struct ctap_timer *ts, int n);

#endif /* CTAP_TIMERS_H */
