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
	struct ftrace_ops ops;		/* the entries' */
	const struct ctap_probe *one;	/* every site's only probe, or NULL */
#ifdef CTAP_HAVE_FPROBE_IPS
	struct fprobe fp;		/* or the .return probes' */
#endif
#ifdef CTAP_HAVE_KRETPROBE_RETHOOK
	/* or the .return probes' whose entry ops (6.1) or kprobes call */
	struct kretprobe carrier;
#endif
	enum site_kind kind;		/* which */
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
	kvfree(t->slots);
	kvfree(t->probes);
	kvfree(t->sites);
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

/*
 * ftrace_set_filter_ips(), one address at a time where it is missing
 * (5.10).  There each call copies the whole filter to add one address:
 * n addresses cost n * n / 2 entries allocated, copied and freed, 666 M
 * for the whole kernel's 36,500 ftrace sites (545 s of the test guest's
 * time), so a table's sites are split among ftrace_ops of at most
 * SITES_PER_OPS addresses each (attach_chunks()): 9 M copies and 72
 * ftrace_ops (a trampoline and a registration each) for the whole
 * kernel, whose test then takes 168 s on 5.10.
 */
#ifdef CTAP_HAVE_FTRACE_SET_FILTER_IPS
#define SITES_PER_OPS	INT_MAX
#else
#define SITES_PER_OPS	512
#endif

static int set_filter(struct ftrace_ops *ops, unsigned long *ips, int n)
{
#ifdef CTAP_HAVE_FTRACE_SET_FILTER_IPS
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);	/* copies them */
#else
	int ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		ret = ftrace_set_filter_ip(ops, ips[i], 0, 0);
		cond_resched();
	}
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

/*
 * A table's return hook keeps an instance per call in flight, at most
 * this many: none free is a miss, counted as skipped.  The kernel's
 * default for an fprobe is two per function per possible CPU, 46,000
 * functions times 2 x 64 CPUs, hundreds of MiB, for the whole kernel.
 */
#define RETURN_INSTANCES(nsites) \
	clamp_t(int, 2 * num_possible_cpus() * (nsites), 10, 8192)

/*
 * A return from site's function: its .return probes last to first, as
 * kretprobes run them (the kernel runs the newest kprobe on an address
 * first, the runtime registers last to first, and the instances unwind
 * as a stack), and SystemTap (run/kprobe_same_address_order).
 */
#if defined(CTAP_HAVE_KRETPROBE_RETHOOK) || defined(CTAP_HAVE_FPROBE_IPS)
static void notrace site_returns(const struct ftrace_site *site, struct pt_regs *regs,
				 unsigned long *args)
{
	for (int i = site->nprobes - 1; i >= 0; i--)
		ctap_probe_run_at(site->probes[i], regs, args, CTAP_ENTRY_ARGS, site->ip);
}
NOKPROBE_SYMBOL(site_returns);
#endif

#ifdef CTAP_HAVE_KRETPROBE_RETHOOK
/*
 * One kretprobe carrying a table's .return probes, registered disabled: it
 * never fires by itself; the table's hooks call its entry hook
 * (pre_handler_kretprobe(), which register_kretprobe() set), as kprobes
 * call a kretprobe's: the table's ftrace_ops at each ftrace site on 6.1
 * (return_hook), a plain kprobe at each function without one (hooked_pre).
 * A kretprobe each cost 13.5 M instructions to register on 6.1 on an
 * ftrace site (each updates kprobes' ftrace filter, a walk of every ftrace
 * record); elsewhere it costs what a kprobe does.  The returns go through the
 * kernel's rethook trampoline, which its unwinder knows, and run the
 * site's probes with the caller's address in the registers, as a
 * kretprobe's handler there (RETURN_INSTANCES of them).
 */
#define RETURN_CARRIER	true
#define CARRIER_DATA	(1 + CTAP_ENTRY_ARGS)	/* the site, the arguments */

static int notrace carrier_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long *data = (unsigned long *)ri->data;

	data[0] = instruction_pointer(regs);	/* the site, as the hook set it */
	for (int i = 0; i < CTAP_ENTRY_ARGS; i++)
		data[1 + i] = regs_get_kernel_argument(regs, i);
	return 0;
}
NOKPROBE_SYMBOL(carrier_entry);

static int notrace carrier_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct ftrace_sites *t = container_of(get_kretprobe(ri), struct ftrace_sites,
						    carrier);
	unsigned long *data = (unsigned long *)ri->data;
	const struct ftrace_site *site = site_at(t, data[0]);

	if (likely(site))
		site_returns(site, regs, data + 1);
	return 0;
}
NOKPROBE_SYMBOL(carrier_ret);

