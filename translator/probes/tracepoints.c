// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints.c - kernel.trace("[SYSTEM:]NAME") (and SystemTap 5's
 * kernel.tracepoint spelling), with globs in both parts:
 * probes on the kernel's static tracepoints (runtime side:
 * kmod-runtime/probes/tracepoints.c).
 *
 * Three sources, none of them debuginfo:
 *  - BTF names every tracepoint of the kernel image (the typedef
 *    btf_trace_NAME, for BPF) with its prototype: the argument types;
 *  - the kernel's headers (include/trace/events/ and the arch's
 *    asm/trace/, in the build tree Kbuild already needs) give each event
 *    its system, TRACE_SYSTEM, and its arguments' names, TP_PROTO;
 *  - where the headers do not describe it (events of drivers whose
 *    headers are not shipped, events a header's own macro defines), BTF's
 *    __bpf_trace_CLASS functions do: the one of its name, else the one
 *    class with its argument types, if their names agree.
 * The arguments are the probe's $vars.  Tracepoints of modules are not
 * found (their BTF is the module's).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "kbtf.h"
#include "provider.h"
#include "session.h"
#include "target_tapsets.h"
#include "xlate.h"

static const char *const patterns[] = {
	"kernel.trace(string)",
	"kernel.tracepoint(string)",	/* SystemTap 5's spelling */
	NULL
};

/*
 * Tracepoints a probe may not use, by system: they fire inside what the
 * runtime runs through from a handler (kmod-runtime/callees.txt: the
 * spinlock slow path fires lock:contention_*, rcu_read_unlock's slow
 * path rcu:*) or while interrupts are being switched.
 */
static const struct {
	const char *system;
	const char *why;
} refused[] = {
	{ "lock", "it fires inside lock primitives, which the handler takes itself" },
	{ "preemptirq", "it fires while interrupts or preemption are being switched" },
	{ "rcu", "it fires inside RCU, which the handler runs under" },
};

const struct provider tracepoint_provider;

/* A probe's own data (derived_probe.data). */
struct tracepoint_point {
	const char *tracepoint;		/* the kernel's name: "sched_switch" */
	int nargs;
	const char **ctypes;		/* each argument's C type: "u8", "s32", "u64" */
};

/* ---- what the headers say about each event ---- */

struct tp_event {
	const char *name;
	const char *system;
	const char **params;		/* names, from TP_PROTO; NULL if not seen */
	int nparams;
};

struct tp_index {
	struct tp_event *v;
	size_t n, cap;
	/* The prototypes of BTF's __bpf_trace_CLASS functions (named). */
	const struct btf_type **classes;
	size_t nclasses;
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\\')
			p++;
		else if (p + 1 < end && p[0] == '/' && p[1] == '*')
			p = (p = strstr(p + 2, "*/")) && p < end ? p + 2 : end;
		else if (p + 1 < end && p[0] == '/' && p[1] == '/')
			p = (p = memchr(p, '\n', end - p)) ? p : end;
		else
			break;
	}
	return p;
}

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Past the parenthesis that closes the one before p (strings, chars and
 * comments skipped); splits its top-level arguments into args[]. */
static const char *split_args(const char *p, const char *end, const char **args,
			      const char **ends, int max, int *nargs)
{
	int depth = 1;

	*nargs = 0;
	args[0] = p;
	while (p < end && depth) {
		char c = *p;

		if (c == '"' || c == '\'') {
			for (p++; p < end && *p != c; p++)
				if (*p == '\\')
					p++;
		} else if (c == '/' && p + 1 < end && (p[1] == '*' || p[1] == '/')) {
			p = skip_space(p, end);
			continue;
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth == 0 && *nargs < max)
				ends[(*nargs)++] = p;
		} else if (c == ',' && depth == 1 && *nargs < max - 1) {
			ends[(*nargs)++] = p;
			args[*nargs] = p + 1;
		}
		p++;
	}
	return p;
}

/* The identifier [p, end) holds (spaces around it), or NULL. */
static const char *ident_in(struct arena *a, const char *p, const char *end)
{
	const char *q;

	p = skip_space(p, end);
	for (q = p; q < end && is_ident(*q); q++)
		;
	if (q == p || skip_space(q, end) != end)
		return NULL;
	return arena_strndup(a, p, q - p);
}

