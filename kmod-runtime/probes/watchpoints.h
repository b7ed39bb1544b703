/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpoints.h - kernel.data("SYMBOL") and kernel.data(ADDRESS)[.length(N)],
 * .write or .rw: a hardware breakpoint on every CPU (the debug registers)
 * that runs the probe when the watched bytes are written (or accessed).
 */
#ifndef CTAP_WATCHPOINTS_H
#define CTAP_WATCHPOINTS_H

#include <linux/hw_breakpoint.h>

#include "ctap_runtime.h"

struct ctap_watchpoint {
	const struct ctap_probe *probe;
	unsigned long address;		/* an exported symbol's, from the linker */
	int length;			/* 1, 2, 4 or 8 bytes */
	bool rw;			/* reads too, not only writes */
	struct perf_event * __percpu *bp;	/* while armed */
};

int ctap_watchpoints_start(struct ctap_watchpoint *ws, int n);
void ctap_watchpoints_stop(struct ctap_watchpoint *ws, int n);

#endif /* CTAP_WATCHPOINTS_H */
