// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes.c - register and run kprobes and kretprobes; entry probes on a
 * function's ftrace site go through one ftrace_ops instead.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kprobes.h"
#include "target.h"
#include "../core/symoff.h"
#include "../entry.h"

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

static int kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = instance_kretprobe(ri);
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

/* ---- entry probes through ftrace ---- */

/*
 * A function's entry that is an ftrace site (kprobes say so: they would go
 * through ftrace there too) is reached for a fraction of a kprobe's cost
 * through an ftrace_ops of our own: the kprobe's 156 instructions a hit,
 * 61 this way (bench/kprobe-cost.sh, floor and floor-ftrace), and one text
 * patch for all of a table's functions.  The handler sees the registers
 * the kprobe's would (ftrace saves them all), with the probe's address as
 * the instruction pointer.  The kprobe is still registered, disabled: its
 * registration is what checks the address (kprobes' blacklist, symbol
 * resolution) and finds whether it is an ftrace site.
 *
 * Sites whose probes read no register but the arguments (the translator
 * says so: ctap_kprobe.args_only) go through a second ftrace_ops that
 * does not ask for all registers: ftrace then saves the argument
 * registers, the stack pointer and ip only, 35 instructions a hit where
 * all of them cost 61 (floor-ftrace-args).
 */
static bool ctap_ftrace = true;
module_param(ctap_ftrace, bool, 0444);
MODULE_PARM_DESC(ctap_ftrace, "entry probes on ftrace sites through ftrace (0: kprobes only)");

#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
/* A function's entry and the probes there, in table (the script's) order. */
struct ftrace_site {
	unsigned long ip;
	int nprobes;
	const struct ctap_probe **probes;
};

/*
 * A table's ftrace sites, those of one ftrace_ops.  A hit finds its site
 * directly when there is one (a handful of instructions), else through
 * an open-addressing hash of the addresses: a binary search over a
 * wildcard's hundred functions cost more than a kprobe's own hash
 * lookup.  When every site runs the same one probe (a probe point, or
 * a wildcard's functions), a hit needs no site at all (one).
 */
struct ftrace_sites {
	struct list_head list;
	struct ctap_kprobe *table;	/* the table they come from */
	struct ftrace_ops ops;
	const struct ctap_probe *one;	/* every site's only probe, or NULL */
	int nsites;
	struct ftrace_site *sites;	/* [nsites], by address */
	const struct ctap_probe **probes;	/* the sites' probes, one array */
	int bits;
	int *slots;			/* [1 << bits]: a site's index, or -1 */
};

static LIST_HEAD(site_tables);

static int by_address(const void *a, const void *b)
{
	const struct ctap_kprobe *x = *(struct ctap_kprobe *const *)a;
	const struct ctap_kprobe *y = *(struct ctap_kprobe *const *)b;

	if (x->u.kp.addr != y->u.kp.addr)
		return x->u.kp.addr < y->u.kp.addr ? -1 : 1;
	return x < y ? -1 : x > y;	/* table order */
}

/* ip's site among several. */
static const struct ftrace_site *notrace site_lookup(const struct ftrace_sites *t,
						     unsigned long ip)
{
	unsigned long mask = (1UL << t->bits) - 1;
	unsigned long h = hash_long(ip, t->bits);
	int i;

	while ((i = t->slots[h]) >= 0 && t->sites[i].ip != ip)
		h = (h + 1) & mask;
	return i >= 0 ? &t->sites[i] : NULL;
}

/* ip's site; ftrace calls us for our sites only. */
static __always_inline const struct ftrace_site *site_at(const struct ftrace_sites *t,
							 unsigned long ip)
{
	return likely(t->nsites == 1) ? t->sites : site_lookup(t, ip);
}