/* The names in "TP_PROTO(bool preempt, struct task_struct *prev)": the
 * last identifier of each parameter. */
static void proto_names(struct arena *a, struct tp_event *ev, const char *p, const char *end)
{
	const char *args[16], *ends[16];
	int n;

	p = skip_space(p, end);
	if (end - p < 9 || strncmp(p, "TP_PROTO", 8) || *(p = skip_space(p + 8, end)) != '(')
		return;
	split_args(p + 1, end, args, ends, 16, &n);
	ev->params = arena_alloc(a, n * sizeof(*ev->params));
	for (int i = 0; i < n; i++) {
		const char *q = ends[i], *s;

		while (q > args[i] && !is_ident(q[-1]))
			q--;
		for (s = q; s > args[i] && is_ident(s[-1]); s--)
			;
		if (q - s == 4 && !strncmp(s, "void", 4) && n == 1)
			return;		/* TP_PROTO(void) */
		ev->params[ev->nparams++] = arena_strndup(a, s, q - s);
	}
}

/* The event of a macro call's arguments: its name is args[name_arg] (if
 * that is an identifier: not in a macro's definition), its prototype
 * args[proto_arg] (none if -1). */
static void add_event(struct arena *a, struct tp_index *ix, const char *system,
		      const char **args, const char **ends, int n, int name_arg, int proto_arg)
{
	const char *name = ident_in(a, args[name_arg], ends[name_arg]);
	struct tp_event *ev;

	if (!name)
		return;
	if (ix->n == ix->cap) {
		struct tp_event *v = arena_alloc(a, (ix->cap * 2 + 64) * sizeof(*v));

		if (ix->n)
			memcpy(v, ix->v, ix->n * sizeof(*v));
		ix->v = v;
		ix->cap = ix->cap * 2 + 64;
	}
	ev = &ix->v[ix->n++];
	memset(ev, 0, sizeof(*ev));
	ev->name = name;
	ev->system = system;
	if (proto_arg > 0 && n > proto_arg)
		proto_names(a, ev, args[proto_arg], ends[proto_arg]);
}

/* The identifier at p (p is past it after), or NULL. */
static const char *take_ident(const char **p, const char *end, size_t *len)
{
	const char *id = *p;

	while (*p < end && is_ident(**p))
		(*p)++;
	*len = *p - id;
	return *len ? id : NULL;
}

static bool starts(const char *id, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !strncmp(id, prefix, n);
}

/*
 * One header: "#define TRACE_SYSTEM sched", then events as
 * DEFINE_EVENT*(class, name, TP_PROTO(...), ...), TRACE_EVENT*(name,
 * TP_PROTO(...), ...) or DECLARE_TRACE*(name, TP_PROTO(...), ...); a
 * header's own wrapper, DEFINE_PAGE_FAULT_EVENT(page_fault_user), gives
 * the system only.
 */
static void scan_header(struct arena *a, struct tp_index *ix, const char *p, const char *end)
{
	const char *system = NULL;

	while ((p = skip_space(p, end)) < end) {
		const char *id, *args[16], *ends[16];
		int n, name_arg, proto_arg;
		size_t len;

		if (*p == '#') {	/* #define TRACE_SYSTEM sched */
			p = skip_space(p + 1, end);
			id = take_ident(&p, end, &len);
			if (!id || len != 6 || strncmp(id, "define", 6))
				continue;
			p = skip_space(p, end);
			id = take_ident(&p, end, &len);
			if (!id || len != 12 || strncmp(id, "TRACE_SYSTEM", 12))
				continue;
			p = skip_space(p, end);
			if ((id = take_ident(&p, end, &len)))
				system = arena_strndup(a, id, len);
			continue;
		}
		if (!(id = take_ident(&p, end, &len))) {
			p++;
			continue;
		}
		if (starts(id, len, "DEFINE_EVENT")) {
			name_arg = 1, proto_arg = 2;
		} else if (starts(id, len, "TRACE_EVENT_FLAGS") ||
			   starts(id, len, "TRACE_EVENT_PERF_PERM")) {
			continue;	/* about an event declared above, with no prototype */
		} else if (starts(id, len, "TRACE_EVENT") || starts(id, len, "DECLARE_TRACE")) {
			name_arg = 0, proto_arg = 1;
		} else if (starts(id, len, "DEFINE_") && starts(id + len - 5, 5, "EVENT")) {
			name_arg = 0, proto_arg = -1;
		} else {
			continue;
		}
		if (*(p = skip_space(p, end)) != '(')
			continue;
		p = split_args(p + 1, end, args, ends, 16, &n);
		if (system && n > name_arg)
			add_event(a, ix, system, args, ends, n, name_arg, proto_arg);
	}
}

