/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entry.h - an event probe's way into its handler, inline where a hit is
 * most frequent (the ftrace entry of kernel.function probes) and in
 * session.c's ctap_probe_run_at() for every other family.
 *
 * Every guard of docs/safety.md stays: the session state, --cgroup's
 * scope, one handler per CPU at a time (a nested hit is skipped and
 * counted), globals' locks with MAXTRYLOCK, MAXACTION, soft errors and
 * the overload check.  What is cut is their cost when they do not fire
 * (bench/kprobe-cost.sh, instructions a hit): the common case is a
 * straight line of loads, compares and stores, and whatever is rare
 * (locks, output, errors, the overload interval's end) is a call out of
 * line.
 */
#ifndef CTAP_ENTRY_H
#define CTAP_ENTRY_H

#include "ctap_runtime.h"
#include "probe_entry.h"
#include "scope.h"

/* session.c's, for this file only. */
extern atomic_t ctap_session_state;
DECLARE_PER_CPU(struct ctap_context *, ctap_this_context);
void ctap_event_skip(void);
void ctap_event_after(struct ctap_context *c);
void ctap_overload_check(struct ctap_context *c, cycles_t end);
void ctap_run_locked(struct ctap_context *c, const struct ctap_probe *p);
#ifdef CTAP_TIMED
void ctap_timing_add(const struct ctap_probe *p, cycles_t start);
#else
#define ctap_timing_add(p, start) do { } while (0)	/* no start taken */
#endif
#ifdef CTAP_MONITOR
bool ctap_monitor_off(const struct ctap_probe *p);
#else
static inline bool ctap_monitor_off(const struct ctap_probe *p) { return false; }
#endif

/*
 * Whether event probes may run now without a look at the probe: the
 * session is RUNNING and no --cgroup scope filters tasks.  Otherwise
 * ctap_probe_run_at() decides (it skips every hit outside RUNNING).
 */
static __always_inline bool ctap_events_open(void)
{
	return likely(atomic_read(&ctap_session_state) == S_RUNNING && !ctap_scope_cgroup);
}

/*
 * STP_OVERLOAD's bookkeeping, a handler's time added to its CPU's sum:
 * its start is subtracted on entry and its end added on exit, 12
 * instructions where a start kept for the exit took 16; nothing reads
 * the sum in between (ctap_overload_check() runs after the exit's add).
 */
#ifndef STP_NO_OVERLOAD
static __always_inline void ctap_overload_enter(struct ctap_context *c)
{
	c->cycles_sum -= get_cycles();
}

static __always_inline void ctap_overload_exit(struct ctap_context *c)
{
	cycles_t end = get_cycles();

	c->cycles_sum += end;
	if (unlikely(end - c->cycles_base >= STP_OVERLOAD_INTERVAL))
		ctap_overload_check(c, end);
}
#else
static inline void ctap_overload_enter(struct ctap_context *c) { }
static inline void ctap_overload_exit(struct ctap_context *c) { }
#endif

/*
 * A probe's handler on this CPU, the state already checked.  An event
 * probe (@event, a constant) runs with interrupts off, so this CPU's
 * context is ours and its busy count needs no atomic (local_t: one
 * instruction, which an NMI cannot split); begin, end and error probes
 * run with only preemption off, as SystemTap's: no event probe is armed
 * then that an interrupt could run on this CPU, and an end probe may
 * sort or print a large array.  A handler that takes globals' locks runs
 * from session.c (ctap_run_locked()): one test here, and nothing of the
 * probe is needed after its handler.
 */
static __always_inline void ctap_probe_enter(const struct ctap_probe *p, struct pt_regs *regs,
					     const unsigned long *args, int nargs,
					     unsigned long addr, bool event)
{
	struct ctap_context *c;
	unsigned long flags = 0;
#ifdef CTAP_TIMED
	cycles_t start;
#endif

	/* Switched off in staprun -M's view: as if it had not fired. */
	if (unlikely(ctap_monitor_off(p)))
		return;
#ifdef CTAP_TIMED
	start = get_cycles();
#endif
	if (event)
		local_irq_save(flags);
	else
		preempt_disable();
	c = this_cpu_read(ctap_this_context);
	if (unlikely(local_inc_return(&c->busy) != 1)) {
		ctap_event_skip();	/* a handler interrupted on this CPU */
		goto out;
	}
	ctap_overload_enter(c);
	ctap_context_enter(c, p, regs, args, nargs, addr, event);
	if (likely(!p->nlocks))
		p->handler(c);
	else
		ctap_run_locked(c, p);
	ctap_timing_add(p, start);
	/* Most handlers print nothing and fail nowhere: three loads. */
	if (unlikely(c->out.len || c->out.truncated || c->last_error))
		ctap_event_after(c);
	ctap_overload_exit(c);
out:
	local_dec(&c->busy);
	if (event)
		local_irq_restore(flags);
	else
		preempt_enable();
}

/* An event probe's hit where its family calls in (ftrace's entry). */
static __always_inline void ctap_event_run(const struct ctap_probe *p, struct pt_regs *regs,
					   const unsigned long *args, int nargs)
{
	if (ctap_events_open())
		ctap_probe_enter(p, regs, args, nargs, 0, true);
	else
		ctap_probe_run(p, regs, args, nargs);	/* it decides */
}

#endif /* CTAP_ENTRY_H */
