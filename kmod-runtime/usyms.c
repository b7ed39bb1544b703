// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - user addresses to symbols, and user stacks unwound, from the
 * tables the translator wrote (usyms.h).
 *
 * Nothing here sleeps or spins: the mappings are read under mmap_lock
 * taken by trylock, which a handler cannot release itself (up_read() may
 * wake a waiter, and a handler may run with the runqueue locked), so a
 * per-CPU irq_work releases it once interrupts are back on, as BPF's
 * stack maps do.  While that work is pending, or the lock is taken, an
 * address is printed as hex and a stack is its first frame.  User memory
 * is read with copy_from_user_nofault(): a page not present ends the walk.
 */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/uaccess.h>

#include "usyms.h"

static struct ctap_umod *umods;
static int n_umods;
static bool usyms_on;		/* between register and unregister */

/* A mapping of a file: the module with tables for it, or the file alone. */
struct uloc {
	struct ctap_uloc c;
	struct file *file;
};

struct unlock_work {
	struct irq_work work;
	struct mm_struct *mm;
	bool busy;		/* queued or running (irq_work_is_busy() is not in every kernel) */
};
static DEFINE_PER_CPU(struct unlock_work, unlock_works);

static void unlock_mm_work(struct irq_work *w)
{
	struct unlock_work *u = container_of(w, struct unlock_work, work);
	struct mm_struct *mm = u->mm;

	/* Cleared first: an NMI handler between the two must not think the
	 * lock still held. */
	WRITE_ONCE(u->mm, NULL);
	barrier();
	mmap_read_unlock(mm);
	barrier();
	WRITE_ONCE(u->busy, false);
}

/*
 * The current task's mm, read-locked, or NULL if that cannot be had now.
 * A lock whose release is still pending on this CPU is held until this
 * handler ends (the work runs with interrupts on): a second lookup in the
 * same handler uses it.
 */
static struct mm_struct *lock_mm(void)
{
	struct mm_struct *mm = current->mm;
	struct unlock_work *u = this_cpu_ptr(&unlock_works);

	if (!mm || (current->flags & PF_KTHREAD) || !READ_ONCE(usyms_on))
		return NULL;
	if (READ_ONCE(u->busy))
		return READ_ONCE(u->mm) == mm ? mm : NULL;
	return mmap_read_trylock(mm) ? mm : NULL;
}

static void unlock_mm(struct mm_struct *mm)
{
	struct unlock_work *u = this_cpu_ptr(&unlock_works);

	if (READ_ONCE(u->mm) == mm)
		return;		/* its release is pending already */
	if (!irqs_disabled()) {
		mmap_read_unlock(mm);
		return;
	}
	u->mm = mm;
	WRITE_ONCE(u->busy, true);
	irq_work_queue(&u->work);
}

int ctap_usyms_register(struct ctap_umod *mods, int n)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(unlock_works, cpu).work, unlock_mm_work);
	for (i = 0; i < n; i++) {
		struct path path;

		/* A module not on this system names nothing: not an error,
		 * as a -d library a process never maps is none. */
		if (kern_path(mods[i].path, LOOKUP_FOLLOW, &path))
			continue;
		mods[i].inode = igrab(d_inode(path.dentry));
		path_put(&path);
	}
	umods = mods;
	n_umods = n;
	WRITE_ONCE(usyms_on, true);
	return 0;
}

void ctap_usyms_unregister(struct ctap_umod *mods, int n)
{
	int cpu;

	WRITE_ONCE(usyms_on, false);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu(unlock_works, cpu).work);
	for (int i = 0; i < n; i++) {
		if (mods[i].inode)
			iput(mods[i].inode);
		mods[i].inode = NULL;
	}
}

struct pt_regs *ctap_uregs(struct ctap_context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if (current->flags & PF_KTHREAD)
		return NULL;
	return task_pt_regs(current);
}