/* The __bpf_trace_CLASS prototypes, once per pass. */
static void find_classes(struct arena *a, const struct btf *btf, struct tp_index *ix)
{
	size_t cap = 0;

	for (__u32 id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t) || strncmp(btf__name_by_offset(btf, t->name_off), "__bpf_trace_", 12))
			continue;
		if (ix->nclasses == cap) {
			const struct btf_type **v = arena_alloc(a, (cap * 2 + 256) * sizeof(*v));

			if (ix->nclasses)
				memcpy(v, ix->classes, ix->nclasses * sizeof(*v));
			ix->classes = v;
			cap = cap * 2 + 256;
		}
		ix->classes[ix->nclasses++] = btf__type_by_id(btf, t->type);
	}
}

static bool same_types(const struct btf_type *a, const struct btf_type *b)
{
	if (btf_vlen(a) != btf_vlen(b))
		return false;
	for (int i = 1; i < btf_vlen(a); i++)
		if (btf_params(a)[i].type != btf_params(b)[i].type)
			return false;
	return true;
}

static bool same_names(const struct btf_type *a, const struct btf_type *b)
{
	for (int i = 1; i < btf_vlen(a); i++)
		if (btf_params(a)[i].name_off != btf_params(b)[i].name_off)
			return false;
	return true;
}

/* The one __bpf_trace_CLASS prototype with proto's argument types (or
 * several that agree on the names), or NULL. */
static const struct btf_type *class_of(const struct tp_index *ix, const struct btf_type *proto)
{
	const struct btf_type *found = NULL;

	for (size_t i = 0; i < ix->nclasses; i++) {
		if (!same_types(ix->classes[i], proto))
			continue;
		if (found && !same_names(found, ix->classes[i]))
			return NULL;
		found = ix->classes[i];
	}
	return found;
}

static void scan_dir(struct arena *a, struct tp_index *ix, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name), len;
		char *text;

		if (n < 3 || strcmp(de->d_name + n - 2, ".h"))
			continue;
		text = arena_read_file(a, arena_printf(a, "%s/%s", dir, de->d_name), &len);
		if (text)
			scan_header(a, ix, text, text + len);
	}
	if (d)
		closedir(d);
}

static int cmp_events(const void *a, const void *b)
{
	return strcmp(((const struct tp_event *)a)->name, ((const struct tp_event *)b)->name);
}

/* Every event the headers declare, sorted by name, and BTF's classes;
 * built once per pass. */
static const struct tp_index *header_index(struct elab *elab, const struct btf *btf)
{
	void **state = elab_provider_state(elab, &tracepoint_provider);
	struct session *s = elab_session(elab);
	struct arena *a = elab_arena(elab);
	struct tp_index *ix = *state;
	const char *dir;

	if (ix)
		return ix;
	*state = ix = arena_new(a, struct tp_index);
	memset(ix, 0, sizeof(*ix));
	find_classes(a, btf, ix);
	if (!s->opt.kernel_build)
		return ix;
	dir = target_headers_dir(a, s->opt.kernel_build);
	scan_dir(a, ix, arena_printf(a, "%s/include/trace/events", dir));
	if (!strcmp(s->pp.arch, "x86_64"))
		scan_dir(a, ix, arena_printf(a, "%s/arch/x86/include/asm/trace", dir));
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_events);
	return ix;
}

/* What the headers say about tracepoint name, or NULL.  The x86 vector
 * events come from a wrapper that pastes _entry and _exit on a name. */
