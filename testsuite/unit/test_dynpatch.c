/*
 * test_dynpatch.c - the user-space runtime's instrumentation engine
 * (dyn-runtime/patch.h) probing this program's own functions: a jump
 * where it is safe, a breakpoint where not (a 3-byte function, a loop
 * head in the patched bytes), moved rip-relative lea/mov, jcc and call,
 * a probe where flags and vector registers are live, return probes on a
 * recursive function and through a longjmp, a handler calling its own
 * probed function, 4 threads calling a function while its probe goes in
 * and out (exact hit counts while it is in), fault-safe reads; each
 * probed function's results unchanged and its bytes back after removal.
 * Prints the cost per hit (ns, and instructions where perf counts them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "patch.h"
#include "unit.h"

/* Functions of known shape, in assembly so no compiler changes them. */
int t_short(int x);		/* endbr64; mov %edi,%eax; ret: 3 bytes */
int t_riprel(int i);		/* lea table(%rip) first: t_table[i] + t_bias */
int t_movrip(int x);		/* mov t_bias(%rip) first: x + t_bias */
int t_loop(int n);		/* a loop head 2 bytes in: n + (n-1) + ... + 1 */
int t_jcc(int x);		/* test; js; x < 0 ? -1 : x + 1 */
int t_call(int x);		/* push; call t_helper: x + 100 */
long t_vec(long x);		/* x in xmm2, doubled there: 2 * x */
long t_mid(long nr);		/* mov; syscall; ret: a thread waits inside the 5 bytes */
long t_multi(long x);		/* lea; inc: 3 * x + 1, two instructions in the 5 bytes */
long t_tail(long x);		/* a tail call: jmp t_tail2 */
long t_tail2(long x);		/* x + 7 */
__asm__(
	"	.text\n"
	"	.globl t_short\n	.type t_short,@function\n"
	"t_short:\n	endbr64\n	movl %edi,%eax\n	ret\n"
	"	.size t_short,.-t_short\n"
	"	.globl t_riprel\n	.type t_riprel,@function\n"
	"t_riprel:\n	endbr64\n	leaq t_table(%rip),%rax\n"
	"	movslq %edi,%rdi\n	movl (%rax,%rdi,4),%eax\n"
	"	addl t_bias(%rip),%eax\n	ret\n"
	"	.size t_riprel,.-t_riprel\n"
	"	.globl t_movrip\n	.type t_movrip,@function\n"
	"t_movrip:\n	endbr64\n	movl t_bias(%rip),%eax\n	addl %edi,%eax\n	ret\n"
	"	.size t_movrip,.-t_movrip\n"
	"	.globl t_loop\n	.type t_loop,@function\n"
	"t_loop:\n	endbr64\n	xorl %eax,%eax\n"
	"1:	addl %edi,%eax\n	decl %edi\n	jg 1b\n	ret\n"
	"	.size t_loop,.-t_loop\n"
	"	.globl t_jcc\n	.type t_jcc,@function\n"
	"t_jcc:\n	endbr64\n	testl %edi,%edi\n"
	"	js 1f\n	leal 1(%rdi),%eax\n	ret\n"
	"1:	movl $-1,%eax\n	ret\n"
	"	.size t_jcc,.-t_jcc\n"
	"	.globl t_call\n	.type t_call,@function\n"
	"t_call:\n	endbr64\n	pushq %rbx\n	call t_helper\n	popq %rbx\n	ret\n"
	"	.size t_call,.-t_call\n"
	"t_helper:\n	leal 100(%rdi),%eax\n	ret\n"
	"	.globl t_vec\n	.type t_vec,@function\n"
	"t_vec:\n	endbr64\n	movq %rdi,%xmm2\n	paddq %xmm2,%xmm2\n"
	"	movq %xmm2,%rax\n	ret\n"
	"	.size t_vec,.-t_vec\n"
	"	.globl t_mid\n	.type t_mid,@function\n"
	"t_mid:\n	endbr64\n	movl %edi,%eax\n	syscall\n	ret\n"
	"	.size t_mid,.-t_mid\n"
	"	.globl t_multi\n	.type t_multi,@function\n"
	"t_multi:\n	endbr64\n	leaq (%rdi,%rdi,2),%rax\n	incq %rax\n	ret\n"
	"	.size t_multi,.-t_multi\n"
	"	.globl t_tail\n	.type t_tail,@function\n"
	"t_tail:\n	endbr64\n	jmp t_tail2\n"
	"	.size t_tail,.-t_tail\n"
	"	.globl t_tail2\n	.type t_tail2,@function\n"
	"t_tail2:\n	endbr64\n	leaq 7(%rdi),%rax\n	ret\n"
	"	.size t_tail2,.-t_tail2\n"
	"	.data\n"
	"t_table:\n	.long 10, 20, 30, 40\n"
	"t_bias:\n	.long 5\n"
	"	.text\n");

