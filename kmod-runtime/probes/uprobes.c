// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes.c - register and run uprobes and uretprobes.
 *
 * A uprobe is an inode and an offset: every process that maps the file,
 * now or later, traps there.  Handlers run in the probed task's context,
 * with its user registers.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "uprobes.h"
#include "sdt_args.h"

/* A marker's hit, or a function's whose variables DWARF describes: the
 * arguments, then the handler.  The uprobe framework set regs->ip to the
 * probe's address. */
static noinline __no_stack_protector void sdt_hit(const struct ctap_uprobe *u,
						    struct pt_regs *regs)
{
	const struct ctap_sdt *s = u->sdt;
	/* Not zeroed, even where the kernel zeroes every stack variable
	 * (CONFIG_INIT_STACK_ALL_ZERO, Debian's: a rep stos of 15 words each
	 * hit): the handler reads only the nargs read here and the three set
	 * below; the translator gives no variable another index, and
	 * int_arg() in a user-space probe reads the registers (registers.stp). */
	unsigned long args[CTAP_SDT_ARGS] __uninitialized;
	int i;

	for (i = 0; i < s->nargs && i < CTAP_SDT_MAX_ARGS; i++) {
		const struct ctap_sdt_arg *a = &s->args[i];

		/* A DWARF variable in a whole register, the usual case, first. */
		if (a->kind == CTAP_SDT_REG && a->reg_width == 8 && a->base >= 0) {
			args[i] = sdt_extend(sdt_reg(regs, a->base) >> a->shift, a->size,
					     a->is_signed);
			continue;
		}
		if (sdt_arg_read(a, regs, (u64 *)&args[i])) {
			ctap_add_skipped(1);	/* reported with the skipped hits */
			return;
		}
	}
	ctap_uprobe_run(u, regs, args);
}

/*
 * @entry in a .return probe: a uretprobe has no storage of its own for
 * each call (6.1), so each call's saved values wait in a slot of a fixed
 * table, keyed by the task and the stack pointer at entry (the return
 * address's place, 8 bytes below the stack pointer at the return):
 * recursive calls are distinct, and a call a longjmp() abandoned is
 * found below a later call's stack pointer and its slot taken over.
 * Slots are claimed with cmpxchg; a call that finds none in its window
 * is a counted skip, as a .return probe whose entry was skipped.
 */
#define UENTRY_SLOTS	1024
#define UENTRY_WINDOW	64

struct uentry_slot {
	struct task_struct *task;	/* NULL: free */
	const struct ctap_uprobe *u;
	unsigned long sp;
	unsigned long args[];		/* CTAP_SDT_ARGS, then the saved values */
};

static struct {
	char *slots;
	size_t slot_size;
} ue;

static struct uentry_slot *uentry_slot(unsigned int i)
{
	return (struct uentry_slot *)(ue.slots + (i % UENTRY_SLOTS) * ue.slot_size);
}

static unsigned int uentry_hash(const struct ctap_uprobe *u, unsigned long sp)
{
	return hash_long((unsigned long)current ^ (unsigned long)u ^ sp, 32);
}

/* This call's slot (its entry's stack pointer sp), or NULL. */
static struct uentry_slot *uentry_find(const struct ctap_uprobe *u, unsigned long sp)
{
	unsigned int h = uentry_hash(u, sp);

	for (int i = 0; ue.slots && i < UENTRY_WINDOW; i++) {
		struct uentry_slot *s = uentry_slot(h + i);

		if (READ_ONCE(s->task) == current && s->u == u && s->sp == sp)
			return s;
	}
	return NULL;
}

/* A free slot for this call, or one of this task's that a call deeper
 * than this one left behind (it can no longer return).  A task that
 * exits inside the function leaves its slot taken until the session ends:
 * bounded by the table, and a full window is a counted skip. */
static struct uentry_slot *uentry_claim(const struct ctap_uprobe *u, unsigned long sp)
{
	unsigned int h = uentry_hash(u, sp);

