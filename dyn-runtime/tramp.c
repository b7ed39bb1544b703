// SPDX-License-Identifier: GPL-2.0
/*
 * tramp.c - trampolines: where a probe's jump lands.
 *
 * Each probe gets CTAPDYN_TRAMP_SIZE bytes within +-2 GB of its patched
 * address (so that e9 rel32 reaches it and moved rip-relative operands
 * still reach their data), carved from 64 KB chunks mapped into a free
 * gap of /proc/self/maps next to the text.  The trampoline skips the
 * red zone, pushes its probe and calls the common stub, which saves
 * the registers as a struct ctapdyn_regs, the flags and the vector
 * state (xsave: a handler's memcpy may use AVX and vzeroupper, and at
 * a probed instruction any register may be live), aligns the stack and
 * calls ctapdyn__dispatch(regs, probe); then everything comes back and
 * the moved instructions run, followed by a jump back.  Trampolines are
 * never unmapped: a thread may still be in one after its probe is gone.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "patch_int.h"

#define CHUNK		(64 * 1024)
#define MAX_CHUNKS	256
#define REACH		((int64_t)1 << 31)

/*
 * The stub's vector-state save at an instruction inside a function:
 * xsave (1) or fxsave (0), and the area's size, a 64-byte multiple.
 * Not xsaveopt: its "unmodified since the last xrstor from this
 * address" would trust a stack slot that other code has reused since;
 * not xsavec: its init optimisation measured slower here (170 ns
 * against xsave's 136 with AVX-512 state).
 */
HIDDEN uint64_t ctapdyn__xsave_size = 576;	/* fxsave: 512, and the header the stub zeroes */
HIDDEN uint8_t ctapdyn__have_xsave;
HIDDEN uint8_t ctapdyn__have_avx;	/* ymm registers enabled by the kernel */

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return lo | (uint64_t)hi << 32;
}

void ctapdyn__cpu_init(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	if ((c & bit_AVX) && (xcr0() & 6) == 6)
		ctapdyn__have_avx = 1;
	if (__get_cpuid_count(0xd, 0, &a, &b, &c, &d) && b >= 576) {
		ctapdyn__have_xsave = 1;
		ctapdyn__xsave_size = (b + 63) & ~63u;
	}
}

/*
 * The common stub.  Entered by call from a trampoline: 0(%rsp) returns
 * to it, 8(%rsp) is the probe, then the 128-byte red zone, then the
 * probed code's stack: sp there is %rsp + 144.  struct ctapdyn_regs is
 * 168 bytes at 0(%rbx); the vector state below it, 64-byte aligned.
 */
#define SAVE_GPRS							\
	"	movq %r15,0(%rsp)\n	movq %r14,8(%rsp)\n"		\
	"	movq %r13,16(%rsp)\n	movq %r12,24(%rsp)\n"		\
	"	movq %rbp,32(%rsp)\n	movq %rbx,40(%rsp)\n"		\
	"	movq %r11,48(%rsp)\n	movq %r10,56(%rsp)\n"		\
	"	movq %r9,64(%rsp)\n	movq %r8,72(%rsp)\n"		\
	"	movq %rax,80(%rsp)\n	movq %rcx,88(%rsp)\n"		\
	"	movq %rdx,96(%rsp)\n	movq %rsi,104(%rsp)\n"		\
	"	movq %rdi,112(%rsp)\n"
#define RESTORE_GPRS							\
	"	movq 0(%rsp),%r15\n	movq 8(%rsp),%r14\n"		\
	"	movq 16(%rsp),%r13\n	movq 24(%rsp),%r12\n"		\
	"	movq 32(%rsp),%rbp\n	movq 40(%rsp),%rbx\n"		\
	"	movq 48(%rsp),%r11\n	movq 56(%rsp),%r10\n"		\
	"	movq 64(%rsp),%r9\n	movq 72(%rsp),%r8\n"		\
	"	movq 80(%rsp),%rax\n	movq 88(%rsp),%rcx\n"		\
	"	movq 96(%rsp),%rdx\n	movq 104(%rsp),%rsi\n"		\
	"	movq 112(%rsp),%rdi\n"
/*
 * Once the vectors are saved, their upper halves are cleared
 * (vzeroupper) for the handler: with them dirty, the SSE code a handler
 * is compiled to pays the AVX-SSE transition (measured: 400 ns a hit in
 * place of 40, on this host's CPU); the restore puts them back.  The ABI
 * path saves ymm0-7 only: at an entry or a return ymm8-15 are the
 * caller's to lose anyway.
 */
#define CLEAN_UPPER							\
	"	cmpb $0,ctapdyn__have_avx(%rip)\n"			\
	"	je 2f\n"						\
	"	vzeroupper\n"
