// SPDX-License-Identifier: GPL-2.0
/*
 * patch.c - putting probes in and taking them out (patch.h), and the
 * dispatch every hit goes through.
 *
 * A jump probe goes live in three steps, each followed by a core sync
 * (text.c), so that a thread never runs a half-written jump: an int3 on
 * the first byte (a thread getting there traps, and trap.c sends it to
 * the trampoline), then the four bytes of rel32, then e9 over the int3.
 * Removal is the same with the original bytes.  Where a jump is unsafe
 * (reloc.c says why) the probe is a breakpoint: trap.c runs the handler
 * in the SIGTRAP handler and the instruction from the trampoline.
 *
 * Probe records are never freed and their ids never reused: a thread
 * trapping on a byte just restored must still find out it was ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "patch_int.h"

__thread struct ctapdyn_thread ctapdyn__thread __attribute__((tls_model("initial-exec")));
struct ctapdyn_stats ctapdyn__stats;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ctapdyn_probe *probes[CTAPDYN_MAX_PROBES];
static int nprobes;	/* read without the lock by trap.c: published with release */

void *ctapdyn__zalloc(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void ctapdyn__zfree(void *p, size_t n)
{
	if (p)
		munmap(p, n ? n : 1);
}

int ctapdyn__read_lines(const char *path, bool (*line)(char *s, void *arg), void *arg)
{
	char buf[4096];
	size_t have = 0;
	bool go = true, skipping = false;
	long n;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (go && (n = syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *s = buf, *nl;

		have += n;
		buf[have] = '\0';
		while (go && (nl = memchr(s, '\n', buf + have - s))) {
			*nl = '\0';
			if (!skipping)
				go = line(s, arg);
			skipping = false;
			s = nl + 1;
		}
		have -= s - buf;
		memmove(buf, s, have);
		if (have == sizeof(buf) - 1) {
			have = 0;	/* a longer line: the rest of it skipped */
			skipping = true;
		}
	}
	if (go && have && !skipping) {	/* a last line without its newline */
		buf[have] = '\0';
		line(buf, arg);
	}
	syscall(SYS_close, fd);
	return 0;
}

/* Every hit: the handler, unless this thread is in a handler already. */
void ctapdyn__dispatch(struct ctapdyn_regs *regs, struct ctapdyn_probe *p)
{
	struct ctapdyn_thread *t = &ctapdyn__thread;

	regs->ip = p->req;
	regs->orig_ax = (uint64_t)-1;
	regs->cs = 0x33;
	regs->ss = 0x2b;
	if (t->busy) {
		__atomic_add_fetch(&p->skipped, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ctapdyn__stats.reentered, 1, __ATOMIC_RELAXED);
		return;
	}
	t->busy = 1;
	if (__builtin_expect(p->ret_handler != NULL, 0))
		ctapdyn__ret_entry(regs, p);
	else
		p->handler(regs, p->data);
	t->busy = 0;
}

/* The newest probe ever put at addr (live or not), without the lock. */
struct ctapdyn_probe *ctapdyn__probe_at(uintptr_t addr)
{
	for (int i = __atomic_load_n(&nprobes, __ATOMIC_ACQUIRE) - 1; i >= 0; i--)
		if (probes[i]->addr == addr)
			return probes[i];
	return NULL;
}

static int init(void)
{
	static int done;
	int ret;

	if (done)
		return 0;
	ctapdyn__cpu_init();
	ret = ctapdyn__trap_init();
	if (!ret)
		ret = ctapdyn__fault_init();
	if (!ret)
		ret = ctapdyn__sweep_init();
	if (!ret)
		done = 1;
	return ret;
}

/* The function around addr: the caller's bounds, or the symbol's. */
static bool find_func(uintptr_t addr, const struct ctapdyn_opts *o, struct ctapdyn_func *f)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (o && o->func) {
		*f = (struct ctapdyn_func){ o->func, o->func_size };
		return addr >= f->start && addr < f->start + f->size;
	}
	if (!dladdr1((void *)addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
	    !info.dli_saddr || !sym->st_size)
		return false;
	*f = (struct ctapdyn_func){ (uintptr_t)info.dli_saddr, sym->st_size };
	return addr < f->start + f->size;
}

/* The original bytes at [at, at + n): live code with our patches undone. */
static void original_bytes(uintptr_t at, size_t n, uint8_t *out)
{
	memcpy(out, (const void *)at, n);
	for (int i = 0; i < nprobes; i++) {
		struct ctapdyn_probe *q = probes[i];
		unsigned int len = q->method == CTAPDYN_JMP ? CTAPDYN_JMP_LEN : 1;

		if (!q->live)
			continue;
		for (unsigned int k = 0; k < len; k++)
			if (q->addr + k >= at && q->addr + k < at + n)
				out[q->addr + k - at] = q->orig[k];
	}
}

/* -EEXIST (a probe at addr), -EBUSY (overlapping patched bytes), or 0. */
static int check_overlap(uintptr_t addr, unsigned int len)
{
	for (int i = 0; i < nprobes; i++) {
		struct ctapdyn_probe *q = probes[i];

		if (!q->live)
			continue;
		if (q->addr == addr)
			return -EEXIST;
		if (q->addr < addr + len && addr < q->addr + q->displaced)
			return -EBUSY;
	}
	return 0;
}

/* Decide jump or breakpoint and how many bytes move: 0 or -errno. */
static int plan(struct ctapdyn_probe *p, const struct ctapdyn_func *f, bool have_f,
		bool force_int3)
{
	size_t n = have_f ? f->size : 15;
	uintptr_t from = have_f ? f->start : p->addr;
	uint8_t *code = ctapdyn__zalloc(n);
	int ret;

	if (!code)
		return -ENOMEM;
	original_bytes(from, n, code);
	ret = ctapdyn__plan(p->addr, have_f ? f : NULL, !force_int3, code,
			    &p->displaced, &p->reason);
	if (!ret && force_int3)
		p->reason = CTAPDYN_R_FORCED;
	p->method = p->reason == CTAPDYN_R_NONE ? CTAPDYN_JMP : CTAPDYN_INT3;
	if (!ret && p->method == CTAPDYN_INT3)
		ret = ctapdyn__plan(p->addr, have_f ? f : NULL, false, code,
				    &p->displaced, &(enum ctapdyn_reason){ 0 });
	if (!ret)
		memcpy(p->orig, code + (p->addr - from), p->displaced);
	ctapdyn__zfree(code, n);
	return ret;
}

/* The trampoline; a jump that cannot move its bytes becomes a breakpoint. */
static int build(struct ctapdyn_probe *p, const struct ctapdyn_func *f, bool have_f)
{
	int ret;

	p->tramp = ctapdyn__tramp_alloc(p->addr);
	if (!p->tramp)
		return -ENOMEM;
	ret = ctapdyn__tramp_fill(p);
	if ((ret == -EOPNOTSUPP || ret == -ERANGE) && p->method == CTAPDYN_JMP) {
		ret = plan(p, f, have_f, true);
		p->reason = CTAPDYN_R_UNRELOCATABLE;
		if (!ret)
			ret = ctapdyn__tramp_fill(p);
	}
	return ret;
}

/*
 * Make p live: int3, (tail, first byte), each step synced; before the
 * tail, threads stopped inside the covered bytes are moved out (sweep.c).
 */
static int install(struct ctapdyn_probe *p)
{
	uint8_t jmp[CTAPDYN_JMP_LEN] = { 0xe9 };
	int32_t rel = (int32_t)((uintptr_t)p->tramp - (p->addr + CTAPDYN_JMP_LEN));
	int ret;

	memcpy(jmp + 1, &rel, 4);
	ret = ctapdyn__text_write(p->addr, &(uint8_t){ 0xcc }, 1);
	ctapdyn__text_sync();
	if (ret || p->method == CTAPDYN_INT3)
		return ret;
	if (ctapdyn__sweep(p)) {	/* stay a breakpoint: it touches no other byte */
		p->method = CTAPDYN_INT3;
		p->reason = CTAPDYN_R_THREADS;
		return 0;
	}
	ret = ctapdyn__text_write(p->addr + 1, jmp + 1, CTAPDYN_JMP_LEN - 1);
	ctapdyn__text_sync();
	if (!ret)
		ret = ctapdyn__text_write(p->addr, jmp, 1);
	ctapdyn__text_sync();
	return ret;
}

/* The original bytes back, in the same order. */
static int uninstall(struct ctapdyn_probe *p)
{
	int ret = ctapdyn__text_write(p->addr, &(uint8_t){ 0xcc }, 1);

	ctapdyn__text_sync();
	if (!ret && p->method == CTAPDYN_JMP) {
		ret = ctapdyn__text_write(p->addr + 1, p->orig + 1, CTAPDYN_JMP_LEN - 1);
		ctapdyn__text_sync();
	}
	if (!ret)
		ret = ctapdyn__text_write(p->addr, p->orig, 1);
	ctapdyn__text_sync();
	return ret;
}

static int insert(void *addr, ctapdyn_handler_t handler, ctapdyn_handler_t ret_handler,
		  void *data, const struct ctapdyn_opts *o)
{
	struct ctapdyn_func f;
	struct ctapdyn_probe *p;
	bool have_f;
	int ret;

	if (!addr || (!handler && !ret_handler) || (o && o->sz < sizeof(*o)))
		return -EINVAL;
	if (nprobes >= CTAPDYN_MAX_PROBES)
		return -ENOSPC;
	ret = init();
	if (ret)
		return ret;
	p = ctapdyn__zalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct ctapdyn_probe){ .addr = (uintptr_t)addr, .req = (uintptr_t)addr,
				     .handler = handler, .ret_handler = ret_handler,
				     .data = data };
	have_f = find_func(p->addr, o, &f);
	if ((!have_f || p->addr == f.start) && ctapdyn__is_endbr64(addr))
		p->addr += 4;	/* IBT: an indirect call must still land on endbr64 */
	p->at_entry = (have_f && p->req == f.start) || ret_handler;
	ret = plan(p, &f, have_f, o && (o->flags & CTAPDYN_F_INT3));
	if (!ret)
		ret = check_overlap(p->addr, p->method == CTAPDYN_JMP ? p->displaced : 1);
	if (!ret)
		ret = build(p, &f, have_f);
	if (ret) {
		ctapdyn__zfree(p, sizeof(*p));
		return ret;
	}
	p->live = true;
	probes[nprobes] = p;
	__atomic_store_n(&nprobes, nprobes + 1, __ATOMIC_RELEASE);
	ret = install(p);
	if (ret) {
		uninstall(p);
		p->live = false;
		return ret;
	}
	return nprobes - 1;
}

int ctapdyn_probe_insert_opts(void *addr, ctapdyn_handler_t handler, void *data,
			      const struct ctapdyn_opts *opts)
{
	int ret;

	pthread_mutex_lock(&lock);
	ret = insert(addr, handler, NULL, data, opts);
	pthread_mutex_unlock(&lock);
	return ret;
}

int ctapdyn_probe_insert(void *addr, ctapdyn_handler_t handler, void *data)
{
	return ctapdyn_probe_insert_opts(addr, handler, data, NULL);
}

int ctapdyn_retprobe_insert_opts(void *addr, ctapdyn_handler_t entry_handler,
				 ctapdyn_handler_t return_handler, void *data,
				 const struct ctapdyn_opts *opts)
{
	struct ctapdyn_func f;
	int ret;

	if (!return_handler || (opts && opts->sz < sizeof(*opts)))
		return -EINVAL;
	pthread_mutex_lock(&lock);
	/* the return address is at 0(%rsp) only at the function's entry */
	if (find_func((uintptr_t)addr, opts, &f) && f.start != (uintptr_t)addr)
		ret = -EINVAL;
	else
		ret = insert(addr, entry_handler, return_handler, data, opts);
	pthread_mutex_unlock(&lock);
	return ret;
}

int ctapdyn_retprobe_insert(void *addr, ctapdyn_handler_t entry_handler,
			    ctapdyn_handler_t return_handler, void *data)
{
	return ctapdyn_retprobe_insert_opts(addr, entry_handler, return_handler, data, NULL);
}

int ctapdyn_probe_remove(int id)
{
	int ret;

	pthread_mutex_lock(&lock);
	if (id < 0 || id >= nprobes || !probes[id]->live) {
		ret = -ENOENT;
	} else {
		ret = uninstall(probes[id]);
		if (!ret)
			probes[id]->live = false;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

int ctapdyn_probe_forget(int id)
{
	int ret = 0;

	pthread_mutex_lock(&lock);
	if (id < 0 || id >= nprobes || !probes[id]->live)
		ret = -ENOENT;
	else
		probes[id]->live = false;	/* its bytes went with the mapping */
	pthread_mutex_unlock(&lock);
	return ret;
}

int ctapdyn_probe_info(int id, struct ctapdyn_probe_info *info)
{
	struct ctapdyn_probe *p;

	if (id < 0 || id >= __atomic_load_n(&nprobes, __ATOMIC_ACQUIRE))
		return -ENOENT;
	p = probes[id];
	*info = (struct ctapdyn_probe_info){
		.method = p->method, .reason = p->reason, .addr = p->addr,
		.displaced = p->displaced, .trampoline = (uintptr_t)p->tramp,
		.at_entry = p->at_entry,
		.skipped = __atomic_load_n(&p->skipped, __ATOMIC_RELAXED),
		.ret_skipped = __atomic_load_n(&p->ret_skipped, __ATOMIC_RELAXED),
	};
	return 0;
}

void ctapdyn_stats(struct ctapdyn_stats *stats)
{
	stats->reentered = __atomic_load_n(&ctapdyn__stats.reentered, __ATOMIC_RELAXED);
	stats->shadow_full = __atomic_load_n(&ctapdyn__stats.shadow_full, __ATOMIC_RELAXED);
	stats->unwound = __atomic_load_n(&ctapdyn__stats.unwound, __ATOMIC_RELAXED);
	stats->faults = __atomic_load_n(&ctapdyn__stats.faults, __ATOMIC_RELAXED);
}

const char *ctapdyn_reason_str(enum ctapdyn_reason reason)
{
	static const char *const names[] = {
		[CTAPDYN_R_NONE] = "a jump",
		[CTAPDYN_R_FORCED] = "a breakpoint was asked for",
		[CTAPDYN_R_NO_FUNC] = "no symbol bounds the function",
		[CTAPDYN_R_TOO_SHORT] = "fewer than 5 bytes to the function's end",
		[CTAPDYN_R_BRANCH_TARGET] = "a branch target in the patched bytes",
		[CTAPDYN_R_INDIRECT_JMP] = "the function jumps through a table",
		[CTAPDYN_R_UNRELOCATABLE] = "an instruction that cannot move",
		[CTAPDYN_R_THREADS] = "a thread that may be inside did not answer",
	};

	if ((unsigned int)reason >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[reason];
}
