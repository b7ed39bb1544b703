// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - probes on system calls by number, on the raw_syscalls
 * tracepoints: two registrations for any number of probes, where a
 * kprobe per call would cost a breakpoint each and seconds of arming for
 * syscall.*.  Each system call then looks its number up in the sorted
 * table (a binary search) and runs the probes found.
 *
 * A 32-bit (ia32) task's numbers are another table's: its calls run the
 * probes marked is_compat (kernel.compat_syscall), with the arguments of
 * its registers; those also marked as_64 are a 64-bit call's probe
 * (kernel.syscall) on the 32-bit call of the same kernel function, whose
 * $regs is a copy with the arguments where the 64-bit call has them.  x32
 * calls (__X32_SYSCALL_BIT) are skipped.
 */
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "syscalls.h"
#include "target.h"
#include "tracepoints.h"

/*
 * A probe's arguments: the call's six (int_arg(1) is the first, as in
 * SystemTap's nd_syscall probes), then $regs and $id or $ret.
 */
#define CTAP_SYSCALL_ARGS	8

static void ctap_syscalls_args(unsigned long *args, struct pt_regs *regs, long val,
			       bool compat)
{
	if (compat) {		/* the ia32 convention: ebx, ecx, edx, esi, edi, ebp */
		args[0] = (u32)regs->bx;
		args[1] = (u32)regs->cx;
		args[2] = (u32)regs->dx;
		args[3] = (u32)regs->si;
		args[4] = (u32)regs->di;
		args[5] = (u32)regs->bp;
	} else {
		args[0] = regs->di;
		args[1] = regs->si;
		args[2] = regs->dx;
		args[3] = regs->r10;
		args[4] = regs->r8;
		args[5] = regs->r9;
	}
	args[6] = (unsigned long)regs;
	args[7] = val;
}

/*
 * An ia32 call's registers as a 64-bit call's: the arguments (ebx, ecx,
 * edx, esi, edi, ebp, zero-extended as the kernel's ia32 wrappers do) in
 * di, si, dx, r10, r8, r9, for the syscall.* tapsets that read $regs.  A
 * copy: a guru-mode write to its arguments reaches no call.
 */
static void ctap_syscalls_regs_64(struct pt_regs *out, const struct pt_regs *regs)
{
	*out = *regs;
	out->di = (u32)regs->bx;
	out->si = (u32)regs->cx;
	out->dx = (u32)regs->dx;
	out->r10 = (u32)regs->si;
	out->r8 = (u32)regs->di;
	out->r9 = (u32)regs->bp;
}
NOKPROBE_SYMBOL(ctap_syscalls_regs_64);

/* A row's arguments: $regs is regs64 for an as_64 one. */
static void ctap_syscalls_row_args(unsigned long *args, const struct ctap_syscall *s,
				   struct pt_regs *regs, struct pt_regs *regs64, long val)
{
	ctap_syscalls_args(args, regs, val, s->is_compat);
	if (s->as_64)
		args[6] = (unsigned long)regs64;
}
NOKPROBE_SYMBOL(ctap_syscalls_row_args);

/* Whether current's call is an ia32 one (the compat table's numbers). */
static bool ctap_syscalls_compat(void)
{
#ifdef CONFIG_IA32_EMULATION
	return in_ia32_syscall();
#else
	return false;
#endif
}
NOKPROBE_SYMBOL(ctap_syscalls_compat);

/*
 * A task's @entry values between a call's entry and its return: the
 * arguments, then the saved values (ctap_entry_saved()).  A slot is the
 * task's while task is set; pid is its pid, written while task is
 * SLOT_CLAIMING and read after task (ctap_syscalls_reclaim()).
 */
struct ctap_syscall_slot {
	struct task_struct *task;
	pid_t pid;
	const struct ctap_syscall *s;
	unsigned long args[];
};

#define SLOT_CLAIMING	((struct task_struct *)1)

static struct {
	struct ctap_syscall *v;
	int n;
	struct tracepoint *enter, *exit;
	bool enter_on, exit_on;
	char *slots;			/* CTAP_SYSCALL_SLOTS of slot_size, or NULL */
	size_t slot_size;
} sc;

static struct ctap_syscall_slot *ctap_syscalls_slot(int i)
{
	return (struct ctap_syscall_slot *)(sc.slots + i * sc.slot_size);
}

/* slot, which its claimer holds as SLOT_CLAIMING, current's for s. */
static struct ctap_syscall_slot *ctap_syscalls_own(struct ctap_syscall_slot *slot,
						     const struct ctap_syscall *s)
{
	slot->pid = task_pid_nr(current);
	WRITE_ONCE(slot->s, s);
	smp_store_release(&slot->task, current);
	return slot;
}
NOKPROBE_SYMBOL(ctap_syscalls_own);

