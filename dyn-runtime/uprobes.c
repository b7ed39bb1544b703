// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes.c - process("PATH").function("f")[.return], .statement and .mark
 * of --runtime=dyninst: the generated module's table of probes
 * (probes/uprobes.h, the kernel runtime's layout), put into the target
 * process by the engine (patch.h) when the module is loaded there.
 *
 * Where: each entry names a file and an offset in it, as for a kernel
 * uprobe; the file is found among the objects the process has loaded
 * (dl_iterate_phdr, by device and inode, so a symlink or a relative
 * name still matches) and the offset becomes an address through the
 * object's PT_LOAD headers.  An entry whose file is not loaded yet waits:
 * the loader tells debuggers of each change to its list of objects by
 * calling r_debug's r_brk (<link.h>), where an engine probe puts in the
 * entries of what dlopen() has just mapped, before its code runs.
 *
 * One engine probe an address (patch.h allows no more): a site gathers
 * every entry of the table at one address, entries, .return probes and
 * their entry parts, and its handlers run them in table order.
 *
 * Arguments are read as the kernel runtime reads them (sdt_args.h, the
 * one copy), memory through the engine's fault-safe read.  A .return
 * probe's parameters and @entry values are saved at the entry in a
 * per-thread stack of frames keyed by the stack pointer, as the engine's
 * own shadow stack is: recursion nests, a longjmp past frames drops them.
 */
#define _GNU_SOURCE
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ctap_runtime.h"
#include "dyn_internal.h"
#include "patch.h"
#include "probes/uprobes.h"
#include <target.h>	/* -I: its include_next finds kmod-runtime's */
#include "probes/sdt_args.h"

_Static_assert(sizeof(struct pt_regs) == sizeof(struct ctapdyn_regs) &&
	       offsetof(struct pt_regs, ip) == offsetof(struct ctapdyn_regs, ip) &&
	       offsetof(struct pt_regs, sp) == offsetof(struct ctapdyn_regs, sp),
	       "struct pt_regs is the engine's registers");

/* ---- a .return probe's entry part: per-thread frames ---- */

#define UENTRY_DEPTH	64

struct uentry_frame {
	const struct ctap_uprobe *u;
	unsigned long sp;		/* at the function's entry */
	unsigned long args[];		/* CTAP_SDT_ARGS, then the @entry values */
};

static size_t uentry_size;		/* of a frame, set when the table is armed */
static __thread char *uentry_stack;	/* UENTRY_DEPTH frames, mapped at first use */
static __thread int uentry_depth;

static struct uentry_frame *uentry_at(int i)
{
	return (struct uentry_frame *)(uentry_stack + (size_t)i * uentry_size);
}

/* A new frame for the call whose entry stack pointer is sp; frames of
 * calls a longjmp abandoned (deeper than sp) go first.  NULL: full. */
static struct uentry_frame *uentry_push(const struct ctap_uprobe *u, unsigned long sp)
{
	struct uentry_frame *f;

	if (!uentry_stack) {
		/* mmap, not malloc: a breakpoint probe runs in a signal handler */
		void *p = mmap(NULL, UENTRY_DEPTH * uentry_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		uentry_stack = p;
	}
	while (uentry_depth && uentry_at(uentry_depth - 1)->sp < sp)
		uentry_depth--;
	if (uentry_depth == UENTRY_DEPTH)
		return NULL;
	f = uentry_at(uentry_depth++);
	f->u = u;
	f->sp = sp;
	return f;
}

/* A call's entry: what its .return probe reads, its @entry values. */
static void uentry_hit(const struct ctap_uprobe *u, struct pt_regs *regs, unsigned long sp,
		       unsigned long bias)
{
	struct uentry_frame *f = uentry_push(u, sp);

	if (!f) {
		ctap_add_skipped(1);
		return;
	}
	if (!uentry_fill(u, regs, bias, f->args, uentry_size - sizeof(*f)))
		uentry_depth--;
}

/* The return of the call whose entry stack pointer was 8 below sp now. */
static void uentry_return(const struct ctap_uprobe *u, struct pt_regs *regs)
{
	unsigned long sp = regs->sp - sizeof(long);
	int i = uentry_depth;

	while (i && uentry_at(i - 1)->sp < sp)
		i--;
	/* several .return probes of one function: their frames share sp */
	while (i && uentry_at(i - 1)->sp == sp && uentry_at(i - 1)->u != u)
		i--;
	if (!i || uentry_at(i - 1)->sp != sp) {
		ctap_add_skipped(1);	/* its entry was skipped */
		return;
	}
	uentry_return_run(u, regs, uentry_at(i - 1)->args);
	if (i == uentry_depth)
		uentry_depth--;
	else
		uentry_at(i - 1)->u = NULL;	/* popped with the frames above it */
}

/* ---- hits ---- */

static noinline void sdt_hit(const struct ctap_uprobe *u, struct pt_regs *regs)
{
	unsigned long args[CTAP_SDT_ARGS];

	if (!sdt_read_range(u->sdt, 0, u->sdt->nargs, regs, args)) {
		ctap_add_skipped(1);	/* reported with the skipped hits */
		return;
	}
	ctap_uprobe_run(u, regs, args);
}

static void entry_hit(const struct ctap_uprobe *u, struct pt_regs *regs)
{
	if (u->handler)
		u->handler(NULL, regs);
	else if (u->sdt)
		sdt_hit(u, regs);
	else
		ctap_probe_run(u->probe, regs, NULL, 0);
}

/* What a member of a site does there. */
enum site_role {
	ROLE_ENTRY,		/* an entry probe (.function, .statement, .mark) */
	ROLE_RET_ENTRY,		/* a .return's entry part at the function's entry */
	ROLE_RET_PROLOGUE,	/* ... after the prologue (entry_offset) */
	ROLE_RETURN,		/* a .return */
};

#define SITE_MAX	16

struct site {
	unsigned long addr, func, func_size;
	unsigned long bias;		/* its object's load address (dlpi_addr) */
	enum { SITE_FREE, SITE_NEW, SITE_IN } state;
	int id;				/* the engine's probe; -1: none (refused) */
	int n;
	bool has_return;
	struct {
		struct ctap_uprobe *u;
		enum site_role role;
	} m[SITE_MAX];
};

static void site_entry(struct ctapdyn_regs *r, void *data)
{
	struct site *s = data;
	struct pt_regs *regs = (struct pt_regs *)r;

	/* The later-declared first, as the kernel runs a uprobe's consumers
	 * (newest first) and SystemTap's scripts expect: a .return's @entry
	 * of a global sees it before an earlier entry probe changes it. */
	for (int i = s->n - 1; i >= 0; i--) {
		const struct ctap_uprobe *u = s->m[i].u;

		if (u->pid && u->pid != getpid())
			continue;	/* a child forked with the probes in its copy */
		switch (s->m[i].role) {
		case ROLE_ENTRY:
			entry_hit(u, regs);
			break;
		case ROLE_RET_ENTRY:
			uentry_hit(u, regs, regs->sp, regs->ip - u->vaddr);
			break;
		case ROLE_RET_PROLOGUE: {
			unsigned long cfa = *(unsigned long *)((char *)regs + u->entry_cfa_reg) +
					    u->entry_cfa_off;

			uentry_hit(u, regs, cfa - sizeof(long),
				   regs->ip - u->vaddr - (u->entry_offset - u->offset));
			break;
		}
		case ROLE_RETURN:
			break;
		}
	}
}

static void site_return(struct ctapdyn_regs *r, void *data)
{
	struct site *s = data;
	struct pt_regs *regs = (struct pt_regs *)r;

	for (int i = s->n - 1; i >= 0; i--) {	/* newest first, as site_entry */
		const struct ctap_uprobe *u = s->m[i].u;

		if (s->m[i].role != ROLE_RETURN || (u->pid && u->pid != getpid()))
			continue;
		if (uentry_needed(u))
			uentry_return(u, regs);
		else if (u->sdt)
			sdt_hit(u, regs);	/* $return from DWARF */
		else
			ctap_probe_run(u->probe, regs, NULL, 0);
	}
}

/* ---- where: the loaded object of a file, an offset's address ---- */

struct find {
	dev_t dev;
	ino_t ino;
	unsigned long bias;		/* dlpi_addr */
	const ElfW(Phdr) *phdr;
	int phnum;
	bool found;
	bool lib;			/* a shared object, not the program */
};

/* Whether file name is (dev, ino). */
static bool same_file(const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	return name && !stat(name, &st) && st.st_dev == dev && st.st_ino == ino;
}

/*
 * Whether this process's program is (dev, ino): /proc/self/exe, or the
 * name it was exec'd by (AT_EXECFN), which is the program's where a
 * loader runs it (valgrind's client: /proc/self/exe is valgrind).
 */
bool ctap_dyn_program_is(dev_t dev, ino_t ino)
{
	return same_file("/proc/self/exe", dev, ino) ||
	       same_file((const char *)getauxval(AT_EXECFN), dev, ino);
}

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find *f = data;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name ? !same_file(info->dlpi_name, f->dev, f->ino) :
	    !ctap_dyn_program_is(f->dev, f->ino))
		return 0;
	f->bias = info->dlpi_addr;
	f->phdr = info->dlpi_phdr;
	f->phnum = info->dlpi_phnum;
	f->found = true;
	f->lib = info->dlpi_name && *info->dlpi_name;
	return 1;
}

