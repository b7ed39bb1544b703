/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - timer.ms/s/us/ns/hz/jiffies(N)[.randomize(M)] in user space:
 * one thread of stapdyn runs them all (dyn-runtime/timers.c).  The table
 * the generated module declares is the kernel runtime's, field for field.
 */
#ifndef CTAP_DYN_TIMERS_H
#define CTAP_DYN_TIMERS_H

#include "ctap_runtime.h"

struct ctap_timer {
	const struct ctap_probe *probe;
	u64 interval_ns;
	u64 randomize_ns;		/* 0..M more, drawn for each period */
	bool profile;			/* refused in pass 2 under dyninst */
	u64 next_ns;			/* CLOCK_MONOTONIC of the next hit */
};

/* Start the thread that runs the table; 0 or -errno. */
int ctap_timers_register(struct ctap_timer *ts, int n);
/* Stop it; no handler of the table runs after this returns. */
void ctap_timers_unregister(struct ctap_timer *ts, int n);

#endif /* CTAP_DYN_TIMERS_H */
