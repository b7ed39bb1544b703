// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes.c - register and run kprobes and kretprobes; entry probes on a
 * function's ftrace site go through one ftrace_ops instead.
 */
#include <linux/bsearch.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

#include "kprobes.h"
#include "target.h"
#include "../core/symoff.h"
#include "../entry.h"

/* .return probes on ftrace sites go through one fprobe, or one kretprobe
 * carrying them all, per table (RETURN_HOOK); else a kretprobe each.  The
 * others go through a plain kprobe each calling one carrier per table
 * where kretprobes return through a rethook (RETURN_CARRIER, kprobes.c's
 * "hooked" returns), else through a kretprobe each. */
#ifdef CTAP_HAVE_FPROBE_IPS
#include <linux/fprobe.h>
#define RETURN_HOOK true
#elif defined(CTAP_HAVE_KRETPROBE_RETHOOK)
#define RETURN_HOOK true
#else
#define RETURN_HOOK false
#endif

/*
 * The handler sees the probed instruction's address in the registers, as
 * SystemTap shows it (addr(), backtraces), not the byte after the int3.
 */
static u64 kloc_extend(u64 v, unsigned int size, bool is_signed)
{
	unsigned int bits = 64 - 8 * size;

	if (size >= 8)
		return v;
	return is_signed ? (u64)((s64)(v << bits) >> bits) : (v << bits) >> bits;
}

/*
 * A statement's variable: a register's value or memory read at its size
 * and sign.  A read that would fault fails instead (-EFAULT).
 */
static int kloc_read(const struct ctap_kloc *l, struct pt_regs *regs, unsigned long pc,
		     unsigned long *out)
{
	unsigned long addr;
	u64 v = 0;

	switch (l->kind) {
	case CTAP_KLOC_REG:
		v = l->base < 0 ? 0 : *(unsigned long *)((char *)regs + l->base);
		break;
	case CTAP_KLOC_IMM:
		*out = l->disp;
		return 0;
	case CTAP_KLOC_ADDR:	/* read later, through the handler's guarded reads */
		/* a static (@var) near the code, or a structure on the stack */
		*out = (l->base < 0 ? pc : *(unsigned long *)((char *)regs + l->base)) + l->disp;
		return 0;
	case CTAP_KLOC_MEM:
	case CTAP_KLOC_PCREL:
		addr = l->kind == CTAP_KLOC_PCREL ? pc + l->disp :
		       (l->base < 0 ? 0 : *(unsigned long *)((char *)regs + l->base)) + l->disp;
		/* little-endian: the low bytes of v */
		if (copy_from_kernel_nofault(&v, (const void *)addr, l->size))
			return -EFAULT;
		break;
	}
	*out = kloc_extend(v, l->size, l->is_signed);
	return 0;
}

/*
 * The handler sees the probed instruction's address in the registers, as
 * SystemTap shows it (addr(), backtraces), not the byte after the int3.
 * A statement's variables are read first, as its arguments; one that
 * cannot be read skips the hit (counted, as a marker's argument is).
 */
static int kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ctap_kprobe *k = container_of(kp, struct ctap_kprobe, u.kp);
	unsigned long ip = instruction_pointer(regs);
	unsigned long args[CTAP_KLOC_MAX];

	for (int i = 0; i < k->nlocs && i < CTAP_KLOC_MAX; i++) {
		if (kloc_read(&k->locs[i], regs, k->pc, &args[i])) {
			ctap_add_skipped(1);
			return 0;
		}
	}
	instruction_pointer_set(regs, (unsigned long)kp->addr);
	ctap_event_run(k->probe, regs, k->nlocs ? args : NULL, k->nlocs);
	instruction_pointer_set(regs, ip);
	return 0;
}

/*
 * A .return handler that reads arguments sees them as they were at entry;
 * its @entry values are computed here, after them (zero if the entry part
 * was skipped).
 */
static struct kretprobe *instance_kretprobe(struct kretprobe_instance *ri)
{
#ifdef CTAP_HAVE_KRETPROBE_INSTANCE_RP
	return ri->rp;
#else
	return get_kretprobe(ri);
#endif
}