	for (int i = 0; ue.slots && i < UENTRY_WINDOW; i++) {
		struct uentry_slot *s = uentry_slot(h + i);
		struct task_struct *t = READ_ONCE(s->task);

		/* (another probe on this function has its own slot at sp) */
		if ((!t && !cmpxchg(&s->task, NULL, current)) ||
		    (t == current && (s->sp < sp || (s->sp == sp && s->u == u)))) {
			s->u = u;
			s->sp = sp;
			return s;
		}
	}
	return NULL;
}

/* A call's entry: the parameters its .return probe reads, its @entry
 * values; sp was the stack pointer at the function's entry, bias the
 * load bias of the file. */
static void uentry_hit(const struct ctap_uprobe *u, struct pt_regs *regs, unsigned long sp,
		       unsigned long bias)
{
	struct uentry_slot *s = uentry_claim(u, sp);

	if (!s) {
		ctap_add_skipped(1);
		return;
	}
	if (!uentry_fill(u, regs, bias, s->args, ue.slot_size - sizeof(*s)))
		smp_store_release(&s->task, NULL);
}

static void uentry_return(const struct ctap_uprobe *u, struct pt_regs *regs)
{
	struct uentry_slot *s = uentry_find(u, regs->sp - sizeof(long));

	if (!s) {
		ctap_add_skipped(1);	/* its entry was skipped */
		return;
	}
	uentry_return_run(u, regs, s->args);
	smp_store_release(&s->task, NULL);
}

static int uentry_alloc(const struct ctap_uprobe *ups, int n)
{
	size_t saved = 0;

	bool any = false;

	for (int i = 0; i < n; i++) {
		if (uentry_needed(&ups[i]))
			any = true;
		if (ups[i].entry_probe)
			saved = max(saved, ups[i].saved_size);
	}
	if (!any)
		return 0;
	ue.slot_size = ALIGN(sizeof(struct uentry_slot) + CTAP_SDT_ARGS * sizeof(long) + saved,
			     sizeof(long));
	ue.slots = kvcalloc(UENTRY_SLOTS, ue.slot_size, GFP_KERNEL);
	return ue.slots ? 0 : -ENOMEM;
}

/* Whether a hit is of the process a process(PID) probe names. */
static bool uprobe_wanted(const struct ctap_uprobe *u)
{
	return !u->pid || task_tgid_nr(current) == u->pid;
}

/*
 * A uprobe is the file's: without a filter the kernel puts its breakpoint
 * in every process that maps the file, now or later, and each of them
 * traps into the handler only to be turned away.  For process(PID) the
 * kernel asks here, for each address space, at registration and at each
 * mmap of the file, whether to put it there: only in PID's.  A hit
 * elsewhere (a child PID forked with the breakpoint in its copy) answers
 * UPROBE_HANDLER_REMOVE, and the kernel takes it out of that child.
 */
static bool uprobe_mm_wanted(const struct ctap_uprobe *u, struct mm_struct *mm)
{
	struct task_struct *t;
	bool ret;

	if (!u->pid)
		return true;
	if (mm == current->mm)		/* an mmap, or the filter of a hit */
		return uprobe_wanted(u);
	rcu_read_lock();		/* staprun's registration, for each mm */
	t = pid_task(find_pid_ns(u->pid, &init_pid_ns), PIDTYPE_TGID);
	ret = t && READ_ONCE(t->mm) == mm;
	rcu_read_unlock();
	return ret;
}

#ifdef CTAP_HAVE_UPROBE_FILTER_CTX
static bool uprobe_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
			  struct mm_struct *mm)
#else
static bool uprobe_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#endif
{
	return uprobe_mm_wanted(container_of(uc, struct ctap_uprobe, rt.uc), mm);
}

#ifdef CTAP_HAVE_UPROBE_FILTER_CTX
static bool uprobe_entry_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
				struct mm_struct *mm)
#else
static bool uprobe_entry_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#endif
{
	return uprobe_mm_wanted(container_of(uc, struct ctap_uprobe, rt.entry_uc), mm);
}

