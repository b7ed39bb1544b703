// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - the life of a --runtime=dyninst module, as
 * kmod-runtime/session.c's in the kernel: handler slots, the common probe
 * entry, soft errors, start and stop, and the entry points stapdyn calls
 * (dyn_abi.h).  States as there: LOADED, STARTING, RUNNING, STOPPING,
 * STOPPED.
 *
 * Where the kernel has a context per CPU, here each thread that runs a
 * handler takes a slot for the session (ctap_dyn_slot, from a counter in
 * the shared segment so that stapdyn's threads and a target's never
 * share one); a context is the slot's.  No handler interrupts another of
 * its slot but a signal handler could: the busy count skips it, counted.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>

#include "ctap_runtime.h"
#include "dyn_abi.h"
#include "dyn_internal.h"
#include "probe_entry.h"

__thread int ctap_dyn_slot __attribute__((tls_model("initial-exec"))) = -1;

/*
 * In the shared section: a target process that runs a handler sees the
 * session's state, its contexts and counts as stapdyn does.  m points
 * into this process's copy of the module, so it is not shared.
 */
static struct {
	char *contexts;			/* CTAP_DYN_SLOTS * context size, in the segment */
	size_t context_size;
	atomic_t state;
	atomic_t errors, skipped;
	s32 target;
	s32 stapdyn;
	int armed;			/* families started */
} sess CTAP_SHARED;
static const struct ctap_module *module;

static struct ctap_dyn_param *params;

void ctap_dyn_param_register(struct ctap_dyn_param *p)
{
	p->next = params;
	params = p;
}

/* stapdyn's NAME=VALUE: 0, or -ENOENT for a name the script lacks. */
int ctap_dyn_set_param(const char *name, const char *value)
{
	for (struct ctap_dyn_param *p = params; p; p = p->next) {
		if (strcmp(p->name, name))
			continue;
		if (p->is_string)
			*(const char **)p->value = strdup(value);
		else
			*(long *)p->value = strtol(value, NULL, 0);
		return 0;
	}
	return -ENOENT;
}

s32 ctap_target(void)
{
	return sess.target;
}

s32 ctap_staprun_pid(void)
{
	return sess.stapdyn;
}

struct inode *ctap_exe_inode(void)
{
	return NULL;
}

void ctap_request_exit(void)
{
	__atomic_store_n(&((struct ctap_dyn_shm *)ctap_dyn_shm)->exit_requested, 1,
			 __ATOMIC_SEQ_CST);
	ctap_dyn_wake();
}

void ctap_exit(void)
{
	int s = atomic_read(&sess.state);

	if ((s == S_STARTING || s == S_RUNNING) &&
	    atomic_cmpxchg(&sess.state, s, S_STOPPING) == s)
		ctap_request_exit();
}

bool ctap_arming_interrupted(void)
{
	return false;	/* arming a timer table is one thread start */
}

void ctap_add_skipped(unsigned long n)
{
	atomic_add((int)n, &sess.skipped);
}

/* Set while ctap_dyn_quiet() holds this thread's handlers off. */
static __thread bool quiet __attribute__((tls_model("initial-exec")));

static void skip(void)
{
	if (quiet)
		return;		/* the runtime's own call: not a hit to count */
	if (atomic_inc_return(&sess.skipped) > MAXSKIPPED) {
		ctap_oob("ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n");
		ctap_exit();
	}
}

/* This thread's context (its slot's), NULL until its first hit: one
 * load a hit where the slot would be a multiply and an add. */
static __thread struct ctap_context *slot_context __attribute__((tls_model("initial-exec")));

/* This thread's slot, taken on its first hit: its context, or NULL when
 * all CTAP_DYN_SLOTS are taken. */
static noinline struct ctap_context *take_slot(void)
{
	struct ctap_dyn_shm *shm = ctap_dyn_shm;
	int slot = __atomic_fetch_add(&shm->next_slot, 1, __ATOMIC_SEQ_CST);

	if (slot >= CTAP_DYN_SLOTS)
		return NULL;
	ctap_dyn_slot = slot;
	slot_context = (struct ctap_context *)(sess.contexts + slot * sess.context_size);
	return slot_context;
}

/* A fork's child takes a slot of its own (shm.c): the parent's thread
 * that forked keeps running handlers in the one it had. */
