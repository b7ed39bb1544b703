// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - process.begin/end and process.thread.begin/end of
 * --runtime=dyninst, seen from inside each process the module is loaded
 * in (the -c command, and what it forks and execs: the module stays on
 * LD_PRELOAD, shm.c):
 *
 *   begin   when the module is loaded (before main: a new program, the
 *           -c command or an exec), and in the child of each fork
 *           (pthread_atfork), which runs the parent's program
 *   end     at exit() (the module's destructor, the last to run), and at
 *           an exec, before the new program's begin, with its name, as
 *           the kernel runtime reports it: a process that had a begin and
 *           loads the module again has exec'd
 *   thread.begin, thread.end
 *           in each thread the program starts with pthread_create(),
 *           which the module, first on LD_PRELOAD, interposes: the
 *           thread runs begin's probes, then its function, then end's
 *           (a cleanup handler: also at pthread_exit() and cancellation).
 *           In a -x process, which has bound its calls before the module
 *           came (by dlopen), an engine probe on libc's pthread_create()
 *           starts the thread at the same function; the threads already
 *           there have their end only, as the kernel runtime reports
 *           them, at libc's __call_tls_dtors() (start_thread() calls it
 *           once the thread's function is done)
 *
 * Which processes had a begin is a table in the shared section (pids,
 * claimed with cmpxchg): it outlives the exec, which this process's own
 * memory does not.  A process that ends by a signal or _exit() runs no
 * destructor: stapdyn runs its end, as it, when the -c command is reaped
 * and before the end probes (ctap_dyn_reap()).  Not seen: a static
 * program or a setuid one (LD_PRELOAD does not reach it), threads made
 * without pthread_create().  At each
 * event the probes for a PATH or a PID run before those for every
 * process, as in the kernel runtime.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include "ctap_runtime.h"
#include "dyn_internal.h"
#include "patch.h"
#include "probes/tasks.h"

static struct ctap_task_probe *table;
static int ntable;

/*
 * A process that had a begin and no end yet, and what its end needs once
 * the process is another program (an exec) or gone: the program it ran,
 * for process("PATH").end.
 */
struct live_proc {
	s32 pid;			/* 0: free; claimed with cmpxchg */
	struct ctap_dyn_proxy as;	/* its pid, parent and name, for an end
					 * stapdyn runs after its death */
	u64 dev, ino;			/* its program: /proc/self/exe */
};

#define LIVE_PIDS	1024
static struct live_proc live[LIVE_PIDS] CTAP_SHARED;

/* pid's entry, copied to *p and freed; false if pid had no begin (or
 * had its end). */
static bool live_take(pid_t pid, struct live_proc *p)
{
	for (int i = 0; i < LIVE_PIDS; i++) {
		if (__atomic_load_n(&live[i].pid, __ATOMIC_ACQUIRE) != pid)
			continue;
		*p = live[i];
		__atomic_store_n(&live[i].pid, 0, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}

static void live_add(pid_t pid)
{
	struct stat st;

	ctap_dyn_quiet(true);	/* the runtime's stat(), not the program's */
	if (stat("/proc/self/exe", &st))
		st.st_dev = st.st_ino = 0;
	ctap_dyn_quiet(false);
	for (int i = 0; i < LIVE_PIDS; i++) {
		s32 free = 0;

		if (!__atomic_compare_exchange_n(&live[i].pid, &free, pid, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		live[i].dev = st.st_dev;
		live[i].ino = st.st_ino;
		live[i].as.pid = pid;
		live[i].as.ppid = getppid();
		prctl(PR_GET_NAME, live[i].as.comm);
		return;
	}
	/* full: this process's exec will look like a new one (no end) */
}

/* Whether the program was path: the one this process runs, or at an end
 * the one it had its begin in (before an exec, the kernel's). */
static bool runs(const char *path, const struct live_proc *was)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	if (was)
		return st.st_dev == was->dev && st.st_ino == was->ino;
	return ctap_dyn_program_is(st.st_dev, st.st_ino);
}

/* The probes of event for this process: those for a PATH or PID, then
 * the rest.  was: the ending process's entry. */
static void dispatch(enum ctap_task_event event, const struct live_proc *was)
{
	pid_t pid = ctap_dyn_getpid();

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ntable; i++) {
			const struct ctap_task_probe *t = &table[i];
			bool specific = t->path || t->pid;

			if (t->event != event || specific != !pass)
				continue;
			if ((t->pid && t->pid != pid) || (t->path && !runs(t->path, was)))
				continue;
			ctap_probe_run(t->probe, NULL, NULL, 0);
		}
	}
}

static void begin(void)
{
	live_add(getpid());
	dispatch(CTAP_TASK_BEGIN, NULL);
}

static void forked(void)
{
	if (ntable)
		begin();
}

__attribute__((destructor)) static void ended(void)
{
	struct live_proc was;

	if (ntable && live_take(getpid(), &was))
		dispatch(CTAP_TASK_END, &was);
}

/* ---- threads: pthread_create() interposed ---- */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static create_fn real_create;
static bool thread_probes;	/* a target, with thread.begin or thread.end probes */

struct thread_start {
	void *(*fn)(void *);
	void *arg;
	int from_pool;		/* 1: start_pool's (claimed), 0: malloc's */
};

/* A thread that runs its probes by thread_begun(): its end is there. */
static __thread bool begun_here __attribute__((tls_model("initial-exec")));

static void thread_ended(void *unused)
{
	(void)unused;
	dispatch(CTAP_TASK_THREAD_END, NULL);
}

static void start_free(struct thread_start *p);

static void *thread_begun(void *p)
{
	struct thread_start start;
	void *ret;

	begun_here = true;
	ctap_dyn_quiet(true);	/* the runtime's free(), not the program's */
	start = *(struct thread_start *)p;
	start_free(p);
	ctap_dyn_quiet(false);
	dispatch(CTAP_TASK_THREAD_BEGIN, NULL);
	pthread_cleanup_push(thread_ended, NULL);
	ret = start.fn(start.arg);
	pthread_cleanup_pop(1);
	return ret;
}

/* libc's: found when a target maps the segment; in stapdyn at its own
 * first thread (timers.c, whose call -Bsymbolic binds here). */
static create_fn find_create(void)
{
	if (!real_create)
		real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	return real_create;
}

/* The program's pthread_create(): its thread runs the thread probes. */
int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct thread_start *start = NULL;
	create_fn create = find_create();
	int ret;

	if (!create)
		return EAGAIN;
	if (thread_probes) {
		ctap_dyn_quiet(true);
		start = malloc(sizeof(*start));
		ctap_dyn_quiet(false);
	}
	if (!start)
		return create(t, attr, fn, arg);
	start->fn = fn;
	start->arg = arg;
	start->from_pool = 0;
	ret = create(t, attr, thread_begun, start);
	if (ret)
		free(start);
	return ret;
}

/*
 * ---- threads of a -x process: libc's pthread_create() probed ----
 * The engine's probe at its entry makes the new thread start at
 * thread_begun() (its function and argument registers changed, which
 * the engine puts back), with a record from a pool: a handler may run
 * in a signal handler (a breakpoint probe), where malloc() may not.  A
 * return probe gives the record back if no thread was made.  Pool full:
 * that thread is not seen.
 */
#define START_POOL	256
static struct thread_start start_pool[START_POOL];
static __thread struct thread_start *creating __attribute__((tls_model("initial-exec")));

static struct thread_start *start_alloc(void)
{
	for (int i = 0; i < START_POOL; i++) {
		int unused = 0;

		if (__atomic_compare_exchange_n(&start_pool[i].from_pool, &unused, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &start_pool[i];
	}
	return NULL;
}

static void start_free(struct thread_start *p)
{
	if (p->from_pool)
		__atomic_store_n(&p->from_pool, 0, __ATOMIC_RELEASE);
	else
		free(p);
}

static void create_entry(struct ctapdyn_regs *r, void *data)
{
	struct thread_start *start = start_alloc();

	(void)data;
	creating = start;
	if (!start)
		return;
	start->fn = (void *(*)(void *))r->dx;
	start->arg = (void *)r->cx;
	r->dx = (uintptr_t)thread_begun;
	r->cx = (uintptr_t)start;
}

static void create_return(struct ctapdyn_regs *r, void *data)
{
	(void)data;
	if (creating && r->ax)	/* no thread: its record back */
		start_free(creating);
	creating = NULL;
}

/* The end of a thread that was there before the module: not the main
 * thread's (process.end is), nor one thread_begun() ends. */
static void tls_dtors(struct ctapdyn_regs *r, void *data)
{
	(void)r;
	(void)data;
	if (!begun_here && ctap_dyn_gettid() != ctap_dyn_getpid())
		dispatch(CTAP_TASK_THREAD_END, NULL);
}

/* The object libc's pthread_create() is in, and whether this module
 * comes before it in the loader's list of objects: what the program's
 * calls look up. */
struct order {
	uintptr_t libc, self;
	int seen;		/* 1: this module first, 2: libc */
};

static int object_order(struct dl_phdr_info *info, size_t size, void *data)
{
	struct order *o = data;

	(void)size;
	if (info->dlpi_addr == o->self)
		o->seen = 1;
	else if (info->dlpi_addr == o->libc)
		o->seen = 2;
	return o->seen;
}

static void *libc_sym(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *p = libc ? dlsym(libc, name) : NULL;

	if (libc)
		dlclose(libc);
	return p;
}

/*
 * Whether the program's pthread_create() is this one: the module came
 * first, on LD_PRELOAD (-c), not by a dlopen() after libc (-x).  Not a
 * dlsym(RTLD_DEFAULT) from here: -Bsymbolic finds this module first.
 */
static bool interposed(void)
{
	void *create = libc_sym("pthread_create");
	struct order o = { 0 };
	Dl_info self, libc;

	if (!create || !dladdr((void *)interposed, &self) || !dladdr(create, &libc))
		return true;	/* no libc to probe: as before */
	o.self = (uintptr_t)self.dli_fbase;
	o.libc = (uintptr_t)libc.dli_fbase;
	dl_iterate_phdr(object_order, &o);
	return o.seen == 1;
}

/* The probes on libc's functions of a -x process; quiet. */
static void follow_libc_threads(void)
{
	void *create = libc_sym("pthread_create");
	void *dtors = libc_sym("__call_tls_dtors");
	int ret;

	ret = create ? ctapdyn_retprobe_insert(create, create_entry, create_return, NULL) :
		       -ENOENT;
	if (ret < 0)
		ctap_oob("WARNING: process.thread.begin: the threads this process makes "
			  "are not followed (libc's pthread_create: rc %d)\n", ret);
	ret = dtors ? ctapdyn_probe_insert(dtors, tls_dtors, NULL) : -ENOENT;
	if (ret < 0)
		ctap_oob("WARNING: process.thread.end: the threads this process had are "
			  "not followed (libc's __call_tls_dtors: rc %d)\n", ret);
}

static bool has_thread_probes(void)
{
	for (int i = 0; i < ntable; i++)
		if (table[i].event == CTAP_TASK_THREAD_BEGIN || table[i].event == CTAP_TASK_THREAD_END)
			return true;
	return false;
}

/* ---- ends stapdyn sees ---- */

__thread const struct ctap_dyn_proxy *ctap_dyn_as;

/* Whether pid is gone: no such process, or a zombie. */
static bool dead(pid_t pid)
{
	char path[32], buf[128], *paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* "pid (comm) S ..." */
	return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/*
 * In stapdyn: the end of each process that had a begin and is gone
 * without its end, killed by a signal or by _exit() (no destructor ran):
 * its process.end probes run here, as that process (pid(), ppid(),
 * execname(): ctap_dyn_as), as the kernel runtime runs them in the dying
 * task.  Called when the -c command is reaped and before the end probes.
 */
void ctap_dyn_reap(void)
{
	for (int i = 0; i < LIVE_PIDS; i++) {
		pid_t pid = __atomic_load_n(&live[i].pid, __ATOMIC_ACQUIRE);
		struct live_proc was;

		if (!pid || !dead(pid) || !live_take(pid, &was))
			continue;
		ctap_dyn_as = &was.as;
		dispatch(CTAP_TASK_END, &was);
		ctap_dyn_as = NULL;
	}
}

void ctap_dyn_tasks_table(struct ctap_task_probe *tps, int n)
{
	table = tps;
	ntable = n;
}

/* A target has mapped the segment (shm.c): an exec's end, then begin. */
void ctap_dyn_tasks_attached(void)
{
	struct live_proc was;

	if (!ntable)
		return;
	ctap_dyn_quiet(true);	/* dlsym()'s allocations are the runtime's */
	thread_probes = has_thread_probes();
	if (thread_probes && !interposed())
		follow_libc_threads();
	thread_probes = thread_probes && find_create();
	ctap_dyn_quiet(false);
	pthread_atfork(NULL, NULL, forked);
	if (live_take(getpid(), &was))
		dispatch(CTAP_TASK_END, &was);	/* an exec */
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