static int uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ctap_uprobe *u = container_of(uc, struct ctap_uprobe, rt.uc);

	if (!uprobe_wanted(u))
		return UPROBE_HANDLER_REMOVE;
	if (u->is_return)		/* a .return probe's @entry part */
		uentry_hit(u, regs, regs->sp, instruction_pointer(regs) - u->vaddr);
	else if (u->sdt)
		sdt_hit(u, regs);
	else
		ctap_probe_run(u->probe, regs, NULL, 0);
	return 0;
}

/* A .return probe's entry part after the prologue (entry_offset). */
static int uprobe_entry_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ctap_uprobe *u = container_of(uc, struct ctap_uprobe, rt.entry_uc);
	unsigned long cfa = *(unsigned long *)((char *)regs + u->entry_cfa_reg) + u->entry_cfa_off;

	if (!uprobe_wanted(u))
		return UPROBE_HANDLER_REMOVE;
	/* its link-time address is offset's plus the distance between them */
	uentry_hit(u, regs, cfa - sizeof(long),
		   instruction_pointer(regs) - u->vaddr - (u->entry_offset - u->offset));
	return 0;
}

static int uretprobe_hit(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	struct ctap_uprobe *u = container_of(uc, struct ctap_uprobe, rt.uc);

	if (!uprobe_wanted(u))
		return 0;
	if (uentry_needed(u))
		uentry_return(u, regs);
	else if (u->sdt)
		sdt_hit(u, regs);	/* $return from DWARF */
	else
		ctap_probe_run(u->probe, regs, NULL, 0);
	return 0;
}

/*
 * An absolute probe's file and offset: what process u->pid maps at
 * u->abs_addr now (process context, at arming).  -ESRCH without the
 * process, -EFAULT if no file is mapped there.
 */