static const struct tp_event *find_event(const struct tp_index *ix, const char *name)
{
	struct tp_event key = { .name = name };
	const struct tp_event *ev = ix->n ? bsearch(&key, ix->v, ix->n, sizeof(key), cmp_events) : NULL;
	size_t n = strlen(name);
	char base[256];

	if (ev)
		return ev;
	if (n < sizeof(base) && n > 6 && !strcmp(name + n - 6, "_entry"))
		n -= 6;
	else if (n < sizeof(base) && n > 5 && !strcmp(name + n - 5, "_exit"))
		n -= 5;
	else
		return NULL;
	memcpy(base, name, n);
	base[n] = '\0';
	key.name = base;
	ev = ix->n ? bsearch(&key, ix->v, ix->n, sizeof(key), cmp_events) : NULL;
	return ev && !ev->params ? ev : NULL;	/* a wrapper's: system only */
}

/* ---- probes ---- */

static const char *refused_why(const char *system)
{
	for (size_t i = 0; system && i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(system, refused[i].system))
			return refused[i].why;
	return NULL;
}

/* The names of its n arguments: the header's, else those of the class
 * BTF has for it, else $arg1...$argN. */
static const char **arg_names(struct arena *a, const struct btf *btf, const struct tp_index *ix,
			      const char *name, const struct tp_event *ev,
			      const struct btf_type *tproto, int n)
{
	const char **names = arena_alloc(a, (n + 1) * sizeof(*names));
	int id = kbtf_find(btf, arena_printf(a, "__bpf_trace_%s", name), BTF_KIND_FUNC);
	const struct btf_type *proto = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type) :
				       class_of(ix, tproto);

	for (int i = 0; i < n; i++) {
		if (ev && ev->params && ev->nparams == n)
			names[i] = ev->params[i];
		else if (proto && btf_vlen(proto) == n + 1)
			names[i] = btf__name_by_offset(btf, btf_params(proto)[i + 1].name_off);
		else
			names[i] = arena_printf(a, "arg%d", i + 1);
	}
	return names;
}

/*
 * The probe on tracepoint name, whose BTF prototype (void *data, args...)
 * is proto; its arguments are its $vars.  Returns 1, or 0 with *why set
 * if it cannot be probed.
 */
static int add_probe(struct elab *elab, const struct pp_match *m, const struct btf *btf,
		     const struct tp_index *ix, const char *name, const struct tp_event *ev,
		     const struct btf_type *proto, const char **why)
{
	struct arena *a = elab_arena(elab);
	int n = btf_vlen(proto) - 1;
	const struct btf_param *p = btf_params(proto) + 1;
	struct tracepoint_point *tp = arena_new(a, struct tracepoint_point);
	const char **names = arg_names(a, btf, ix, name, ev, proto, n);
	struct derived_probe *d;

	tp->tracepoint = name;
	tp->nargs = n;
	tp->ctypes = arena_alloc(a, (n + 1) * sizeof(*tp->ctypes));
	for (int i = 0; i < n; i++) {
		bool is_signed;
		int size;

		/* The handler is called with the tracepoint's prototype: it
		 * must declare each argument with its size and signedness. */
		if (kbtf_scalar(btf, p[i].type, &size, &is_signed)) {
			*why = arena_printf(a, "its argument '%s' (%s) is not a number or a "
					    "pointer", names[i], kbtf_type_name(a, btf, p[i].type));
			return 0;
		}
		tp->ctypes[i] = arena_printf(a, "%c%d", is_signed ? 's' : 'u', size * 8);
	}
	d = elab_add(elab, m, ev ? arena_printf(a, "kernel.%s(\"%s:%s\")", m->comps[1]->name,
					     ev->system, name) :
			  arena_printf(a, "kernel.%s(\"%s\")", m->comps[1]->name, name));
	d->data = tp;
	for (int i = 0; i < n; i++)
		elab_add_var(elab, d, arena_printf(a, "$%s", names[i]),
			     kbtf_type_name(a, btf, p[i].type), p[i].type, i);
	return 1;
}

/* The FUNC_PROTO of typedef btf_trace_NAME (a pointer to it), or NULL. */
static const struct btf_type *trace_proto(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_type *ptr = btf__type_by_id(btf, t->type);
	const struct btf_type *proto = ptr && btf_is_ptr(ptr) ? btf__type_by_id(btf, ptr->type) : NULL;

	return proto && btf_is_func_proto(proto) && btf_vlen(proto) >= 1 ? proto : NULL;
}

static int cmp_ids(const void *a, const void *b)
{
	__u32 x = ((const struct kbtf_name *)a)->id, y = ((const struct kbtf_name *)b)->id;

	return (x > y) - (x < y);
}

