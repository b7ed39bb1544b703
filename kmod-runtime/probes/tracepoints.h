/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoints.h - kernel.trace("SYSTEM:NAME"): a probe on one of the
 * kernel's static tracepoints.
 *
 * The tracepoint calls its probes with its own prototype, so each ctap
 * probe has a handler that the translator generates with that prototype
 * (from the tracepoint's BTF): it packs the arguments for $vars and calls
 * ctap_probe_run().
 */
#ifndef CTAP_TRACEPOINTS_H
#define CTAP_TRACEPOINTS_H

#include <linux/tracepoint.h>

#include "ctap_runtime.h"

struct ctap_tracepoint_lookup {
	const char *name;
	struct tracepoint *tp;
};

static inline void ctap_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct ctap_tracepoint_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

/*
 * The core kernel's tracepoint name ("sched_switch"), or NULL: a walk
 * over them all (they are not exported one by one).  For every family
 * that attaches to tracepoints: kernel.trace, kernel.syscall, process.begin.
 */
static inline struct tracepoint *ctap_tracepoint_find(const char *name)
{
	struct ctap_tracepoint_lookup l = { name, NULL };

	for_each_kernel_tracepoint(ctap_tracepoint_match, &l);
	return l.tp;
}

/*
 * A family's own hook on a core kernel tracepoint (perf's
 * sched_process_*, tasks' sys_exit and sched_process_exec): not a probe
 * of the script, and called with no data.  Detaching is
 * ctap_tp_unhook() on each, then one tracepoint_synchronize_unregister()
 * for them all, before what the handlers read can go.
 */
struct ctap_tp_hook {
	const char *name;		/* the kernel's: "sched_process_fork" */
	void *handler;			/* void (*)(void *data, the tracepoint's args) */
	struct tracepoint *tp;
	bool registered;
};

/*
 * Attach h; a missing tracepoint or the kernel's refusal is an error
 * naming the probe point p the hook serves: returns the -errno.
 */
static inline int ctap_tp_hook(struct ctap_tp_hook *h, const struct ctap_probe *p)
{
	int ret;

	h->tp = ctap_tracepoint_find(h->name);
	ret = h->tp ? tracepoint_probe_register(h->tp, h->handler, NULL) : -ENOENT;
	if (ret) {
		ctap_probe_refused(p, false, "(tracepoint %s: rc %d)", h->name, ret);
		return ret;
	}
	h->registered = true;
	return 0;
}

static inline void ctap_tp_unhook(struct ctap_tp_hook *h)
{
	if (!h->registered)
		return;
	tracepoint_probe_unregister(h->tp, h->handler, NULL);
	h->registered = false;
}

struct ctap_tracepoint {
	const struct ctap_probe *probe;	/* the handler's data */
	const char *name;		/* the kernel's: "sched_switch" */
	void *handler;			/* void (*)(void *probe, the tracepoint's args) */
	struct tracepoint *tp;
	bool registered;
};

/**
 * ctap_tracepoints_register - attach a table of tracepoint probes
 * @tps: the table
 * @n: its length
 *
 * Finds the kernel's tracepoints by name (the core kernel's: those of a
 * module are not looked up).  A missing one or one the kernel refuses is
 * an error naming the probe point: returns the -errno, nothing attached.
 */
int ctap_tracepoints_register(struct ctap_tracepoint *tps, int n);
void ctap_tracepoints_unregister(struct ctap_tracepoint *tps, int n);

#endif /* CTAP_TRACEPOINTS_H */