static int uprobe_find_absolute(struct ctap_uprobe *u)
{
	struct vm_area_struct *vma;
	struct task_struct *t;
	struct mm_struct *mm;
	int ret = -EFAULT;

	rcu_read_lock();
	t = pid_task(find_vpid(u->pid), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	if (!t)
		return -ESRCH;
	mm = get_task_mm(t);
	put_task_struct(t);
	if (!mm)
		return -ESRCH;
	mmap_read_lock(mm);
	vma = find_vma(mm, u->abs_addr);
	if (vma && vma->vm_start <= u->abs_addr && vma->vm_file) {
		u->offset = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + u->abs_addr - vma->vm_start;
		u->rt.inode = igrab(file_inode(vma->vm_file));
		ret = u->rt.inode ? 0 : -ENOENT;
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return ret;
}

/* The file's inode, held while the probe is registered. */
static int uprobe_find_inode(struct ctap_uprobe *u)
{
	struct path path;
	int ret;

	if (u->abs_addr)
		return uprobe_find_absolute(u);
	ret = kern_path(u->path, LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	u->rt.inode = igrab(d_inode(path.dentry));
	path_put(&path);
	return u->rt.inode ? 0 : -ENOENT;
}

/*
 * The kernel's registration: an error number, or (where it returns the
 * uprobe) the uprobe kept for its unregistration.  Without a semaphore
 * ref_ctr_offset is 0, which both interfaces take as "none".
 */
static int uprobe_attach(struct ctap_uprobe *u)
{
#ifdef CTAP_HAVE_UPROBE_HANDLE
	u->rt.uprobe = uprobe_register(u->rt.inode, u->offset, u->ref_ctr_offset, &u->rt.uc);
	return PTR_ERR_OR_ZERO(u->rt.uprobe);
#else
	return uprobe_register_refctr(u->rt.inode, u->offset, u->ref_ctr_offset, &u->rt.uc);
#endif
}

/* A .return's entry part after the prologue: a uprobe with no semaphore. */
static int uprobe_attach_entry(struct ctap_uprobe *u)
{
#ifdef CTAP_HAVE_UPROBE_HANDLE
	u->rt.entry_uprobe = uprobe_register(u->rt.inode, u->entry_offset, 0, &u->rt.entry_uc);
	return PTR_ERR_OR_ZERO(u->rt.entry_uprobe);
#else
	return uprobe_register_refctr(u->rt.inode, u->entry_offset, 0, &u->rt.entry_uc);
#endif
}

/* Off the entry part after the prologue, if it was attached (its handler
 * set); uprobe_detach_wait() then waits, as for uprobe_detach(). */
static void uprobe_detach_entry(struct ctap_uprobe *u)
{
	if (!u->rt.entry_uc.handler)
		return;
#ifdef CTAP_HAVE_UPROBE_HANDLE
	uprobe_unregister_nosync(u->rt.entry_uprobe, &u->rt.entry_uc);
#else
	uprobe_unregister(u->rt.inode, u->entry_offset, &u->rt.entry_uc);
#endif
}

/* Off the uprobe; uprobe_detach_wait() then waits for running handlers (the
 * older interface waits in each unregistration). */
static void uprobe_detach(struct ctap_uprobe *u)
{
#ifdef CTAP_HAVE_UPROBE_HANDLE
	uprobe_unregister_nosync(u->rt.uprobe, &u->rt.uc);
#else
	uprobe_unregister(u->rt.inode, u->offset, &u->rt.uc);
#endif
	uprobe_detach_entry(u);
}

static void uprobe_detach_wait(void)
{
#ifdef CTAP_HAVE_UPROBE_HANDLE
	uprobe_unregister_sync();
#endif
}

static int uprobe_register_one(struct ctap_uprobe *u)
{
	int ret;

	ret = uprobe_find_inode(u);
	if (ret)
		return ret;
	memset(&u->rt.uc, 0, sizeof(u->rt.uc));
	memset(&u->rt.entry_uc, 0, sizeof(u->rt.entry_uc));
	if (u->is_return)
		u->rt.uc.ret_handler = uretprobe_hit;
	if (u->is_return && u->entry_offset && uentry_needed(u))
		u->rt.entry_uc.handler = uprobe_entry_hit;
	else if (!u->is_return || uentry_needed(u))
		u->rt.uc.handler = u->handler && !u->is_return ? u->handler : uprobe_hit;
	/* process(PID): the kernel plants the breakpoint in that process only */
	if (u->pid) {
		u->rt.uc.filter = uprobe_filter;
		u->rt.entry_uc.filter = uprobe_entry_filter;
	}
	/* The entry part first: a return whose entry was missed is a skip. */
	ret = u->rt.entry_uc.handler ? uprobe_attach_entry(u) : 0;
	if (ret) {
		u->rt.entry_uc.handler = NULL;
	} else {
		/* With a semaphore, the kernel counts it up in every process
		 * that maps the file, now and later, while it is registered. */
		ret = uprobe_attach(u);
		if (ret) {
			uprobe_detach_entry(u);
			uprobe_detach_wait();
		}
	}
	if (ret) {
		iput(u->rt.inode);
		u->rt.inode = NULL;
	}
	return ret;
}

int ctap_uprobes_register(struct ctap_uprobe *ups, int n)
{
	int i, ret;

	ret = uentry_alloc(ups, n);
	if (ret)
		return ret;

	for (i = 0; i < n; i++) {
		if (ctap_arming_interrupted()) {
			ctap_uprobes_unregister(ups, i);
			return -EINTR;
		}
		ret = uprobe_register_one(&ups[i]);
		if (ret) {
			ctap_probe_refused(ups[i].probe, false, "(rc %d)", ret);
			ctap_uprobes_unregister(ups, i);
			return ret;
		}
	}
	return 0;
}

void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n)
{
	for (int i = 0; i < n; i++) {
		if (!ups[i].rt.inode)
			continue;
		uprobe_detach(&ups[i]);
	}
	uprobe_detach_wait();
	for (int i = 0; i < n; i++) {
		iput(ups[i].rt.inode);
		ups[i].rt.inode = NULL;
	}
	/* no handler runs any more (uprobe_unregister() or _sync() waited) */
	kvfree(ue.slots);
	ue.slots = NULL;
}
