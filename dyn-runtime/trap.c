// SPDX-License-Identifier: GPL-2.0
/*
 * trap.c - the SIGTRAP handler: breakpoint probes, and threads that
 * meet the int3 of a jump being put in or taken out.
 *
 * A breakpoint probe's handler runs here, in signal context, on the
 * thread that hit it; then the thread goes on at the probe's moved copy
 * of the instruction (its trampoline), which jumps back after it.  A
 * jump probe's int3 is there only while it is being written: the thread
 * goes to the trampoline as if the jump were complete.  A trap on a byte
 * that is no longer int3 (the probe went away between the trap and this
 * handler) re-runs the restored instruction.  Other SIGTRAPs go to the
 * handler that was there before.  SA_NODEFER: a handler may hit a
 * breakpoint probe itself (it is skipped as reentry, not killed as a
 * trap under a blocked SIGTRAP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "patch_int.h"

static struct sigaction old_trap;

static void regs_from(struct ctapdyn_regs *r, const greg_t *g)
{
	*r = (struct ctapdyn_regs){
		.r15 = g[REG_R15], .r14 = g[REG_R14], .r13 = g[REG_R13], .r12 = g[REG_R12],
		.bp = g[REG_RBP], .bx = g[REG_RBX], .r11 = g[REG_R11], .r10 = g[REG_R10],
		.r9 = g[REG_R9], .r8 = g[REG_R8], .ax = g[REG_RAX], .cx = g[REG_RCX],
		.dx = g[REG_RDX], .si = g[REG_RSI], .di = g[REG_RDI],
		.flags = g[REG_EFL], .sp = g[REG_RSP],
	};
}

/* What a handler may change, as through a jump probe's trampoline: the
 * argument and return registers (a guru write of $var or $return, the
 * runtime's start of a new thread, tasks.c). */
static void regs_to(greg_t *g, const struct ctapdyn_regs *r)
{
	g[REG_RDI] = r->di;
	g[REG_RSI] = r->si;
	g[REG_RDX] = r->dx;
	g[REG_RCX] = r->cx;
	g[REG_R8] = r->r8;
	g[REG_R9] = r->r9;
	g[REG_RAX] = r->ax;
}

/* Not ours: what the process would have done without us. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	if (old_trap.sa_flags & SA_SIGINFO) {
		old_trap.sa_sigaction(sig, si, uc);
	} else if (old_trap.sa_handler == SIG_DFL) {
		sigaction(SIGTRAP, &old_trap, NULL);
		raise(SIGTRAP);
	} else if (old_trap.sa_handler != SIG_IGN) {
		old_trap.sa_handler(sig);
	}
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t at = (uintptr_t)g[REG_RIP] - 1;
	struct ctapdyn_probe *p = ctapdyn__probe_at(at);
	struct ctapdyn_regs regs;

	if (!p) {
		chain(sig, si, ctx);
		return;
	}
	if (*(volatile uint8_t *)at != 0xcc) {
		g[REG_RIP] = at;	/* taken out meanwhile: run what is there now */
		return;
	}
	if (p->method == CTAPDYN_JMP) {
		g[REG_RIP] = (greg_t)p->tramp;	/* the jump, half written */
		return;
	}
	regs_from(&regs, g);
	ctapdyn__dispatch(&regs, p);
	regs_to(g, &regs);
	g[REG_RIP] = (greg_t)p->ool;
}

int ctapdyn__trap_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGTRAP, &sa, &old_trap) ? -errno : 0;
}