/* The slot current keeps for s, or (claim) a free one now its own. */
static struct ctap_syscall_slot *ctap_syscalls_find(const struct ctap_syscall *s, bool claim)
{
	for (int i = 0; sc.slots && i < CTAP_SYSCALL_SLOTS; i++) {
		struct ctap_syscall_slot *slot = ctap_syscalls_slot(i);

		if (!claim && READ_ONCE(slot->task) == current && READ_ONCE(slot->s) == s)
			return slot;
		if (claim && !READ_ONCE(slot->task) && !cmpxchg(&slot->task, NULL, SLOT_CLAIMING))
			return ctap_syscalls_own(slot, s);
	}
	return NULL;
}
NOKPROBE_SYMBOL(ctap_syscalls_find);

/*
 * No slot is free: one whose task has exited inside a call is taken over
 * (a call that never came back through sys_exit: a task killed in a way
 * that skips it, a call a tracer cancelled).  Its pid names another task
 * now, or none; the task pointer is compared, never followed.
 */
static struct ctap_syscall_slot *ctap_syscalls_reclaim(const struct ctap_syscall *s)
{
	for (int i = 0; i < CTAP_SYSCALL_SLOTS; i++) {
		struct ctap_syscall_slot *slot = ctap_syscalls_slot(i);
		struct task_struct *t = smp_load_acquire(&slot->task);
		bool alive;

		if (!t || t == SLOT_CLAIMING)
			continue;
		rcu_read_lock();
		alive = pid_task(find_pid_ns(READ_ONCE(slot->pid), &init_pid_ns), PIDTYPE_PID) == t;
		rcu_read_unlock();
		if (!alive && cmpxchg(&slot->task, t, SLOT_CLAIMING) == t)
			return ctap_syscalls_own(slot, s);
	}
	return NULL;
}
NOKPROBE_SYMBOL(ctap_syscalls_reclaim);

/* Calls that never return through sys_exit with their number: exit and
 * exit_group end the task, rt_sigreturn leaves with orig_ax -1 (the
 * registers of the interrupted code).  Their entries take no slot. */
static bool ctap_syscalls_returns(long nr, bool compat)
{
#ifdef CONFIG_IA32_EMULATION
	if (compat)
		return nr != __NR_ia32_exit && nr != __NR_ia32_exit_group &&
		       nr != __NR_ia32_sigreturn && nr != __NR_ia32_rt_sigreturn;
#endif
	return nr != __NR_exit && nr != __NR_exit_group && nr != __NR_rt_sigreturn;
}

/* A call's entry: the @entry part of a return probe, into a slot.  A slot
 * current still holds for s is stale (a call that never returned, or a
 * task that died in one whose task_struct is current's now). */
static void ctap_syscalls_entry_part(const struct ctap_syscall *s, struct pt_regs *regs,
				     struct pt_regs *regs64, long id)
{
	struct ctap_syscall_slot *slot = ctap_syscalls_find(s, false);

	if (!slot)
		slot = ctap_syscalls_find(s, true);
	if (!slot)
		slot = ctap_syscalls_reclaim(s);
	if (!slot) {
		ctap_add_skipped(1);
		return;
	}
	memset(slot->args, 0, sc.slot_size - sizeof(*slot));
	ctap_syscalls_row_args(slot->args, s, regs, regs64, id);
	ctap_probe_run(s->entry_probe, NULL, slot->args, CTAP_SYSCALL_ARGS);
}
NOKPROBE_SYMBOL(ctap_syscalls_entry_part);

/* A return probe with @entry values: runs with the slot's, then frees it. */
static void ctap_syscalls_return(const struct ctap_syscall *s, struct pt_regs *regs,
				 struct pt_regs *regs64, long ret)
{
	struct ctap_syscall_slot *slot = ctap_syscalls_find(s, false);

	/* None: the entry came before the session armed (a kretprobe would
	 * not fire either), or it was skipped and counted then. */
	if (!slot)
		return;
	ctap_syscalls_row_args(slot->args, s, regs, regs64, ret);
	ctap_probe_run(s->probe, NULL, slot->args, CTAP_SYSCALL_ARGS);
	smp_store_release(&slot->task, NULL);
}
NOKPROBE_SYMBOL(ctap_syscalls_return);

/* The @entry parts of the return probes of (compat, nr). */
static void ctap_syscalls_dispatch_entries(long nr, bool compat, struct pt_regs *regs,
					   struct pt_regs *regs64, long id)
{
	for (int i = 0; i < sc.n; i++)
		if (sc.v[i].is_return && sc.v[i].is_compat == compat && sc.v[i].nr == nr &&
		    sc.v[i].entry_probe)
			ctap_syscalls_entry_part(&sc.v[i], regs, regs64, id);
}
NOKPROBE_SYMBOL(ctap_syscalls_dispatch_entries);

