// SPDX-License-Identifier: GPL-2.0
/*
 * watchpoints.c - hardware data breakpoints.
 *
 * The handler runs in the debug exception after the access, NMI-like, with
 * the registers of the instruction that made it.  A symbol's address comes
 * from the linker: the translator allows only symbols the kernel exports
 * and declares each under an assembler name (no symbol table in the module).
 */
#include "watchpoints.h"

static void watch_hit(struct perf_event *bp, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	struct ctap_watchpoint *w = bp->overflow_handler_context;

	ctap_probe_run(w->probe, regs, NULL, 0);
}

static int start_one(struct ctap_watchpoint *w)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;

	hw_breakpoint_init(&attr);
	attr.bp_addr = w->address;
	attr.bp_len = w->length;
	attr.bp_type = w->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	bp = register_wide_hw_breakpoint(&attr, watch_hit, w);
	if (IS_ERR((void __force *)bp)) {
		ctap_probe_refused(w->probe, false, "(rc %ld)", PTR_ERR((void __force *)bp));
		return PTR_ERR((void __force *)bp);
	}
	w->bp = bp;
	return 0;
}

int ctap_watchpoints_register(struct ctap_watchpoint *ws, int n)
{
	for (int i = 0; i < n; i++) {
		int ret = start_one(&ws[i]);

		if (ret) {
			ctap_watchpoints_unregister(ws, i);
			return ret;
		}
	}
	return 0;
}

/* unregister_wide_hw_breakpoint() returns once no handler of it runs. */
void ctap_watchpoints_unregister(struct ctap_watchpoint *ws, int n)
{
	for (int i = 0; i < n; i++) {
		if (ws[i].bp)
			unregister_wide_hw_breakpoint(ws[i].bp);
		ws[i].bp = NULL;
	}
}
