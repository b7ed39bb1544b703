// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the life of user processes and threads, as SystemTap reports
 * it (its utrace task finder), each event in the task itself:
 *
 *   begin         a new process at its first return to user space (the
 *                 raw_syscalls:sys_exit tracepoint, a clone-family call
 *                 returning 0: the child's side); and after an exec
 *                 (sched_process_exec), in the new program
 *   end           the main thread's do_exit() (entered while the task still
 *                 has its memory, so its executable is known); and at an
 *                 exec, before begin, with the new program's name
 *   thread.*      the same for the other threads of a process
 *   syscall       each system call of a 64-bit task, at its entry
 *                 (raw_syscalls:sys_enter) and its return (sys_exit),
 *                 with the task's registers; the two hooks are only
 *                 registered when a probe asks for them
 *
 * A process that already runs when the session starts gets its begin at
 * its main thread's next return from a system call, as SystemTap's (whose
 * utrace also interrupts one that makes none); at most CTAP_TASKS_PENDING
 * of them.  At each event the probes for a PATH or a PID run before those
 * for every process, SystemTap's order.  Not reported: the end of PATH
 * when a process execs away from it.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/namei.h>
#include <linux/sched/mm.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "tasks.h"
#include "tracepoints.h"

static struct ctap_task_probe *table;
static int ntable;
static bool exit_armed;
static bool want_enter, want_return;	/* a syscall probe of each kind */

/*
 * The processes running when the session started that have not had their
 * begin yet, by tgid: open addressing, claimed with cmpxchg (a probe may
 * run on any CPU at once), a removed one left as a tombstone so that
 * searches go past it.
 */
#define CTAP_TASKS_PENDING	4096
#define PENDING_GONE		(-1)
static atomic_t pending[CTAP_TASKS_PENDING];
static atomic_t npending;

static void pending_add(pid_t tgid)
{
	u32 h = hash_32(tgid, ilog2(CTAP_TASKS_PENDING));

	for (int i = 0; i < CTAP_TASKS_PENDING / 2; i++, h = (h + 1) % CTAP_TASKS_PENDING) {
		if (atomic_cmpxchg(&pending[h], 0, tgid) == 0) {
			atomic_inc(&npending);
			return;
		}
	}
}

/* True if tgid was pending: the caller reports its begin. */
static bool pending_claim(pid_t tgid)
{
	u32 h = hash_32(tgid, ilog2(CTAP_TASKS_PENDING));

	for (int i = 0; i < CTAP_TASKS_PENDING; i++, h = (h + 1) % CTAP_TASKS_PENDING) {
		int v = atomic_read(&pending[h]);

		if (v == 0)
			return false;
		if (v == tgid && atomic_cmpxchg(&pending[h], tgid, PENDING_GONE) == tgid) {
			atomic_dec(&npending);
			return true;
		}
	}
	return false;
}

/* Half full at most, so that a search ends at an empty slot soon. */
static void pending_fill(void)
{
	struct task_struct *p;
	int n = 0;

	memset(pending, 0, sizeof(pending));
	atomic_set(&npending, 0);
	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) || p->tgid == current->tgid)
			continue;	/* not staprun, arming the probes */
		if (++n > CTAP_TASKS_PENDING / 2)
			break;
		pending_add(p->tgid);
	}
	rcu_read_unlock();
}

/*
 * Every probe of event for current (those for a PATH only if paths):
 * specific ones first, then the rest.
 * No registers: the handler runs as if between two of the task's own
 * instructions, as SystemTap's do.
 */
static void dispatch_args(enum ctap_task_event event, bool paths, struct pt_regs *regs,
			  const unsigned long *args, int nargs)
{
	struct inode *inode = NULL;
	bool looked = false;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ntable; i++) {
			const struct ctap_task_probe *t = &table[i];

			if (t->event != event || (pass == 0) != (t->inode || t->pid))
				continue;
			if (t->pid && t->pid != task_tgid_nr(current))
				continue;
			if (t->inode) {
				if (!paths)
					continue;
				if (!looked) {
					inode = ctap_exe_inode();
					looked = true;
				}
				if (t->inode != inode)
					continue;
			}
			ctap_probe_run(t->probe, regs, args, nargs);
		}
	}
}

static void dispatch(enum ctap_task_event event, bool paths)
{
	dispatch_args(event, paths, NULL, NULL, 0);
}

/* A system call's number and arguments (the result last), for the
 * syscall probes: the task's own registers, saved at its entry. */
static void dispatch_syscall(enum ctap_task_event event, struct pt_regs *regs, long nr, long ret)
{
	unsigned long args[CTAP_TASK_SYSCALL_ARGS] = {
		nr, regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9, ret,
	};

	dispatch_args(event, true, regs, args, CTAP_TASK_SYSCALL_ARGS);
}