/* The address file offset off of the object f is at, or 0. */
static unsigned long offset_addr(const struct find *f, unsigned long off)
{
	for (int i = 0; i < f->phnum; i++) {
		const ElfW(Phdr) *p = &f->phdr[i];

		if (p->p_type == PT_LOAD && off >= p->p_offset && off < p->p_offset + p->p_filesz)
			return f->bias + p->p_vaddr + (off - p->p_offset);
	}
	return 0;
}

static struct site *sites;	/* 2 a table entry at most: no more are in use */
static int nsites;		/* used at least once */
static bool in_libs;		/* a site in a shared object, which may go */

/* u's member of the site at addr in the object at bias (made if new);
 * false if none is left. */
static bool site_add(unsigned long addr, unsigned long bias, struct ctap_uprobe *u,
		     enum site_role role, unsigned long func, unsigned long func_size)
{
	struct site *s = NULL, *free = NULL;

	for (int i = 0; i < nsites; i++) {
		if (sites[i].state == SITE_FREE)
			free = free ? free : &sites[i];
		else if (sites[i].addr == addr)
			s = &sites[i];
	}
	if (!s) {
		s = free ? free : &sites[nsites++];
		*s = (struct site){ .addr = addr, .bias = bias, .state = SITE_NEW, .id = -1 };
	}
	if (s->n == SITE_MAX)
		return false;
	if (func && !s->func) {
		s->func = func;
		s->func_size = func_size;
	}
	s->m[s->n].u = u;
	s->m[s->n++].role = role;
	s->has_return |= role == ROLE_RETURN;
	return true;
}

