/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.h - perf.type(T).config(C)[.sample(N)] (and the perf.sw.*, perf.hw.*
 * aliases of tapsets/perf.stp): a kernel perf event counter on every
 * online CPU whose overflow, every N events, runs the probe with the
 * registers the event interrupted.
 */
#ifndef CTAP_PERF_H
#define CTAP_PERF_H

#include <linux/perf_event.h>

#include "ctap_runtime.h"

struct ctap_perf {
	const struct ctap_probe *probe;
	u32 type;			/* PERF_TYPE_* */
	u64 config;
	u64 sample_period;
	struct perf_event **events;	/* one per possible CPU, while armed */
};

/* Creates the counters; a CPU's refusal is an error naming the probe. */
int ctap_perf_start(struct ctap_perf *ps, int n);
void ctap_perf_stop(struct ctap_perf *ps, int n);

#endif /* CTAP_PERF_H */