void ctap_dyn_forget_slot(void)
{
	ctap_dyn_slot = -1;
	slot_context = NULL;
}

/* The calling thread's context; NULL when it has no slot (the hit is
 * skipped). */
static __always_inline struct ctap_context *this_context(void)
{
	struct ctap_context *c = slot_context;

	return likely(c) ? c : take_slot();
}

/*
 * No handler runs on this thread between ctap_dyn_quiet(true) and
 * ctap_dyn_quiet(false), and what it would have run is not counted as
 * skipped: its context is marked busy, the reentry check the hot path
 * makes anyway, so that the hits cost nothing more.  For the runtime's
 * own work in a target (uprobes.c puts the probes in).
 */
void ctap_dyn_quiet(bool on)
{
	struct ctap_context *c = this_context();

	if (!c)
		return;		/* no slot: every hit here is skipped anyway */
	if (on) {
		quiet = true;
		c->busy.counter++;
	} else {
		c->busy.counter--;
		quiet = false;
	}
}

const char ctap_abort_error[] = "abort()";

/* remote_id(), remote_uri(): stapdyn and --remote-merge's end run here,
 * not as a --remote host's module. */
int ctap_remote_id = -1;
char *ctap_remote_uri = "";

static void report_error(struct ctap_context *c)
{
	if (ctap_aborted(c))
		return;
	ctap_print_error(c);
	if (atomic_inc_return(&sess.errors) > MAXERRORS)
		ctap_exit();
}

#ifdef STP_TIMING
/*
 * stap -t: each probe's cycles from its entry to its handler's end, a
 * statistic per handler slot (in the segment: the hits of every target
 * process count), and the "probe hit report" after the end probes, as
 * kmod-runtime/session.c's.
 */
static struct ctap_pstat *timing CTAP_SHARED;
static const struct ctap_stat_spec timing_spec;	/* no histogram, no shift */

static int timing_init(const struct ctap_module *m)
{
	timing = ctap_alloc(m->ntimed * sizeof(*timing));
	if (!timing)
		return -ENOMEM;
	for (int i = 0; i < m->ntimed; i++)
		if (ctap_pstat_init(&timing[i]))
			return -ENOMEM;	/* the segment goes at once, with them */
	return 0;
}

static void timing_add(const struct ctap_probe *p, cycles_t start)
{
	if (p->timing)
		ctap_pstat_add(&timing_spec, &timing[p->timing - 1], get_cycles() - start);
}

static void timing_report(const struct ctap_module *m)
{
	static const char head[] = "----- probe hit report: \n";
	static const char tail[] = "----- refresh report:\n";
	char line[512];

	ctap_write(head, sizeof(head) - 1);
	for (int i = 0; i < m->ntimed; i++) {
		const struct ctap_probe *p = &m->timed[i];
		struct ctap_stat *st = ctap_pstat_aggregate(&timing_spec, &timing[i]);
		int n;

		if (!st->count)
			continue;
		n = snprintf(line, sizeof(line), "%s, (%s), hits: %lld, cycles: %lldmin/%lldavg/"
			     "%lldmax, variance: %lld,%s, index: %d\n", p->pp, p->location,
			     (long long)st->count, (long long)st->min, (long long)ctap_stat_avg(st),
			     (long long)st->max, (long long)ctap_stat_variance(&timing_spec, st),
			     p->derivation, i);
		ctap_write(line, min_t(int, n, sizeof(line) - 1));
	}
	ctap_write(tail, sizeof(tail) - 1);
}
#else
static inline int timing_init(const struct ctap_module *m) { return 0; }
static inline void timing_add(const struct ctap_probe *p, cycles_t start) { }
static inline void timing_report(const struct ctap_module *m) { }
#endif

#ifndef STP_NO_OVERLOAD
/*
 * Time in handlers per slot (per thread), as the kernel runtime's per
 * CPU and SystemTap's STP_OVERLOAD in both its runtimes: over
 * STP_OVERLOAD_THRESHOLD cycles of an STP_OVERLOAD_INTERVAL in handlers
 * is an error that ends the session, before the probes take the
 * program.  Two cycle-counter reads and an add a hit; the check itself
 * once an interval.  Every hit is timed: timing one hit in N and
 * counting it N times tripped on the suite's begin, end and timer
 * probes (a rare long handler counted N times), and timing only some
 * misses a handler whose long runs are the rare ones.
 */
