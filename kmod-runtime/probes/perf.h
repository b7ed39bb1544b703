/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.h - perf.type(T).config(C)[.sample(N)] (and the perf.sw.*, perf.hw.*
 * aliases of tapsets/perf.stp): a kernel perf event counter on every
 * online CPU whose overflow, every N events, runs the probe with the
 * registers the event interrupted.
 *
 * With .process("PATH") (or .process: the target, -c/-x) the counters
 * are per thread of the processes running PATH instead; with
 * .counter("NAME") they only count, and @perf("NAME") in a probe of that
 * process reads the count of the thread it runs in (ctap_perf_read()).
 */
#ifndef CTAP_PERF_H
#define CTAP_PERF_H

#include <linux/perf_event.h>

#include "ctap_runtime.h"

struct ctap_perf_task;

struct ctap_perf {
	const struct ctap_probe *probe;
	u32 type;			/* PERF_TYPE_* */
	u64 config;
	u64 sample_period;		/* 0: a .counter, which only counts */
	bool process;			/* per thread of ... */
	const char *path;		/* ... this executable's processes, or
					   NULL: of the target process */
	/* while armed: */
	struct perf_event **events;	/* every CPU: one per possible CPU */
	struct ctap_perf_task *tasks;	/* per thread: CTAP_PERF_TASKS slots */
	struct ctap_perf_task *retired;	/* ... taken away, freed after a grace period */
	struct inode *inode;		/* path's, held */
	atomic_t skipped;		/* threads not counted: table full */
	int error;			/* the first refusal of a thread's counter */
	bool said;			/* ... reported */
};

/**
 * ctap_perf_register - create the perf counters of a table
 * @ps: the table
 * @n: its length
 *
 * A counter on every online CPU, or with .process one per thread of the
 * program (claimed by the sched_process_* tracepoints; the threads
 * running now before the begin probes).  Process context.  A CPU's
 * refusal (no PMU under an emulated CPU) is an error naming the probe
 * and the CPU: returns the -errno, nothing left armed.
 */
int ctap_perf_register(struct ctap_perf *ps, int n);

/**
 * ctap_perf_unregister - release the counters of a table
 * @ps: the table
 * @n: its length
 *
 * Returns once no overflow handler runs; the per-thread tables are freed
 * after a grace period (another family's handler may read @perf).
 */
void ctap_perf_unregister(struct ctap_perf *ps, int n);

/* @perf: the count of counter (its index in the table) in the current
 * thread; 0 if it has none. */
u64 ctap_perf_read(int counter);

#endif /* CTAP_PERF_H */