struct hits {
	long n;
	uint64_t di, si, dx, cx, r8, r9, ax, ip, sp;
};

static void count(struct ctapdyn_regs *r, void *data)
{
	struct hits *h = data;

	__atomic_add_fetch(&h->n, 1, __ATOMIC_RELAXED);
	h->di = r->di, h->si = r->si, h->dx = r->dx, h->cx = r->cx;
	h->r8 = r->r8, h->r9 = r->r9, h->ax = r->ax, h->ip = r->ip, h->sp = r->sp;
}

/* Clobbers what a compiled handler may: flags, xmm/ymm, then vzeroupper. */
static void clobber(struct ctapdyn_regs *r, void *data)
{
	if (__builtin_cpu_supports("avx2"))
		__asm__ volatile("vpcmpeqd %%ymm0,%%ymm0,%%ymm0\n\tvpcmpeqd %%ymm1,%%ymm1,%%ymm1\n\t"
				 "vpcmpeqd %%ymm2,%%ymm2,%%ymm2\n\tvzeroupper"
				 ::: "xmm0", "xmm1", "xmm2");
	else
		__asm__ volatile("pcmpeqd %%xmm0,%%xmm0\n\tpcmpeqd %%xmm1,%%xmm1\n\t"
				 "pcmpeqd %%xmm2,%%xmm2" ::: "xmm0", "xmm1", "xmm2");
	__asm__ volatile("cmpl $0,%%esp" ::: "cc");
	count(r, data);
}

/* The probe's at_entry: 1 where only the ABI's vector registers are kept. */
static int at_entry(int id)
{
	struct ctapdyn_probe_info info = { .at_entry = -1 };

	ctapdyn_probe_info(id, &info);
	return info.at_entry;
}

/* A probe at fn: id, its method checked against want. */
static int probe(void *fn, ctapdyn_handler_t h, void *data, enum ctapdyn_method want,
		 const char *what)
{
	struct ctapdyn_probe_info info = { 0 };
	int id = ctapdyn_probe_insert(fn, h, data);

	CHECK(id >= 0, "%s: probe in (%d)", what, id);
	if (id >= 0)
		ctapdyn_probe_info(id, &info);
	CHECK(info.method == want, "%s: a %s (%s, %u bytes moved)", what,
	      info.method == CTAPDYN_JMP ? "jump" : "breakpoint",
	      ctapdyn_reason_str(info.reason), info.displaced);
	return id;
}

