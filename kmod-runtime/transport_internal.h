/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transport_internal.h - what transport.c, relay.c and ctl.c share; no
 * other file includes it.
 *
 * relay.c is the output (the relay channel staprun reads, as staprun's
 * relay.c), ctl.c the control file and the session's state (the ring of
 * messages to staprun, as staprun's ctl.c), transport.c makes the
 * directory and sets both up.  ctl.c calls down into relay.c (the end
 * probes' spill, the counts of lost output); relay.c calls nothing above.
 *
 * Both locks are taken only through guard_lock(): a probe can fire inside
 * the transport (a kprobe on a function it calls, an NMI), and its handler
 * may come back here on the same CPU.  Spinning then would wait for
 * ourselves, so a re-entry drops its message and counts it instead, and so
 * does an NMI that finds a lock taken.  One per-CPU mask of the locks held
 * serves both files, so that a re-entry from either side is seen.
 */
#ifndef CTAP_TRANSPORT_INTERNAL_H
#define CTAP_TRANSPORT_INTERNAL_H

#include <linux/dcache.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>

#include "transport.h"

/* ---- locks that a probe re-entering the transport cannot deadlock on ---- */

enum { HELD_RING = 1, HELD_OUT = 2 };
DECLARE_PER_CPU(unsigned int, ctap_transport_held);	/* which locks this CPU holds */

/*
 * Lock with interrupts already off (NULL: no lock, only the re-entry
 * guard).  False, with nothing held, if this CPU holds the lock already (a
 * probe fired inside the transport) or if an NMI finds it taken.
 */
static inline bool guard_take(spinlock_t *lock, unsigned int bit)
{
	if (__this_cpu_read(ctap_transport_held) & bit)
		return false;
	if (lock) {
		if (in_nmi()) {
			if (!spin_trylock(lock))
				return false;
		} else {
			spin_lock(lock);
		}
	}
	__this_cpu_or(ctap_transport_held, bit);
	return true;
}

/* Interrupts off, then guard_take(); on failure interrupts are restored. */
static inline bool guard_lock(spinlock_t *lock, unsigned int bit, unsigned long *flags)
{
	local_irq_save(*flags);
	if (guard_take(lock, bit))
		return true;
	local_irq_restore(*flags);
	return false;
}

static inline void guard_unlock(spinlock_t *lock, unsigned int bit, unsigned long flags)
{
	__this_cpu_and(ctap_transport_held, ~bit);
	if (lock)
		spin_unlock(lock);
	local_irq_restore(flags);
}

/* ---- relay.c: the output ---- */

/* The relay channel in dir: one global buffer, or one per CPU (bulk). */
int ctap_relay_open(struct dentry *dir, bool bulk, size_t subbuf_size, size_t n_subbufs);
void ctap_relay_close(void);
/* Overwrite the oldest output while no staprun is attached (ctl.c). */
void ctap_relay_overwrite(bool on);
/* Around the end probes: what the buffer cannot hold waits in a spill. */
void ctap_relay_spill_begin(void);
void ctap_relay_spill_end(void);
/* The counts of lost output since the last call, for the stop's warnings. */
unsigned long ctap_relay_take_dropped(void);
unsigned long ctap_relay_take_cut(void);

/* ---- ctl.c: the control file and the session's state ---- */

/* Before the directory: the ring (process context, the loader's: the
 * session's owner is its real uid). */
int ctap_ctl_init(const struct ctap_transport_ops *ops);
/* /proc/ctap-<name>/.cmd, once the output exists. */
int ctap_ctl_create_file(const char *name);
/* Before the output goes: an open .cmd is released here. */
void ctap_ctl_remove_file(void);
/* The session stopped if it runs, no wake-up pending. */
void ctap_ctl_stop(void);
/* After the files are gone (no reader left). */
void ctap_ctl_free(void);

#endif /* CTAP_TRANSPORT_INTERNAL_H */