/* t's carrier at addr (kprobes check it as any kretprobe's). */
static int register_carrier(struct ftrace_sites *t, unsigned long addr)
{
	struct kretprobe *rp = &t->carrier;

	rp->kp.addr = (kprobe_opcode_t *)addr;
	rp->kp.flags = KPROBE_FLAG_DISABLED;
	rp->handler = carrier_ret;
	rp->entry_handler = carrier_entry;
	rp->data_size = CARRIER_DATA * sizeof(unsigned long);
	rp->maxactive = RETURN_INSTANCES(t->nsites);
	return addr ? register_kretprobe(rp) : -ENOENT;
}

/* After whatever calls its entry hook: returns still pending go back
 * through the rethook without calling us. */
static void unregister_carrier(struct ftrace_sites *t)
{
	unregister_kretprobe(&t->carrier);	/* waits for its handlers */
	ctap_add_skipped(t->carrier.nmissed);
}

/*
 * A call of a function whose .return is hooked: its table's carrier's
 * entry hook, as a kretprobe's kprobe calls its own, with the function
 * as the instruction pointer (carrier_entry's site).  Only while the
 * session runs: a return outside RUNNING would be skipped anyway.  The
 * carrier is set before the kprobe is enabled and unregistered after it.
 */
static int notrace hooked_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ctap_kprobe *k = container_of(kp, struct ctap_kprobe, u.kp);
	struct kretprobe *rp = READ_ONCE(k->carrier);
	unsigned long ip;

	if (unlikely(atomic_read(&ctap_session_state) != S_RUNNING || !rp))
		return 0;
	ip = instruction_pointer(regs);
	instruction_pointer_set(regs, (unsigned long)kp->addr);
	rp->kp.pre_handler(&rp->kp, regs);
	instruction_pointer_set(regs, ip);
	return 0;
}
NOKPROBE_SYMBOL(hooked_pre);

/* The carrier at the first site's function, for the kprobes of sorted[m]. */
static int register_hooked(struct ftrace_sites *t, struct ctap_kprobe **sorted, int m)
{
	int ret = register_carrier(t, (unsigned long)sorted[0]->u.kp.addr);

	/* one kprobe a function calls it: its site runs all its probes */
	for (int i = 0; i < m && !ret; i++)
		if (!i || sorted[i]->u.kp.addr != sorted[i - 1]->u.kp.addr)
			WRITE_ONCE(sorted[i]->carrier, &t->carrier);
	return ret;
}
#else
#define RETURN_CARRIER	false

static int hooked_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

static int register_hooked(struct ftrace_sites *t, struct ctap_kprobe **sorted, int m)
{
	return -EOPNOTSUPP;
}

static void unregister_carrier(struct ftrace_sites *t)
{
}
#endif

/*
 * A table's .return probes on ftrace sites through one fprobe (6.12: a
 * kretprobe each costs an update of kprobes' ftrace filter, which walks
 * all 40,000 ftrace records).  The entry saves the arguments for the
 * handler, as kretprobe_entry() does; the return hook leaves the caller's
 * address in the registers, as later kernels' kretprobes do.
 */
#ifdef CTAP_HAVE_FPROBE_IPS
static int notrace fprobe_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
				struct pt_regs *regs, void *data)
{
	unsigned long *args = data;

	/* outside RUNNING the return would be skipped: not hooked (!0) */
	if (unlikely(atomic_read(&ctap_session_state) != S_RUNNING))
		return 1;
	for (int i = 0; i < CTAP_ENTRY_ARGS; i++)
		args[i] = regs ? regs_get_kernel_argument(regs, i) : 0;
	return 0;
}
NOKPROBE_SYMBOL(fprobe_entry);

static void notrace fprobe_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
				struct pt_regs *regs, void *data)
{
	const struct ftrace_sites *t = container_of(fp, struct ftrace_sites, fp);
	const struct ftrace_site *site = site_at(t, ip);

	if (!site)	/* ip, the function's, before its endbr64 */
		site = site_at(t, ip + 4);
	if (likely(site && regs))
		site_returns(site, regs, data);
}
NOKPROBE_SYMBOL(fprobe_exit);

