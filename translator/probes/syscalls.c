// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - kernel.syscall("NAME") and kernel.syscall("NAME").return,
 * NAME a glob over the target's 64-bit system calls (its unistd_64.h):
 * the entry and the return of system calls by number (runtime side:
 * kmod-runtime/probes/syscalls.c, two tracepoints for all of them).
 * What the syscall.* tapsets are built on.
 *
 * kernel.compat_syscall("NAME") and its .return are the same for the
 * 32-bit (ia32) calls of 32-bit tasks, NAME a glob over unistd_32.h's
 * names that have an entry point (SystemTap's syscall.nice,
 * syscall.compat_futex...: what x86_64 has only for them).  int_arg(1)...
 * are then the ia32 argument registers, bx, cx, dx, si, di, bp; no
 * parameter has a $name.
 *
 * $vars: $regs, the caller's registers (struct pt_regs *: the arguments
 * are in di, si, dx, r10, r8, r9), and $id, the number, at the entry or
 * $ret (and $return), the value returned, at the return; the parameters
 * by their names in syscalls.h ($fd, $filename); int_arg(1)... are the call's
 * arguments, as in SystemTap's nd_syscall probes.  Their types are those of the
 * raw_syscalls:sys_enter tracepoint's arguments, from BTF.  @entry(X)
 * in a return is computed at the call's entry (the runtime keeps it for
 * the task until its return).
 *
 * A 32-bit task's call is kernel.syscall("NAME")'s too where the kernel
 * enters the same function for it as for the 64-bit call (sys_read) or
 * that function's compat_ one (compat_sys_lseek): SystemTap's syscall.*
 * probe those functions, whoever calls them (and a few others: same_call()).  Its arguments are then the
 * ia32 registers, zero-extended, and $regs a copy of the caller's
 * registers with them where the 64-bit call has its own (di, si, dx, r10,
 * r8, r9), so that the syscall.* tapsets read either the same way.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "kbtf.h"
#include "provider.h"
#include "session.h"
#include "target_tapsets.h"
#include "xlate.h"

static const char *const patterns[] = {
	"kernel.syscall(string)",
	"kernel.syscall(string).return",
	"kernel.compat_syscall(string)",
	"kernel.compat_syscall(string).return",
	NULL
};

extern const struct provider syscall_provider;

/* A probe's own data (derived_probe.data). */
struct syscall_point {
	int nr;
	bool is_return;
	bool is_compat;		/* the ia32 table's nr */
	int *ia32;		/* a 64-bit call's: the ia32 numbers entering its function */
	int nia32;
};

/* The sys_enter tracepoint's prototype (void *, struct pt_regs *, long):
 * where $regs and $id/$ret get their types. */
