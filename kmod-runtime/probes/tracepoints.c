// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints.c - attach and detach probes on the kernel's tracepoints.
 *
 * Cheaper than a kprobe: no trap, the tracepoint calls the handler
 * directly with its arguments.  It does so with preemption off and, for
 * some, in NMI or with scheduler locks held; ctap_probe_run() is safe in
 * all of those, and the translator refuses the tracepoints inside the
 * locking and irq-flag code the runtime itself runs through.
 */
#include "tracepoints.h"

int ctap_tracepoints_register(struct ctap_tracepoint *tps, int n)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		tps[i].tp = ctap_tracepoint_find(tps[i].name);
		if (!tps[i].tp) {
			ctap_probe_refused(tps[i].probe, false,
					   "(no tracepoint '%s' in the kernel)", tps[i].name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(tps[i].tp, tps[i].handler, (void *)tps[i].probe);
		if (ret) {
			ctap_probe_refused(tps[i].probe, false, "(rc %d)", ret);
			break;
		}
		tps[i].registered = true;
	}
	if (ret)
		ctap_tracepoints_unregister(tps, i);
	return ret;
}

/*
 * A handler may still run on another CPU after tracepoint_probe_unregister();
 * one wait for them all, before the module's code and data can go.
 */
void ctap_tracepoints_unregister(struct ctap_tracepoint *tps, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		if (!tps[i].registered)
			continue;
		tracepoint_probe_unregister(tps[i].tp, tps[i].handler, (void *)tps[i].probe);
		tps[i].registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}