static noinline void overload_check(struct ctap_context *c, cycles_t end)
{
	bool over = c->cycles_sum > STP_OVERLOAD_THRESHOLD;

	c->cycles_base = end;
	c->cycles_sum = 0;
	if (over) {
		ctap_oob("ERROR: probe overhead exceeded threshold\n");
		atomic_inc(&sess.errors);
		ctap_exit();
	}
}

static __always_inline void overload_add(struct ctap_context *c, cycles_t start)
{
	cycles_t end = get_cycles();

	c->cycles_sum += end - start;
	if (unlikely(end - c->cycles_base >= STP_OVERLOAD_INTERVAL))
		overload_check(c, end);
}
#define CTAP_DYN_CYCLES	1
#else
static inline void overload_add(struct ctap_context *c, cycles_t start) { }
#endif

/* The globals' locks out of line: the hot path of a probe that takes
 * none (a counter, a statistic) keeps its registers. */
static noinline bool lock_globals(const struct ctap_probe *p)
{
	return ctap_lock_globals(p);
}

static noinline void unlock_globals(const struct ctap_probe *p)
{
	ctap_unlock_globals(p);
}

/* What a handler left: its output to the transport, its soft error. */
static noinline void handler_done(struct ctap_context *c)
{
	if (c->out.len || c->out.truncated)
		ctap_handler_output(c);
	if (c->last_error)
		report_error(c);
}

/*
 * A probe's run on this thread's context, the session in its state.
 * The slot is this thread's alone: only a signal handler on it can come
 * in between, so the busy flag is a plain store, fenced for the
 * compiler (a locked add and sub cost two thirds of a hit on this host);
 * ctap_dyn_quiet() raises it too.
 */
static __always_inline void run(struct ctap_context *c, const struct ctap_probe *p,
				struct pt_regs *regs, const unsigned long *args, int nargs,
				unsigned long addr, bool event)
{
	bool locks = p->nlocks;
	cycles_t start;

	if (unlikely(c->busy.counter)) {
		skip();
		return;
	}
	c->busy.counter = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The context first (it is ours now): nothing of the hit is kept
	 * in registers across the locking call, nor the cycle counter's
	 * read (rdtsc takes rdx and rax). */
	ctap_context_enter(c, p, regs, args, nargs, addr, event);
#if defined(STP_TIMING) || defined(CTAP_DYN_CYCLES)
	start = get_cycles();
#else
	start = 0;
#endif
	if (unlikely(locks) && !lock_globals(p)) {
		skip();
		goto out;
	}
	p->handler(c);
	if (unlikely(locks)) {
		/* Output before the locks go, as the kernel runtime's
		 * ctap_run_locked(): a thread that sees what this one wrote
		 * prints after it. */
		if (c->out.len || c->out.truncated)
			ctap_handler_output(c);
		unlock_globals(p);
	}
	timing_add(p, start);
	if (unlikely(c->out.len || c->out.truncated || c->last_error))
		handler_done(c);
	overload_add(c, start);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy.counter = 0;
}

/*
 * A begin, end or error probe, when its state allows it; and a thread's
 * first hit, which takes its slot first (out of line: the hot path
 * keeps its arguments in registers).
 */
static noinline void run_slow(const struct ctap_probe *p, struct pt_regs *regs,
			      const unsigned long *args, int nargs, unsigned long addr)
{
	struct ctap_context *c;

	if (!ctap_state_allows(atomic_read(&sess.state), p))
		return;
	c = this_context();
	if (!c)
		skip();
	else
		run(c, p, regs, args, nargs, addr, p->kind == CTAP_PROBE_EVENT);
}

/* An event probe (process, timer) runs only while the session does. */
void ctap_probe_run_at(const struct ctap_probe *p, struct pt_regs *regs,
		       const unsigned long *args, int nargs, unsigned long addr)
{
	struct ctap_context *c = slot_context;

	if (unlikely(p->kind != CTAP_PROBE_EVENT || !c))
		run_slow(p, regs, args, nargs, addr);
	else if (likely(atomic_read(&sess.state) == S_RUNNING))
		run(c, p, regs, args, nargs, addr, true);
}

static void run_kind(enum ctap_probe_kind kind)
{
	for (int i = 0; i < module->nprobes; i++)
		if (module->probes[i]->kind == kind)
			ctap_probe_run(module->probes[i], NULL, NULL, 0);
}

