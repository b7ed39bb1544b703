// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - the life of a generated module: per-CPU contexts, the common
 * probe entry, soft errors, and start/stop through the transport (a
 * handler's output goes through output.c, values through stats.c).
 *
 * States as SystemTap's (probe_entry.h, with the rest of the probe entry
 * dyn-runtime/session.c shares): LOADED until staprun's START.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/sched/signal.h>

#include "ctap_runtime.h"
#include "probe_entry.h"
#include "entry.h"
#include "monitor.h"

/* stap --remote gives each host's staprun these (translator/build/remote.c). */
int ctap_remote_id = -1;
module_param(ctap_remote_id, int, 0444);
MODULE_PARM_DESC(ctap_remote_id, "the host's index under stap --remote (remote_id())");
char *ctap_remote_uri = "";
module_param(ctap_remote_uri, charp, 0444);
MODULE_PARM_DESC(ctap_remote_uri, "the host's name under stap --remote (remote_uri())");

/* The session's state, outside sess: entry.h's inline check reads it. */
atomic_t ctap_session_state;

static struct {
	const struct ctap_module *m;
	char *contexts;			/* nr_cpu_ids * m->context_size */
	atomic_t errors, skipped;
	s32 target;
	s32 staprun;			/* the pid that started the session */
	kuid_t uid;			/* ... and its real user: is_myproc() */
	int armed;			/* families started */
	size_t budget, reserved;	/* bytes for contexts and arrays (ctap_reserve()) */
} sess;

s32 ctap_target(void)
{
	return sess.target;
}

s32 ctap_staprun_pid(void)
{
	return sess.staprun;
}

bool ctap_is_myproc(void)
{
	return uid_eq(current_euid(), sess.uid);
}

/* Compared, never dereferenced: the inode may go once the RCU read ends. */
struct inode *ctap_exe_inode(void)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;
	struct inode *inode = NULL;

	if (!mm)
		return NULL;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe)
		inode = file_inode(exe);
	rcu_read_unlock();
	return inode;
}

void ctap_exit(void)
{
	int s = atomic_read(&ctap_session_state);

	/* Only the first exit() asks staprun to stop. */
	if ((s == S_STARTING || s == S_RUNNING) &&
	    atomic_cmpxchg(&ctap_session_state, s, S_STOPPING) == s)
		ctap_request_exit();
}

/*
 * Arming runs in staprun's write of START: a kprobe costs about 3.5 million
 * instructions to register on 6.1 and a kretprobe 13 million, so a wildcard
 * whose probes need them (kprobes.c arms most without) takes minutes for
 * 40,000 functions.  It is looked at between two probes.  staprun keeps
 * its stop signals blocked (it reads them from a signalfd), so they are
 * looked for among its pending ones: a ^C, even one sent before the write,
 * stops the arming, and so does a SIGKILL.  Other tasks run meanwhile.
 */
bool ctap_arming_interrupted(void)
{
	sigset_t pending, stops;

	cond_resched();
	if (fatal_signal_pending(current))
		return true;
	siginitset(&stops, sigmask(SIGINT) | sigmask(SIGTERM) | sigmask(SIGHUP) | sigmask(SIGQUIT));
	/* Unlocked reads: a signal missed here is seen at the next probe. */
	sigorsets(&pending, &current->pending.signal, &current->signal->shared_pending.signal);
	sigandsets(&pending, &pending, &stops);
	return !sigisemptyset(&pending);
}

static struct ctap_context *cpu_context(int cpu)
{
	return (struct ctap_context *)(sess.contexts + cpu * sess.m->context_size);
}

/* Each CPU's own context, which a handler finds in one instruction
 * (this_cpu_read()) rather than by its CPU's number times the size. */
DEFINE_PER_CPU(struct ctap_context *, ctap_this_context);

void ctap_add_skipped(unsigned long n)
{
	atomic_add(n, &sess.skipped);
}

/* notrace: entry.h calls it with the busy count taken, and a hit in it
 * would be skipped into it again, without end. */
notrace void ctap_event_skip(void)
{
	if (atomic_inc_return(&sess.skipped) > MAXSKIPPED) {
		ctap_oob("ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n");
		ctap_exit();
	}
}

const char ctap_abort_error[] = "abort()";

static void report_error(struct ctap_context *c)
{
	if (ctap_aborted(c))
		return;
	ctap_print_error(c);
	if (atomic_inc_return(&sess.errors) > MAXERRORS)
		ctap_exit();
}

/* After a handler that printed or failed (entry.h). */
notrace void ctap_event_after(struct ctap_context *c)
{
	if (c->out.len || c->out.truncated)
		ctap_handler_output(c);
	if (c->last_error)
		report_error(c);
}

/*
 * A handler that reads or writes globals, under their locks (entry.h):
 * skipped and counted if one stays taken past MAXTRYLOCK tries.  Its
 * output goes out before the locks do, so that a handler on another CPU
 * that sees what this one wrote prints after it (run/print_regs: a timer
 * saw the state a kprobe had just set, and its lines came first).
 */