/* Whether table entry s sorts before (is_return, compat, nr). */
static bool ctap_syscalls_before(const struct ctap_syscall *s, bool is_return, bool compat,
				 long nr)
{
	if (s->is_return != is_return)
		return s->is_return < is_return;
	if (s->is_compat != compat)
		return s->is_compat < compat;
	return s->nr < nr;
}
NOKPROBE_SYMBOL(ctap_syscalls_before);

/* Run the probes of (is_return, compat, nr) with the arguments $regs,
 * $id/$ret; at an entry, also the @entry parts of the returns of nr. */
static void ctap_syscalls_dispatch(bool is_return, long nr, struct pt_regs *regs, long val)
{
	unsigned long args[CTAP_SYSCALL_ARGS];
	bool compat = ctap_syscalls_compat();
	struct pt_regs regs64;
	int lo = 0, hi = sc.n;

	if (nr < 0 || (!compat && IS_ENABLED(CONFIG_COMPAT) && in_compat_syscall()))
		return;
	if (compat)
		ctap_syscalls_regs_64(&regs64, regs);
	if (!is_return && sc.slots && ctap_syscalls_returns(nr, compat))
		ctap_syscalls_dispatch_entries(nr, compat, regs, &regs64, val);
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (ctap_syscalls_before(&sc.v[mid], is_return, compat, nr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < sc.n && sc.v[lo].is_return == is_return && sc.v[lo].is_compat == compat &&
	       sc.v[lo].nr == nr; lo++) {
		if (sc.v[lo].entry_probe) {
			ctap_syscalls_return(&sc.v[lo], regs, &regs64, val);
		} else {
			ctap_syscalls_row_args(args, &sc.v[lo], regs, &regs64, val);
			ctap_probe_run(sc.v[lo].probe, NULL, args, ARRAY_SIZE(args));
		}
	}
}
NOKPROBE_SYMBOL(ctap_syscalls_dispatch);

static void ctap_syscalls_enter(void *data, struct pt_regs *regs, long id)
{
	ctap_syscalls_dispatch(false, id, regs, id);
}
NOKPROBE_SYMBOL(ctap_syscalls_enter);

static void ctap_syscalls_exit(void *data, struct pt_regs *regs, long ret)
{
	ctap_syscalls_dispatch(true, syscall_get_nr(current, regs), regs, ret);
}
NOKPROBE_SYMBOL(ctap_syscalls_exit);

int ctap_syscalls_register(struct ctap_syscall *scs, int n)
{
	bool want_enter = n && !scs[0].is_return, want_exit = n && scs[n - 1].is_return;
	size_t saved = 0;
	int ret;

	sc.v = scs;
	sc.n = n;
	for (int i = 0; i < n; i++)
		if (scs[i].entry_probe)
			saved = max(saved, scs[i].saved_size);
	want_enter |= saved != 0;	/* the entries fill the slots */
	sc.enter = ctap_tracepoint_find("sys_enter");
	sc.exit = ctap_tracepoint_find("sys_exit");
	if ((want_enter && !sc.enter) || (want_exit && !sc.exit)) {
		ctap_probe_refused(scs[0].probe, false,
				   "(no raw_syscalls tracepoints in the kernel)");
		return -ENOENT;
	}
	if (saved) {
		sc.slot_size = ALIGN(sizeof(struct ctap_syscall_slot) +
				     CTAP_SYSCALL_ARGS * sizeof(unsigned long) + saved, 8);
		sc.slots = kcalloc(CTAP_SYSCALL_SLOTS, sc.slot_size, GFP_KERNEL);
		if (!sc.slots)
			return -ENOMEM;
	}
	if (want_enter) {
		ret = tracepoint_probe_register(sc.enter, ctap_syscalls_enter, NULL);
		if (ret)
			goto fail;
		sc.enter_on = true;
	}
	if (want_exit) {
		ret = tracepoint_probe_register(sc.exit, ctap_syscalls_exit, NULL);
		if (ret)
			goto fail;
		sc.exit_on = true;
	}
	return 0;
fail:
	ctap_probe_refused(scs[0].probe, false, "(rc %d)", ret);
	ctap_syscalls_unregister(scs, n);
	return ret;
}

/* After unregistering, a handler may still run on another CPU: one wait
 * for them, before the table and the module's code can go. */
void ctap_syscalls_unregister(struct ctap_syscall *scs, int n)
{
	if (sc.enter_on)
		tracepoint_probe_unregister(sc.enter, ctap_syscalls_enter, NULL);
	if (sc.exit_on)
		tracepoint_probe_unregister(sc.exit, ctap_syscalls_exit, NULL);
	if (sc.enter_on || sc.exit_on)
		tracepoint_synchronize_unregister();
	sc.enter_on = sc.exit_on = false;
	kfree(sc.slots);
	sc.slots = NULL;
}