/*
 * A hit at ip: its probes (the one, a constant for the compiler, or the
 * site's), with the probe's address as the instruction pointer when
 * they have all the registers (full); an args-only probe reads none of
 * it, and ftrace does not use ip on its way back there.
 *
 * No ftrace_test_recursion_trylock() (30 instructions a hit): nothing
 * before ctap_probe_run()'s per-CPU busy count can be probed (this file's
 * functions and ctap_probe_run_at are notrace, and registering the
 * disabled kprobe checked the address against kprobes' blacklist), and
 * the busy count skips a handler that would start inside another on this
 * CPU.  Preemption does not matter before it: interrupts are off from
 * there on.
 */
static __always_inline void ftrace_hit(struct ftrace_ops *ops, unsigned long ip,
				       struct pt_regs *regs, bool full, bool one)
{
	const struct ftrace_sites *t = container_of(ops, struct ftrace_sites, ops);
	const struct ftrace_site *site = NULL;
	unsigned long saved = 0;

	if (!one && unlikely(!(site = site_at(t, ip))))
		return;
	if (full) {
		saved = instruction_pointer(regs);
		instruction_pointer_set(regs, ip);
	}
	if (one)
		ctap_event_run(t->one, regs, NULL, 0);
	else
		for (int i = 0; i < site->nprobes; i++)
			ctap_event_run(site->probes[i], regs, NULL, 0);
	if (full)
		instruction_pointer_set(regs, saved);
}

/* FTRACE_OPS_FL_SAVE_REGS: all of them, never NULL on x86 */
#ifdef CTAP_HAVE_FTRACE_REGS
#define FULL_REGS	ftrace_get_regs(fregs)
#else
#define FULL_REGS	fregs
#endif

CTAP_FTRACE_CALLBACK(ftrace_entry)
{
	struct pt_regs *regs = FULL_REGS;

	if (likely(regs))
		ftrace_hit(ops, ip, regs, true, false);
}
NOKPROBE_SYMBOL(ftrace_entry);

CTAP_FTRACE_CALLBACK(ftrace_entry_one)
{
	struct pt_regs *regs = FULL_REGS;

	if (likely(regs))
		ftrace_hit(ops, ip, regs, true, true);
}
NOKPROBE_SYMBOL(ftrace_entry_one);

#if CTAP_FTRACE_ARGS
CTAP_FTRACE_CALLBACK(ftrace_args)
{
	ftrace_hit(ops, ip, ctap_ftrace_args_regs(fregs), false, false);
}
NOKPROBE_SYMBOL(ftrace_args);

CTAP_FTRACE_CALLBACK(ftrace_args_one)
{
	ftrace_hit(ops, ip, ctap_ftrace_args_regs(fregs), false, true);
}
NOKPROBE_SYMBOL(ftrace_args_one);
#endif

static void free_sites(struct ftrace_sites *t)
{
	kfree(t->slots);
	kfree(t->probes);
	kfree(t->sites);
	kfree(t);
}

/* The sites of the probes (sorted by address), their hash, their
 * addresses into ips (for ftrace's filter), and their one probe. */
static void fill_sites(struct ftrace_sites *t, struct ctap_kprobe **kps, int n,
		       unsigned long *ips)
{
	unsigned long mask = (1UL << t->bits) - 1;

	for (int i = 0; i < n; i++) {
		unsigned long ip = (unsigned long)kps[i]->u.kp.addr;
		struct ftrace_site *site;

		if (!t->nsites || t->sites[t->nsites - 1].ip != ip) {
			site = &t->sites[t->nsites++];
			site->ip = ip;
			site->probes = &t->probes[i];
		}
		site = &t->sites[t->nsites - 1];
		site->probes[site->nprobes++] = kps[i]->probe;
	}
	memset(t->slots, 0xff, sizeof(*t->slots) << t->bits);
	t->one = t->sites[0].probes[0];
	for (int i = 0; i < t->nsites; i++) {
		unsigned long h = hash_long(t->sites[i].ip, t->bits);

		while (t->slots[h] >= 0)
			h = (h + 1) & mask;
		t->slots[h] = i;
		ips[i] = t->sites[i].ip;
		if (t->sites[i].nprobes != 1 || t->sites[i].probes[0] != t->one)
			t->one = NULL;
	}
}