static const struct btf_type *enter_proto(const struct btf *btf)
{
	int id = kbtf_find(btf, "btf_trace_sys_enter", BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_type *ptr = t ? btf__type_by_id(btf, t->type) : NULL;
	const struct btf_type *proto = ptr && btf_is_ptr(ptr) ? btf__type_by_id(btf, ptr->type) : NULL;

	return proto && btf_is_func_proto(proto) && btf_vlen(proto) == 3 ? proto : NULL;
}

/* What every kernel.syscall point of the pass shares, read once. */
struct syscall_state {
	const char *const *names;	/* by number */
	int n;
	struct target_syscall_decl *decls;	/* by number */
	__u32 (*param_types)[6];	/* by number: each parameter's BTF type */
	const char *const *compat_names;	/* the ia32 table's, by number */
	int ncompat;
	const char *const *entries;	/* the function each call enters, by number */
	const char *const *compat_entries;	/* the ia32 table's (a 64-bit kernel's) */
	int nentries;
};

/* The BTF type of each parameter's C type, each distinct type looked up
 * once (a lookup by name is a walk over all of BTF). */
static void type_params(struct arena *a, struct btf *btf, struct syscall_state *st)
{
	const __u32 *pointers = kbtf_pointer_index(a, btf);
	const char *seen[256];
	__u32 ids[256], ulong = 0;
	int nseen = 0;

	kbtf_find_ctype(btf, pointers, "unsigned long", &ulong);
	st->param_types = arena_alloc(a, (st->n + 1) * sizeof(*st->param_types));
	for (int nr = 0; nr < st->n; nr++)
		for (int i = 0; i < st->decls[nr].n; i++) {
			const char *type = st->decls[nr].p[i].type;
			__u32 id = 0;
			int k;

			for (k = 0; k < nseen && strcmp(seen[k], type); k++)
				;
			if (k < nseen) {
				id = ids[k];
			} else {
				if (kbtf_find_ctype(btf, pointers, type, &id) || !id)
					id = ulong;	/* a pointer to what BTF has none to */
				if (nseen < 256) {
					seen[nseen] = type;
					ids[nseen++] = id;
				}
			}
			st->param_types[nr][i] = id;
		}
}

static struct syscall_state *syscall_state(struct elab *elab, struct btf *btf)
{
	void **slot = elab_provider_state(elab, &syscall_provider);
	struct arena *a = elab_arena(elab);
	struct session *s = elab_session(elab);
	struct syscall_state *st = *slot;

	if (st)
		return st;
	st = arena_new(a, struct syscall_state);
	st->n = target_syscall_names(a, s->opt.kernel_build, s->pp.arch, &st->names);
	if (st->n) {
		st->decls = target_syscall_decls(a, target_headers_dir(a, s->opt.kernel_build),
						 s->opt.kernel_build, st->n);
		type_params(a, btf, st);
	}
	if (!strcmp(s->pp.arch, "x86_64")) {
		st->ncompat = target_compat_syscall_names(a, s->opt.kernel_build, &st->compat_names);
		target_syscall_entries(a, s->opt.kernel_build, false, &st->entries);
		st->nentries = target_syscall_entries(a, s->opt.kernel_build, true,
						      &st->compat_entries);
	}
	*slot = st;
	return st;
}

/*
 * $fd, $filename...: the call's C parameters by their declared names and
 * types (what SystemTap's syscall probes on sys_NAME give), arguments 0-5.
 * A type BTF lacks (a pointer to a struct it has no pointer to) is read as
 * an unsigned long (type_params()).
 */
static void add_param_vars(struct elab *elab, struct derived_probe *d, struct btf *btf,
			   const struct syscall_state *st, int nr)
{
	static const char *const arg_regs[] = { "di", "si", "dx", "r10", "r8", "r9" };
	const struct target_syscall_decl *decl = &st->decls[nr];
	struct arena *a = elab_arena(elab);

	for (int i = 0; i < decl->n; i++) {
		const char *name = decl->p[i].name;
		__u32 id = st->param_types[nr][i];
		struct probe_var *v;

		if (!name || !strcmp(name, "regs") || !strcmp(name, "id") || !strcmp(name, "ret"))
			continue;
		v = elab_add_var(elab, d, arena_printf(a, "$%s", name), kbtf_type_name(a, btf, id), id, i);
		/* A guru-mode write changes the caller's register (the call
		 * reads its arguments from there after sys_enter). */
		v->reg = arg_regs[i];
		v->regs_arg = 6;
	}
}

/*
 * The compat_ functions of 32-bit calls that SystemTap 4.8's library gives
 * an alias of their own (syscall.compat_select, syscall.rt_sigaction32,
 * syscall.compat_sys_msgctl...) or none (its syscall.sendmsg does not
 * probe compat_sys_sendmsg): the 64-bit call's alias leaves them out.
 */
static const char *const own_compat_alias[] = {
	"compat_sys_execve", "compat_sys_execveat", "compat_sys_getitimer",
	"compat_sys_setitimer", "compat_sys_select", "compat_sys_rt_sigaction",
	"compat_sys_rt_sigprocmask", "compat_sys_settimeofday", "compat_sys_shmat",
	"compat_sys_signalfd4", "compat_sys_ustat", "compat_sys_msgctl", "compat_sys_msgrcv",
	"compat_sys_msgsnd", "compat_sys_semctl", "compat_sys_shmctl", "compat_sys_arch_prctl",
	"compat_sys_epoll_pwait2", "compat_sys_io_pgetevents", "compat_sys_lookup_dcookie",
	"compat_sys_recvfrom", "compat_sys_recvmsg", "compat_sys_rt_sigreturn",
	"compat_sys_sendmsg", NULL
};

/*
 * The other functions of 32-bit calls that SystemTap 4.8's alias of a
 * 64-bit call probes as well (its syscall.getuid is sys_getuid and
 * sys_getuid16, its syscall.uname sys_newuname, sys_uname and
 * sys_olduname): the ia32 function, then the 64-bit call's.
 */
static const char *const also_probed[][2] = {
	{ "sys_getuid16", "sys_getuid" }, { "sys_geteuid16", "sys_geteuid" },
	{ "sys_getgid16", "sys_getgid" }, { "sys_getegid16", "sys_getegid" },
	{ "sys_setuid16", "sys_setuid" }, { "sys_setgid16", "sys_setgid" },
	{ "sys_setfsuid16", "sys_setfsuid" }, { "sys_setfsgid16", "sys_setfsgid" },
	{ "sys_getresuid16", "sys_getresuid" }, { "sys_getresgid16", "sys_getresgid" },
	{ "sys_getgroups16", "sys_getgroups" }, { "sys_setgroups16", "sys_setgroups" },
	{ "sys_stat", "sys_newstat" }, { "sys_lstat", "sys_newlstat" },
	{ "sys_fstat", "sys_newfstat" }, { "sys_uname", "sys_newuname" },
	{ "sys_olduname", "sys_newuname" }, { "compat_sys_fcntl64", "sys_fcntl" },
	{ "compat_sys_sendfile", "sys_sendfile64" },
};

/* Whether a 32-bit call entering fn is the 64-bit call's entering fn64. */
static bool same_call(const char *fn, const char *fn64)
{
	if (!fn || !fn64)
		return false;
	if (!strcmp(fn, fn64))
		return true;
	for (size_t i = 0; i < sizeof(also_probed) / sizeof(also_probed[0]); i++)
		if (!strcmp(fn, also_probed[i][0]))
			return !strcmp(fn64, also_probed[i][1]);
	if (strncmp(fn, "compat_", 7) || strcmp(fn + 7, fn64))
		return false;
	for (int i = 0; own_compat_alias[i]; i++)
		if (!strcmp(fn, own_compat_alias[i]))
			return false;
	return true;
}

/* The ia32 numbers whose calls enter 64-bit call nr's function. */
static void add_ia32(struct arena *a, const struct syscall_state *st, struct syscall_point *sp)
{
	const char *fn64 = st->entries ? st->entries[sp->nr] : NULL;

	for (int k = 0; fn64 && k < st->nentries; k++)
		if (same_call(st->compat_entries[k], fn64)) {
			int *v = arena_alloc(a, (sp->nia32 + 1) * sizeof(*v));

			if (sp->nia32)	/* memcpy's source may not be NULL */
				memcpy(v, sp->ia32, sp->nia32 * sizeof(*v));
			v[sp->nia32++] = k;
			sp->ia32 = v;
		}
}

static int syscall_resolve(struct elab *elab, const struct pp_match *m)
{
	struct arena *a = elab_arena(elab);
	const char *glob = m->comps[1]->arg->str;
	bool is_return = strstr(m->pattern_text, ".return") != NULL;
	bool is_compat = strstr(m->pattern_text, "compat_syscall") != NULL;
	struct btf *btf = elab_btf(elab);
	const struct btf_type *proto = btf ? enter_proto(btf) : NULL;
	const struct syscall_state *st;
	const struct btf_param *p;
	const char *const *names;
	int n, added = 0;

	if (!btf)
		return -EINVAL;
	st = syscall_state(elab, btf);
	names = is_compat ? st->compat_names : st->names;
	n = is_compat ? st->ncompat : st->n;
	if (!proto || !st->n) {
		elab_error(elab, m, "system call probes need the kernel's raw_syscalls tracepoints "
			   "and unistd_64.h");
		return -EINVAL;
	}
	p = btf_params(proto);
	for (int nr = 0; nr < n; nr++) {
		struct syscall_point *sp;
		struct derived_probe *d;
		struct probe_var *v;

		if (!names[nr] || fnmatch(glob, names[nr], 0))
			continue;
		sp = arena_new(a, struct syscall_point);
		sp->nr = nr;
		sp->is_return = is_return;
		sp->is_compat = is_compat;
		if (!is_compat)
			add_ia32(a, st, sp);
		d = elab_add(elab, m, arena_printf(a, "kernel.%ssyscall(\"%s\")%s",
						is_compat ? "compat_" : "", names[nr],
						is_return ? ".return" : ""));
		d->data = sp;
		d->is_return = is_return;
		/* Arguments 0-5 are the call's own (int_arg()), then these. */
		elab_add_var(elab, d, "$regs", kbtf_type_name(a, btf, p[1].type), p[1].type, 6);
		v = elab_add_var(elab, d, is_return ? "$ret" : "$id", kbtf_type_name(a, btf, p[2].type),
				 p[2].type, 7);
		if (is_return)	/* SystemTap's name, on sys_NAME's return */
			v = elab_add_var(elab, d, "$return", kbtf_type_name(a, btf, p[2].type),
					 p[2].type, 7);
		if (is_return) {	/* what the caller gets back */
			v->reg = "ax";
			v->regs_arg = 6;
		}
		if (!is_compat)
			add_param_vars(elab, d, btf, st, nr);
		added++;
	}
	if (!added) {
		elab_error(elab, m, "no match for %ssystem call '%s'", is_compat ? "32-bit " : "",
			   glob);
		return -EINVAL;
	}
	return added;
}

/* ---- pass 3 ---- */

/* A row of the runtime's table: a probe on one number of one table. */
struct syscall_row {
	const struct derived_probe *d;
	int nr;
	bool is_return, is_compat, as_64;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct syscall_row *x = a, *y = b;

	if (x->is_return != y->is_return)
		return x->is_return - y->is_return;
	if (x->is_compat != y->is_compat)
		return x->is_compat - y->is_compat;
	return x->nr - y->nr;
}

/* The table, sorted as the runtime's binary search needs it: a 64-bit
 * call's probe has a row of its own for each ia32 number of its function. */
static void syscall_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	struct syscall_row *v;
	int nrows = 0;

	for (int i = 0; i < n; i++)
		nrows += 1 + ((const struct syscall_point *)d[i]->data)->nia32;
	v = arena_alloc(x->a, nrows * sizeof(*v));
	nrows = 0;
	for (int i = 0; i < n; i++) {
		const struct syscall_point *sp = d[i]->data;

		v[nrows++] = (struct syscall_row){ d[i], sp->nr, sp->is_return, sp->is_compat, false };
		for (int k = 0; k < sp->nia32; k++)
			v[nrows++] = (struct syscall_row){ d[i], sp->ia32[k], sp->is_return, true, true };
	}
	qsort(v, nrows, sizeof(*v), cmp_rows);
	emit_c(x, "static struct ctap_syscall syscalls[] = {\n");
	for (int i = 0; i < nrows; i++) {
		const char *entry, *size;

		emit_c(x, "\t{ .probe = %s, .nr = %d%s%s%s", emit_probe_ref(x, v[i].d), v[i].nr,
		       v[i].is_return ? ", .is_return = true" : "",
		       v[i].is_compat ? ", .is_compat = true" : "",
		       v[i].as_64 ? ", .as_64 = true" : "");
		if ((entry = emit_entry_probe(x, v[i].d, &size)))
			emit_c(x, ",\n\t  .entry_probe = %s, .saved_size = %s", entry, size);
		emit_c(x, " },\t/* %s%s */\n", v[i].d->name, v[i].as_64 ? ", a 32-bit call" : "");
	}
	emit_table_family(x, "syscalls", "ctap_syscalls_register", "ctap_syscalls_unregister");
}

const struct provider syscall_provider = {
	.name = "kernel.syscall",
	.patterns = patterns,
	.runtime = "probes/syscalls",
	.resolve = syscall_resolve,
	.emit = syscall_emit,
};