/*
 * No return is hooked outside RUNNING (!0: the kernel recycles the
 * instance), as the return hooks do: the handler would skip it.  This
 * did not make the whole kernel's .return arm faster on 6.1 (21.0 s of
 * -icount time before and after): enabling its 4,881 kretprobes takes
 * 7.7 s, 2.5 s with kprobes' optimizer off (bench/README.md).
 */
static int kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = instance_kretprobe(ri);
	struct ctap_kprobe *k = container_of(krp, struct ctap_kprobe, u.krp);
	unsigned long *args = (unsigned long *)ri->data;

	if (unlikely(atomic_read(&ctap_session_state) != S_RUNNING))
		return 1;
	if (!k->entry_args)
		return 0;
	for (int i = 0; i < CTAP_ENTRY_ARGS; i++)
		args[i] = regs_get_kernel_argument(regs, i);
	if (k->entry_probe) {
		memset(args + CTAP_ENTRY_ARGS, 0, k->saved_size);
		ctap_probe_run(k->entry_probe, regs, args, CTAP_ENTRY_ARGS);
	}
	return 0;
}

/*
 * The handler sees where the function returns to in the registers, as
 * SystemTap shows it (caller_addr(), backtraces).  Kernels whose instances
 * point to their kretprobe (ri->rp) leave the trampoline's own address
 * there, and their unwinder cannot pass the trampoline: the caller's
 * address is ri->ret_addr.  Later kernels put it there themselves.
 */
static int kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = instance_kretprobe(ri);
	struct ctap_kprobe *k = container_of(krp, struct ctap_kprobe, u.krp);
	unsigned long fn = (unsigned long)krp->kp.addr;
	unsigned long *args = k->entry_args ? (unsigned long *)ri->data : NULL;
#ifdef CTAP_HAVE_KRETPROBE_INSTANCE_RP
	unsigned long ip = instruction_pointer(regs);

	instruction_pointer_set(regs, (unsigned long)ri->ret_addr);
#endif
	ctap_probe_run_at(k->probe, regs, args, args ? CTAP_ENTRY_ARGS : 0, fn);
#ifdef CTAP_HAVE_KRETPROBE_INSTANCE_RP
	instruction_pointer_set(regs, ip);
#endif
	return 0;
}

/*
 * Whether name, as sprint_symbol_no_offset() prints an address's function
 * ("f", or "f [mod]" in a module), is symbol, as a kprobe names it ("f",
 * "mod:f").
 */
static bool is_symbol(const char *name, const char *symbol)
{
	const char *colon = strchr(symbol, ':');
	size_t flen, mlen;

	if (!colon)
		return !strcmp(name, symbol);
	mlen = colon - symbol;
	flen = strlen(colon + 1);
	return !strncmp(name, colon + 1, flen) && name[flen] == ' ' && name[flen + 1] == '[' &&
	       !strncmp(name + flen + 2, symbol, mlen) && name[flen + 2 + mlen] == ']' &&
	       !name[flen + 3 + mlen];
}

/*
 * Whether a kprobe at FUNC+OFFSET is in FUNC: the kernel would take any
 * offset into whatever function follows, one that pass 2 refuses to probe,
 * say.
 */
static int check_inside(struct ctap_kprobe *k)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, (unsigned long)k->u.kp.addr);
	if (is_symbol(name, k->symbol))
		return 0;
	ctap_oob("ERROR: probe %s: %s+%#lx is in %s, not in %s\n", k->probe->pp,
		 k->symbol, k->offset, name, k->symbol);
	return -ERANGE;
}

/*
 * Where a statement's PC-relative locations count from: FUNC+OFFSET, the
 * address asked for, also when the kernel placed the probe elsewhere
 * (past the endbr64 at FUNC's entry on an IBT kernel: core/symoff.h).
 */
static int set_pc(struct ctap_kprobe *k)
{
	unsigned long probed = (unsigned long)k->u.kp.addr;
	char name[KSYM_SYMBOL_LEN];

	k->pc = probed;
	if (!k->symbol)
		return 0;
	sprint_symbol(name, probed);
	if (!ctap_asked_address(probed, name, k->offset, &k->pc))
		return 0;
	ctap_oob("ERROR: probe %s: cannot tell where %s+%#lx is (the kernel names %#lx %s)\n",
		 k->probe->pp, k->symbol, k->offset, probed, name);
	return -EINVAL;
}