static void test_shapes(void)
{
	struct hits h = { 0 };
	uint8_t before[16];
	int id;

	memcpy(before, (void *)t_riprel, sizeof(before));
	id = probe(t_riprel, count, &h, CTAPDYN_JMP, "rip-relative lea first");
	CHECK_INT(t_riprel(2), 35, "t_riprel(2) unchanged");
	CHECK_INT(t_riprel(3), 45, "t_riprel(3) unchanged");
	CHECK_INT(h.n, 2, "t_riprel hits");
	CHECK_INT(h.di, 3, "t_riprel: regs->di is the argument");
	CHECK(h.ip == (uintptr_t)t_riprel, "regs->ip is the probed function");
	CHECK(h.sp % 16 == 8, "regs->sp at entry is the caller's sp - 8 (%#lx)",
	      (unsigned long)h.sp);
	CHECK_INT(ctapdyn_probe_insert(t_riprel, count, &h), -EEXIST, "a second probe there");
	CHECK_INT(ctapdyn_probe_remove(id), 0, "t_riprel: probe out");
	CHECK(!memcmp(before, (void *)t_riprel, sizeof(before)), "t_riprel's bytes are back");
	CHECK_INT(t_riprel(1), 25, "t_riprel(1) after");
	CHECK_INT(h.n, 2, "no hit after removal");
	CHECK_INT(ctapdyn_probe_remove(id), -ENOENT, "removing twice");

	h.n = 0;
	id = probe(t_movrip, clobber, &h, CTAPDYN_JMP, "rip-relative mov first");
	CHECK_INT(t_movrip(7), 12, "t_movrip(7) unchanged (handler clobbers flags, ymm)");
	CHECK_INT(h.n, 1, "t_movrip hits");
	ctapdyn_probe_remove(id);

	h.n = 0;
	memcpy(before, (void *)t_short, 8);
	id = probe(t_short, count, &h, CTAPDYN_INT3, "3-byte function");
	CHECK_INT(t_short(41), 41, "t_short(41) unchanged");
	CHECK_INT(t_short(-3), -3, "t_short(-3) unchanged");
	CHECK_INT(h.n, 2, "t_short hits (breakpoint)");
	CHECK_INT(h.di, (uint32_t)-3, "t_short: regs->di");
	ctapdyn_probe_remove(id);
	CHECK(!memcmp(before, (void *)t_short, 8), "t_short's bytes are back");

	h.n = 0;
	id = probe(t_loop, count, &h, CTAPDYN_INT3, "loop head in the patched bytes");
	CHECK_INT(t_loop(4), 10, "t_loop(4) unchanged");
	CHECK_INT(h.n, 1, "t_loop hits");
	ctapdyn_probe_remove(id);

	h.n = 0;
	id = probe((char *)t_jcc + 6, clobber, &h, CTAPDYN_JMP, "statement probe on a js (flags live)");
	CHECK_INT(t_jcc(5), 6, "t_jcc(5) unchanged");
	CHECK_INT(t_jcc(-5), -1, "t_jcc(-5) unchanged (jcc moved, flags kept)");
	CHECK_INT(h.n, 2, "t_jcc hits");
	CHECK_INT(at_entry(id), 0, "a statement probe keeps all vector state");
	ctapdyn_probe_remove(id);

	h.n = 0;
	id = probe((char *)t_vec + 9, clobber, &h, CTAPDYN_JMP, "statement probe, xmm2 live");
	CHECK_INT(t_vec(21), 42, "t_vec(21) unchanged with xmm2 clobbered");
	CHECK_INT(h.n, 1, "t_vec hits");
	ctapdyn_probe_remove(id);

	h.n = 0;
	id = probe(t_call, count, &h, CTAPDYN_JMP, "call in the moved bytes");
	CHECK_INT(t_call(1), 101, "t_call(1) unchanged");
	CHECK_INT(h.n, 1, "t_call hits");
	ctapdyn_probe_remove(id);

	CHECK_INT(ctapdyn_probe_insert((char *)t_riprel + 6, count, &h), -EINVAL,
		  "mid-instruction address refused");
}

__attribute__((noipa)) long args6(long a, long b, long c, long d, long e, long f)
{
	return a + b + c + d + e + f;
}

__attribute__((noipa)) double dmul(double a, double b)
{
	return a * b;
}

static void test_args(void)
{
	struct hits h = { 0 };
	int id = probe(args6, count, &h, CTAPDYN_JMP, "args6");

	CHECK_INT(args6(1, 2, 3, 4, 5, 6), 21, "args6 unchanged");
	CHECK(h.di == 1 && h.si == 2 && h.dx == 3 && h.cx == 4 && h.r8 == 5 && h.r9 == 6,
	      "six arguments from regs (%lu %lu %lu %lu %lu %lu)", (unsigned long)h.di,
	      (unsigned long)h.si, (unsigned long)h.dx, (unsigned long)h.cx,
	      (unsigned long)h.r8, (unsigned long)h.r9);
	ctapdyn_probe_remove(id);

	h.n = 0;
	id = probe(dmul, clobber, &h, CTAPDYN_JMP, "dmul (xmm arguments)");
	CHECK(dmul(1.5, 4.0) == 6.0, "dmul(1.5, 4.0) unchanged with xmm0/xmm1 clobbered");
	CHECK_INT(h.n, 1, "dmul hits");
	CHECK_INT(at_entry(id), 1, "an entry probe keeps the ABI's xmm0-7");
	ctapdyn_probe_remove(id);
}

/* A handler's change of the argument registers reaches the function. */
static void double_args(struct ctapdyn_regs *r, void *data)
{
	(void)data;
	r->di *= 2;
	r->dx *= 2;
	r->cx *= 2;
	r->r9 *= 2;
}