/* %rbx = regs; leaves %rsp 64-byte aligned below the saved vector state. */
#define SAVE_VECTORS							\
	"	movq %rsp,%rbx\n"					\
	"	andq $-64,%rsp\n"					\
	"	subq ctapdyn__xsave_size(%rip),%rsp\n"			\
	"	xorl %eax,%eax\n"					\
	"	movq %rax,512(%rsp)\n	movq %rax,520(%rsp)\n"		\
	"	movq %rax,528(%rsp)\n	movq %rax,536(%rsp)\n"		\
	"	movq %rax,544(%rsp)\n	movq %rax,552(%rsp)\n"		\
	"	movq %rax,560(%rsp)\n	movq %rax,568(%rsp)\n"		\
	"	movl $-1,%eax\n	movl $-1,%edx\n"			\
	"	cmpb $0,ctapdyn__have_xsave(%rip)\n"			\
	"	je 1f\n"						\
	"	xsave64 (%rsp)\n"					\
	CLEAN_UPPER							\
	"	jmp 2f\n"						\
	"1:	fxsave64 (%rsp)\n"					\
	"2:	cld\n"
#define RESTORE_VECTORS							\
	"	movl $-1,%eax\n	movl $-1,%edx\n"			\
	"	cmpb $0,ctapdyn__have_xsave(%rip)\n"			\
	"	je 3f\n"						\
	"	xrstor64 (%rsp)\n"					\
	"	jmp 4f\n"						\
	"3:	fxrstor64 (%rsp)\n"					\
	"4:	movq %rbx,%rsp\n"

/*
 * At a function's entry and at its return the ABI leaves only the
 * argument and return registers xmm0-7 live (with their ymm halves for
 * __m256 arguments): those are saved, ymm if the CPU has AVX.  That is
 * 8 stores where xsave costs 80-170 ns (test_dynpatch measures both).
 * An entry probe's trampoline calls the stub for this CPU (no test of
 * ctapdyn__have_avx on a hit); the return trampoline, one for all,
 * tests it.
 */
#define SAVE_YMM							\
	"	movq %rsp,%rbx\n"					\
	"	andq $-64,%rsp\n"					\
	"	subq $256,%rsp\n"					\
	"	vmovdqa %ymm0,0(%rsp)\n	vmovdqa %ymm1,32(%rsp)\n"	\
	"	vmovdqa %ymm2,64(%rsp)\n	vmovdqa %ymm3,96(%rsp)\n"	\
	"	vmovdqa %ymm4,128(%rsp)\n	vmovdqa %ymm5,160(%rsp)\n"	\
	"	vmovdqa %ymm6,192(%rsp)\n	vmovdqa %ymm7,224(%rsp)\n"	\
	"	vzeroupper\n"
#define SAVE_XMM							\
	"	movq %rsp,%rbx\n"					\
	"	andq $-64,%rsp\n"					\
	"	subq $256,%rsp\n"					\
	"	movdqa %xmm0,0(%rsp)\n	movdqa %xmm1,16(%rsp)\n"	\
	"	movdqa %xmm2,32(%rsp)\n	movdqa %xmm3,48(%rsp)\n"	\
	"	movdqa %xmm4,64(%rsp)\n	movdqa %xmm5,80(%rsp)\n"	\
	"	movdqa %xmm6,96(%rsp)\n	movdqa %xmm7,112(%rsp)\n"
#define RESTORE_YMM							\
	"	vmovdqa 0(%rsp),%ymm0\n	vmovdqa 32(%rsp),%ymm1\n"	\
	"	vmovdqa 64(%rsp),%ymm2\n	vmovdqa 96(%rsp),%ymm3\n"	\
	"	vmovdqa 128(%rsp),%ymm4\n	vmovdqa 160(%rsp),%ymm5\n"	\
	"	vmovdqa 192(%rsp),%ymm6\n	vmovdqa 224(%rsp),%ymm7\n"	\
	"	movq %rbx,%rsp\n"
#define RESTORE_XMM							\
	"	movdqa 0(%rsp),%xmm0\n	movdqa 16(%rsp),%xmm1\n"	\
	"	movdqa 32(%rsp),%xmm2\n	movdqa 48(%rsp),%xmm3\n"	\
	"	movdqa 64(%rsp),%xmm4\n	movdqa 80(%rsp),%xmm5\n"	\
	"	movdqa 96(%rsp),%xmm6\n	movdqa 112(%rsp),%xmm7\n"	\
	"	movq %rbx,%rsp\n"
#define SAVE_VECTORS_ABI						\
	"	cmpb $0,ctapdyn__have_avx(%rip)\n"			\
	"	je 1f\n"						\
	SAVE_YMM							\
	"	jmp 2f\n"						\
	"1:\n"								\
	SAVE_XMM							\
	"2:\n"