/* Where u is in this process: its sites, its semaphore counted up; 1 if
 * its file is not loaded (yet). */
static int place(struct ctap_uprobe *u)
{
	struct find f = { 0 };
	struct stat st;
	unsigned long bias, func = 0;

	if (!u->path)
		return -EOPNOTSUPP;	/* .absolute: refused in pass 2 */
	if (stat(u->path, &st))
		return -errno;
	f.dev = st.st_dev;
	f.ino = st.st_ino;
	dl_iterate_phdr(find_object, &f);
	if (!f.found)
		return 1;		/* not loaded here, or not yet */
	u->rt.addr = offset_addr(&f, u->offset);
	if (!u->rt.addr)
		return -EFAULT;
	bias = u->rt.addr - u->vaddr;
	if (u->func_vaddr)
		func = u->func_vaddr + bias;
	if (u->ref_ctr_offset) {
		unsigned short *sem = (unsigned short *)offset_addr(&f, u->ref_ctr_offset);

		if (sem)
			__atomic_add_fetch(sem, 1, __ATOMIC_SEQ_CST);
	}
	in_libs |= f.lib;
	if (!u->is_return)
		return site_add(u->rt.addr, f.bias, u, ROLE_ENTRY, func, u->func_size) ? 0 : -ENOSPC;
	if (uentry_needed(u)) {
		bool ok = u->entry_offset ?
			  site_add(offset_addr(&f, u->entry_offset), f.bias, u, ROLE_RET_PROLOGUE,
				   func, u->func_size) :
			  site_add(u->rt.addr, f.bias, u, ROLE_RET_ENTRY, func, u->func_size);

		if (!ok)
			return -ENOSPC;
	}
	return site_add(u->rt.addr, f.bias, u, ROLE_RETURN, func, u->func_size) ? 0 : -ENOSPC;
}

