// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - user addresses to symbols, and user stacks unwound, under
 * --runtime=dyninst: kmod-runtime/usyms.h's interface, from the same
 * tables the translator writes (translator/gen/usymtab.c reads each ELF
 * file's symbols, segments and call frame information with elfutils at
 * pass 3: nothing here parses ELF).
 *
 * What the kernel runtime finds in the task's VMAs is read here from
 * /proc/self/maps: the mapping that holds an address, the mappings of the
 * same file that follow it, the file's device and inode (matched to a
 * module's, which each process stats once when the module is loaded) and
 * its path.  A handler cannot allocate (it may run inside malloc) nor
 * wait: the file is read in 512-byte pieces by system calls into a buffer
 * on the stack (the target thread's, which may be small) and parsed as it
 * comes, and each lookup reads it again, as
 * mappings change whenever the program maps or unmaps a file.  Stack
 * memory is read by the engine's fault-safe copy (uread.c): a page not
 * there ends the walk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "ctap_runtime.h"
#include "patch.h"
#include "usyms.h"

/* This process's copy of the module's tables (its constructor's). */
static struct ctap_umod *umods;
static int n_umods;

/* Once a session however many processes look: the shared segment's. */
static int warned CTAP_SHARED;

/*
 * The generated module calls this from a constructor, in stapdyn and in
 * each target, before any probe is armed: the modules' files are stat'ed
 * now, so that no handler makes these calls (a probe on stat() would
 * skip them).  A module not on this system names nothing, as in the
 * kernel runtime.
 */
void ctap_dyn_usyms_table(struct ctap_umod *mods, int n)
{
	for (int i = 0; i < n; i++) {
		struct stat st;

		if (stat(mods[i].path, &st) == 0) {
			mods[i].dev = st.st_dev;
			mods[i].ino = st.st_ino;
		}
	}
	umods = mods;
	n_umods = n;
}

int ctap_usyms_register(struct ctap_umod *mods, int n)
{
	(void)mods;
	(void)n;	/* the constructor has them */
	return 0;
}

void ctap_usyms_unregister(struct ctap_umod *mods, int n)
{
	(void)mods;
	(void)n;
}

struct pt_regs *ctap_uregs(struct ctap_context *c)
{
	return c->regs;		/* every probe with registers is in user space */
}

/* One line of /proc/self/maps, parsed. */
struct umap {
	unsigned long start, end, pgoff;
	dev_t dev;
	ino_t ino;
	const char *path;	/* into the line: "" for an anonymous mapping */
};

/* A mapping of a file: the module with tables for it, or the file alone. */
struct uloc {
	struct ctap_uloc c;
	dev_t dev;
	ino_t ino;
	char path[256];
};

/* "start-end perms pgoff major:minor inode   path", without sscanf():
 * the fields are hex but the inode. */
static bool parse_umap(char *line, struct umap *m)
{
	unsigned long major, minor;
	char *p = line;

	m->start = strtoul(p, &p, 16);
	if (*p++ != '-')
		return false;
	m->end = strtoul(p, &p, 16);
	while (*p == ' ')
		p++;
	while (*p && *p != ' ')
		p++;		/* the permissions */
	m->pgoff = strtoul(p, &p, 16);
	major = strtoul(p, &p, 16);
	if (*p++ != ':')
		return false;
	minor = strtoul(p, &p, 16);
	m->dev = makedev(major, minor);
	m->ino = strtoul(p, &p, 10);
	while (*p == ' ')
		p++;
	m->path = p;
	return true;
}

/* Where the scan of the maps is: looking for addr's mapping, then
 * following the mappings of its file. */
struct scan {
	unsigned long addr;
	struct uloc *l;
	unsigned long end;	/* of the file's last mapping so far */
	int found, more;	/* found: 1 once addr's line is read */
};

/* One line; false when the scan is over. */
static bool scan_line(struct scan *s, char *line)
{
	struct umap m;

	if (!parse_umap(line, &m))
		return !s->found;
	if (!s->found) {
		if (s->addr < m.start || s->addr >= m.end)
			return true;
		if (!m.ino)
			return false;	/* anonymous: no file holds it */
		s->found = 1;
		s->l->c.start = m.start - m.pgoff;
		s->l->dev = m.dev;
		s->l->ino = m.ino;
		strscpy(s->l->path, m.path, sizeof(s->l->path));
		s->end = m.end;
		return true;
	}
	/* The file's mappings end where the next mapping is not of it; a
	 * few steps, as a binary maps four or five segments. */
	if (m.start != s->end || m.ino != s->l->ino || m.dev != s->l->dev || ++s->more > 8)
		return false;
	s->end = m.end;
	return true;
}

static long sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

/*
 * /proc/self/maps is read in pieces this big, on the stack of whatever
 * thread the handler runs in: one of 16 KiB (PTHREAD_STACK_MIN) or a
 * signal stack has a few KiB free (transok/dyninst_small_stack).  A line
 * is some 75 bytes and its path; a longer one is parsed from what fits
 * (the fields and the path's start: struct uloc keeps 255 bytes of it).
 */
#define MAPS_PIECE	512

/* Where addr is in this process: false if no file mapping holds it. */
static bool find_uloc(unsigned long addr, struct uloc *l)
{
	struct scan s = { .addr = addr, .l = l };
	char buf[MAPS_PIECE];
	size_t have = 0;
	bool go = true, rest = false;	/* rest: the end of a line already parsed */
	long n;
	int fd;

	memset(l, 0, sizeof(*l));
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (go && (n = sys_read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *p = buf, *nl;

		have += n;
		buf[have] = '\0';
		while (go && (nl = memchr(p, '\n', buf + have - p))) {
			*nl = '\0';
			if (!rest)
				go = scan_line(&s, p);
			rest = false;
			p = nl + 1;
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (go && have == sizeof(buf) - 1) {
			if (!rest)
				go = scan_line(&s, buf);	/* a long line's start */
			rest = true;
			have = 0;
		}
	}
	syscall(SYS_close, fd);
	if (!s.found)
		return false;
	l->c.size = s.end - l->c.start;
	l->c.path = l->path;
	for (int i = 0; i < n_umods; i++) {
		const struct ctap_umod *m = &umods[i];

		if (!m->ino || m->ino != l->ino || m->dev != l->dev)
			continue;
		if (ctap_umod_place(m, addr - l->c.start, &l->c.rel)) {
			l->c.mod = m;
			l->c.path = m->path;
		}
		break;
	}
	return true;
}

/* Warn once a session that a module had no tables, naming it. */
static void warn_missing(const struct uloc *l)
{
	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		return;
	ctap_oob("WARNING: Missing unwind data for a module, rerun with 'stap -d %s'\n", l->path);
}

int ctap_usym_print(char *buf, size_t size, unsigned long addr, enum ctap_usym_form form)
{
	struct uloc l;

	if (find_uloc(addr, &l)) {
		ctap_uloc_format(buf, size, addr, &l.c, form);
		if (!l.c.mod && form == CTAP_USYM_FRAME)
			warn_missing(&l);
		return 0;
	}
	if (form != CTAP_USYM_MODULE)
		snprintf(buf, size, form == CTAP_USYM_FRAME ? " 0x%lx" : "0x%lx", addr);
	return -ENOENT;
}

int ctap_umod_addr(unsigned long addr, unsigned long *off)
{
	struct uloc l;

	if (!find_uloc(addr, &l))
		return -ENOENT;
	*off = addr - l.c.start;
	return 0;
}

static bool read_ulong(unsigned long addr, unsigned long *v)
{
	return ctapdyn_read(v, (const void *)addr, sizeof(*v)) == 0;
}

/*
 * One step up the stack: from the frame at ip (a return address unless
 * first) with sp and bp, to its caller's.  False where the walk ends.
 */
static bool unwind_step(bool first, unsigned long *ip, unsigned long *sp, unsigned long *bp)
{
	struct uloc l;

	if (!find_uloc(*ip, &l))
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
	unsigned long ip, sp, bp;
	int n = 0;

	if (!regs || max <= 0)
		return 0;
	ip = instruction_pointer(regs);
	sp = regs->sp;
	bp = regs->bp;
	ips[n++] = ip;
	while (n < max && unwind_step(n == 1, &ip, &sp, &bp))
		ips[n++] = ip;
	return n;
}
