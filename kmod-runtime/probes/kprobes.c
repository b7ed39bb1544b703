// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes.c - register and run kprobes and kretprobes.
 */
#include <linux/slab.h>

#include "kprobes.h"
#include "target.h"

/*
 * The handler sees the probed instruction's address in the registers, as
 * SystemTap shows it (addr(), backtraces), not the byte after the int3.
 */
static int kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ctap_kprobe *k = container_of(kp, struct ctap_kprobe, u.kp);
	unsigned long ip = instruction_pointer(regs);

	instruction_pointer_set(regs, (unsigned long)kp->addr);
	ctap_probe_run(k->probe, regs, NULL, 0);
	instruction_pointer_set(regs, ip);
	return 0;
}

/*
 * A .return handler that reads arguments sees them as they were at entry;
 * its @entry values are computed here, after them (zero if the entry part
 * was skipped).
 */
static int kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct ctap_kprobe *k = container_of(krp, struct ctap_kprobe, u.krp);
	unsigned long *args = (unsigned long *)ri->data;

	for (int i = 0; i < CTAP_ENTRY_ARGS; i++)
		args[i] = regs_get_kernel_argument(regs, i);
	if (k->entry_probe) {
		memset(args + CTAP_ENTRY_ARGS, 0, k->saved_size);
		ctap_probe_run(k->entry_probe, regs, args, CTAP_ENTRY_ARGS);
	}
	return 0;
}

static int kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct ctap_kprobe *k = container_of(krp, struct ctap_kprobe, u.krp);
	unsigned long fn = (unsigned long)krp->kp.addr;

	if (k->entry_args)
		ctap_probe_run_at(k->probe, regs, (unsigned long *)ri->data, CTAP_ENTRY_ARGS, fn);
	else
		ctap_probe_run_at(k->probe, regs, NULL, 0, fn);
	return 0;
}

/*
 * A kprobe at FUNC+OFFSET is registered disabled and armed only once its
 * address is known to be in FUNC: the kernel would take any offset into
 * whatever function follows, one that pass 2 refuses to probe, say.
 */
static int register_inside(struct ctap_kprobe *k)
{
	char name[KSYM_SYMBOL_LEN];
	int ret;

	k->u.kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&k->u.kp);
	if (ret)
		return ret;
	sprint_symbol_no_offset(name, (unsigned long)k->u.kp.addr);
	if (strcmp(name, k->symbol)) {
		ctap_oob("ERROR: probe %s: %s+%#lx is in %s, not in %s\n", k->probe->pp,
			 k->symbol, k->offset, name, k->symbol);
		unregister_kprobe(&k->u.kp);
		return -ERANGE;
	}
	return enable_kprobe(&k->u.kp);
}

static int register_one(struct ctap_kprobe *k)
{
	memset(&k->u, 0, sizeof(k->u));
	if (!k->is_return) {
		k->u.kp.symbol_name = k->symbol;
		k->u.kp.addr = (kprobe_opcode_t *)k->address;
		k->u.kp.offset = k->offset;
		k->u.kp.pre_handler = kprobe_pre;
		return k->offset ? register_inside(k) : register_kprobe(&k->u.kp);
	}
	k->u.krp.kp.symbol_name = k->symbol;
	k->u.krp.handler = kretprobe_ret;
	k->u.krp.maxactive = k->maxactive;
	if (k->entry_args) {
		k->u.krp.entry_handler = kretprobe_entry;
		k->u.krp.data_size = CTAP_ENTRY_ARGS * sizeof(unsigned long) + k->saved_size;
	}
	return register_kretprobe(&k->u.krp);
}

/*
 * Last to first: the kernel runs the probes on one address newest first,
 * and SystemTap's order is the script's (entry probes first declared
 * first; .return probes, whose instances unwind as a stack, the reverse).
 */
int ctap_kprobes_register(struct ctap_kprobe *kps, int n)
{
	int i, ret;

	for (i = n - 1; i >= 0; i--) {
		ret = register_one(&kps[i]);
		if (ret && kps[i].optional) {
			ctap_oob("WARNING: probe %s registration error (rc %d)\n",
				 kps[i].probe->pp, ret);
			continue;
		}
		if (ret) {
			ctap_oob("ERROR: probe %s registration error (rc %d)\n",
				 kps[i].probe->pp, ret);
			ctap_kprobes_unregister(kps, n);	/* those registered */
			return ret;
		}
		kps[i].registered = true;
	}
	return 0;
}

static void unregister_each(struct ctap_kprobe *kps, int n)
{
	for (int i = 0; i < n; i++) {
		if (!kps[i].registered)
			continue;
		if (kps[i].is_return)
			unregister_kretprobe(&kps[i].u.krp);
		else
			unregister_kprobe(&kps[i].u.kp);
		kps[i].registered = false;
	}
}

/*
 * Hits the kernel dropped before our handler (a kprobe hit while another
 * runs on that CPU, a kretprobe without a free instance) are skips too, as
 * SystemTap counts them: nothing is lost without being reported.
 */
static void count_missed(struct ctap_kprobe *kps, int n)
{
	unsigned long missed = 0;

	for (int i = 0; i < n; i++)
		missed += kps[i].is_return ? kps[i].u.krp.nmissed + kps[i].u.krp.kp.nmissed :
			  kps[i].u.kp.nmissed;
	ctap_add_skipped(missed);
}

/*
 * Batched: unregister_kprobes() waits for one RCU grace period for them all,
 * not one per probe (one by one, 117 probes cost 3.4 G instructions in the
 * TCG guest, bench/kprobe-cost.sh).  Falls back to one by one without memory.
 */
void ctap_kprobes_unregister(struct ctap_kprobe *kps, int n)
{
	struct kprobe **kp = kcalloc(n, sizeof(*kp), GFP_KERNEL);
	struct kretprobe **krp = kcalloc(n, sizeof(*krp), GFP_KERNEL);
	int nkp = 0, nkrp = 0;

	if (!kp || !krp) {
		unregister_each(kps, n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (!kps[i].registered)
			continue;
		if (kps[i].is_return)
			krp[nkrp++] = &kps[i].u.krp;
		else
			kp[nkp++] = &kps[i].u.kp;
		kps[i].registered = false;
	}
	if (nkp)
		unregister_kprobes(kp, nkp);
	if (nkrp)
		unregister_kretprobes(krp, nkrp);
out:
	kfree(kp);
	kfree(krp);
	count_missed(kps, n);
}
