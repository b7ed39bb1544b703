/*
 * tasks.c - process.begin/end and process.thread.begin/end, for every
 * user process, for process("PATH") (processes running that executable:
 * absolute, or a name found in $PATH as for process("P").function) or
 * for process(PID).  The handler runs in the task itself (runtime side:
 * kmod-runtime/probes/tasks.c, which says when each event fires).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "provider.h"
#include "xlate.h"

static const char *const patterns[] = {
	"process.begin", "process.end", "process.thread.begin", "process.thread.end",
	"process(string).begin", "process(string).end",
	"process(string).thread.begin", "process(string).thread.end",
	"process(number).begin", "process(number).end",
	"process(number).thread.begin", "process(number).thread.end",
	NULL
};

/* A probe's own data (derived_probe.data). */
struct task_point {
	const char *event;	/* "CTAP_TASK_BEGIN"... */
	const char *path;	/* process("PATH"), or NULL */
	int64_t pid;		/* process(PID), or 0 */
};

static const char *event_of(const char *pattern)
{
	bool thread = strstr(pattern, ".thread.") != NULL;

	if (strstr(pattern, ".begin"))
		return thread ? "CTAP_TASK_THREAD_BEGIN" : "CTAP_TASK_BEGIN";
	return thread ? "CTAP_TASK_THREAD_END" : "CTAP_TASK_END";
}

static int tasks_resolve(struct elab *e, const struct pp_match *m)
{
	const struct pp_component *proc = m->comps[0];
	struct task_point *t = arena_new(elab_arena(e), struct task_point);
	const char *what = strchr(m->pattern_text, ')') ? strchr(m->pattern_text, ')') + 1
							 : m->pattern_text + strlen("process");
	struct derived_probe *d;
	const char *name;

	t->event = event_of(m->pattern_text);
	if (!proc->arg) {
		name = m->pattern_text;
	} else if (proc->arg->kind == E_STRING) {
		t->path = process_target_path(e, m, proc->arg->str);
		if (!t->path)
			return -EINVAL;	/* said why */
		name = arena_printf(elab_arena(e), "process(\"%s\")%s", t->path, what);
	} else {
		t->pid = proc->arg->num;
		if (t->pid <= 0 || t->pid > INT32_MAX) {
			elab_error(e, m, "process(%lld): not a process id", (long long)t->pid);
			return -EINVAL;
		}
		name = arena_printf(elab_arena(e), "process(%lld)%s", (long long)t->pid, what);
	}
	d = elab_add(e, m, name);
	d->data = t;
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
}

const struct provider tasks_provider = {
	.name = "process events",
	.patterns = patterns,
	.runtime = "probes/tasks",
	.resolve = tasks_resolve,
	.emit = tasks_emit,
};