static void disarm(void)
{
	while (sess.armed > 0)
		module->families[--sess.armed].stop();
}

/* stapdyn: run the begin probes, arm the rest; 0 or -errno. */
int ctap_dyn_start(int32_t target, int32_t stapdyn_pid)
{
	int ret;

	sess.target = target;
	sess.stapdyn = stapdyn_pid;
	atomic_set(&sess.state, S_STARTING);
	run_kind(CTAP_PROBE_BEGIN);
	for (sess.armed = 0; sess.armed < module->nfamilies; sess.armed++) {
		ret = module->families[sess.armed].start();
		if (ret) {
			disarm();
			atomic_set(&sess.state, S_STOPPED);
			return ret;
		}
	}
	atomic_cmpxchg(&sess.state, S_STARTING, S_RUNNING);
	return 0;
}

/*
 * The handlers running when the session stops finish first: the one in
 * a target that called exit() puts its output in the ring after exit()
 * has woken stapdyn, which would otherwise run the end probes and drain
 * the ring for the last time before it (a third of the runs of a probe
 * that prints and exits lost their output).  Their busy counts are in
 * the segment; waited for at most a second, so that a target stopped
 * in a handler (a debugger, SIGSTOP) does not hold the session.
 */
static void wait_handlers(void)
{
	for (int tries = 0; sess.contexts && tries < 1000; tries++) {
		bool busy = false;

		for (int i = 0; i < CTAP_DYN_SLOTS && !busy; i++) {
			struct ctap_context *c =
				(struct ctap_context *)(sess.contexts + i * sess.context_size);

			busy = i != ctap_dyn_slot &&
			       __atomic_load_n(&c->busy.counter, __ATOMIC_ACQUIRE) != 0;
		}
		if (!busy)
			return;
		usleep(1000);
	}
}

/* stapdyn: disarm, let running handlers end, run the end (or error) probes. */
void ctap_dyn_stop(void)
{
	if (atomic_read(&sess.state) == S_STOPPED || atomic_read(&sess.state) == S_LOADED)
		return;
	atomic_set(&sess.state, S_STOPPING);
	disarm();
	wait_handlers();
	run_kind(atomic_read(&sess.errors) ? CTAP_PROBE_ERROR : CTAP_PROBE_END);
	timing_report(module);
	atomic_set(&sess.state, S_STOPPED);
}

/* The end-of-run line staprun prints, from the module's own counts. */
void ctap_dyn_report(void)
{
	int errors = atomic_read(&sess.errors), skipped = atomic_read(&sess.skipped);
	unsigned long dropped = ctap_transport_dropped();

	if (dropped)
		ctap_notice("WARNING: %lu output writes were dropped: the output buffer was "
			    "full (a larger -s helps)\n", dropped);
	dropped = ctap_transport_cut();
	if (dropped)
		ctap_notice("WARNING: the output of %lu handler runs was cut: it did not fit "
			    "the handler's buffer (under --json, one statement's text must)\n",
			    dropped);
	if (errors || skipped)
		ctap_notice("WARNING: Number of errors: %d, skipped probes: %d\n", errors, skipped);
}

int ctap_module_init(const struct ctap_module *m)
{
	size_t bytes = (size_t)CTAP_DYN_SLOTS * m->context_size;
	int ret;

	module = m;
	sess.context_size = m->context_size;
	atomic_set(&sess.state, S_LOADED);
	if (!ctap_dyn_shm) {
		fprintf(stderr, "ERROR: %s: no shared segment (run it with stapdyn)\n", m->name);
		return -ENODEV;
	}
	ret = ctap_dyn_map_shared(true);
	if (ret)
		return ret;
	if (ctap_reserve(bytes))
		return -ENOMEM;
	sess.contexts = ctap_alloc(bytes);
	if (!sess.contexts)
		return -ENOMEM;
	for (int i = 0; i < CTAP_DYN_SLOTS; i++) {
		struct ctap_context *c = (struct ctap_context *)(sess.contexts + i * m->context_size);

		ctap_out_init(&c->out, c->printbuf, sizeof(c->printbuf));
	}
	ret = timing_init(m);
	return ret ? ret : m->init_globals();
}

void ctap_module_exit(void)
{
	ctap_dyn_stop();
	module->free_globals();
}
