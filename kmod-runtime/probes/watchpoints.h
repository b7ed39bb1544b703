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

/**
 * ctap_watchpoints_register - arm the hardware watchpoints of a table
 * @ws: the table
 * @n: its length
 *
 * A debug register on every CPU for each (register_wide_hw_breakpoint()).
 * Process context.  A refusal (no free debug register) is an error naming
 * the probe point: returns the -errno, nothing left armed.
 */
int ctap_watchpoints_register(struct ctap_watchpoint *ws, int n);

/**
 * ctap_watchpoints_unregister - disarm the watchpoints of a table
 * @ws: the table
 * @n: its length
 *
 * Returns once no handler of them runs.
 */
void ctap_watchpoints_unregister(struct ctap_watchpoint *ws, int n);

#endif /* CTAP_WATCHPOINTS_H */
