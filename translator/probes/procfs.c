// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - procfs[("NAME")][.umask(M)].read[.maxsize(N)] and
 * procfs[("NAME")][.umask(M)].write (runtime side: kmod-runtime/probes/procfs.c).
 *
 * A file /proc/systemtap/MODULE/NAME ("command" without a name): reading
 * it runs its read probe, which sets $value, the text the reader gets;
 * writing it runs its write probes with the bytes written as $value.  A
 * file has at most one read probe and any number of write probes.  Its
 * mode is 0444 for reading and 0222 for writing, less the umask (0077
 * unless given), as SystemTap's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ctap_limits.h"
#include "provider.h"
#include "session.h"
#include "xlate.h"

static const char *const patterns[] = {
	"procfs.read", "procfs.read.maxsize(number)", "procfs.write",
	"procfs.umask(number).read", "procfs.umask(number).read.maxsize(number)",
	"procfs.umask(number).write",
	"procfs(string).read", "procfs(string).read.maxsize(number)", "procfs(string).write",
	"procfs(string).umask(number).read", "procfs(string).umask(number).read.maxsize(number)",
	"procfs(string).umask(number).write",
	NULL
};

#define DEFAULT_UMASK	0077
#define MAX_BUFSIZE	(1 << 20)	/* allocated when the session arms */
#define MAX_BUFSIZE_TOTAL	(16 << 20)	/* of all the script's files */

/* A probe's own data (derived_probe.data). */
struct procfs_point {
	const char *name;
	bool write;
	int64_t umask;			/* -1: not given */
	int64_t maxsize;		/* bytes of $value; 0: not given (MAXSTRINGLEN) */
};

/* The files the script's read probes have claimed, for the one-reader rule. */
struct claimed {
	struct claimed *next;
	const char *name;
};

/* What the script's procfs probes have resolved to so far. */
struct procfs_state {
	struct claimed *claimed;
	int64_t bytes;			/* of the read probes' buffers */
	bool reported;			/* bytes passed MAX_BUFSIZE_TOTAL */
};

/* The read probe of p claims its file (false: one already did) and the
 * bytes of its buffer, which the whole script's must not pass
 * MAX_BUFSIZE_TOTAL (the error given once, "?" or not). */
static bool claim_file(struct elab *elab, const struct pp_match *m, const struct procfs_point *p)
{
	void **slot = elab_provider_state(elab, m->provider);
	struct procfs_state *st = *slot;
	struct claimed *c;

	if (!st)
		*slot = st = arena_new(elab_arena(elab), struct procfs_state);
	for (c = st->claimed; c; c = c->next)
		if (!strcmp(c->name, p->name)) {
			elab_error(elab, m, "procfs file '%s' already has a read probe", p->name);
			return false;
		}
	c = arena_new(elab_arena(elab), struct claimed);
	c->name = p->name;
	c->next = st->claimed;
	st->claimed = c;
	st->bytes += p->maxsize ? p->maxsize :
		session_define(elab_session(elab), "MAXSTRINGLEN", CTAP_MAXSTRINGLEN_DEFAULT);
	if (st->bytes > MAX_BUFSIZE_TOTAL && !st->reported) {
		elab_limit_error(elab, m, "the procfs read probes' buffers add up to more than %d MB "
				 "(each .maxsize, or MAXSTRINGLEN without)", MAX_BUFSIZE_TOTAL >> 20);
		st->reported = true;
	}
	return true;
}