static int register_returns(struct ftrace_sites *t, unsigned long *ips,
			    const struct ctap_kprobe *first)
{
	t->fp.entry_handler = fprobe_entry;
	t->fp.exit_handler = fprobe_exit;
	t->fp.entry_data_size = CTAP_ENTRY_ARGS * sizeof(unsigned long);
	t->fp.nr_maxactive = RETURN_INSTANCES(t->nsites);
	/* until the table is armed (fprobes_open()): a hit the fprobe cannot
	 * hook is a miss before our entry handler can tell it outside RUNNING,
	 * 427,470 of them on 6.12 while the rest of the whole kernel armed */
	t->fp.flags = FPROBE_FL_DISABLED;
	return register_fprobe_ips(&t->fp, ips, t->nsites);	/* copies the addresses */
}

static void unregister_returns(struct ftrace_sites *t)
{
	unregister_fprobe(&t->fp);
	ctap_add_skipped(t->fp.nmissed);
}
#elif defined(CTAP_HAVE_KRETPROBE_RETHOOK)
/*
 * Without fprobes (6.1), a call of a function with .return probes on its
 * ftrace site: the carrier's entry hook, with all registers, the site as
 * the instruction pointer, and preemption off, as kprobes call it.  It
 * and what it runs (rethook) are kprobes' blacklist, which no site is on.
 *
 * Only while the session runs: a return outside RUNNING would be skipped
 * anyway, and hooking the calls the arming and disarming make themselves
 * cost rethook's work for nothing.  Not inside an int3 kprobe's handler
 * (the kernel enters int3 as an NMI): the return's kretprobe handler sets
 * and clears current_kprobe, which that kprobe's single step still needs
 * (kprobes' own ftrace handler refuses to nest for that reason; kprobe_running()
 * is not exported).  That hook is a miss, counted as skipped.
 */