/* ftrace_set_filter_ips(), one address at a time where it is missing. */
static int set_filter(struct ftrace_ops *ops, unsigned long *ips, int n)
{
#ifdef CTAP_HAVE_FTRACE_SET_FILTER_IPS
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);	/* copies them */
#else
	int ret = 0;

	for (int i = 0; i < n && !ret; i++)
		ret = ftrace_set_filter_ip(ops, ips[i], 0, 0);
	return ret;
#endif
}

/* The ops' filter freed (it must be unregistered). */
static void free_filter(struct ftrace_ops *ops)
{
#ifdef CTAP_HAVE_FTRACE_FREE_FILTER
	ftrace_free_filter(ops);
#else
	ftrace_set_filter(ops, NULL, 0, 1);	/* reset to empty frees the entries */
#endif
}

/*
 * The callback for sites of args-only probes or not, with one probe or
 * not: the translator's own for its one probe (its handler inline,
 * CTAP_FTRACE_ONE) when it wrote one.
 */
static ftrace_func_t site_callback(const struct ftrace_sites *t, bool args,
				   const struct ctap_kprobe *k)
{
#if CTAP_FTRACE_ARGS
	if (args && t->one && k->ftrace_one)
		return k->ftrace_one;
	if (args)
		return t->one ? ftrace_args_one : ftrace_args;
#endif
	return t->one ? ftrace_entry_one : ftrace_entry;
}

/* One ftrace_ops for the m probes (sorted by address) of table kps; false
 * if ftrace refuses. */
static bool attach_sites(struct ctap_kprobe *kps, struct ctap_kprobe **sorted, int m, bool args)
{
	struct ftrace_sites *t;
	unsigned long *ips;
	int ret;

	if (!m)
		return true;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return false;
	t->bits = ilog2(roundup_pow_of_two(2 * m));	/* at most half full */
	t->sites = kcalloc(m, sizeof(*t->sites), GFP_KERNEL);
	t->probes = kcalloc(m, sizeof(*t->probes), GFP_KERNEL);
	ips = kcalloc(m, sizeof(*ips), GFP_KERNEL);
	t->slots = kcalloc(1UL << t->bits, sizeof(*t->slots), GFP_KERNEL);
	if (!ips || !t->sites || !t->probes || !t->slots)
		goto fail;
	fill_sites(t, sorted, m, ips);
	t->table = kps;
	t->ops.func = site_callback(t, args, sorted[0]);
	t->ops.flags = args ? 0 : FTRACE_OPS_FL_SAVE_REGS;
	ret = set_filter(&t->ops, ips, t->nsites);
	if (!ret)
		ret = register_ftrace_function(&t->ops);
	if (ret) {
		free_filter(&t->ops);
		goto fail;
	}
	list_add(&t->list, &site_tables);
	kfree(ips);
	return true;
fail:
	kfree(ips);
	free_sites(t);
	return false;
}

static void ftrace_detach(struct ctap_kprobe *kps)
{
	struct ftrace_sites *t, *next;

	list_for_each_entry_safe(t, next, &site_tables, list) {
		if (t->table != kps)
			continue;
		unregister_ftrace_function(&t->ops);	/* waits for handlers */
		free_filter(&t->ops);
		list_del(&t->list);
		free_sites(t);
	}
}

/*
 * Moves to the end of sorted[0..m) the probes of sites whose probes are
 * all args-only (in address order still); returns how many stay before.
 */
static int split_args_only(struct ctap_kprobe **sorted, int m, struct ctap_kprobe **tmp)
{
	int nfull = 0, nargs = 0, i, j;

	for (i = 0; i < m; i = j) {
		bool args = CTAP_FTRACE_ARGS;

		for (j = i; j < m && sorted[j]->u.kp.addr == sorted[i]->u.kp.addr; j++)
			args = args && sorted[j]->args_only;
		for (int k = i; k < j; k++) {
			if (args)
				tmp[nargs++] = sorted[k];
			else
				sorted[nfull++] = sorted[k];
		}
	}
	memcpy(sorted + nfull, tmp, nargs * sizeof(*tmp));
	return nfull;
}