static void notrace on_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (want_enter && !(current->flags & PF_KTHREAD) && !in_compat_syscall())
		dispatch_syscall(CTAP_TASK_SYSCALL, regs, id, 0);
}

static bool user_task(void)
{
	return !(current->flags & PF_KTHREAD);
}

static bool main_thread(void)
{
	return current->pid == current->tgid;
}

/* The child's return from the system call that made it. */
static void notrace on_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	long nr;

	if (atomic_read(&npending) && main_thread() && pending_claim(current->tgid))
		dispatch(CTAP_TASK_BEGIN, true);
	if (!user_task() || in_compat_syscall())
		return;
	nr = syscall_get_nr(current, regs);
	if (want_return)
		dispatch_syscall(CTAP_TASK_SYSCALL_RETURN, regs, nr, ret);
	if (ret != 0)
		return;
	if (nr != __NR_clone && nr != __NR_clone3 && nr != __NR_fork && nr != __NR_vfork)
		return;
	dispatch(main_thread() ? CTAP_TASK_BEGIN : CTAP_TASK_THREAD_BEGIN, true);
}

/*
 * After an exec the task is its process's main thread (de_thread()).  Its
 * executable is already the new one: the end of a PATH it ran before
 * cannot be told here, so the PATH probes see only the begin.
 */
static void notrace on_exec(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	if (atomic_read(&npending))
		pending_claim(current->tgid);	/* begins now */
	dispatch(CTAP_TASK_END, false);
	dispatch(CTAP_TASK_BEGIN, true);
}

static int on_exit(struct kprobe *kp, struct pt_regs *regs)
{
	if (!user_task())
		return 0;
	/* An old process that ends before its begin: its tgid may be reused. */
	if (main_thread() && atomic_read(&npending))
		pending_claim(current->tgid);
	dispatch(main_thread() ? CTAP_TASK_END : CTAP_TASK_THREAD_END, true);
	return 0;
}
NOKPROBE_SYMBOL(on_exit);

static struct kprobe exit_kp = {
	.symbol_name = "do_exit",
	.pre_handler = on_exit,
};

static struct ctap_tp_hook hooks[] = {
	{ .name = "sys_exit", .handler = on_sys_exit },
	{ .name = "sched_process_exec", .handler = on_exec },
	/* only for .syscall probes */
	{ .name = "sys_enter", .handler = on_sys_enter },
};
#define SYS_ENTER_HOOK	2

static void release_inodes(struct ctap_task_probe *tps, int n)
{
	for (int i = 0; i < n; i++) {
		iput(tps[i].inode);
		tps[i].inode = NULL;
	}
}

/* The inode of each PATH, held (not its path: a rename keeps matching). */
static int hold_inodes(struct ctap_task_probe *tps, int n)
{
	struct path path;
	int ret;

	for (int i = 0; i < n; i++) {
		if (!tps[i].path)
			continue;
		ret = kern_path(tps[i].path, LOOKUP_FOLLOW, &path);
		if (ret) {
			ctap_probe_refused(tps[i].probe, false, "(cannot find '%s': rc %d)",
					   tps[i].path, ret);
			release_inodes(tps, i);
			return ret;
		}
		tps[i].inode = igrab(d_inode(path.dentry));
		path_put(&path);
	}
	return 0;
}

int ctap_tasks_register(struct ctap_task_probe *tps, int n)
{
	int i, ret;

	ret = hold_inodes(tps, n);
	if (ret)
		return ret;
	table = tps;
	ntable = n;
	for (i = 0; i < n; i++) {
		want_enter |= tps[i].event == CTAP_TASK_SYSCALL;
		want_return |= tps[i].event == CTAP_TASK_SYSCALL_RETURN;
	}
	pending_fill();
	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		if (i == SYS_ENTER_HOOK && !want_enter)
			continue;
		ret = ctap_tp_hook(&hooks[i], tps[0].probe);
		if (ret)
			goto fail;
	}
	ret = register_kprobe(&exit_kp);
	if (ret) {
		ctap_probe_refused(tps[0].probe, false, "(do_exit: rc %d)", ret);
		goto fail;
	}
	exit_armed = true;
	return 0;
fail:
	ctap_tasks_unregister(tps, n);
	return ret;
}

/* After the unregistering, one wait for handlers still running anywhere. */
void ctap_tasks_unregister(struct ctap_task_probe *tps, int n)
{
	if (exit_armed) {
		unregister_kprobe(&exit_kp);
		exit_armed = false;
	}
	for (int i = 0; i < ARRAY_SIZE(hooks); i++)
		ctap_tp_unhook(&hooks[i]);
	tracepoint_synchronize_unregister();
	release_inodes(tps, n);
	table = NULL;
	ntable = 0;
	want_enter = want_return = false;
}