/* SystemTap makes no subdirectories; a name is one plain path component. */
static bool good_name(const char *s)
{
	if (!*s || strlen(s) > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static int procfs_resolve(struct elab *elab, const struct pp_match *m)
{
	struct procfs_point *p = arena_new(elab_arena(elab), struct procfs_point);
	struct derived_probe *d;
	char *name;

	p->name = m->comps[0]->arg ? m->comps[0]->arg->str : "command";
	p->umask = -1;
	for (int i = 1; i < m->ncomps; i++) {
		const struct pp_component *c = m->comps[i];

		if (!strcmp(c->name, "write"))
			p->write = true;
		else if (!strcmp(c->name, "umask"))
			p->umask = c->arg->num;
		else if (!strcmp(c->name, "maxsize"))
			p->maxsize = c->arg->num;
	}
	if (!good_name(p->name)) {
		elab_error(elab, m, "procfs file name '%s' must be one path component (no '/', "
			   "'.', '..' or spaces) of at most 64 bytes", p->name);
		return -EINVAL;
	}
	if (p->umask != -1 && (p->umask < 0 || p->umask > 0777)) {
		elab_error(elab, m, "umask %#llo is not a file mode mask (0 to 0777)",
			   (long long)p->umask);
		return -EINVAL;
	}
	if (strstr(m->pattern_text, "maxsize") && (p->maxsize < 1 || p->maxsize > MAX_BUFSIZE)) {
		elab_error(elab, m, "maxsize must be between 1 and %d", MAX_BUFSIZE);
		return -EINVAL;
	}
	if (!p->write && !claim_file(elab, m, p))
		return -EINVAL;
	name = arena_printf(elab_arena(elab), "procfs(\"%s\")", p->name);
	if (p->umask != -1)
		name = arena_printf(elab_arena(elab), "%s.umask(%lld)", name, (long long)p->umask);
	name = arena_printf(elab_arena(elab), "%s.%s", name, p->write ? "write" : "read");
	if (p->maxsize)
		name = arena_printf(elab_arena(elab), "%s.maxsize(%lld)", name, (long long)p->maxsize);
	/* input.char/input.line: staprun sends stdin there (-i). */
	if (p->write && !strcmp(p->name, "__stdin"))
		elab_session(elab)->read_stdin = true;
	d = elab_add(elab, m, name);
	d->data = p;
	elab_add_var(elab, d, "$value", "string", 0, PROBE_VAR_VALUE)->writable = !p->write;
	return 1;
}

/* One table entry per file: its read probe, its write probes' list. */
static void procfs_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	bool *done = arena_alloc(x->a, n + 1);

	memset(done, 0, n + 1);
	/* A read or write of the file is the control channel of the script,
	 * whichever task does it: --cgroup does not filter it. */
	for (int i = 0; i < n; i++)
		emit_any_task_probe(x, d[i]);
	for (int i = 0; i < n; i++) {
		const struct procfs_point *p = d[i]->data;
		int nwrite = 0;

		bool first = p->write;

		for (int j = 0; j < i && first; j++) {
			const struct procfs_point *q = d[j]->data;

			first = !(q->write && !strcmp(q->name, p->name));
		}
		if (!first)
			continue;
		for (int j = i; j < n; j++) {
			const struct procfs_point *q = d[j]->data;

			if (q->write && !strcmp(q->name, p->name)) {
				emit_c(x, "%s%s", nwrite++ ? ", " : arena_printf(x->a,
				       "static const struct ctap_probe *const procfs_writers_%d[] = { ",
				       i), emit_probe_ref(x, d[j]));
			}
		}
		emit_c(x, " };\n");
	}
	emit_c(x, "\nstatic struct ctap_procfs_file procfs_files[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct procfs_point *p = d[i]->data, *reader = NULL;
		int first_writer = -1, nwrite = 0, mode = 0, umask = -1;
		long long size = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++) {
			const struct procfs_point *q = d[j]->data;

			if (strcmp(q->name, p->name))
				continue;
			done[j] = true;
			if (q->write) {
				first_writer = first_writer < 0 ? j : first_writer;
				nwrite++;
				mode |= 0222;
			} else {
				reader = q;
				mode |= 0444;
				size = q->maxsize;
			}
			if (umask < 0 && q->umask >= 0)
				umask = (int)q->umask;
		}
		mode &= ~(umask < 0 ? DEFAULT_UMASK : umask);
		emit_c(x, "\t{\n\t\t.name = %s,\n\t\t.mode = 0%o,\n", gen_c_string(x, p->name), mode);
		if (size)
			emit_c(x, "\t\t.bufsize = %lld,\n", size + 1);
		else
			emit_c(x, "\t\t.bufsize = MAXSTRINGLEN,\n");
		if (reader) {
			for (int j = i; j < n; j++)
				if (d[j]->data == reader)
					emit_c(x, "\t\t.read_probe = %s,\n", emit_probe_ref(x, d[j]));
		}
		if (nwrite)
			emit_c(x, "\t\t.write_probes = procfs_writers_%d,\n\t\t.nwrite = %d,\n",
			       first_writer, nwrite);
		emit_c(x, "\t},\n");
	}
	emit_table_family(x, "procfs_files", "ctap_procfs_register", "ctap_procfs_unregister");
}

const struct provider procfs_provider = {
	.name = "procfs",
	.family = "CTAP_FAMILY_PROCFS",
	.patterns = patterns,
	.runtime = "probes/procfs",
	.resolve = procfs_resolve,
	.emit = procfs_emit,
};
