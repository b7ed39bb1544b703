// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.c - threads stopped inside the bytes a jump is about to cover.
 *
 * A jump probe's 5 bytes may cover several instructions.  A thread
 * preempted after the first of them, or waiting in a system call whose
 * syscall instruction is one of them, would come back into the middle
 * of the jump.  (The kernel's optprobes wait for every task to pass a
 * voluntary schedule for the same reason.)  So after the int3 is in and
 * before the rest is written, every other thread is asked where it is:
 * a thread blocked in a system call answers through
 * /proc/self/task/TID/syscall (its user pc), any other gets a signal
 * (rt_tgsigqueueinfo, SI_QUEUE, a marker in si_uid) whose handler moves
 * it, if it stands on one of the covered instructions after the first,
 * to that instruction's moved copy in the trampoline.  The signal is
 * real-time, SIGRTMAX - 3: a SIGTRAP, as first written, is a standard
 * signal, which does not queue, and merged with a thread's int3 trap
 * pending at the same time (one of the two was lost, and the thread
 * ran on into the int3's following bytes: test_dynpatch's t_multi
 * hung).  Other senders of that signal go to the handler that was there
 * before.  A thread that does not answer within CTAPDYN_SWEEP_MS (the
 * signal blocked, or a debugger holding it) leaves the probe a
 * breakpoint, which touches only the first byte.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "patch_int.h"

#define CTAPDYN_SWEEP_MS	500
#define SWEEP_MARK		0xc7a9d15eu	/* si_uid of our requests */
#define SWEEP_SIG		(SIGRTMAX - 3)

static struct sigaction old_sweep;

static struct {
	struct ctapdyn_probe *p;	/* the jump going in */
	uintptr_t gen;			/* this sweep's number: answers to older ones don't count */
	unsigned long answers;
} req;

static bool covered(const struct ctapdyn_probe *p, uintptr_t pc)
{
	return pc > p->addr && pc < p->addr + p->displaced;
}

struct parked {
	const struct ctapdyn_probe *p;
	bool outside;
};

/* The syscall file's one line: "running", or the call, ..., sp and pc. */
static bool parked_line(char *line, void *arg)
{
	struct parked *k = arg;
	char *last = strrchr(line, ' ');

	if (strncmp(line, "running", 7))
		k->outside = last && !covered(k->p, strtoull(last + 1, NULL, 16));
	return false;
}

/* A thread in a system call resumes at its pc: true if that is outside. */
static bool parked_outside(pid_t tid, const struct ctapdyn_probe *p)
{
	struct parked k = { .p = p };
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	return !ctapdyn__read_lines(path, parked_line, &k) && k.outside;
}

static bool ask(pid_t pid, pid_t tid, uintptr_t gen)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SWEEP_SIG;
	si.si_code = SI_QUEUE;
	si.si_pid = pid;
	si.si_uid = SWEEP_MARK;
	si.si_value.sival_ptr = (void *)gen;
	return !syscall(SYS_rt_tgsigqueueinfo, pid, tid, SWEEP_SIG, &si);
}

static bool wait_answers(unsigned long asked)
{
	struct timespec pause = { 0, 50000 };

	for (int i = 0; i < CTAPDYN_SWEEP_MS * 20; i++) {
		if (__atomic_load_n(&req.answers, __ATOMIC_ACQUIRE) >= asked)
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

/* 0 when no thread is left inside p's covered bytes, or -ETIMEDOUT.
 * The task directory is read with getdents64: opendir() allocates. */
int ctapdyn__sweep(struct ctapdyn_probe *p)
{
	pid_t pid = getpid(), self = (pid_t)syscall(SYS_gettid);
	unsigned long asked = 0;
	char buf[4096] __attribute__((aligned(8)));
	long n;
	int fd;

	if (p->bounds.n <= 1)
		return 0;	/* one instruction: nobody stands inside it */
	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	req.p = p;
	__atomic_store_n(&req.answers, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&req.gen, 1, __ATOMIC_RELEASE);
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n; ) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			pid_t tid = atoi(d->d_name);

			off += d->d_reclen;
			if (tid <= 0 || tid == self || parked_outside(tid, p))
				continue;
			asked += ask(pid, tid, req.gen);	/* ESRCH: it has exited */
		}
	}
	syscall(SYS_close, fd);
	return wait_answers(asked) ? 0 : -ETIMEDOUT;
}

/* A sweep request: move the thread out of the covered bytes, answer. */
static void on_sweep(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	struct ctapdyn_probe *p = req.p;
	uintptr_t pc = (uintptr_t)g[REG_RIP];

	if (si->si_code != SI_QUEUE || si->si_pid != getpid() || si->si_uid != SWEEP_MARK) {
		if (old_sweep.sa_flags & SA_SIGINFO)
			old_sweep.sa_sigaction(sig, si, ctx);
		else if (old_sweep.sa_handler != SIG_IGN && old_sweep.sa_handler != SIG_DFL)
			old_sweep.sa_handler(sig);
		return;	/* under SIG_DFL it would have ended the process: ignored */
	}
	/* moving is right for any sweep's probe: trampolines stay */
	for (unsigned int k = 1; p && covered(p, pc) && k < p->bounds.n; k++)
		if (pc == p->addr + p->bounds.orig[k])
			g[REG_RIP] = (greg_t)(p->ool + p->bounds.moved[k]);
	if ((uintptr_t)si->si_value.sival_ptr == __atomic_load_n(&req.gen, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&req.answers, 1, __ATOMIC_RELEASE);
}

int ctapdyn__sweep_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sweep;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	return sigaction(SWEEP_SIG, &sa, &old_sweep) ? -errno : 0;
}
