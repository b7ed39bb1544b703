// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - probes on kernel perf event counters.
 *
 * The overflow handler runs where the event is counted: in NMI for a
 * hardware counter, in the hrtimer interrupt for the clocks, in the
 * faulting task for page faults.  ctap_probe_run() is safe in all of those.
 * A CPU brought up after the session armed has no counter.
 *
 * Per thread (.process): a counter follows one task wherever it runs.
 * The threads of the process are found at the start and then as they
 * come (sched_process_fork: the child, before it first runs; and
 * sched_process_exec) and go (sched_process_exit).  Those hooks run in
 * atomic context and a counter is made and released only where one may
 * sleep: a perf_hook claims a slot of the counter's perf_table for the task (a
 * reference held) and a work item makes the counter, or releases it and
 * frees the slot.  So a thread counts from a moment after it starts (the
 * work item's latency, microseconds to a few milliseconds: a program's
 * first instructions are not counted).  At most CTAP_PERF_TASKS threads at once
 * per counter; more are counted as skipped and reported.
 */
#include <linux/hash.h>
#include <linux/namei.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "perf.h"
#include "tracepoints.h"

#define CTAP_PERF_TASKS_BITS	10
#define CTAP_PERF_TASKS		(1 << CTAP_PERF_TASKS_BITS)
#define SLOT_GONE		((struct task_struct *)1)	/* searches go past it */

/*
 * A thread's counter.  task is NULL (never used), SLOT_GONE (freed) or
 * the thread, held; event is set once, by the work item, and cleared by
 * it when the thread is dead.
 */
struct ctap_perf_task {
	struct task_struct *task;
	struct perf_event *event;
	bool dead;
	bool failed;
};

static struct ctap_perf *perf_table;
static int perf_ntable;
static bool perf_hooked;
static void perf_work_fn(struct work_struct *work);
static DECLARE_WORK(perf_work, perf_work_fn);

static void perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct ctap_perf *p = event->overflow_handler_context;

	ctap_probe_run(p->probe, regs, NULL, 0);
}

/* ---- every CPU ---- */

static void perf_release_cpus(struct ctap_perf *p)
{
	int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static int perf_start_cpus(struct ctap_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.sample_period = p->sample_period,
		.pinned = 1,
	};
	int cpu;

	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
									 perf_overflow, p);

		if (IS_ERR(ev)) {
			ctap_probe_refused(p->probe, false, "on cpu %d (rc %ld)", cpu,
					   PTR_ERR(ev));
			perf_release_cpus(p);
			return PTR_ERR(ev);
		}
		p->events[cpu] = ev;
	}
	return 0;
}

/* ---- per thread: the table of a counter ---- */

static struct ctap_perf_task *perf_slot_find(struct ctap_perf_task *tasks, struct task_struct *t)
{
	u32 h = hash_ptr(t, CTAP_PERF_TASKS_BITS);

	for (int i = 0; i < CTAP_PERF_TASKS; i++, h = (h + 1) % CTAP_PERF_TASKS) {
		struct task_struct *v = READ_ONCE(tasks[h].task);

		if (!v)
			return NULL;
		if (v == t)
			return &tasks[h];
	}
	return NULL;
}

/*
 * Claims for one thread come from the thread itself (exec), its parent
 * before it runs (fork), and the walk over the threads already running
 * when the session arms (perf_claim_running()), which races the other
 * two: the find and the claim are one step under this lock, or both
 * found no slot and the thread got two, and two counters.  (The work
 * item frees slots beside it: the cmpxchg stays.)
 */
static DEFINE_RAW_SPINLOCK(perf_claim_lock);

static void perf_slot_claim(struct ctap_perf *p, struct task_struct *t)
{
	u32 h = hash_ptr(t, CTAP_PERF_TASKS_BITS);
	unsigned long flags;

	raw_spin_lock_irqsave(&perf_claim_lock, flags);
	if (perf_slot_find(p->tasks, t))
		goto out;
	for (int i = 0; i < CTAP_PERF_TASKS; i++, h = (h + 1) % CTAP_PERF_TASKS) {
		struct task_struct *v = READ_ONCE(p->tasks[h].task);

		if ((!v || v == SLOT_GONE) && cmpxchg(&p->tasks[h].task, v, t) == v) {
			get_task_struct(t);
			queue_work(system_highpri_wq, &perf_work);
			goto out;
		}
	}
	atomic_inc(&p->skipped);
out:
	raw_spin_unlock_irqrestore(&perf_claim_lock, flags);
}

