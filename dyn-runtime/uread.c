// SPDX-License-Identifier: GPL-2.0
/*
 * uread.c - memory reads that fail instead of crashing: $p->f and
 * user_string() in a handler.
 *
 * As the kernel's copy_from_user: the copy loops are a few
 * instructions of assembly, and the SIGSEGV/SIGBUS handler, finding
 * the faulting rip inside one of them, sends it to that loop's fixup,
 * which returns -EFAULT.  A good read costs what a memcpy costs, with
 * no setjmp or system call on the way (test_dynpatch measures it
 * against process_vm_readv on the process itself).  Faults anywhere
 * else go to the handler that was there before.  A program that puts
 * in its own SIGSEGV handler after ours takes this guard away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "patch_int.h"

HIDDEN int ctapdyn__copy(void *dst, const void *src, size_t n);
HIDDEN long ctapdyn__copy_str(char *dst, const char *src, size_t room);
extern char ctapdyn__copy_start[], ctapdyn__copy_end[], ctapdyn__copy_fixup[] HIDDEN;
extern char ctapdyn__str_start[], ctapdyn__str_end[], ctapdyn__str_fixup[] HIDDEN;

__asm__(
	"	.text\n"
	"	.globl ctapdyn__copy\n"
	"	.hidden ctapdyn__copy\n"
	"	.type ctapdyn__copy,@function\n"
	"ctapdyn__copy:\n"
	"	movq %rdx,%rcx\n"
	"ctapdyn__copy_start:\n"
	"	rep movsb\n"
	"ctapdyn__copy_end:\n"
	"	xorl %eax,%eax\n"
	"	ret\n"
	"ctapdyn__copy_fixup:\n"
	"	movl $-14,%eax\n"	/* -EFAULT */
	"	ret\n"
	"	.size ctapdyn__copy,.-ctapdyn__copy\n"

	/* up to room - 1 bytes and a NUL: the length, or -EFAULT */
	"	.globl ctapdyn__copy_str\n"
	"	.hidden ctapdyn__copy_str\n"
	"	.type ctapdyn__copy_str,@function\n"
	"ctapdyn__copy_str:\n"
	"	xorl %eax,%eax\n"
	"	decq %rdx\n"
	"1:	cmpq %rdx,%rax\n"
	"	jae 2f\n"
	"ctapdyn__str_start:\n"
	"	movzbl (%rsi,%rax),%ecx\n"
	"ctapdyn__str_end:\n"
	"	movb %cl,(%rdi,%rax)\n"
	"	testb %cl,%cl\n"
	"	je 3f\n"
	"	incq %rax\n"
	"	jmp 1b\n"
	"2:	movb $0,(%rdi,%rax)\n"
	"3:	ret\n"
	"ctapdyn__str_fixup:\n"
	"	movb $0,(%rdi)\n"
	"	movq $-14,%rax\n"
	"	ret\n"
	"	.size ctapdyn__copy_str,.-ctapdyn__copy_str\n");

static struct sigaction old_segv, old_bus;

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;

	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, uc);
	else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN)
		sigaction(sig, old, NULL);	/* the fault recurs, as without us */
	else
		old->sa_handler(sig);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	char *ip = (char *)g[REG_RIP];

	if (ip >= ctapdyn__copy_start && ip < ctapdyn__copy_end)
		g[REG_RIP] = (greg_t)ctapdyn__copy_fixup;
	else if (ip >= ctapdyn__str_start && ip < ctapdyn__str_end)
		g[REG_RIP] = (greg_t)ctapdyn__str_fixup;
	else
		return chain(sig, si, ctx);
	__atomic_add_fetch(&ctapdyn__stats.faults, 1, __ATOMIC_RELAXED);
}

static int install_err;

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) || sigaction(SIGBUS, &sa, &old_bus))
		install_err = -errno;
}

/* Once per process: a second install would chain the handler to itself. */
int ctapdyn__fault_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install);
	return install_err;
}

int ctapdyn_read(void *dst, const void *src, size_t n)
{
	ctapdyn__fault_init();	/* the guard is in before the first read */
	return ctapdyn__copy(dst, src, n);
}

long ctapdyn_read_string(char *dst, const char *src, size_t n)
{
	if (!n)
		return -EINVAL;
	ctapdyn__fault_init();	/* the guard is in before the first read */
	return ctapdyn__copy_str(dst, src, n);
}