notrace void ctap_run_locked(struct ctap_context *c, const struct ctap_probe *p)
{
	if (!ctap_lock_globals(p)) {
		ctap_event_skip();
		return;
	}
	p->handler(c);
	if (c->out.len || c->out.truncated)
		ctap_handler_output(c);
	ctap_unlock_globals(p);
}

/*
 * Time in handlers per CPU, as SystemTap's STP_OVERLOAD: over half of an
 * interval's cycles is an error that ends the session, before the probes
 * take the machine.  entry.h adds each handler's time and calls this
 * when an interval is over.
 */
notrace void ctap_overload_check(struct ctap_context *c, cycles_t end)
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

#ifdef CTAP_TIMED
/*
 * stap -t: each probe's cost in cycles, from its entry to its handler's
 * end, a statistic per CPU (core/stat.h's arithmetic, SystemTap's
 * variance), and SystemTap's "probe hit report" when the session ends.
 * Without -t none of this is compiled and a hit costs nothing more.
 */
static struct ctap_pstat *timing;
static const struct ctap_stat_spec timing_spec;	/* no histogram, no shift */

static int timing_init(const struct ctap_module *m)
{
	if (ctap_monitor_init(m))
		return -ENOMEM;
	timing = kcalloc(m->ntimed, sizeof(*timing), GFP_KERNEL);
	if (!timing)
		return -ENOMEM;
	for (int i = 0; i < m->ntimed; i++)
		if (ctap_pstat_init(&timing[i]))
			return -ENOMEM;		/* timing_free() frees the others */
	return 0;
}

static void timing_free(const struct ctap_module *m)
{
	ctap_monitor_free();
	if (!timing)
		return;
	for (int i = 0; i < m->ntimed; i++)
		ctap_pstat_free(&timing[i]);
	kfree(timing);
	timing = NULL;
}

/* Interrupts or preemption are still off: this CPU's statistic. */
notrace void ctap_timing_add(const struct ctap_probe *p, cycles_t start)
{
	if (p->timing)
		ctap_pstat_add(&timing_spec, &timing[p->timing - 1], get_cycles() - start);
}

/* Probe i's timing so far (--monitor): aggregated, as its report does. */
struct ctap_stat *ctap_timing_stat(int i)
{
	return ctap_pstat_aggregate(&timing_spec, &timing[i]);
}

#ifndef STP_TIMING
static inline void timing_report(const struct ctap_module *m) { }
#else
/* One line per probe that ran, in the probes' order; no handler runs now. */
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
		n = scnprintf(line, sizeof(line), "%s, (%s), hits: %lld, cycles: %lldmin/%lldavg/"
			      "%lldmax, variance: %lld,%s, index: %d\n", p->pp, p->location,
			      st->count, st->min, ctap_stat_avg(st), st->max,
			      ctap_stat_variance(&timing_spec, st), p->derivation, i);
		ctap_write(line, n);
	}
	ctap_write(tail, sizeof(tail) - 1);
	ctap_drain_output();
}
#endif
#else
static inline int timing_init(const struct ctap_module *m) { return 0; }
static inline void timing_free(const struct ctap_module *m) { }
static inline void timing_report(const struct ctap_module *m) { }
#endif

/*
 * notrace: the ftrace entry path (probes/kprobes_ftrace.c) relies on nothing
 * before the busy count (entry.h) being a place a probe can be.
 */
notrace void ctap_probe_run_at(const struct ctap_probe *p, struct pt_regs *regs,
			       const unsigned long *args, int nargs, unsigned long addr)
{
	if (!ctap_state_allows(atomic_read(&ctap_session_state), p) || ctap_scope_excludes(p))
		return;
	if (p->kind == CTAP_PROBE_EVENT)
		ctap_probe_enter(p, regs, args, nargs, addr, true);
	else
		ctap_probe_enter(p, regs, args, nargs, addr, false);
}

/* begin, end or error probes, in order. */
static void run_kind(enum ctap_probe_kind kind)
{
	for (int i = 0; i < sess.m->nprobes; i++) {
		if (sess.m->probes[i]->kind != kind)
			continue;
		ctap_probe_run(sess.m->probes[i], NULL, NULL, 0);
		/* An end probe may print more than the buffer holds. */
		if (kind != CTAP_PROBE_BEGIN)
			ctap_drain_output();
	}
}

static void disarm(void)
{
	while (sess.armed > 0)
		sess.m->families[--sess.armed].stop();
}

static int session_start(s32 target, s32 ns_pid)
{
	int ret;

	sess.target = target;
	sess.staprun = task_tgid_vnr(current);	/* START comes from staprun's write */
	sess.uid = current_uid();		/* the user's, under a setuid staprun too */
	ret = ctap_scope_start(sess.m, ns_pid);
	if (ret) {
		atomic_set(&ctap_session_state, S_STOPPED);
		return ret;
	}
	atomic_set(&ctap_session_state, S_STARTING);
	run_kind(CTAP_PROBE_BEGIN);
	for (sess.armed = 0; sess.armed < sess.m->nfamilies; sess.armed++) {
		ret = sess.m->families[sess.armed].start();
		if (ret) {
			disarm();
			ctap_scope_stop(NULL);
			atomic_set(&ctap_session_state, S_STOPPED);
			return ret;
		}
	}
	/* exit() in a begin probe already moved on to STOPPING. */
	atomic_cmpxchg(&ctap_session_state, S_STARTING, S_RUNNING);
	return 0;
}