/* The work item's: no other runs at the same time. */
static void perf_slot_free(struct ctap_perf_task *s, struct task_struct *t)
{
	struct perf_event *ev = xchg(&s->event, NULL);

	if (ev)
		perf_event_release_kernel(ev);
	s->failed = false;
	WRITE_ONCE(s->dead, false);
	put_task_struct(t);
	smp_store_release(&s->task, SLOT_GONE);
}

static void perf_slot_counter(struct ctap_perf *p, struct ctap_perf_task *s, struct task_struct *t)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.sample_period = p->sample_period,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, -1, t, p->sample_period ? perf_overflow : NULL,
					      p);
	if (IS_ERR(ev)) {
		s->failed = true;
		/* -ESRCH: it ended first, no refusal */
		if (!p->error && PTR_ERR(ev) != -ESRCH)
			p->error = PTR_ERR(ev);
		return;
	}
	smp_store_release(&s->event, ev);
}

static void perf_report(struct ctap_perf *p)
{
	int skipped = atomic_read(&p->skipped);

	if (p->said || (!p->error && !skipped))
		return;
	p->said = true;
	if (p->error)
		ctap_oob("WARNING: probe %s: a thread's perf counter was refused (rc %d)\n",
			 p->probe->pp, p->error);
	else
		ctap_oob("WARNING: probe %s: more than %d threads at once: %d not counted\n",
			 p->probe->pp, CTAP_PERF_TASKS, skipped);
}

/* Makes the counters of claimed threads, releases those of dead ones. */
static void perf_work_fn(struct work_struct *work)
{
	for (int i = 0; i < perf_ntable; i++) {
		struct ctap_perf *p = &perf_table[i];

		if (!p->tasks)
			continue;
		for (int j = 0; j < CTAP_PERF_TASKS; j++) {
			struct ctap_perf_task *s = &p->tasks[j];
			struct task_struct *t = smp_load_acquire(&s->task);

			if (!t || t == SLOT_GONE)
				continue;
			if (READ_ONCE(s->dead))
				perf_slot_free(s, t);
			else if (!s->event && !s->failed)
				perf_slot_counter(p, s, t);
		}
		perf_report(p);
	}
}

/*
 * The count of current's own counter, as perf_event_read_local() (not
 * exported) reads it: with interrupts off, a counter running on this CPU
 * is brought up to date by its PMU first.  The counter is freed after an
 * RCU grace period (free_event()), which a handler is inside of.
 */
u64 ctap_perf_read(int counter)
{
	struct ctap_perf_task *tasks = NULL, *s = NULL;
	struct perf_event *ev;
	unsigned long flags;
	u64 value;

	/* The table is freed a grace period after it is taken away. */
	if (counter >= 0 && counter < READ_ONCE(perf_ntable))
		tasks = READ_ONCE(perf_table[counter].tasks);
	if (tasks)
		s = perf_slot_find(tasks, current);
	ev = s ? smp_load_acquire(&s->event) : NULL;
	if (!ev)
		return 0;
	local_irq_save(flags);
	if (ev->ctx && ev->ctx->task == current && ev->state == PERF_EVENT_STATE_ACTIVE &&
	    ev->oncpu == smp_processor_id())
		ev->pmu->read(ev);
	value = local64_read(&ev->count);
	local_irq_restore(flags);
	return value;
}
NOKPROBE_SYMBOL(ctap_perf_read);

/* ---- per thread: which threads ---- */

static bool perf_wanted(const struct ctap_perf *p, struct task_struct *t, struct inode *exe)
{
	if (t->flags & PF_KTHREAD)
		return false;
	if (!p->path)
		return ctap_target() && task_tgid_nr(t) == ctap_target();
	return exe && exe == p->inode;
}

/* Every per-thread counter that wants t, which runs exe. */
static void perf_claim_all(struct task_struct *t, struct inode *exe)
{
	for (int i = 0; i < perf_ntable; i++)
		if (perf_table[i].tasks && perf_wanted(&perf_table[i], t, exe))
			perf_slot_claim(&perf_table[i], t);
}

/* The child of current (its executable too), before it runs. */
static void notrace perf_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	perf_claim_all(child, ctap_exe_inode());
}

static void notrace perf_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	perf_claim_all(current, ctap_exe_inode());
}

