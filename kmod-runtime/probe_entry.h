/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_entry.h - what a probe's entry is in both runtimes, written once:
 * the session's states, which probes a state lets run, the globals'
 * locks (tried in the one order, MAXTRYLOCK times TRYLOCKDELAY, never
 * waited on), a handler's context and the ERROR lines of its soft error.
 * Included by kmod-runtime/session.c and dyn-runtime/session.c, whose
 * probe entries differ only in where the context is (a CPU's, a thread's
 * slot) and what keeps a handler from being interrupted; udelay() is the
 * kernel's there and usleep() here (dyn-runtime/ctap_platform.h).
 */
#ifndef CTAP_PROBE_ENTRY_H
#define CTAP_PROBE_ENTRY_H

#include "ctap_runtime.h"

/* As SystemTap's: LOADED until started; STARTING while the begin probes
 * run; RUNNING while event probes may fire; STOPPING once the script
 * called exit(), an error limit was hit or the session was asked to stop
 * (event probes return at once); STOPPED after the end probes ran. */
enum { S_LOADED, S_STARTING, S_RUNNING, S_STOPPING, S_STOPPED };

static inline bool ctap_state_allows(int state, const struct ctap_probe *p)
{
	switch (p->kind) {
	case CTAP_PROBE_BEGIN:
		return state == S_STARTING;
	case CTAP_PROBE_END:
	case CTAP_PROBE_ERROR:
		return true;	/* called only by stop() */
	default:
		return state == S_RUNNING;
	}
}

/* Globals' locks, in the one order; false (nothing held) after MAXTRYLOCK. */
static inline bool ctap_lock_globals(const struct ctap_probe *p)
{
	int i, tries;

	for (i = 0; i < p->nlocks; i++) {
		for (tries = 0; ; tries++) {
			if (p->locks[i].write ? write_trylock(p->locks[i].lock) :
			    read_trylock(p->locks[i].lock))
				break;
			if (tries == MAXTRYLOCK)
				goto fail;
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
fail:
	while (i--)
		p->locks[i].write ? write_unlock(p->locks[i].lock) : read_unlock(p->locks[i].lock);
	return false;
}

static inline void ctap_unlock_globals(const struct ctap_probe *p)
{
	for (int i = p->nlocks - 1; i >= 0; i--)
		p->locks[i].write ? write_unlock(p->locks[i].lock) : read_unlock(p->locks[i].lock);
}

/*
 * A handler's context: the probe, where and with what it hit, its
 * MAXACTION budget (an event probe's, or the larger one of begin, end
 * and error probes, which may sort or print a large array).  The error
 * fields are clear already: ctap_print_error() cleared them after the
 * last handler's error, or a catch did.
 */
static __always_inline void ctap_context_enter(struct ctap_context *c, const struct ctap_probe *p,
					       struct pt_regs *regs, const unsigned long *args,
					       int nargs, unsigned long addr, bool event)
{
	c->probe = p;
	c->regs = regs;
	c->probe_addr = addr;
	c->args = args;
	c->nargs = nargs;
	c->last_stmt = NULL;
	c->actions = event ? MAXACTION : MAXACTION_INTERRUPTIBLE;
}

/*
 * Whether the handler ended by abort(): nothing to report, no error to
 * count; the fields are cleared for the context's next handler.
 */
static inline bool ctap_aborted(struct ctap_context *c)
{
	if (c->last_error != ctap_abort_error)
		return false;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->ncalled = 0;
	return true;
}

/*
 * The ERROR line is SystemTap 4.8's; an error in a script function adds
 * the calls it unwound through, innermost first, and the probe (SystemTap
 * 5.x names that chain too).  Lines that start with a space: staprun
 * prints them as they come, and scripts that grep ERROR: see no change.
 * The caller counts the error against MAXERRORS.  The error is cleared
 * for the context's next handler (ctap_context_enter() does not).
 */
static inline void ctap_print_error(struct ctap_context *c)
{
	int i;

	if (c->last_stmt)
		ctap_oob("ERROR: %s near %s\n", c->last_error, c->last_stmt);
	else
		ctap_oob("ERROR: %s\n", c->last_error);
	for (i = 0; i < min(c->ncalled, CTAP_CALLED); i++)
		ctap_oob(" in %s\n", c->called[i]);
	if (c->ncalled > CTAP_CALLED)
		ctap_oob(" ... and %d calls more\n", c->ncalled - CTAP_CALLED);
	if (c->ncalled)
		ctap_oob(" in probe %s\n", c->probe->pp);
	c->last_error = NULL;
	c->ncalled = 0;
}

#endif /* CTAP_PROBE_ENTRY_H */