/*
 * A kprobe inside a function, or a statement's, is registered disabled and
 * armed only once the kernel's placing of it is checked (check_inside)
 * and known (set_pc): no hit runs before.
 */
static int register_checked(struct ctap_kprobe *k)
{
	int ret;

	k->u.kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&k->u.kp);
	if (ret)
		return ret;
	ret = k->offset ? check_inside(k) : 0;
	if (!ret && k->nlocs)
		ret = set_pc(k);
	if (!ret)
		ret = enable_kprobe(&k->u.kp);
	if (ret)
		unregister_kprobe(&k->u.kp);
	return ret;
}

/*
 * Where k's function is, from its link-time distance to sprint_symbol()
 * (KASLR moves the kernel's text as one piece), or 0: the kernel's lookup
 * by name walks every symbol before 6.2, where this is a binary search.
 * The kernel must name the address symbol+0 itself: a symbol table of
 * another build would not, and then the name decides.
 */
static unsigned long symbol_address(const struct ctap_kprobe *k)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long addr;
	size_t len;

	if (!k->has_delta)
		return 0;
	addr = (unsigned long)sprint_symbol + k->delta;
	sprint_symbol(name, addr);
	len = strlen(k->symbol);
	return !strncmp(name, k->symbol, len) && !strncmp(name + len, "+0x0/", 5) ? addr : 0;
}

/* kp at k's function: by address where known, else by name. */
static void set_place(struct ctap_kprobe *k, struct kprobe *kp)
{
	kp->addr = (kprobe_opcode_t *)(k->address ? k->address : symbol_address(k));
	kp->symbol_name = kp->addr ? NULL : k->symbol;
}

/*
 * The kinds of a table's sites: its entries on ftrace sites, its .return
 * probes there (bare: no kprobe), and its .return probes hooked by a kprobe
 * each (no ftrace site, or ftrace refused them), in the order they attach.
 */
enum site_kind { SITES_ENTRIES, SITES_RETURNS, SITES_HOOKED, SITES_KINDS };

/* Whether k goes into the table's sites of that kind. */
static bool site_probe(const struct ctap_kprobe *k, enum site_kind kind)
{
	if (!k->registered)
		return false;
	switch (kind) {
	case SITES_ENTRIES:
		return k->via_ftrace;
	case SITES_RETURNS:
		return k->bare && k->is_return;
	default:
		return k->hooked;
	}
}

/* Entries and returns through ftrace, and the bare arming: its own file,
 * the same unit. */
#include "kprobes_ftrace.c"

/* An entry kprobe at a function, disabled until we know how to arm it:
 * through ftrace, or enabled once the table is registered (deferred). */
static int register_entry(struct ctap_kprobe *k)
{
	int ret;

	k->u.kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&k->u.kp);
	if (ret)
		return ret;
	k->via_ftrace = k->u.kp.flags & KPROBE_FLAG_FTRACE;
	k->deferred = !k->via_ftrace;
	return 0;
}

/*
 * A .return without an instance of its own (no @entry values, no
 * maxactive) through a plain kprobe calling its table's carrier, where
 * there is one (RETURN_CARRIER) and ctap_hook_returns=1: no kretprobe and
 * no instances of its own.  Registered disabled, enabled last (deferred),
 * once the carrier is (SITES_HOOKED).  Not the default: measured on 6.1's
 * whole kernel (bench/README.md), it armed in the same 21.0 s as a
 * kretprobe each (registering and enabling a kretprobe costs what a
 * kprobe does; most of the enabling is kprobes' optimizer) and disarmed
 * in 5.3 s, not 2.4 s (the carrier shares its kprobe with a hooked one,
 * and waits for that one's unoptimizing).
 */
static int register_hooked_kprobe(struct ctap_kprobe *k)
{
	set_place(k, &k->u.kp);
	k->u.kp.pre_handler = hooked_pre;
	k->u.kp.flags = KPROBE_FLAG_DISABLED;
	k->hooked = true;
	k->deferred = true;
	return register_kprobe(&k->u.kp);
}

static bool ctap_hook_returns;
module_param(ctap_hook_returns, bool, 0444);
MODULE_PARM_DESC(ctap_hook_returns, ".return probes on kprobes through one carrier per table (1) or a kretprobe each");

