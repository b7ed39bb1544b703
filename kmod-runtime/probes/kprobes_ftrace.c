// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_ftrace.c - the kprobe family's probes armed through ftrace: entries
 * on ftrace sites through ftrace_ops of our own, .return probes there through
 * one fprobe or carrier kretprobe per table, the whole kernel's arming
 * without a kprobe where none is needed.  Part of kprobes.c's unit (it
 * includes this file: one object per probe family), apart for its size.
 */

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

/* The table's ftrace_ops, fprobes or carriers of one kind. */
static void ftrace_detach(struct ctap_kprobe *kps, enum site_kind kind)
{
	struct ftrace_sites *t, *next;

	list_for_each_entry_safe(t, next, &site_tables, list) {
		if (t->table != kps || t->kind != kind)
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

static void ftrace_detach(struct ctap_kprobe *kps, enum site_kind kind)
{
}
#endif
