// SPDX-License-Identifier: GPL-2.0
/*
 * retprobe.c - return probes: a per-thread shadow stack of return
 * addresses.
 *
 * At a return-probed function's entry the return address at 0(sp) is
 * pushed on the thread's shadow stack with sp, and replaced by the
 * return trampoline (tramp.c); the function's ret lands there with sp
 * one slot higher, the matching frame is popped, the return handler
 * runs and the real return address is returned to.  Recursion nests
 * frames.  A longjmp (or a thread's stack unwound by other means) past
 * probed frames leaves theirs behind: a frame whose sp is below the
 * current one cannot be live, and is dropped (counted in
 * ctapdyn_stats.unwound) at the next entry or return on the thread.  A
 * tail call from one probed function to another sees the return
 * trampoline already in the slot: both frames share it and both
 * returns run.  A full shadow stack (CTAPDYN_SHADOW_DEPTH) skips the
 * return probe, counted.  Not covered: C++ exceptions through a probed
 * frame (the unwinder finds no FDE for the trampoline), and stacks
 * switched by makecontext/sigaltstack under a probed frame.
 */
#include <stdlib.h>

#include "patch_int.h"

extern char ctapdyn__ret_tramp[] HIDDEN;
HIDDEN uint64_t ctapdyn__ret_dispatch(struct ctapdyn_regs *regs);

static void drop_frame(struct ctapdyn_thread *t)
{
	t->depth--;
	__atomic_add_fetch(&ctapdyn__stats.unwound, 1, __ATOMIC_RELAXED);
}

void ctapdyn__ret_entry(struct ctapdyn_regs *regs, struct ctapdyn_probe *p)
{
	struct ctapdyn_thread *t = &ctapdyn__thread;
	uint64_t *slot = (uint64_t *)regs->sp;
	bool tail = *slot == (uint64_t)ctapdyn__ret_tramp;

	while (t->depth && (t->shadow[t->depth - 1].sp < regs->sp ||
			    (t->shadow[t->depth - 1].sp == regs->sp && !tail)))
		drop_frame(t);
	if (p->handler)
		p->handler(regs, p->data);
	if (t->depth == CTAPDYN_SHADOW_DEPTH) {
		__atomic_add_fetch(&p->ret_skipped, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ctapdyn__stats.shadow_full, 1, __ATOMIC_RELAXED);
		return;
	}
	t->shadow[t->depth++] = (struct ctapdyn_shadow){ .ret = *slot, .sp = regs->sp,
							 .probe = p };
	*slot = (uint64_t)ctapdyn__ret_tramp;
}

/*
 * From the return trampoline: the return handler; the real return
 * address.  The thread is busy throughout: a signal handler arriving
 * between reading the frame and popping it must not push over it.
 */
uint64_t ctapdyn__ret_dispatch(struct ctapdyn_regs *regs)
{
	struct ctapdyn_thread *t = &ctapdyn__thread;
	uint64_t entry_sp = regs->sp - 8;
	int busy = t->busy;
	struct ctapdyn_shadow f;

	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	while (t->depth && t->shadow[t->depth - 1].sp < entry_sp)
		drop_frame(t);
	if (!t->depth || t->shadow[t->depth - 1].sp != entry_sp)
		abort();	/* no frame: the return address is lost */
	f = t->shadow[--t->depth];
	regs->ip = f.ret;
	regs->orig_ax = (uint64_t)-1;
	if (busy) {
		__atomic_add_fetch(&f.probe->skipped, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ctapdyn__stats.reentered, 1, __ATOMIC_RELAXED);
	} else {
		f.probe->ret_handler(regs, f.probe->data);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = busy;
	return f.ret;
}