/* Where addr is in mm (locked): false if no file mapping holds it. */
static bool find_uloc(struct mm_struct *mm, unsigned long addr, struct uloc *l)
{
	struct vm_area_struct *vma = find_vma(mm, addr), *next;
	struct inode *inode;
	u64 off;
	int i;

	if (!vma || addr < vma->vm_start || !vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	memset(l, 0, sizeof(*l));
	l->file = vma->vm_file;
	l->c.start = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
	/* The file's mappings end where the next mapping is not of it; a
	 * few steps, as a binary maps four or five segments. */
	for (i = 0; i < 8; i++) {
		next = find_vma(mm, vma->vm_end);
		if (!next || next->vm_start != vma->vm_end || !next->vm_file ||
		    file_inode(next->vm_file) != inode)
			break;
		vma = next;
	}
	l->c.size = vma->vm_end - l->c.start;
	off = addr - l->c.start;
	for (i = 0; i < n_umods; i++) {
		if (umods[i].inode != inode)
			continue;
		if (ctap_umod_place(&umods[i], off, &l->c.rel))
			l->c.mod = &umods[i];
		break;
	}
	return true;
}

/*
 * The file's path as d_path() would give it, without its locks: the
 * dentries are walked under RCU and the walk is thrown away if a rename
 * ran meanwhile.  A file on another mount than the task's root is named
 * by its last component (the mount's place is not ours to read).
 */
static void ufile_path(struct file *f, char *buf, size_t size)
{
	struct fs_struct *fs = current->fs;
	struct dentry *d = f->f_path.dentry;
	char *p = buf + size;
	unsigned int seq;
	int depth;

	*--p = '\0';
	rcu_read_lock();
	seq = raw_read_seqcount(&rename_lock.seqcount);
	for (depth = 0; depth < 64 && !IS_ROOT(d); depth++) {
		const char *name = smp_load_acquire(&d->d_name.name);
		u32 len = READ_ONCE(d->d_name.len);

		len = strnlen(name, len);
		if (p - buf < len + 2)
			break;
		p -= len;
		memcpy(p, name, len);
		*--p = '/';
		if (!fs || f->f_path.mnt != READ_ONCE(fs->root.mnt))
			break;	/* the last component only */
		d = READ_ONCE(d->d_parent);
	}
	if ((seq & 1) || read_seqcount_retry(&rename_lock.seqcount, seq) || p == buf + size - 1) {
		d = f->f_path.dentry;
		snprintf(buf, size, "%s", READ_ONCE(d->d_name.name));
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	memmove(buf, p, buf + size - p);
}

/* Warn once a session that a module had no tables, naming it. */
static void warn_missing(struct uloc *l)
{
	static atomic_t warned;
	char path[128];

	if (atomic_xchg(&warned, 1))
		return;
	ufile_path(l->file, path, sizeof(path));
	ctap_oob("WARNING: Missing unwind data for a module, rerun with 'stap -d %s'\n", path);
}

/* The file's path, for the forms that print it (not usymname()'s):
 * a file without tables is named by a walk of its dentries. */
static void set_path(struct uloc *l, enum ctap_usym_form form, char *file, size_t size)
{
	if (l->c.mod) {
		l->c.path = l->c.mod->path;
	} else if (form != CTAP_USYM_NAME) {
		ufile_path(l->file, file, size);
		l->c.path = file;
	}
}

int ctap_usym_print(char *buf, size_t size, unsigned long addr, enum ctap_usym_form form)
{
	struct mm_struct *mm = lock_mm();
	struct uloc l;
	char file[256];
	int ret = -ENOENT;

	if (mm && find_uloc(mm, addr, &l)) {
		set_path(&l, form, file, sizeof(file));
		ctap_uloc_format(buf, size, addr, &l.c, form);
		if (!l.c.mod && form == CTAP_USYM_FRAME)
			warn_missing(&l);
		ret = 0;
	}
	if (mm)
		unlock_mm(mm);
	if (ret == 0 || form == CTAP_USYM_MODULE)
		return ret;
	scnprintf(buf, size, form == CTAP_USYM_FRAME ? " 0x%lx" : "0x%lx", addr);
	return ret;
}

int ctap_umod_addr(unsigned long addr, unsigned long *off)
{
	struct mm_struct *mm = lock_mm();
	struct uloc l;
	int ret = -ENOENT;

	if (mm && find_uloc(mm, addr, &l)) {
		*off = addr - l.c.start;
		ret = 0;
	}
	if (mm)
		unlock_mm(mm);
	return ret;
}

/* size bytes of the task's memory at addr, or false. */
static bool read_user(unsigned long addr, void *v, size_t size)
{
	return !copy_from_user_nofault(v, (const void __user *)addr, size);
}

/*
 * The build id note (NT_GNU_BUILD_ID, "GNU") among the notes at addr, len
 * bytes, as hex into buf; false if there is none.  Notes are 4-aligned;
 * only the first CTAP_NOTES_READ bytes are looked at.
 */
#define CTAP_NOTES_READ	256
#define CTAP_NT_GNU_BUILD_ID	3
static bool buildid_of_notes(unsigned long addr, size_t len, char *buf, size_t size)
{
	u8 notes[CTAP_NOTES_READ];
	size_t at = 0;

	len = min(len, sizeof(notes));
	if (!read_user(addr, notes, len))
		return false;
	while (at + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr *n = (Elf64_Nhdr *)(notes + at);
		size_t name = ALIGN((size_t)n->n_namesz, 4), desc = ALIGN((size_t)n->n_descsz, 4);

		at += sizeof(*n);
		if (name > len - at || desc > len - at - name)
			return false;
		if (n->n_type == CTAP_NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(notes + at, "GNU", 4)) {
			size_t bytes = min_t(size_t, n->n_descsz, (size - 1) / 2);

			*bin2hex(buf, notes + at + name, bytes) = 0;
			return true;
		}
		at += name + desc;
	}
	return false;
}

/* The build id of the ELF file mapped from start (its header there). */
static bool buildid_at(unsigned long start, char *buf, size_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned long base;

	if (!read_user(start, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		return false;
	/* A shared object's (and a PIE's) addresses are from its load address. */
	base = eh.e_type == ET_DYN ? start : 0;
	for (int i = 0; i < min_t(int, eh.e_phnum, 32); i++) {
		if (!read_user(start + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
			return false;
		if (ph.p_type == PT_NOTE &&
		    buildid_of_notes(base + ph.p_vaddr, ph.p_filesz, buf, size))
			return true;
	}
	return false;
}

int ctap_umod_buildid(unsigned long addr, char *buf, size_t size)
{
	struct mm_struct *mm = lock_mm();
	struct uloc l;
	bool found = false;

	if (mm) {
		found = find_uloc(mm, addr, &l);
		unlock_mm(mm);
	}
	/* The notes are read from the task's memory: no lock needed. */
	return found && buildid_at(l.c.start, buf, size) ? 0 : -ENOENT;
}

static bool read_ulong(unsigned long addr, unsigned long *v)
{
	return read_user(addr, v, sizeof(*v));
}

/*
 * One step up the stack: from the frame at ip (a return address unless
 * first) with sp and bp, to its caller's.  False where the walk ends.
 */
static bool unwind_step(struct mm_struct *mm, bool first, unsigned long *ip,
			unsigned long *sp, unsigned long *bp)
{
	struct uloc l;

	if (!find_uloc(mm, *ip, &l))
		return false;
	if (!l.c.mod) {
		warn_missing(&l);
		return false;
	}
	return ctap_uloc_unwind(&l.c, first, read_ulong, ip, sp, bp);
}

int ctap_ustack(struct ctap_context *c, unsigned long *ips, int max)
{
	struct pt_regs *regs = ctap_uregs(c);
	struct mm_struct *mm;
	unsigned long ip, sp, bp;
	int n = 0;

	if (!regs || max <= 0)
		return 0;
	ip = instruction_pointer(regs);
	sp = regs->sp;
	bp = regs->bp;
	ips[n++] = ip;
	mm = lock_mm();
	if (!mm)
		return n;
	while (n < max && unwind_step(mm, n == 1, &ip, &sp, &bp))
		ips[n++] = ip;
	unlock_mm(mm);
	return n;
}