/* The table's disabled entry kprobes on ftrace sites, through one
 * ftrace_ops, or two (all registers, argument registers only); false if
 * there are none or ftrace refuses (then they are armed as kprobes). */
static bool ftrace_attach(struct ctap_kprobe *kps, int n)
{
	struct ctap_kprobe **sorted, **tmp;
	int i, m = 0, nfull;
	bool ok;

	for (i = 0; i < n; i++)
		m += kps[i].registered && kps[i].via_ftrace;
	if (!m)
		return false;
	sorted = kcalloc(m, sizeof(*sorted), GFP_KERNEL);
	tmp = kcalloc(m, sizeof(*tmp), GFP_KERNEL);
	ok = sorted && tmp;
	if (ok) {
		for (i = 0, m = 0; i < n; i++)
			if (kps[i].registered && kps[i].via_ftrace)
				sorted[m++] = &kps[i];
		sort(sorted, m, sizeof(*sorted), by_address, NULL);
		nfull = split_args_only(sorted, m, tmp);
		ok = attach_sites(kps, sorted, nfull, false) &&
		     attach_sites(kps, sorted + nfull, m - nfull, true);
		if (!ok)
			ftrace_detach(kps);
	}
	kfree(sorted);
	kfree(tmp);
	return ok;
}
#else
static bool ftrace_attach(struct ctap_kprobe *kps, int n)
{
	return false;
}

static void ftrace_detach(struct ctap_kprobe *kps)
{
}
#endif

/* An entry kprobe at a function, disabled until we know how to arm it. */
static int register_entry(struct ctap_kprobe *k)
{
	int ret;

	k->u.kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&k->u.kp);
	if (ret)
		return ret;
	k->via_ftrace = k->u.kp.flags & KPROBE_FLAG_FTRACE;
	return k->via_ftrace ? 0 : enable_kprobe(&k->u.kp);
}

static int register_one(struct ctap_kprobe *k)
{
	memset(&k->u, 0, sizeof(k->u));
	k->via_ftrace = false;
	if (!k->is_return) {
		k->u.kp.symbol_name = k->symbol;
		k->u.kp.addr = (kprobe_opcode_t *)k->address;
		k->u.kp.offset = k->offset;
		k->u.kp.pre_handler = kprobe_pre;
		if (k->offset || k->nlocs)
			return register_checked(k);
		/* (ftrace's handler reads no statement's variables) */
		return ctap_ftrace && !k->address ? register_entry(k) : register_kprobe(&k->u.kp);
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
 * A probe the kernel refused (rc): a warning if it is optional, and 0 (the
 * others go on); else an error, the table undone, and rc.
 */
static int refused(struct ctap_kprobe *kps, int n, int i, int rc)
{
	if (kps[i].optional) {
		ctap_probe_refused(kps[i].probe, true, "(rc %d)", rc);
		return 0;
	}
	ctap_probe_refused(kps[i].probe, false, "(rc %d)", rc);
	ctap_kprobes_unregister(kps, n);	/* those registered */
	return rc;
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
		if (ctap_arming_interrupted()) {
			ctap_kprobes_unregister(kps, n);	/* those registered */
			return -EINTR;
		}
		ret = register_one(&kps[i]);
		if (ret) {
			ret = refused(kps, n, i, ret);
			if (ret)
				return ret;
			continue;
		}
		kps[i].registered = true;
	}
	if (ftrace_attach(kps, n))
		return 0;
	/* No ftrace: the entries it would have taken are armed as kprobes. */
	for (i = n - 1; i >= 0; i--) {
		if (!kps[i].registered || !kps[i].via_ftrace)
			continue;
		kps[i].via_ftrace = false;
		ret = enable_kprobe(&kps[i].u.kp);
		if (ret && (ret = refused(kps, n, i, ret)))
			return ret;
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

	ftrace_detach(kps);
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