#define RESTORE_VECTORS_ABI						\
	"	cmpb $0,ctapdyn__have_avx(%rip)\n"			\
	"	je 3f\n"						\
	RESTORE_YMM							\
	"	jmp 4f\n"						\
	"3:\n"								\
	RESTORE_XMM							\
	"4:\n"

/*
 * At an entry the ABI also makes the rest cheaper: the flags are the
 * caller's to lose (saved, for register("flags"), never put back), the
 * direction flag is clear (no cld), and the callee-saved registers are
 * put back by the C the stub calls (only rbx, the stub's own, is
 * restored).  A handler changes only what a guru write may, the
 * argument and return registers, which are restored.
 */
#define RESTORE_GPRS_ABI						\
	"	movq 40(%rsp),%rbx\n"					\
	"	movq 48(%rsp),%r11\n	movq 56(%rsp),%r10\n"		\
	"	movq 64(%rsp),%r9\n	movq 72(%rsp),%r8\n"		\
	"	movq 80(%rsp),%rax\n	movq 88(%rsp),%rcx\n"		\
	"	movq 96(%rsp),%rdx\n	movq 104(%rsp),%rsi\n"		\
	"	movq 112(%rsp),%rdi\n"

/* What a stub puts back: every register and the flags (any instruction),
 * or only what the ABI leaves the callee at a function's entry (above). */
#define BACK_ALL							\
	RESTORE_GPRS							\
	"	pushq 144(%rsp)\n"					\
	"	popfq\n"
#define BACK_ABI RESTORE_GPRS_ABI

/* The stub's body: name, how the vectors are kept, what goes back. */
#define STUB(name, save, restore, back)					\
	"	.globl " name "\n"					\
	"	.hidden " name "\n"					\
	"	.type " name ",@function\n"				\
	name ":\n"							\
	"	leaq -168(%rsp),%rsp\n"				\
	"	pushfq\n"						\
	"	popq 144(%rsp)\n"					\
	SAVE_GPRS							\
	"	leaq 312(%rsp),%rax\n"					\
	"	movq %rax,152(%rsp)\n"					\
	save								\
	"	movq %rbx,%rdi\n"					\
	"	movq 176(%rbx),%rsi\n"					\
	"	call ctapdyn__dispatch\n"				\
	restore								\
	back								\
	"	leaq 168(%rsp),%rsp\n"					\
	"	ret\n"							\
	"	.size " name ",.-" name "\n"

__asm__(
	"	.text\n"
	STUB("ctapdyn__stub", SAVE_VECTORS, RESTORE_VECTORS, BACK_ALL)
	STUB("ctapdyn__stub_ymm", SAVE_YMM, RESTORE_YMM, BACK_ABI)
	STUB("ctapdyn__stub_xmm", SAVE_XMM, RESTORE_XMM, BACK_ABI)

	/*
	 * The return trampoline: a return-probed function returns here
	 * (retprobe.c put its address in the return slot).  sp is then the
	 * entry sp + 8; ctapdyn__ret_dispatch() gives back the real return
	 * address, which goes into the slot pushed first and is returned to.
	 */
	"	.globl ctapdyn__ret_tramp\n"
	"	.hidden ctapdyn__ret_tramp\n"
	"	.type ctapdyn__ret_tramp,@function\n"
	"ctapdyn__ret_tramp:\n"
	"	pushq $0\n"
	"	leaq -168(%rsp),%rsp\n"
	"	pushfq\n"
	"	popq 144(%rsp)\n"
	SAVE_GPRS
	"	leaq 176(%rsp),%rax\n"
	"	movq %rax,152(%rsp)\n"
	SAVE_VECTORS_ABI
	"	movq %rbx,%rdi\n"
	"	call ctapdyn__ret_dispatch\n"
	"	movq %rax,168(%rbx)\n"
	RESTORE_VECTORS_ABI
	RESTORE_GPRS
	"	pushq 144(%rsp)\n"
	"	popfq\n"
	"	leaq 168(%rsp),%rsp\n"
	"	ret\n"
	"	.size ctapdyn__ret_tramp,.-ctapdyn__ret_tramp\n");

extern char ctapdyn__stub[], ctapdyn__stub_ymm[], ctapdyn__stub_xmm[] HIDDEN;

struct chunk {
	uint8_t *base;
	size_t used;
};

static struct chunk chunks[MAX_CHUNKS];
static int nchunks;

static bool reaches(uintptr_t a, uintptr_t b)
{
	int64_t d = (int64_t)(a - b);

	return d > -REACH + CHUNK && d < REACH - CHUNK;
}

struct gap_scan {
	uintptr_t near, best;
	unsigned long prev;
};