/* A site of one entry probe, the usual case: its handler straight. */
static void site_one(struct ctapdyn_regs *r, void *data)
{
	entry_hit(data, (struct pt_regs *)r);
}

/* ... whose handler is the translator's own (its variables straight
 * from the registers): called at once. */
static void site_direct(struct ctapdyn_regs *r, void *data)
{
	const struct ctap_uprobe *u = data;

	u->handler(NULL, (struct pt_regs *)r);
}

static int site_insert(struct site *s)
{
	struct ctapdyn_opts o = { .sz = sizeof(o), .func = s->func, .func_size = s->func_size };

	if (s->n == 1 && s->m[0].role == ROLE_ENTRY && !s->m[0].u->pid)
		return ctapdyn_probe_insert_opts((void *)s->addr,
						 s->m[0].u->handler ? site_direct : site_one,
						 s->m[0].u, s->func ? &o : NULL);
	if (s->has_return)
		return ctapdyn_retprobe_insert_opts((void *)s->addr, site_entry, site_return, s,
						    s->func ? &o : NULL);
	return ctapdyn_probe_insert_opts((void *)s->addr, site_entry, s, s->func ? &o : NULL);
}

static struct ctap_uprobe *table;
static int table_n;
static bool *pending;		/* table entries whose file is not loaded yet */

void ctap_dyn_uprobes_table(struct ctap_uprobe *ups, int n)
{
	table = ups;
	table_n = n;
}

/*
 * The pending entries whose file is loaded now go in, with their sites.
 * A probe that cannot is reported as the kernel runtime reports a
 * refused registration, and the others stay.  Runs quiet: what the
 * runtime's own calls hit (its reads of /proc, in a probed libc) is not
 * the program's, and the kernel's uprobes never see it.
 */
static void arm_pending(void)
{
	int ret;

	ctap_dyn_quiet(true);
	for (int i = 0; i < table_n; i++) {
		if (!pending[i])
			continue;
		ret = place(&table[i]);
		pending[i] = ret == 1;
		if (ret < 0)
			ctap_probe_refused(table[i].probe, false, "(rc %d)", ret);
	}
	for (int i = 0; i < nsites; i++) {
		struct site *s = &sites[i];

		if (s->state != SITE_NEW)
			continue;
		s->state = SITE_IN;
		s->id = ret = site_insert(s);
		if (ret < 0)
			ctap_probe_refused(s->m[0].u->probe, false, "at %#lx (rc %d)", s->addr, ret);
	}
	ctap_dyn_quiet(false);
}

struct mapped {
	unsigned long addr, bias;
	bool found;
};

