/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scope.h - which part of the machine a session looks at: the namespaces
 * ns_pid(), ns_uid()... answer in (stap --target-namespaces=PID), and the
 * cgroup v2 subtree whose tasks run the probes (stap --cgroup=PATH).
 */
#ifndef CTAP_SCOPE_H
#define CTAP_SCOPE_H

#include <linux/cgroup.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>

#include "ctap_runtime.h"

/* Both resolved at START, from staprun's own view (scope.c): the
 * namespaces of process ns_pid (0: staprun's), m's cgroup_path. */
int ctap_scope_start(const struct ctap_module *m, s32 ns_pid);
/* The end report's line for --cgroup, and the references dropped. */
void ctap_scope_stop(const struct ctap_module *m);

/* The target namespaces (staprun's own without --target-namespaces). */
struct pid_namespace *ctap_target_pidns(void);
struct user_namespace *ctap_target_userns(void);

extern struct cgroup *ctap_scope_cgroup;
DECLARE_PER_CPU(unsigned long, ctap_scope_outside);

/*
 * With --cgroup, whether the current task's cgroup v2 is outside the
 * session's subtree, for a probe that runs on behalf of the current task
 * (not begin/end/error, an interval timer or a procfs file): its handler
 * does not run, and the hit is counted for the end report.  Inline in the
 * probe entry, before anything a probe could be on: a read of the task's
 * css_set under RCU and a compare with one of its cgroup's ancestors.
 */
static __always_inline bool ctap_scope_excludes(const struct ctap_probe *p)
{
	struct cgroup *cgrp;
	bool outside;

	if (likely(!ctap_scope_cgroup) || p->kind != CTAP_PROBE_EVENT || p->any_task)
		return false;
	rcu_read_lock();
	cgrp = task_dfl_cgroup(current);
	outside = !cgroup_is_descendant(cgrp, ctap_scope_cgroup);
	rcu_read_unlock();
	if (outside)
		this_cpu_inc(ctap_scope_outside);
	return outside;
}

#endif /* CTAP_SCOPE_H */