/* One line of /proc/self/maps: the gap before its mapping, if nearer. */
static bool gap_line(char *line, void *arg)
{
	struct gap_scan *g = arg;
	unsigned long lo, hi;
	uintptr_t c, near = g->near, best = g->best;

	if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
		return true;
	if (lo >= g->prev + CHUNK) {	/* gap [prev, lo) */
		c = near < g->prev ? g->prev : near + CHUNK > lo ? lo - CHUNK : near;
		c &= ~(uintptr_t)(CHUNK - 1);
		if (c < g->prev)
			c += CHUNK;
		if (c + CHUNK <= lo && reaches(c, near) &&
		    (!best || (c > near ? c - near : near - c) <
			      (best > near ? best - near : near - best)))
			g->best = c;
	}
	if (hi > g->prev)
		g->prev = hi;
	return true;
}

/* The free gap of /proc/self/maps nearest to near: its start, or 0. */
static uintptr_t nearest_gap(uintptr_t near)
{
	struct gap_scan g = { .near = near, .prev = 0x10000 };	/* above mmap_min_addr */

	return ctapdyn__read_lines("/proc/self/maps", gap_line, &g) ? 0 : g.best;
}

static struct chunk *map_chunk(uintptr_t near)
{
	for (int tries = 0; tries < 4 && nchunks < MAX_CHUNKS; tries++) {
		uintptr_t at = nearest_gap(near);
		void *m;

		if (!at)
			return NULL;
		m = mmap((void *)at, CHUNK, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;	/* taken since we read the maps */
		if ((uintptr_t)m != at) {	/* a kernel without NOREPLACE */
			munmap(m, CHUNK);
			return NULL;
		}
		chunks[nchunks] = (struct chunk){ .base = m };
		return &chunks[nchunks++];
	}
	return NULL;
}

/* CTAPDYN_TRAMP_SIZE bytes of executable memory within reach of near. */
uint8_t *ctapdyn__tramp_alloc(uintptr_t near)
{
	struct chunk *c = NULL;

	for (int i = 0; i < nchunks && !c; i++)
		if (reaches((uintptr_t)chunks[i].base, near) &&
		    chunks[i].used + CTAPDYN_TRAMP_SIZE <= CHUNK)
			c = &chunks[i];
	if (!c)
		c = map_chunk(near);
	if (!c)
		return NULL;
	c->used += CTAPDYN_TRAMP_SIZE;
	return c->base + c->used - CTAPDYN_TRAMP_SIZE;
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* Layout of a trampoline (offsets in bytes). */
enum {
	T_PUSH = 5,		/* pushq probe(%rip) */
	T_CALL = 11,		/* call *stub(%rip) */
	T_BACK = 17,		/* leaq 136(%rsp),%rsp */
	T_OOL = 25,		/* the moved instructions, then jmp back */
	T_PROBE = CTAPDYN_TRAMP_SIZE - 16,
	T_STUB = CTAPDYN_TRAMP_SIZE - 8,
};

/*
 * Write p's trampoline (p->tramp allocated, p->orig and p->displaced
 * set): 0, or the -errno of relocation (the probe cannot move these
 * instructions) or of the text write.
 */
int ctapdyn__tramp_fill(struct ctapdyn_probe *p)
{
	static const uint8_t head[T_OOL] = {
		0x48, 0x8d, 0x64, 0x24, 0x80,			/* leaq -128(%rsp),%rsp */
		0xff, 0x35, 0, 0, 0, 0,				/* pushq probe(%rip) */
		0xff, 0x15, 0, 0, 0, 0,				/* call *stub(%rip) */
		0x48, 0x8d, 0xa4, 0x24, 0x88, 0, 0, 0,		/* leaq 136(%rsp),%rsp */
	};
	uint8_t t[CTAPDYN_TRAMP_SIZE];
	uintptr_t at = (uintptr_t)p->tramp, back = p->addr + p->displaced;
	int n;

	memset(t, 0xcc, sizeof(t));
	memcpy(t, head, sizeof(head));
	put32(t + T_PUSH + 2, T_PROBE - T_CALL);
	put32(t + T_CALL + 2, T_STUB - T_BACK);
	n = ctapdyn__relocate(p->orig, p->addr, p->displaced, t + T_OOL, at + T_OOL,
			      T_PROBE - T_OOL - 5, &p->bounds);
	if (n < 0)
		return n;
	t[T_OOL + n] = 0xe9;
	put32(t + T_OOL + n + 1, (int32_t)(back - (at + T_OOL + n + 5)));
	memcpy(t + T_PROBE, &p, 8);
	uintptr_t stub = (uintptr_t)(!p->at_entry ? ctapdyn__stub :
				     ctapdyn__have_avx ? ctapdyn__stub_ymm : ctapdyn__stub_xmm);

	memcpy(t + T_STUB, &stub, 8);
	p->ool = p->tramp + T_OOL;
	return ctapdyn__text_write(at, t, sizeof(t));
}
