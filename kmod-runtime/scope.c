// SPDX-License-Identifier: GPL-2.0
/*
 * scope.c - the session's target namespaces (--target-namespaces=PID) and
 * its cgroup filter (--cgroup=PATH); scope.h has the filter itself.
 *
 * Both are looked up once, when staprun writes START: the pid is a pid as
 * staprun sees it (staprun -N; staprun itself without, as SystemTap's
 * default is stap's own namespaces), the path one from the root of the
 * cgroup v2 hierarchy.  The session holds a reference to each namespace and to the
 * cgroup until it stops, so a container that goes away meanwhile leaves
 * ids nobody has (SystemTap's "cannot resolve id in namespace") and an
 * empty subtree, never a dangling pointer.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>

#include "scope.h"

static struct pid_namespace *target_pidns;	/* NULL when no session runs */
static struct user_namespace *target_userns;
struct cgroup *ctap_scope_cgroup;
DEFINE_PER_CPU(unsigned long, ctap_scope_outside);

struct pid_namespace *ctap_target_pidns(void)
{
	return target_pidns ? target_pidns : &init_pid_ns;
}

struct user_namespace *ctap_target_userns(void)
{
	return target_userns ? target_userns : &init_user_ns;
}

/* Process nr's pid and user namespaces, referenced. */
static int take_namespaces(int nr)
{
	struct task_struct *task;
	struct pid *pid;

	pid = find_get_pid(nr);
	task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!task) {
		ctap_oob("ERROR: target namespaces: no process %d\n", nr);
		return -ESRCH;
	}
	rcu_read_lock();
	target_pidns = get_pid_ns(task_active_pid_ns(task));
	target_userns = get_user_ns(__task_cred(task)->user_ns);
	rcu_read_unlock();
	put_task_struct(task);
	return 0;
}

static int take_cgroup(const char *path)
{
	struct cgroup *cgrp = cgroup_get_from_path(path);

	if (IS_ERR(cgrp)) {
		ctap_oob("ERROR: --cgroup: no cgroup v2 %s (rc %ld)\n", path, PTR_ERR(cgrp));
		return PTR_ERR(cgrp);
	}
	ctap_scope_cgroup = cgrp;
	return 0;
}

int ctap_scope_start(const struct ctap_module *m, s32 ns_pid)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		per_cpu(ctap_scope_outside, cpu) = 0;
	ret = take_namespaces(ns_pid ? ns_pid : task_tgid_vnr(current));
	if (ret)
		return ret;
	if (m->cgroup_path) {
		ret = take_cgroup(m->cgroup_path);
		if (ret) {
			ctap_scope_stop(NULL);
			return ret;
		}
	}
	return 0;
}

/* After the probes are disarmed: nothing reads these any more. */
void ctap_scope_stop(const struct ctap_module *m)
{
	unsigned long outside = 0;
	int cpu;

	if (ctap_scope_cgroup) {
		for_each_possible_cpu(cpu)
			outside += per_cpu(ctap_scope_outside, cpu);
		if (m)
			ctap_notice("cgroup %s: %lu probe hits of tasks outside it not run\n",
				    m->cgroup_path, outside);
		cgroup_put(ctap_scope_cgroup);
		ctap_scope_cgroup = NULL;
	}
	if (target_pidns)
		put_pid_ns(target_pidns);
	if (target_userns)
		put_user_ns(target_userns);
	target_pidns = NULL;
	target_userns = NULL;
}