static void session_stop(void)
{
	int errors, skipped;

	atomic_set(&ctap_session_state, S_STOPPING);
	disarm();
	run_kind(atomic_read(&sess.errors) ? CTAP_PROBE_ERROR : CTAP_PROBE_END);
	atomic_set(&ctap_session_state, S_STOPPED);
	timing_report(sess.m);
	ctap_scope_stop(sess.m);
	errors = atomic_read(&sess.errors);
	skipped = atomic_read(&sess.skipped);
	if (errors || skipped)
		ctap_notice("WARNING: Number of errors: %d, skipped probes: %d\n", errors, skipped);
}

static const struct ctap_transport_ops session_ops = {
	.start = session_start,
	.stop = session_stop,
};

/*
 * What the script sizes (its arrays, every CPU's context) is allocated
 * when the module loads.  The whole may take at most half the memory the
 * kernel has available then: more fails the load with -ENOMEM and a line
 * in the kernel log, before an allocation could send the OOM killer
 * after some process.  Each allocation gives up rather than reclaim hard
 * or warn (__GFP_NORETRY | __GFP_NOWARN, as SystemTap's).
 */
#define CTAP_GFP	(GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY | __GFP_NOWARN)

static size_t bytes_mb(size_t bytes)
{
	return bytes >> 20;
}

/* What the session has reserved so far (--monitor's "memory"). */
size_t ctap_reserved(void)
{
	return sess.reserved;
}

/*
 * module_size(): SystemTap's "DATAdata/TEXTtext/CTXctx/NETnet/ALLOCalloc kb",
 * each in KiB: the module's memory besides its code, its code, the
 * contexts, network buffers (none here), and the rest of what the session
 * reserved (arrays, statistics).
 */
void ctap_module_size(char *buf, size_t len)
{
	size_t ctx = nr_cpu_ids * sess.m->context_size;
#ifdef CTAP_HAVE_MODULE_MEM
	size_t text = THIS_MODULE->mem[MOD_TEXT].size;
	size_t all = 0;

	for (int i = 0; i < MOD_MEM_NUM_TYPES; i++)
		if (!mod_mem_type_is_init(i))
			all += THIS_MODULE->mem[i].size;
#else
	size_t text = THIS_MODULE->core_layout.text_size;
	size_t all = THIS_MODULE->core_layout.size;
#endif

	snprintf(buf, len, "%zudata/%zutext/%zuctx/%zunet/%zualloc kb", (all - text) >> 10,
		 text >> 10, ctx >> 10, (size_t)0, (sess.reserved - min(ctx, sess.reserved)) >> 10);
}

int ctap_reserve(size_t bytes)
{
	if (bytes <= sess.budget - sess.reserved) {
		sess.reserved += bytes;
		return 0;
	}
	pr_err("ctap: %s: its arrays and contexts need %zu MB of kernel memory, more than half "
	       "of the %zu MB available\n", sess.m->name, bytes_mb(sess.reserved + bytes),
	       bytes_mb(2 * sess.budget));
	return -ENOMEM;
}

void *ctap_alloc(size_t size)
{
	return __vmalloc(size, CTAP_GFP);
}

void ctap_free(void *p)
{
	vfree(p);
}

int ctap_module_init(const struct ctap_module *m)
{
	int ret = -ENOMEM;

	sess.m = m;
	atomic_set(&ctap_session_state, S_LOADED);
	sess.budget = ((size_t)si_mem_available() << PAGE_SHIFT) / 2;
	sess.reserved = 0;
	/* Every possible CPU: a handler may run on one brought up later. */
	if (ctap_reserve(array_size(nr_cpu_ids, m->context_size)))
		goto out;
	sess.contexts = ctap_alloc(array_size(nr_cpu_ids, m->context_size));
	if (!sess.contexts)
		goto out;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct ctap_context *c = cpu_context(cpu);

		ctap_out_init(&c->out, c->printbuf, sizeof(c->printbuf));
		if (cpu_possible(cpu))
			per_cpu(ctap_this_context, cpu) = c;
	}
	ret = timing_init(m);
	if (ret)
		goto out_timing;
	ret = m->init_globals();
	if (ret)
		goto out_timing;
	ret = ctap_transport_init(m->name, &session_ops, false, CTAP_SUBBUF_SIZE, CTAP_N_SUBBUFS);
	if (ret)
		goto out_globals;
	return 0;

out_globals:
	m->free_globals();
out_timing:
	timing_free(m);
	ctap_free(sess.contexts);
out:
	return ret;
}

void ctap_module_exit(void)
{
	ctap_transport_exit();	/* stops the session if it still runs */
	sess.m->free_globals();
	timing_free(sess.m);
	ctap_free(sess.contexts);
}
