// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - process.begin and process.end of --runtime=dyninst, seen from
 * inside each process the module is loaded in (the -c command, and what
 * it forks and execs: the module stays on LD_PRELOAD, shm.c):
 *
 *   begin   when the module is loaded (before main: a new program, the
 *           -c command or an exec), and in the child of each fork
 *           (pthread_atfork), which runs the parent's program
 *   end     at exit() (the module's destructor, the last to run), and at
 *           an exec, before the new program's begin, with its name, as
 *           the kernel runtime reports it: a process that had a begin and
 *           loads the module again has exec'd
 *
 * Which processes had a begin is a table in the shared section (pids,
 * claimed with cmpxchg): it outlives the exec, which this process's own
 * memory does not.  Not seen: a process that ends by a signal or _exit()
 * (no end), a static program or a setuid one (LD_PRELOAD does not reach
 * it), threads.  At each event the probes for a PATH or a PID run before
 * those for every process, as in the kernel runtime.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/stat.h>

#include "ctap_runtime.h"
#include "dyn_internal.h"
#include "probes/tasks.h"

static struct ctap_task_probe *table;
static int ntable;

#define LIVE_PIDS	1024
static s32 live[LIVE_PIDS] CTAP_SHARED;	/* 0: free */

/* Whether pid had a begin that no end closed; forget it if forget. */
static bool live_find(pid_t pid, bool forget)
{
	for (int i = 0; i < LIVE_PIDS; i++) {
		if (__atomic_load_n(&live[i], __ATOMIC_ACQUIRE) != pid)
			continue;
		if (forget)
			__atomic_store_n(&live[i], 0, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}

static void live_add(pid_t pid)
{
	for (int i = 0; i < LIVE_PIDS; i++) {
		s32 free = 0;

		if (__atomic_compare_exchange_n(&live[i], &free, pid, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return;
	}
	/* full: this process's exec will look like a new one (no end) */
}

/* Whether the program this process runs is path. */
static bool runs(const char *path)
{
	struct stat st;

	return !stat(path, &st) && ctap_dyn_program_is(st.st_dev, st.st_ino);
}

/* The probes of event for this process: those for a PATH or PID, then the rest. */
static void dispatch(enum ctap_task_event event)
{
	pid_t pid = getpid();

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ntable; i++) {
			const struct ctap_task_probe *t = &table[i];
			bool specific = t->path || t->pid;

			if (t->event != event || specific != !pass)
				continue;
			if ((t->pid && t->pid != pid) || (t->path && !runs(t->path)))
				continue;
			ctap_probe_run(t->probe, NULL, NULL, 0);
		}
	}
}

static void begin(void)
{
	live_add(getpid());
	dispatch(CTAP_TASK_BEGIN);
}

static void forked(void)
{
	if (ntable)
		begin();
}

__attribute__((destructor)) static void ended(void)
{
	if (ntable && live_find(getpid(), true))
		dispatch(CTAP_TASK_END);
}

void ctap_dyn_tasks_table(struct ctap_task_probe *tps, int n)
{
	table = tps;
	ntable = n;
}

/* A target has mapped the segment (shm.c): an exec's end, then begin. */
void ctap_dyn_tasks_attached(void)
{
	if (!ntable)
		return;
	pthread_atfork(NULL, NULL, forked);
	if (live_find(getpid(), true))
		dispatch(CTAP_TASK_END);
	begin();
}

/* In stapdyn: each PATH is there (a missing one is an error naming it). */
int ctap_tasks_register(struct ctap_task_probe *tps, int n)
{
	for (int i = 0; i < n; i++) {
		if (tps[i].path && access(tps[i].path, F_OK)) {
			int ret = -errno;

			ctap_probe_refused(tps[i].probe, false, "(rc %d)", ret);
			return ret;
		}
	}
	return 0;
}

void ctap_tasks_unregister(struct ctap_task_probe *tps, int n)
{
	(void)tps;
	(void)n;	/* the handlers see the session end */
}