static int tracepoint_resolve(struct elab *elab, const struct pp_match *m)
{
	const char *glob = m->comps[1]->arg->str, *colon = strchr(glob, ':');
	const char *name_glob = colon ? colon + 1 : glob, *why = NULL;
	char *sys_glob = colon ? arena_strndup(elab_arena(elab), glob, colon - glob) : NULL;
	bool wild = strpbrk(glob, "*?[") != NULL;
	struct btf *btf = elab_btf(elab);
	const struct tp_index *ix;
	struct kbtf_name *tds = NULL;
	int added = 0, skipped = 0, n;

	if (!btf)
		return -EINVAL;
	ix = header_index(elab, btf);
	n = kbtf_names(btf, BTF_KIND_TYPEDEF, arena_printf(elab_arena(elab), "btf_trace_%s", name_glob),
		       &tds);
	if (n < 0)
		return n;
	qsort(tds, n, sizeof(*tds), cmp_ids);	/* the kernel's order, not the names' */
	for (int i = 0; i < n; i++) {
		const struct btf_type *proto = trace_proto(btf, btf__type_by_id(btf, tds[i].id));
		const char *name = tds[i].name + 10, *no;
		const struct tp_event *ev;

		if (!proto)
			continue;
		ev = find_event(ix, name);
		if (sys_glob && (!ev || fnmatch(sys_glob, ev->system, 0)))
			continue;
		no = refused_why(ev ? ev->system : NULL);
		if (no || !add_probe(elab, m, btf, ix, name, ev, proto, &no)) {
			why = no;
			skipped++;
			if (!wild)
				break;
			continue;
		}
		added++;
	}
	free(tds);
	if (skipped && wild && elab_session(elab)->opt.verbose)
		fprintf(stderr, "kernel.trace(\"%s\"): %d tracepoints skipped: a probe may not "
			"go there\n", glob, skipped);
	if (added)
		return added;
	if (!wild && why)
		elab_error(elab, m, "tracepoint '%s' cannot be probed: %s", glob, why);
	else if (skipped)
		elab_error(elab, m, "no match for tracepoint '%s': the %d tracepoints it matches "
			   "may not be probed", glob, skipped);
	else
		elab_error(elab, m, "no match for tracepoint '%s'", glob);
	return -EINVAL;
}

/* ---- pass 3 ---- */

/* The handler of d, with its tracepoint's prototype. */
static void emit_handler(struct xlate *x, const struct derived_probe *d)
{
	const struct tracepoint_point *tp = d->data;

	emit_c(x, "/* %s */\nstatic void tracepoint_%d(void *probe", gen_c_comment(x->a, d->name),
	       d->seq);
	for (int i = 0; i < tp->nargs; i++)
		emit_c(x, ", %s a%d", tp->ctypes[i], i);
	emit_c(x, ")\n{\n");
	if (!tp->nargs) {
		emit_c(x, "\tctap_probe_run(probe, NULL, NULL, 0);\n}\n\n");
		return;
	}
	emit_c(x, "\tunsigned long args[] = {");
	for (int i = 0; i < tp->nargs; i++)
		emit_c(x, "%s a%d", i ? "," : "", i);
	emit_c(x, " };\n\n\tctap_probe_run(probe, NULL, args, ARRAY_SIZE(args));\n}\n\n");
}

static void tracepoint_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	for (int i = 0; i < n; i++)
		emit_handler(x, d[i]);
	emit_c(x, "static struct ctap_tracepoint tracepoints[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct tracepoint_point *tp = d[i]->data;

		emit_c(x, "\t{\n\t\t.probe = %s,\n\t\t.name = %s,\n\t\t.handler = tracepoint_%d,\n\t},\n",
		       emit_probe_ref(x, d[i]), gen_c_string(x, tp->tracepoint), d[i]->seq);
	}
	emit_table_family(x, "tracepoints", "ctap_tracepoints_register",
			  "ctap_tracepoints_unregister");
}

const struct provider tracepoint_provider = {
	.name = "kernel.trace",
	.family = "CTAP_FAMILY_TRACEPOINT",
	.patterns = patterns,
	.runtime = "probes/tracepoints",
	.resolve = tracepoint_resolve,
	.emit = tracepoint_emit,
};
