// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - -x PID: load the module into a process that already runs,
 * with ptrace, as a debugger calls a function in its inferior.
 *
 * One thread of the process (the main one) is stopped (PTRACE_SEIZE,
 * PTRACE_INTERRUPT) and made to call, on its own stack below the red
 * zone, setenv(CTAP_DYN_SHM, ...) (the segment, named by stapdyn's
 * /proc/PID/fd, since the process has no descriptor of it), dlopen(the
 * module) and unsetenv(); each call returns to address 0, and the fault
 * there hands the thread back with the result in rax.  Its registers are
 * then put back as they were (a system call it was in restarts, as after
 * a debugger's call) and it is let go.  The module's constructor, in
 * that dlopen, maps the segment and puts the probes in (shm.c,
 * uprobes.c) while the other threads run on: the engine's patching
 * protocol (int3 first, then the sweep of threads inside the patched
 * bytes, docs/userspace-patching.md) is the one that makes a running
 * multi-threaded process safe to patch.
 *
 * The functions are found in the process's libc by their offset in this
 * one (the same file: checked by /proc/PID/maps).  Only a process the
 * user may ptrace can be attached; nothing here needs privilege.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "stapdyn.h"

/* The address in process pid of this process's function fn: the same
 * file, mapped at its own base there; 0 if pid does not map it. */
static unsigned long remote_fn(pid_t pid, void *fn)
{
	char maps[64], line[4096 + 128], path[4096];
	unsigned long lo, off, base = 0;
	Dl_info info;
	FILE *f;

	if (!dladdr(fn, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return 0;
	while (!base && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');

		if (!name || sscanf(line, "%lx-%*x %*s %lx", &lo, &off) != 2 || off)
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (!strcmp(name, path))
			base = lo;
	}
	fclose(f);
	return base ? base + ((unsigned long)fn - (unsigned long)info.dli_fbase) : 0;
}

/*
 * Wait for the traced thread's next stop: the signal of a signal-delivery
 * stop, 0 for a ptrace event stop (PTRACE_INTERRUPT's, a group stop), or
 * -errno (-ESRCH: it exited).
 */
static int wait_stop(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, __WALL) != pid)
		return -errno;
	if (!WIFSTOPPED(status))
		return -ESRCH;
	return status >> 16 ? 0 : WSTOPSIG(status);
}

struct call {
	pid_t pid;
	struct user_regs_struct saved;
	unsigned long scratch;		/* strings go here, below the red zone */
};

/* fn(a, b, c) in the stopped thread; its return value, or -errno. */
static long call(struct call *k, unsigned long fn, unsigned long a, unsigned long b,
		 unsigned long c, long *result)
{
	struct user_regs_struct r = k->saved;
	unsigned long sp = (k->scratch - 256) & ~15UL, zero = 0;
	struct iovec local = { &zero, sizeof(zero) }, remote = { (void *)(sp - 8), sizeof(zero) };
	int sig;

	if (process_vm_writev(k->pid, &local, 1, &remote, 1, 0) != sizeof(zero))
		return -errno;
	r.rsp = sp - 8;		/* the return address: 0 */
	r.rip = fn;
	r.rdi = a;
	r.rsi = b;
	r.rdx = c;
	r.rax = 0;
	r.orig_rax = (unsigned long)-1;		/* no system call restart on our way */
	if (ptrace(PTRACE_SETREGS, k->pid, NULL, &r) || ptrace(PTRACE_CONT, k->pid, NULL, NULL))
		return -errno;
	/*
	 * The return to 0 faults: that SIGSEGV ends the call.  Any other
	 * signal goes on to the program (a breakpoint probe's SIGTRAP, a
	 * fault-safe read's SIGSEGV are the engine's, in the program).
	 */
	for (;;) {
		sig = wait_stop(k->pid);
		if (sig < 0)
			return sig;
		if (sig == SIGSEGV) {
			if (ptrace(PTRACE_GETREGS, k->pid, NULL, &r))
				return -errno;
			if (r.rip == 0)
				break;
		}
		if (ptrace(PTRACE_CONT, k->pid, NULL, (void *)(long)sig))
			return -errno;
	}
	*result = (long)r.rax;
	return 0;
}

/* A string into the scratch area; its address there. */
static unsigned long put_string(struct call *k, const char *s)
{
	size_t len = strlen(s) + 1;
	struct iovec local = { (void *)s, len }, remote;

	k->scratch = (k->scratch - len) & ~7UL;
	remote = (struct iovec){ (void *)k->scratch, len };
	return process_vm_writev(k->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? k->scratch : 0;
}

static int load(struct call *k, const char *module, const char *env)
{
	unsigned long f_setenv = remote_fn(k->pid, (void *)setenv);
	unsigned long f_unsetenv = remote_fn(k->pid, (void *)unsetenv);
	unsigned long f_dlopen = remote_fn(k->pid, (void *)dlopen);
	unsigned long name, value, path;
	long r;
	int ret;

	if (!f_setenv || !f_unsetenv || !f_dlopen) {
		fprintf(stderr, "ERROR: process %d does not use this libc (a static program?): "
			"cannot load the module into it\n", (int)k->pid);
		return -ENOEXEC;
	}
	name = put_string(k, CTAP_DYN_ENV);
	value = put_string(k, env);
	path = put_string(k, module);
	if (!name || !value || !path)
		return -EFAULT;
	ret = call(k, f_setenv, name, value, 1, &r);
	if (!ret)
		ret = call(k, f_dlopen, path, RTLD_NOW | RTLD_LOCAL, 0, &r);
	if (!ret && !r) {
		fprintf(stderr, "ERROR: process %d could not load %s\n", (int)k->pid, module);
		ret = -ENOEXEC;
	}
	if (!ret)
		ret = call(k, f_unsetenv, name, 0, 0, &r);
	return ret;
}

int attach_load(pid_t pid, const char *module, int seg_fd, const struct ctap_dyn_shm *shm)
{
	struct call k = { .pid = pid };
	char env[128];
	int ret, sig;

	/* The segment as /proc/STAPDYN/fd/N: a negative FD (shm.c). */
	snprintf(env, sizeof(env), "%d:%lx:%llu:%d", -seg_fd, (unsigned long)shm,
		 (unsigned long long)shm->size, (int)getpid());
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) || ptrace(PTRACE_INTERRUPT, pid, NULL, NULL)) {
		ret = -errno;
		fprintf(stderr, "ERROR: cannot attach to process %d: %s\n", (int)pid, strerror(-ret));
		return ret;
	}
	/* the interrupt's stop; a signal that came first goes on */
	while ((sig = wait_stop(pid)) > 0)
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	if (sig < 0) {
		fprintf(stderr, "ERROR: process %d: %s\n", (int)pid, strerror(-sig));
		return sig;
	}
	ret = ptrace(PTRACE_GETREGS, pid, NULL, &k.saved) ? -errno : 0;
	k.scratch = (k.saved.rsp - 128 - 4096) & ~15UL;
	if (!ret)
		ret = load(&k, module, env);
	if (ptrace(PTRACE_SETREGS, pid, NULL, &k.saved) && !ret)
		ret = -errno;
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	if (ret && ret != -ENOEXEC)
		fprintf(stderr, "ERROR: cannot load the module into process %d: %s\n", (int)pid,
			strerror(-ret));
	return ret;
}
