// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - process.begin/end and process.thread.begin/end, for every
 * user process, for process("PATH") (processes running that executable:
 * absolute, or a name found in $PATH as for process("P").function) or
 * for process(PID).  The handler runs in the task itself (runtime side:
 * kmod-runtime/probes/tasks.c, which says when each event fires).
 *
 * process[(...)].syscall and .syscall.return are those processes' system
 * calls, SystemTap's utrace probes: $syscall (the number), $arg1..$arg6
 * at the entry, $return at the return.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "session.h"
#include "xlate.h"

static const char *const patterns[] = {
	"process.begin", "process.end", "process.thread.begin", "process.thread.end",
	"process(string).begin", "process(string).end",
	"process(string).thread.begin", "process(string).thread.end",
	"process(number).begin", "process(number).end",
	"process(number).thread.begin", "process(number).thread.end",
	"process.syscall", "process.syscall.return",
	"process(string).syscall", "process(string).syscall.return",
	"process(number).syscall", "process(number).syscall.return",
	NULL
};

/* Where the runtime passes a system call's number, arguments and result. */
#define SYSCALL_NR_ARG		0	/* then $arg1..$arg6: 1..6 */
#define SYSCALL_RETURN_ARG	7

/* A probe's own data (derived_probe.data). */
struct task_point {
	const char *event;	/* "CTAP_TASK_BEGIN"... */
	const char *path;	/* process("PATH"), or NULL */
	int64_t pid;		/* process(PID), or 0 */
};

static const char *event_of(const char *pattern)
{
	bool thread = strstr(pattern, ".thread.") != NULL;

	if (strstr(pattern, ".syscall"))
		return strstr(pattern, ".return") ? "CTAP_TASK_SYSCALL_RETURN" : "CTAP_TASK_SYSCALL";
	if (strstr(pattern, ".begin"))
		return thread ? "CTAP_TASK_THREAD_BEGIN" : "CTAP_TASK_BEGIN";
	return thread ? "CTAP_TASK_THREAD_END" : "CTAP_TASK_END";
}

/* A system call probe's variables, all long as SystemTap's. */
static void add_syscall_vars(struct elab *elab, struct derived_probe *d, bool is_return)
{
	__s32 long_id = session_long_type(elab_session(elab));

	if (!long_id)
		return;	/* no BTF: no $vars (said where one is used) */
	elab_add_var(elab, d, "$syscall", "long", long_id, SYSCALL_NR_ARG);
	if (is_return) {
		elab_add_var(elab, d, "$return", "long", long_id, SYSCALL_RETURN_ARG);
		return;
	}
	for (int i = 1; i <= 6; i++)
		elab_add_var(elab, d, arena_printf(elab_arena(elab), "$arg%d", i), "long", long_id, i);
}

static int tasks_resolve(struct elab *elab, const struct pp_match *m)
{
	const struct pp_component *proc = m->comps[0];
	struct task_point *t = arena_new(elab_arena(elab), struct task_point);
	const char *what = strchr(m->pattern_text, ')') ? strchr(m->pattern_text, ')') + 1
							 : m->pattern_text + strlen("process");
	struct derived_probe *d;
	const char *name;

	t->event = event_of(m->pattern_text);
	/* --runtime=dyninst sees a process and its threads begin and end
	 * from inside it (dyn-runtime/tasks.c): not its system calls */
	if (elab_session(elab)->opt.dyninst && strstr(t->event, "SYSCALL")) {
		elab_error(elab, m, "probe point '%s' is not available with --runtime=dyninst",
			   m->pattern_text);
		return -EINVAL;
	}
	if (!proc->arg) {
		name = m->pattern_text;
	} else if (proc->arg->kind == E_STRING) {
		t->path = process_target_path(elab, m, proc->arg->str);
		if (!t->path)
			return -EINVAL;	/* said why */
		name = arena_printf(elab_arena(elab), "process(\"%s\")%s", t->path, what);
	} else {
		t->pid = process_pid(elab, m, proc->arg->num);
		if (!t->pid)
			return -EINVAL;	/* said why */
		name = arena_printf(elab_arena(elab), "process(%lld)%s", (long long)t->pid, what);
	}
	d = elab_add(elab, m, name);
	d->data = t;
	d->process = t->path;
	if (strstr(t->event, "SYSCALL")) {
		d->family = "CTAP_FAMILY_TASK_SYSCALLS";
		add_syscall_vars(elab, d, !strcmp(t->event, "CTAP_TASK_SYSCALL_RETURN"));
	}
	return 1;
}

static void tasks_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_task_probe task_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct task_point *t = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n\t\t.event = %s,\n", emit_probe_ref(x, d[i]),
		       t->event);
		if (t->path)
			emit_c(x, "\t\t.path = %s,\n", gen_c_string(x, t->path));
		if (t->pid)
			emit_c(x, "\t\t.pid = %lld,\n", (long long)t->pid);
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "task_probes", "ctap_tasks_register", "ctap_tasks_unregister");
	/* --runtime=dyninst: the table is each target process's, from its
	 * loading on (dyn-runtime/tasks.c) */
	if (x->s->opt.dyninst)
		emit_c(x, "__attribute__((constructor(101))) static void task_probes_table(void)\n"
		       "{\n\tctap_dyn_tasks_table(task_probes, ARRAY_SIZE(task_probes));\n}\n\n");
}

const struct provider tasks_provider = {
	.name = "process events",
	.family = "CTAP_FAMILY_TASKS",
	.patterns = patterns,
	.runtime = "probes/tasks",
	.user = true,		/* process.begin/end only: dyn-runtime/tasks.c */
	.resolve = tasks_resolve,
	.emit = tasks_emit,
};