static void test_arg_writes(void)
{
	struct ctapdyn_opts o = { .sz = sizeof(o), .flags = CTAPDYN_F_INT3 };
	int id = probe(args6, double_args, NULL, CTAPDYN_JMP, "args6 (argument writes)");

	CHECK_INT(args6(1, 2, 3, 4, 5, 6), 21 + 1 + 3 + 4 + 6, "a jump probe's argument writes seen");
	ctapdyn_probe_remove(id);
	id = ctapdyn_probe_insert_opts(args6, double_args, NULL, &o);
	CHECK(id >= 0, "args6: a breakpoint probe in (%d)", id);
	CHECK_INT(args6(1, 2, 3, 4, 5, 6), 21 + 1 + 3 + 4 + 6,
		  "a breakpoint probe's argument writes seen");
	ctapdyn_probe_remove(id);
	CHECK_INT(args6(1, 2, 3, 4, 5, 6), 21, "args6 unchanged once the probe is out");
}

static volatile long fib_calls, zero;

/* Real calls: the volatile read after them keeps gcc from making loops. */
__attribute__((noipa)) long fib(long n)
{
	long a, b;

	fib_calls++;
	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	return a + b + zero;
}

static long fib_ref(long n)
{
	return n < 2 ? n : fib_ref(n - 1) + fib_ref(n - 2);
}

struct ret_hits {
	long entries, returns, sum, depth, max_depth;
};

static void fib_entry(struct ctapdyn_regs *r, void *data)
{
	struct ret_hits *h = data;

	h->entries++;
	if (++h->depth > h->max_depth)
		h->max_depth = h->depth;
}

static void fib_return(struct ctapdyn_regs *r, void *data)
{
	struct ret_hits *h = data;

	h->returns++;
	h->sum += (long)r->ax;
	h->depth--;
}

/* The sum of the values all calls of fib(n) return. */
static long fib_sum(long n)
{
	return n < 2 ? n : fib_ref(n) + fib_sum(n - 1) + fib_sum(n - 2);
}

static jmp_buf jb;

__attribute__((noipa)) long dive(long n, int jump)
{
	if (!n) {
		if (jump)
			longjmp(jb, 1);
		return 0;
	}
	return dive(n - 1, jump) + 1 + zero;
}

static void test_retprobes(void)
{
	struct ret_hits h = { 0 }, d = { 0 };
	struct ctapdyn_stats st0, st1;
	int id = ctapdyn_retprobe_insert(fib, fib_entry, fib_return, &h);

	CHECK(id >= 0, "return probe on fib (%d)", id);
	fib_calls = 0;
	CHECK_INT(fib(15), fib_ref(15), "fib(15) unchanged");
	CHECK_INT(h.entries, fib_calls, "entries: one per call");
	CHECK_INT(h.returns, fib_calls, "returns: one per call");
	CHECK_INT(h.sum, fib_sum(15), "the sum of regs->ax at every return");
	CHECK_INT(h.depth, 0, "every entry returned");
	CHECK_INT(h.max_depth, 15, "recursion 15 deep");
	CHECK_INT(ctapdyn_retprobe_insert((char *)fib + 4 + 1, NULL, fib_return, &h), -EINVAL,
		  "a return probe not at a function's entry");
	ctapdyn_probe_remove(id);

	ctapdyn_stats(&st0);
	id = ctapdyn_retprobe_insert(dive, fib_entry, fib_return, &d);
	CHECK(id >= 0, "return probe on dive (%d)", id);
	if (!setjmp(jb))
		dive(10, 1);
	CHECK_INT(d.entries, 11, "dive: 11 entries before the longjmp");
	CHECK_INT(d.returns, 0, "dive: no returns (longjmp)");
	d = (struct ret_hits){ 0 };
	CHECK_INT(dive(3, 0), 3, "dive(3) after a longjmp past probed frames");
	CHECK_INT(d.returns, 4, "dive: 4 returns after");
	ctapdyn_stats(&st1);
	CHECK_INT(st1.unwound - st0.unwound, 11, "11 shadow frames dropped");

	struct ctapdyn_probe_info info;

	d = (struct ret_hits){ 0 };
	CHECK_INT(dive(99, 0), 99, "dive(99): 100 frames, deeper than the shadow stack");
	CHECK_INT(d.entries, 100, "dive: 100 entries");
	CHECK_INT(d.returns, 64, "dive: 64 returns (the shadow stack's depth)");
	ctapdyn_probe_info(id, &info);
	ctapdyn_stats(&st1);
	CHECK_INT(info.ret_skipped, 36, "36 return probes skipped, counted");
	CHECK_INT(st1.shadow_full - st0.shadow_full, 36, "and in the stats");
	ctapdyn_probe_remove(id);

	struct ret_hits a = { 0 }, b = { 0 };
	int ida = ctapdyn_retprobe_insert(t_tail, fib_entry, fib_return, &a);
	int idb = ctapdyn_retprobe_insert(t_tail2, fib_entry, fib_return, &b);

	CHECK(ida >= 0 && idb >= 0, "return probes on t_tail and t_tail2 (%d %d)", ida, idb);
	CHECK_INT(t_tail(5), 12, "t_tail(5), a tail call to t_tail2, unchanged");
	CHECK(a.returns == 1 && b.returns == 1 && a.sum == 12 && b.sum == 12,
	      "both returns ran, with 12 (%ld %ld)", a.returns, b.returns);
	ctapdyn_probe_remove(ida);
	ctapdyn_probe_remove(idb);
}