CTAP_FTRACE_CALLBACK(return_hook)
{
	struct ftrace_sites *t = container_of(ops, struct ftrace_sites, ops);
	struct pt_regs *regs = FULL_REGS;
	unsigned long saved;

	if (unlikely(!regs || atomic_read(&ctap_session_state) != S_RUNNING ||
		     !site_at(t, ip)))
		return;
	if (unlikely(in_nmi())) {
		t->carrier.nmissed++;
		return;
	}
	preempt_disable_notrace();
	saved = instruction_pointer(regs);
	instruction_pointer_set(regs, ip);
	t->carrier.kp.pre_handler(&t->carrier.kp, regs);
	instruction_pointer_set(regs, saved);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(return_hook);

static int register_ops(struct ftrace_sites *t, unsigned long *ips, ftrace_func_t func,
			unsigned long flags);

/* The carrier at the first site's function, then the ops that calls it. */
static int register_returns(struct ftrace_sites *t, unsigned long *ips,
			    const struct ctap_kprobe *first)
{
	int ret = register_carrier(t, symbol_address(first));

	if (ret)
		return ret;
	ret = register_ops(t, ips, return_hook, FTRACE_OPS_FL_SAVE_REGS);
	if (ret)
		unregister_carrier(t);
	return ret;
}

/* The ops first (no new hooks, none running), then the carrier. */
static void unregister_returns(struct ftrace_sites *t)
{
	unregister_ftrace_function(&t->ops);	/* waits for handlers */
	free_filter(&t->ops);
	unregister_carrier(t);
}
#else
static int register_returns(struct ftrace_sites *t, unsigned long *ips,
			    const struct ctap_kprobe *first)
{
	return -EOPNOTSUPP;
}

static void unregister_returns(struct ftrace_sites *t)
{
}
#endif

/* An ftrace_ops calling func at t's sites. */
static int register_ops(struct ftrace_sites *t, unsigned long *ips, ftrace_func_t func,
			unsigned long flags)
{
	int ret;

	t->ops.func = func;
	t->ops.flags = flags;
	ret = set_filter(&t->ops, ips, t->nsites);
	if (!ret)
		ret = register_ftrace_function(&t->ops);
	if (ret)
		free_filter(&t->ops);
	return ret;
}

/* The table's ftrace_ops (args: argument registers only) for its entries
 * at t's sites, its return hook for its .return probes there, or the
 * carrier its hooked .return probes' kprobes call (t->kind). */
static int register_sites(struct ftrace_sites *t, unsigned long *ips, bool args,
			  struct ctap_kprobe **sorted, int m)
{
	switch (t->kind) {
	case SITES_RETURNS:
		return register_returns(t, ips, sorted[0]);
	case SITES_HOOKED:
		return register_hooked(t, sorted, m);
	default:
		return register_ops(t, ips, site_callback(t, args, sorted[0]),
				    args ? 0 : FTRACE_OPS_FL_SAVE_REGS);
	}
}

static void unregister_sites(struct ftrace_sites *t)
{
	switch (t->kind) {
	case SITES_RETURNS:
		unregister_returns(t);
		break;
	case SITES_HOOKED:
		unregister_carrier(t);
		break;
	default:
		unregister_ftrace_function(&t->ops);	/* waits for handlers */
		free_filter(&t->ops);
	}
}

/* One ftrace_ops (or fprobe, or carrier: by kind) for the m probes
 * (sorted by address) of table kps; false if the kernel refuses. */
static bool attach_sites(struct ctap_kprobe *kps, struct ctap_kprobe **sorted, int m, bool args,
			 enum site_kind kind)
{
	struct ftrace_sites *t;
	unsigned long *ips;

	if (!m)
		return true;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return false;
	t->kind = kind;
	t->bits = ilog2(roundup_pow_of_two(2 * m));	/* at most half full */
	t->sites = kvcalloc(m, sizeof(*t->sites), GFP_KERNEL);
	t->probes = kvcalloc(m, sizeof(*t->probes), GFP_KERNEL);
	ips = kvcalloc(m, sizeof(*ips), GFP_KERNEL);
	t->slots = kvcalloc(1UL << t->bits, sizeof(*t->slots), GFP_KERNEL);
	if (!ips || !t->sites || !t->probes || !t->slots)
		goto fail;
	fill_sites(t, sorted, m, ips);
	t->table = kps;
	if (register_sites(t, ips, args, sorted, m))
		goto fail;
	list_add(&t->list, &site_tables);
	kvfree(ips);
	return true;
fail:
	kvfree(ips);
	free_sites(t);
	return false;
}

/*
 * The m probes (sorted by address) in tables of at most SITES_PER_OPS
 * sites each (a site's probes in one table: the ftrace_ops are disjoint,
 * and a hit runs one); false if ftrace refuses one.
 */
static bool attach_chunks(struct ctap_kprobe *kps, struct ctap_kprobe **sorted, int m,
			  bool args, enum site_kind kind)
{
	for (int start = 0, end; start < m; start = end) {
		int nsites = 1;

		for (end = start + 1; end < m; end++) {
			if (sorted[end]->u.kp.addr == sorted[end - 1]->u.kp.addr)
				continue;
			if (nsites == SITES_PER_OPS)
				break;
			nsites++;
		}
		if (!attach_sites(kps, sorted + start, end - start, args, kind))
			return false;
		cond_resched();
	}
	return true;
}

/*
 * Entries armed without a kprobe.  Registering one costs about 3.5 M
 * instructions on 6.1 whatever the function, most of it in
 * jump_label_text_reserved() (it decodes the instruction of every jump
 * label below the address): 40,000 functions took minutes.  An entry on an
 * ftrace site needs none of that (the site is ftrace's nop: no jump label,
 * static call or BUG is there), only kprobes' refusals: their blacklist
 * (NOKPROBE_SYMBOL, the entry and noinstr code), which kprobes list in
 * debugfs, checked here by name as kprobes check a compiler's clone
 * (f.isra.0 by f too).  Without that list, every entry registers its kprobe.
 */
#define BLACKLIST_PATH	"/sys/kernel/debug/kprobes/blacklist"
#define BLACKLIST_MAX	(4 << 20)	/* a sane bound on the file */

struct bare_arming {
	char *text;			/* the blacklist file, its names cut out */
	const char **names;		/* [n], sorted */
	int n;
	struct ftrace_ops scratch;	/* whose filter tells an ftrace site */
};

/* buf (kvfree() it) grown to hold at least want bytes, or NULL. */
static char *grow(char *buf, size_t len, size_t *size, size_t want)
{
	size_t bigger = max(2 * *size, want);
	char *p;

	if (want <= *size)
		return buf;
	p = bigger <= BLACKLIST_MAX ? kvmalloc(bigger, GFP_KERNEL) : NULL;
	if (p && buf)
		memcpy(p, buf, len);
	kvfree(buf);
	*size = bigger;
	return p;
}

/*
 * The whole of a debugfs file, NUL-terminated (kvfree() it), or NULL.
 * kernel_read() refuses it (debugfs' proxy has ->read, not ->read_iter),
 * so it is read into pages of the process arming us (staprun, in its
 * write of START) and copied from there.  A file without ->read is not
 * read: every entry then registers its kprobe, slower but the same.
 */
static char *read_text(const char *path, size_t *len)
{
	const size_t chunk = 64 << 10;
	struct file *f = filp_open(path, O_RDONLY, 0);
	unsigned long ubuf = -EINVAL;
	size_t size = 0;
	char *buf = NULL;
	loff_t pos = 0;
	ssize_t got = -EINVAL;

	if (IS_ERR(f))
		return NULL;
	*len = 0;
	if (f->f_op->read && current->mm)
		ubuf = vm_mmap(NULL, 0, chunk, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	while (!IS_ERR_VALUE(ubuf)) {
		got = f->f_op->read(f, (char __user *)ubuf, chunk, &pos);
		if (got <= 0)
			break;
		buf = grow(buf, *len, &size, *len + got + 1);
		if (!buf || copy_from_user(buf + *len, (const void __user *)ubuf, got)) {
			got = -ENOMEM;
			break;
		}
		*len += got;
	}
	if (!IS_ERR_VALUE(ubuf))
		vm_munmap(ubuf, chunk);
	filp_close(f, NULL);
	if (got < 0 || !buf) {
		kvfree(buf);
		return NULL;
	}
	buf[*len] = 0;
	return buf;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The blacklist's names ("0x...-0x...\tNAME\n" a line), sorted. */
static bool load_blacklist(struct bare_arming *b)
{
	size_t len;
	char *p, *end;
	int n = 0;

	b->text = read_text(BLACKLIST_PATH, &len);
	if (!b->text)
		return false;
	for (p = b->text; (p = strchr(p, '\n')); p++)
		n++;
	b->names = kvmalloc_array(n + 1, sizeof(*b->names), GFP_KERNEL);
	if (!b->names)
		return false;
	for (p = b->text; (p = strchr(p, '\t')); p = end + 1) {
		end = strchrnul(++p, '\n');
		if (!*end)
			break;	/* a line cut short: not counted */
		*end = 0;
		b->names[b->n++] = p;
	}
	sort(b->names, b->n, sizeof(*b->names), cmp_names, NULL);
	return b->n > 0;
}

static bool blacklisted(const struct bare_arming *b, const char *symbol)
{
	char base[KSYM_NAME_LEN];
	const char *dot = strchr(symbol, '.');

	if (bsearch(&symbol, b->names, b->n, sizeof(*b->names), cmp_names))
		return true;
	if (!dot || dot == symbol || dot - symbol >= sizeof(base))
		return false;
	strscpy(base, symbol, dot - symbol + 1);
	symbol = base;
	return bsearch(&symbol, b->names, b->n, sizeof(*b->names), cmp_names);
}

static bool bare_start(struct bare_arming *b)
{
	memset(b, 0, sizeof(*b));
	b->scratch.func = ftrace_entry;	/* never registered */
	b->scratch.flags = FTRACE_OPS_FL_SAVE_REGS;
	return ctap_ftrace && load_blacklist(b);
}

static void bare_end(struct bare_arming *b)
{
	free_filter(&b->scratch);
	kvfree(b->names);
	kvfree(b->text);
}

/*
 * An IBT kernel (6.12) overwrites at boot the endbr64 of every function
 * objtool found never called indirectly with a 4-byte nop of its own
 * (its seal list: 12,281 functions on 6.12), which kprobes take as an
 * endbr64 (is_endbr()).  Before this, a third of 6.12's functions
 * registered a kprobe each (about 2.5 M instructions) to be found on
 * their ftrace site.
 */
static bool sealed_endbr(const u8 *code)
{
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	memcpy(&insn, code, sizeof(insn));
	return insn == gen_endbr_poison();
#else
	return false;
#endif
}

/*
 * Where ftrace calls us for the function at addr, or 0: ftrace must take
 * addr in a filter (it has a site in that function), and the site must be
 * where the handler will look for it, at the entry, after an endbr64 if
 * any (where kprobes would put it), with ftrace's nop or call there.
 */
static unsigned long ftrace_site(struct bare_arming *b, unsigned long addr)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 code[9];

	if (ftrace_set_filter_ip(&b->scratch, addr, 0, 1))
		return 0;
	if (copy_from_kernel_nofault(code, (void *)addr, sizeof(code)))
		return 0;
	if (!memcmp(code, endbr64, sizeof(endbr64)) || sealed_endbr(code)) {
		addr += sizeof(endbr64);
		memmove(code, code + sizeof(endbr64), sizeof(nop5));
	}
	return !memcmp(code, nop5, sizeof(nop5)) || code[0] == 0xe8 ? addr : 0;
}

/* k armed through ftrace alone, when it can be (true). */
static bool arm_bare(struct bare_arming *b, struct ctap_kprobe *k)
{
	unsigned long addr, site;

	if (k->offset || k->nlocs || k->address || !k->has_delta || blacklisted(b, k->symbol))
		return false;
	/* A .return through the table's return hook: the arguments at most,
	 * no @entry values (an instance each) nor instances of its own. */
	if (k->is_return && (!RETURN_HOOK || k->entry_probe || k->maxactive))
		return false;
	addr = symbol_address(k);
	site = addr ? ftrace_site(b, addr) : 0;
	if (!site)
		return false;
	memset(&k->u, 0, sizeof(k->u));
	k->u.kp.addr = (kprobe_opcode_t *)site;
	k->via_ftrace = !k->is_return;
	k->bare = true;
	return true;
}

/* The table's ftrace_ops, fprobes and carriers: all of them (which < 0),
 * or those of one kind. */
static void ftrace_detach(struct ctap_kprobe *kps, int which)
{
	struct ftrace_sites *t, *next;

	list_for_each_entry_safe(t, next, &site_tables, list) {
		if (t->table != kps || (which >= 0 && t->kind != which))
			continue;
		unregister_sites(t);
		list_del(&t->list);
		free_sites(t);
	}
}

/* The table's fprobes enabled (open) or disabled: they count misses only
 * while the table is armed, as the other return hooks do. */
static void fprobes_open(struct ctap_kprobe *kps, bool open)
{
#ifdef CTAP_HAVE_FPROBE_IPS
	struct ftrace_sites *t;

	list_for_each_entry(t, &site_tables, list) {
		if (t->table != kps || t->kind != SITES_RETURNS)
			continue;
		if (open)
			enable_fprobe(&t->fp);
		else
			disable_fprobe(&t->fp);
	}
#endif
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

/*
 * The table's entries on ftrace sites (their kprobes disabled, or none)
 * through one ftrace_ops, or two (all registers, argument registers
 * only); or its bare .return probes through one fprobe (or return hook);
 * or the carrier of its hooked .return probes.  False if there are none
 * or the kernel refuses (then they are armed as kprobes or kretprobes).
 */
static bool ftrace_attach(struct ctap_kprobe *kps, int n, enum site_kind kind)
{
	struct ctap_kprobe **sorted, **tmp;
	int i, m = 0, nfull;
	bool ok;

	for (i = 0; i < n; i++)
		m += site_probe(&kps[i], kind);
	if (!m)
		return false;
	sorted = kvcalloc(m, sizeof(*sorted), GFP_KERNEL);
	tmp = kvcalloc(m, sizeof(*tmp), GFP_KERNEL);
	ok = sorted && tmp;
	if (ok) {
		for (i = 0, m = 0; i < n; i++)
			if (site_probe(&kps[i], kind))
				sorted[m++] = &kps[i];
		sort(sorted, m, sizeof(*sorted), by_address, NULL);
		nfull = kind != SITES_ENTRIES ? m : split_args_only(sorted, m, tmp);
		ok = attach_chunks(kps, sorted, nfull, false, kind) &&
		     attach_chunks(kps, sorted + nfull, m - nfull, true, kind);
		if (!ok)
			ftrace_detach(kps, kind);
	}
	kvfree(sorted);
	kvfree(tmp);
	return ok;
}
#else
#define RETURN_CARRIER	false

static int hooked_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

struct bare_arming {
};

static bool bare_start(struct bare_arming *b)
{
	return false;
}

static void bare_end(struct bare_arming *b)
{
}

static bool arm_bare(struct bare_arming *b, struct ctap_kprobe *k)
{
	return false;
}

static bool ftrace_attach(struct ctap_kprobe *kps, int n, enum site_kind kind)
{
	return false;
}

static void fprobes_open(struct ctap_kprobe *kps, bool open)
{
}

static void ftrace_detach(struct ctap_kprobe *kps, int which)
{
}
#endif

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

/* k's kprobe: its kretprobe's, or its own. */
static struct kprobe *kprobe_of(struct ctap_kprobe *k)
{
	return k->is_return && !k->hooked ? &k->u.krp.kp : &k->u.kp;
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
		else if (kps[i].is_return && !kps[i].hooked)
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
		missed += kps[i].is_return && !kps[i].hooked ?
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
		else if (kps[i].is_return && !kps[i].hooked)
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