static bool hookable(const struct ctap_kprobe *k)
{
	return RETURN_CARRIER && ctap_hook_returns && k->is_return && !k->entry_probe &&
	       !k->maxactive && !k->offset;
}

static int register_one(struct ctap_kprobe *k, bool hook)
{
	memset(&k->u, 0, sizeof(k->u));
	k->via_ftrace = false;
	k->deferred = false;
	k->hooked = false;
	k->carrier = NULL;
	if (hook && hookable(k))
		return register_hooked_kprobe(k);
	if (!k->is_return) {
		set_place(k, &k->u.kp);
		k->u.kp.offset = k->offset;
		k->u.kp.pre_handler = kprobe_pre;
		if (k->offset || k->nlocs)
			return register_checked(k);
		/* (ftrace's handler reads no statement's variables) */
		return ctap_ftrace && !k->address ? register_entry(k) : register_kprobe(&k->u.kp);
	}
	set_place(k, &k->u.krp.kp);
	k->u.krp.kp.flags = KPROBE_FLAG_DISABLED;
	k->deferred = true;
	k->u.krp.handler = kretprobe_ret;
	k->u.krp.maxactive = k->maxactive;
	k->u.krp.entry_handler = kretprobe_entry;
	if (k->entry_args)
		k->u.krp.data_size = CTAP_ENTRY_ARGS * sizeof(unsigned long) + k->saved_size;
	return register_kretprobe(&k->u.krp);
}

/*
 * A probe the kernel refused (rc): a warning if it is optional, and 0 (the
 * others go on); else an error, and rc: the caller undoes the table.
 */
static int refused(struct ctap_kprobe *kps, int n, int i, int rc)
{
	if (kps[i].optional) {
		ctap_probe_refused(kps[i].probe, true, "(rc %d)", rc);
		return 0;
	}
	ctap_probe_refused(kps[i].probe, false, "(rc %d)", rc);
	return rc;
}

/* When the kernel refused the table's sites of a kind: the probes they
 * would have taken armed as kprobes (the entries), hooked kprobes (the
 * bare .return probes: SITES_HOOKED attaches next) or kretprobes. */
static int without_ftrace(struct ctap_kprobe *kps, int n, enum site_kind kind)
{
	int ret;

	for (int i = n - 1; i >= 0; i--) {
		struct ctap_kprobe *k = &kps[i];

		if (!site_probe(k, kind))
			continue;
		if (k->hooked) {
			unregister_kprobe(&k->u.kp);
			ret = register_one(k, false);	/* a kretprobe, enabled last */
			k->registered = !ret;
		} else if (k->bare) {
			k->bare = false;
			ret = register_one(k, true);	/* an entry's kprobe disabled... */
			k->registered = !ret;
			if (!ret && k->via_ftrace)
				ret = enable_kprobe(&k->u.kp);	/* ... until now */
		} else {
			ret = enable_kprobe(&k->u.kp);
		}
		k->via_ftrace = false;
		if (ret && (ret = refused(kps, n, i, ret)))
			return ret;
	}
	return 0;
}

/* Whether k is a kretprobe of its own (a .return that is not hooked). */
static bool has_kretprobe(const struct ctap_kprobe *k)
{
	return k->is_return && !k->hooked;
}

/* k's kprobe: its kretprobe's, or its own. */
static struct kprobe *kprobe_of(struct ctap_kprobe *k)
{
	return has_kretprobe(k) ? &k->u.krp.kp : &k->u.kp;
}

/* kps[i], registered disabled (deferred), enabled now; a refusal as
 * refused() decides. */
static int enable_one(struct ctap_kprobe *kps, int n, int i)
{
	int ret;

	kps[i].deferred = false;
	ret = enable_kprobe(kprobe_of(&kps[i]));
	return ret ? refused(kps, n, i, ret) : 0;
}

/*
 * The kprobes and kretprobes registered disabled (deferred), enabled once
 * every probe of the table is registered: none fires while the others
 * arm (one on a function the arming itself runs, ftrace's hash code, say,
 * fired at each probe: 6.1 has 4,629 functions without an ftrace site,
 * kernel/trace/ among them).
 */