/* A handler that calls the function it probes: the inner hit is skipped. */
__attribute__((noipa)) int twice(int x)
{
	return 2 * x;
}

static void call_own(struct ctapdyn_regs *r, void *data)
{
	struct hits *h = data;

	h->n++;
	h->ax = twice(21);
}

static void test_reentry(void)
{
	struct ctapdyn_probe_info info;
	struct hits h = { 0 };
	int id = probe(twice, call_own, &h, CTAPDYN_INT3, "twice (4 bytes: a breakpoint)");

	CHECK_INT(twice(4), 8, "twice(4) unchanged");
	CHECK_INT(h.n, 1, "one hit: the handler's own call was skipped");
	CHECK_INT(h.ax, 42, "the handler's call returned");
	ctapdyn_probe_info(id, &info);
	CHECK_INT(info.skipped, 1, "skipped counted");
	ctapdyn_probe_remove(id);
}

/*
 * A thread blocked in pause() inside the 5 bytes a jump covers (its
 * syscall returns to t_mid + 8): the jump goes in, and it comes back
 * to the moved copy of the ret, not to the middle of the jump.
 */
static long mid_ret = 1, mid_tid;

static void wake(int sig)
{
}

static void *mid_thread(void *arg)
{
	__atomic_store_n(&mid_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	__atomic_store_n(&mid_ret, t_mid(SYS_pause), __ATOMIC_RELEASE);
	return NULL;
}

static void test_thread_inside(void)
{
	char path[64], line[256] = "";
	struct hits h = { 0 };
	pthread_t th;
	int id;

	signal(SIGUSR1, wake);
	pthread_create(&th, NULL, mid_thread, NULL);
	for (int i = 0; i < 2000 && strncmp(line, "34 ", 3); i++) {	/* in pause() */
		FILE *f;

		usleep(1000);
		snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall",
			 __atomic_load_n(&mid_tid, __ATOMIC_ACQUIRE));
		f = fopen(path, "r");
		if (f && !fgets(line, sizeof(line), f))
			line[0] = 0;
		if (f)
			fclose(f);
	}
	CHECK(!strncmp(line, "34 ", 3), "a thread waits in pause() inside t_mid's 5 bytes");
	id = probe(t_mid, count, &h, CTAPDYN_JMP, "t_mid, a thread inside");
	pthread_kill(th, SIGUSR1);	/* pause() returns, to t_mid + 8 */
	for (int i = 0; i < 2000 && __atomic_load_n(&mid_ret, __ATOMIC_ACQUIRE) == 1; i++)
		usleep(1000);
	pthread_join(th, NULL);
	CHECK_INT(mid_ret, -EINTR, "it came back from pause() through the moved ret");
	CHECK_INT(t_mid(SYS_getpid), getpid(), "t_mid(SYS_getpid) unchanged");
	CHECK_INT(h.n, 1, "t_mid hits");
	ctapdyn_probe_remove(id);
}

/* Four threads calling work(); the probe goes in and out meanwhile. */
__attribute__((noipa)) long work(long x)
{
	return 3 * x + 1;
}

#define THREADS	4

