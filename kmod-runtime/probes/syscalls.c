// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - probes on system calls by number, on the raw_syscalls
 * tracepoints: two registrations for any number of probes, where a
 * kprobe per call would cost a breakpoint each and seconds of arming for
 * syscall.*.  Each system call then looks its number up in the sorted
 * table (a binary search) and runs the probes found.
 *
 * Only 64-bit calls: a 32-bit task's numbers are another table's, and
 * x32 calls carry __X32_SYSCALL_BIT; both are skipped.
 */
#include <asm/syscall.h>

#include "syscalls.h"

static struct {
	struct ctap_syscall *v;
	int n;
	struct tracepoint *enter, *exit;
	bool enter_on, exit_on;
} sc;

/* Run the probes of (is_return, nr) with the arguments $regs, $id/$ret. */
static void ctap_syscalls_dispatch(bool is_return, long nr, struct pt_regs *regs, long val)
{
	unsigned long args[] = { (unsigned long)regs, (unsigned long)val };
	int lo = 0, hi = sc.n;

	if (nr < 0 || (IS_ENABLED(CONFIG_COMPAT) && in_compat_syscall()))
		return;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct ctap_syscall *s = &sc.v[mid];

		if (s->is_return < is_return || (s->is_return == is_return && s->nr < nr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < sc.n && sc.v[lo].is_return == is_return && sc.v[lo].nr == nr; lo++)
		ctap_probe_run(sc.v[lo].probe, NULL, args, ARRAY_SIZE(args));
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

static void ctap_syscalls_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		sc.enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		sc.exit = tp;
}

int ctap_syscalls_register(struct ctap_syscall *scs, int n)
{
	bool want_enter = n && !scs[0].is_return, want_exit = n && scs[n - 1].is_return;
	int ret;

	sc.v = scs;
	sc.n = n;
	for_each_kernel_tracepoint(ctap_syscalls_find, NULL);
	if ((want_enter && !sc.enter) || (want_exit && !sc.exit)) {
		ctap_oob("ERROR: probe %s registration error (no raw_syscalls tracepoints "
			 "in the kernel)\n", scs[0].probe->pp);
		return -ENOENT;
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
	ctap_oob("ERROR: probe %s registration error (rc %d)\n", scs[0].probe->pp, ret);
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
}