static int enable_deferred(struct ctap_kprobe *kps, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		int ret;

		if (!kps[i].registered || !kps[i].deferred)
			continue;
		if (ctap_arming_interrupted())
			return -EINTR;
		ret = enable_one(kps, n, i);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * ftrace calls the newest ftrace_ops first.  The deferred kprobes that go
 * through kprobes' own ftrace_ops (a kretprobe on an ftrace site: 5.10's,
 * or one with @entry values) are enabled before the table's entries
 * attach, so that an entry probe runs before a kretprobe at the same
 * function has put its trampoline in the return address: 5.10's unwinder
 * stops there (run/backtrace_kprobe).  Only when there are such entries:
 * these kretprobes fire while the entries arm.
 */
static int enable_ftrace_kprobes(struct ctap_kprobe *kps, int n)
{
	bool entries = false;

	for (int i = 0; i < n && !entries; i++)
		entries = kps[i].registered && kps[i].via_ftrace && !kps[i].is_return;
	for (int i = n - 1; i >= 0 && entries; i--) {
		struct ctap_kprobe *k = &kps[i];
		int ret;

		if (!k->registered || !k->deferred || k->hooked ||
		    !(kprobe_of(k)->flags & KPROBE_FLAG_FTRACE))
			continue;
		ret = enable_one(kps, n, i);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Last to first: the kernel runs the probes on one address newest first,
 * and SystemTap's order is the script's (entry probes first declared
 * first; .return probes, whose instances unwind as a stack, the reverse).
 */
int ctap_kprobes_register(struct ctap_kprobe *kps, int n)
{
	struct bare_arming b;
	bool bare = bare_start(&b);
	int i, ret = 0;

	for (i = n - 1; i >= 0; i--) {
		if (ctap_arming_interrupted()) {
			ret = -EINTR;
			break;
		}
		kps[i].bare = false;
		if (!(bare && arm_bare(&b, &kps[i])))
			ret = register_one(&kps[i], true);
		if (ret) {
			ret = refused(kps, n, i, ret);
			if (ret)
				break;
			continue;
		}
		kps[i].registered = true;
	}
	bare_end(&b);
	if (ret) {
		ctap_kprobes_unregister(kps, n);	/* those registered */
		return ret;
	}
	ret = enable_ftrace_kprobes(kps, n);
	for (int kind = 0; kind < SITES_KINDS && !ret; kind++) {
		if (ftrace_attach(kps, n, kind))
			continue;
		ret = without_ftrace(kps, n, kind);
		if (ret)
			break;
	}
	if (!ret)
		ret = enable_deferred(kps, n);
	if (ret)
		ctap_kprobes_unregister(kps, n);
	else
		fprobes_open(kps, true);
	return ret;
}

static void unregister_each(struct ctap_kprobe *kps, int n)
{
	for (int i = 0; i < n; i++) {
		if (!kps[i].registered || kps[i].bare)
			;
		else if (has_kretprobe(&kps[i]))
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
		missed += has_kretprobe(&kps[i]) ?
			  kps[i].u.krp.nmissed + kps[i].u.krp.kp.nmissed : kps[i].u.kp.nmissed;
	ctap_add_skipped(missed);
}

/*
 * Batched: unregister_kprobes() waits for one RCU grace period for them all,
 * not one per probe (one by one, 117 probes cost 3.4 G instructions in the
 * TCG guest, bench/kprobe-cost.sh).  Falls back to one by one without memory.
 */
void ctap_kprobes_unregister(struct ctap_kprobe *kps, int n)
{
	struct kprobe **kp = kvcalloc(n, sizeof(*kp), GFP_KERNEL);
	struct kretprobe **krp = kvcalloc(n, sizeof(*krp), GFP_KERNEL);
	int nkp = 0, nkrp = 0;

	fprobes_open(kps, false);
	ftrace_detach(kps, SITES_ENTRIES);
	ftrace_detach(kps, SITES_RETURNS);
	if (!kp || !krp) {
		unregister_each(kps, n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (!kps[i].registered || kps[i].bare)
			;
		else if (has_kretprobe(&kps[i]))
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
	/* after the hooked kprobes, which call their carriers */
	ftrace_detach(kps, SITES_HOOKED);
	kvfree(kp);
	kvfree(krp);
	count_missed(kps, n);
}