static struct hits work_hits;
static pthread_barrier_t start, done;
static volatile int phase;	/* 0: call until told, 1: exact count, 2: stop */
static long (*work_fn)(long);	/* 3 * x + 1 */
static long calls[THREADS], bad[THREADS];

static void *worker(void *arg)
{
	long t = (long)arg;

	for (int round = 0; round < 2; round++) {
		pthread_barrier_wait(&start);
		if (round == 0) {	/* free-running while main patches */
			for (long i = 0; __atomic_load_n(&phase, __ATOMIC_ACQUIRE) == 0; i++, calls[t]++)
				bad[t] += work_fn(i) != 3 * i + 1;
		} else {		/* exactly 100000 calls with the probe in */
			for (long i = 0; i < 100000; i++)
				bad[t] += work_fn(i) != 3 * i + 1;
		}
		pthread_barrier_wait(&done);
	}
	return NULL;
}

static void test_threads(long (*fn)(long), unsigned int flags, const char *how)
{
	struct ctapdyn_opts o = { .sz = sizeof(o), .flags = flags };
	pthread_t th[THREADS];
	long total = 0, nbad = 0;
	int id = -1, cycles = 0;

	struct ctapdyn_probe_info info = { 0 };

	work_fn = fn;
	memset(calls, 0, sizeof(calls));
	memset(bad, 0, sizeof(bad));
	work_hits.n = 0;
	phase = 0;
	pthread_barrier_init(&start, NULL, THREADS + 1);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	pthread_barrier_wait(&start);
	for (; cycles < 200; cycles++) {
		id = ctapdyn_probe_insert_opts(fn, count, &work_hits, &o);
		usleep(100);	/* the workers get to the probe */
		if (id < 0 || ctapdyn_probe_remove(id))
			break;
	}
	__atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&done);
	for (int t = 0; t < THREADS; t++)
		total += calls[t], nbad += bad[t];
	CHECK_INT(cycles, 200, "200 inserts and removals while 4 threads call");
	CHECK(work_hits.n > 0 && work_hits.n <= total, "%s: %ld hits of %ld calls while patching",
	      how, work_hits.n, total);

	id = ctapdyn_probe_insert_opts(fn, count, &work_hits, &o);
	ctapdyn_probe_info(id, &info);
	CHECK_INT(info.method, flags & CTAPDYN_F_INT3 ? CTAPDYN_INT3 : CTAPDYN_JMP,
		  "the probe is a jump (1) or a breakpoint (2) as asked");
	work_hits.n = 0;
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&done);
	CHECK_INT(work_hits.n, THREADS * 100000, "exact hits of 4 threads x 100000 calls");
	ctapdyn_probe_remove(id);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL), nbad += bad[t];
	CHECK_INT(nbad, 0, "every work() result right");
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&done);
}

static void test_reads(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	char *none = two + page;	/* a readable page, then an unreadable one */
	char buf[16], src[8] = "abcdefg";
	struct ctapdyn_stats st;

	mprotect(none, page, PROT_NONE);
	CHECK_INT(ctapdyn_read(buf, NULL, 8), -EFAULT, "read of NULL");
	CHECK_INT(ctapdyn_read(buf, none, 1), -EFAULT, "read of a PROT_NONE page");
	CHECK_INT(ctapdyn_read(buf, none - 4, 8), -EFAULT, "read running into it");
	CHECK_INT(ctapdyn_read(buf, src, 8), 0, "read of good memory");
	CHECK_STR(buf, "abcdefg", "its bytes");
	CHECK_INT(ctapdyn_read_string(buf, "hello", sizeof(buf)), 5, "read_string length");
	CHECK_STR(buf, "hello", "read_string bytes");
	CHECK_INT(ctapdyn_read_string(buf, "0123456789abcdefXYZ", sizeof(buf)), 15,
		  "read_string stops at n - 1");
	CHECK_STR(buf, "0123456789abcde", "and terminates");
	memcpy(none - 3, "xyz", 3);	/* a string running into the PROT_NONE page */
	CHECK_INT(ctapdyn_read_string(buf, none - 3, sizeof(buf)), -EFAULT,
		  "read_string into an unmapped page");
	CHECK_INT(ctapdyn_read_string(buf, (char *)8, sizeof(buf)), -EFAULT, "read_string of 8");
	ctapdyn_stats(&st);
	CHECK_INT(st.faults, 5, "faults counted");
	munmap(two, 2 * page);
}