static int find_mapped(struct dl_phdr_info *info, size_t size, void *data)
{
	struct mapped *m = data;

	(void)size;
	if (info->dlpi_addr != m->bias)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && m->addr >= m->bias + p->p_vaddr &&
		    m->addr < m->bias + p->p_vaddr + p->p_memsz)
			m->found = true;
	}
	return m->found;
}

/*
 * The sites of objects dlclose() has unmapped: their engine probes are
 * forgotten (their bytes are gone; a new mapping at the address is
 * clean) and their entries wait again, for a dlopen() of the file,
 * wherever it maps it then.
 */
static void drop_unmapped(void)
{
	for (int i = 0; i < nsites; i++) {
		struct site *s = &sites[i];
		struct mapped m = { .addr = s->addr, .bias = s->bias };

		if (s->state == SITE_FREE)
			continue;
		dl_iterate_phdr(find_mapped, &m);
		if (m.found)
			continue;
		if (s->id >= 0)
			ctapdyn_probe_forget(s->id);
		for (int k = 0; k < s->n; k++)
			pending[s->m[k].u - table] = true;
		s->state = SITE_FREE;
	}
}

/* The loader calls r_brk at each change to its list of objects; at
 * RT_CONSISTENT a dlopen()ed object is in the list, mapped, its
 * constructors not run yet, a dlclose()d one is gone, and the loader's
 * lock is held (one at a time). */
static void objects_changed(struct ctapdyn_regs *r, void *data)
{
	(void)r;
	(void)data;
	if (_r_debug.r_state != RT_CONSISTENT)
		return;
	ctap_dyn_quiet(true);
	drop_unmapped();
	ctap_dyn_quiet(false);
	arm_pending();
}

/*
 * In a target, once the shared segment is mapped (shm.c): every entry of
 * the table that is in this process goes in, and the others when a
 * dlopen() maps their file.
 */
void ctap_dyn_uprobes_arm(void)
{
	size_t saved = 0;
	int ret;

	if (!table_n)
		return;
	/* mmap, not calloc: before main libc's heap stays the program's
	 * (its first malloc sets up its cache: run/ulib_dbg). */
	sites = mmap(NULL, (size_t)table_n * (2 * sizeof(*sites) + sizeof(*pending)),
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sites == MAP_FAILED) {
		sites = NULL;
		return;
	}
	pending = (bool *)(sites + (size_t)table_n * 2);
	for (int i = 0; i < table_n; i++) {
		if (table[i].entry_probe)
			saved = max(saved, table[i].saved_size);
		pending[i] = true;
	}
	uentry_size = (sizeof(struct uentry_frame) + CTAP_SDT_ARGS * sizeof(long) + saved + 7) &
		      ~(size_t)7;
	arm_pending();
	/* the loader followed when an entry waits for its file, or is in
	 * one that dlclose() may unmap (and dlopen() map again) */
	for (int i = 0; i < table_n; i++) {
		if (!pending[i] && !in_libs)
			continue;
		ctap_dyn_quiet(true);
		ret = ctapdyn_probe_insert((void *)_r_debug.r_brk, objects_changed, NULL);
		ctap_dyn_quiet(false);
		if (ret < 0)
			ctap_probe_refused(table[i].probe, false,
					   "(rc %d: dlopen() cannot be followed)", ret);
		break;
	}
}

/* In stapdyn: the files are there; the probes go in where they run. */
int ctap_uprobes_register(struct ctap_uprobe *ups, int n)
{
	for (int i = 0; i < n; i++) {
		int ret = !ups[i].path ? -EOPNOTSUPP : access(ups[i].path, R_OK) ? -errno : 0;

		if (ret) {
			ctap_probe_refused(ups[i].probe, false, "(rc %d)", ret);
			return ret;
		}
	}
	return 0;
}

void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n)
{
	(void)ups;
	(void)n;	/* a target's probes stay; its handlers see the session end */
}