static void notrace perf_on_exit(void *data, struct task_struct *p)
{
	for (int i = 0; i < perf_ntable; i++) {
		struct ctap_perf_task *s = perf_table[i].tasks ?
					   perf_slot_find(perf_table[i].tasks, current) : NULL;

		if (s) {
			WRITE_ONCE(s->dead, true);
			queue_work(system_highpri_wq, &perf_work);
		}
	}
}

static struct ctap_tp_hook perf_hooks[] = {
	{ "sched_process_fork", perf_on_fork },
	{ "sched_process_exec", perf_on_exec },
	{ "sched_process_exit", perf_on_exit },
};

static void perf_unhook(void)
{
	for (int i = 0; i < ARRAY_SIZE(perf_hooks); i++)
		ctap_tp_unhook(&perf_hooks[i]);
	tracepoint_synchronize_unregister();
	perf_hooked = false;
}

static int perf_hook(const struct ctap_perf *p)
{
	for (int i = 0; i < ARRAY_SIZE(perf_hooks); i++) {
		int ret = ctap_tp_hook(&perf_hooks[i], p->probe);

		if (ret) {
			perf_unhook();
			return ret;
		}
	}
	perf_hooked = true;
	return 0;
}

/* The executable t runs, compared only: t->mm under the task lock (an
 * exiting thread has none), its exe_file under RCU. */
static struct inode *perf_task_exe_inode(struct task_struct *t)
{
	struct inode *inode = NULL;
	struct file *exe;

	task_lock(t);
	if (t->mm) {
		exe = rcu_dereference(t->mm->exe_file);
		if (exe)
			inode = file_inode(exe);
	}
	task_unlock(t);
	return inode;
}

/* The threads already running. */
static void perf_claim_running(void)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t)
		if (!(t->flags & PF_KTHREAD))
			perf_claim_all(t, perf_task_exe_inode(t));
	rcu_read_unlock();
}

static int perf_start_tasks(struct ctap_perf *p)
{
	struct path path;
	int ret;

	if (p->path) {
		ret = kern_path(p->path, LOOKUP_FOLLOW, &path);
		if (ret) {
			ctap_probe_refused(p->probe, false, "(cannot find '%s': rc %d)",
					   p->path, ret);
			return ret;
		}
		p->inode = igrab(d_inode(path.dentry));
		path_put(&path);
	}
	p->tasks = vzalloc(CTAP_PERF_TASKS * sizeof(*p->tasks));
	if (!p->tasks)
		return -ENOMEM;
	atomic_set(&p->skipped, 0);
	p->error = 0;
	p->said = false;
	return perf_hooked ? 0 : perf_hook(p);
}

/* After a grace period that follows its taking away (ctap_perf_unregister()). */
static void perf_release_tasks(struct ctap_perf_task *tasks)
{
	if (!tasks)
		return;
	for (int j = 0; j < CTAP_PERF_TASKS; j++) {
		struct task_struct *t = tasks[j].task;

		if (t && t != SLOT_GONE)
			perf_slot_free(&tasks[j], t);
	}
	vfree(tasks);
}

int ctap_perf_register(struct ctap_perf *ps, int n)
{
	int ret = 0;

	perf_table = ps;
	perf_ntable = n;
	for (int i = 0; i < n && !ret; i++)
		ret = ps[i].process ? perf_start_tasks(&ps[i]) : perf_start_cpus(&ps[i]);
	if (ret) {
		ctap_perf_unregister(ps, n);
		return ret;
	}
	if (perf_hooked) {
		perf_claim_running();
		flush_work(&perf_work);	/* their counters, before begin */
	}
	return 0;
}

/*
 * perf_event_release_kernel() waits for a handler in progress.  A probe
 * of another family may still read a table (@perf): it is taken away,
 * then freed after a grace period (handlers run with preemption off).
 */
void ctap_perf_unregister(struct ctap_perf *ps, int n)
{
	if (perf_hooked)
		perf_unhook();
	cancel_work_sync(&perf_work);
	for (int i = 0; i < n; i++) {
		perf_release_cpus(&ps[i]);
		ps[i].retired = ps[i].tasks;
		WRITE_ONCE(ps[i].tasks, NULL);
	}
	synchronize_rcu();
	for (int i = 0; i < n; i++) {
		perf_release_tasks(ps[i].retired);
		ps[i].retired = NULL;
		iput(ps[i].inode);
		ps[i].inode = NULL;
	}
	perf_table = NULL;
	perf_ntable = 0;
}