/* Cost per hit: a loop of calls to a one-instruction function, probed or not. */
static volatile long bench_sink;

__attribute__((noipa)) void bench_f(void)
{
	bench_sink++;
}

static long bench_n;

static void bench_inc(struct ctapdyn_regs *r, void *data)
{
	bench_n++;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int insn_counter(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .disabled = 1,
				     .exclude_kernel = 1, .exclude_hv = 1 };

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

/*
 * ns (the fastest of 20 batches: the machine is shared) and instructions
 * (-1: no counter) per call of fn, over n calls in all.
 */
static void measure(void (*fn)(void), long n, int fd, double *ns, double *insns)
{
	long long c = -1;
	double t, best = 1e30;

	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_RESET, 0), ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int b = 0; b < 20; b++) {
		t = now_ns();
		for (long i = 0; i < n / 20; i++)
			fn();
		t = (now_ns() - t) / (n / 20);
		if (t < best)
			best = t;
	}
	*ns = best;
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &c, sizeof(c)) != sizeof(c))
			c = -1;
	}
	*insns = c < 0 ? -1 : (double)c / n;
}

static void bench(void)
{
	const long n = 2000000;
	struct ctapdyn_opts o = { .sz = sizeof(o), .flags = CTAPDYN_F_INT3 };
	double ns0, i0, ns1, i1, ns2, i2, t, rd, vm;
	int fd = insn_counter(), id;
	char buf[64], src[64] = "x";

	measure(bench_f, n, fd, &ns0, &i0);
	id = probe(bench_f, bench_inc, NULL, CTAPDYN_JMP, "bench_f");
	bench_n = 0;
	measure(bench_f, n, fd, &ns1, &i1);
	CHECK_INT(bench_n, n, "bench: every call hit");
	ctapdyn_probe_remove(id);
	id = ctapdyn_probe_insert_opts(bench_f, bench_inc, NULL, &o);
	measure(bench_f, n / 20, fd, &ns2, &i2);
	ctapdyn_probe_remove(id);
	t = now_ns();
	for (long i = 0; i < n; i++) {
		ctapdyn_read(buf, src, 8);
		__asm__ volatile("" ::: "memory");
	}
	rd = (now_ns() - t) / n;
	t = now_ns();
	for (long i = 0; i < n / 10; i++) {
		struct iovec l = { buf, 8 }, r = { src, 8 };

		process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	}
	vm = (now_ns() - t) / (n / 10);
	printf("# cost per hit of n++ (jump): %.1f ns, %.0f instructions (unprobed call %.1f ns, %.0f)\n",
	       ns1 - ns0, i1 < 0 ? -1 : i1 - i0, ns0, i0);
	printf("# cost per hit of n++ (breakpoint): %.0f ns, %.0f user instructions\n",
	       ns2 - ns0, i2 < 0 ? -1 : i2 - i0);
	printf("# 8-byte read: ctapdyn_read %.1f ns, process_vm_readv %.0f ns\n", rd, vm);
	if (fd >= 0)
		close(fd);
}

/*
 * CTAPDYN_BENCH_LOOP=N: only N probed calls in bench_loop() (with
 * CTAPDYN_BENCH_BASE set, unprobed), for
 * valgrind --tool=callgrind --toggle-collect=bench_loop to count the
 * instructions per hit (bench/dynpatch-cost.sh).
 */
__attribute__((noipa)) void bench_loop(long n)
{
	for (long i = 0; i < n; i++)
		bench_f();
}

static int bench_only(long n, bool probed)
{
	int id = probed ? ctapdyn_probe_insert(bench_f, bench_inc, NULL) : -1;

	bench_loop(n);
	if (probed)
		ctapdyn_probe_remove(id);
	printf("# %ld calls, %ld hits\n", n, bench_n);
	return bench_n != (probed ? n : 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("CTAPDYN_BENCH_LOOP"))
		return bench_only(atol(getenv("CTAPDYN_BENCH_LOOP")), !getenv("CTAPDYN_BENCH_BASE"));
	test_reads();
	test_shapes();
	test_args();
	test_arg_writes();
	test_retprobes();
	test_reentry();
	test_thread_inside();
	test_threads(work, 0, "jump");
	test_threads(t_multi, 0, "jump over two instructions (sweep)");
	test_threads(work, CTAPDYN_F_INT3, "breakpoint");
	bench();
	return unit_done();
}
