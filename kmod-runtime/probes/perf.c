// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - probes on kernel perf event counters.
 *
 * The overflow handler runs where the event is counted: in NMI for a
 * hardware counter, in the hrtimer interrupt for the clocks, in the
 * faulting task for page faults.  ctap_probe_run() is safe in all of those.
 * A CPU brought up after the session armed has no counter.
 */
#include <linux/slab.h>

#include "perf.h"

static void perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct ctap_perf *p = event->overflow_handler_context;

	ctap_probe_run(p->probe, regs, NULL, 0);
}

static void release(struct ctap_perf *p)
{
	int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static int start_one(struct ctap_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.sample_period = p->sample_period,
		.pinned = 1,
	};
	int cpu;

	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
									 perf_overflow, p);

		if (IS_ERR(ev)) {
			ctap_oob("ERROR: probe %s registration error on cpu %d (rc %ld)\n",
				 p->probe->pp, cpu, PTR_ERR(ev));
			release(p);
			return PTR_ERR(ev);
		}
		p->events[cpu] = ev;
	}
	return 0;
}

int ctap_perf_start(struct ctap_perf *ps, int n)
{
	for (int i = 0; i < n; i++) {
		int ret = start_one(&ps[i]);

		if (ret) {
			ctap_perf_stop(ps, i);
			return ret;
		}
	}
	return 0;
}

/* perf_event_release_kernel() waits for a handler in progress. */
void ctap_perf_stop(struct ctap_perf *ps, int n)
{
	for (int i = 0; i < n; i++)
		release(&ps[i]);
}
