/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_platform.h - the kernel's vocabulary, in libc, for the user-space
 * runtime (stap --runtime=dyninst, docs/userspace.md).
 *
 * kmod-runtime/ctap_runtime.h includes this in place of the kernel's
 * headers when CTAP_USERSPACE is defined, so that a script's generated C
 * and the runtime's portable units compile unchanged with the host
 * compiler into a shared object.  What matters here is not the names but
 * the semantics the generated code relies on:
 *  - rwlock_t is process-shared: it lives in the shared segment (shm.c)
 *    and is only ever tried (ctap_probe_run's MAXTRYLOCK loop), never
 *    waited on, so a target process stopped while holding one cannot
 *    hang stapdyn;
 *  - "per-CPU" data is per handler slot: each thread that runs handlers
 *    owns one slot (its context) for the session, so a slot is never
 *    written by two threads at once, in stapdyn or in a target;
 *  - module_init()/module_exit() become the two entry points stapdyn
 *    calls (stapdyn/module.c).
 */
#ifndef CTAP_PLATFORM_H
#define CTAP_PLATFORM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* gettid(), sched_getcpu() of the tapsets' bodies */
#endif
#include <ctype.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>		/* clock_gettime() of the time tapset's bodies */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC_PREREQ) && __GLIBC_PREREQ(2, 38)
#define CTAP_HAVE_STRLCPY	/* else ctap_runtime.h supplies it */
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint64_t cycles_t;

/* ---- compiler words of the kernel's ---- */
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __maybe_unused		__attribute__((unused))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define noinline		__attribute__((noinline))
#define notrace
#define __kprobes
#define __init
#define __exit
#define __percpu
#define NOKPROBE_SYMBOL(f)
#define EXPORT_SYMBOL(f)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define OPTIMIZER_HIDE_VAR(v)	__asm__("" : "=r"(v) : "0"(v))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define ilog2(n)		(63 - __builtin_clzll((unsigned long long)(n) | 1))
#define pr_err(...)		fprintf(stderr, __VA_ARGS__)
#define udelay(us)		usleep(us)	/* the MAXTRYLOCK loop's wait: a thread may sleep */
#define vscnprintf(b, n, f, a)	ctap_vscnprintf(b, n, f, a)
#define S64_MIN			INT64_MIN
#define S64_MAX			INT64_MAX
#define S32_MIN			INT32_MIN
#define S32_MAX			INT32_MAX

static inline int ctap_vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

static inline __printf(3, 4) int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = ctap_vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
#define simple_strtoul(s, end, base)	strtoul((s), (end), (base))
#define simple_strtol(s, end, base)	strtol((s), (end), (base))

/* glibc 2.36 (Debian 12) has neither; the generated code uses both. */
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return (ssize_t)len;
}

static inline size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t d = strnlen(dst, size), s = strlen(src);

	if (d < size) {
		size_t n = s < size - d - 1 ? s : size - d - 1;

		memcpy(dst + d, src, n);
		dst[d + n] = '\0';
	}
	return d + s;
}

/* ---- atomics: GCC's builtins, sequentially consistent ---- */
typedef struct { int counter; } atomic_t;
#define atomic_read(a)			__atomic_load_n(&(a)->counter, __ATOMIC_SEQ_CST)
#define atomic_set(a, v)		__atomic_store_n(&(a)->counter, (v), __ATOMIC_SEQ_CST)
#define atomic_add(n, a)		((void)__atomic_add_fetch(&(a)->counter, (n), __ATOMIC_SEQ_CST))
#define atomic_inc(a)			atomic_add(1, a)
#define atomic_dec(a)			((void)__atomic_sub_fetch(&(a)->counter, 1, __ATOMIC_SEQ_CST))
#define atomic_inc_return(a)		__atomic_add_fetch(&(a)->counter, 1, __ATOMIC_SEQ_CST)
static inline int atomic_cmpxchg(atomic_t *a, int old, int new)
{
	__atomic_compare_exchange_n(&a->counter, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

/* The kernel's counter of one CPU's own (struct ctap_context's busy count,
 * kmod-runtime/entry.h); here a thread's, counted in session.c. */
typedef struct { long counter; } local_t;

/*
 * ---- process-shared reader-writer locks ----
 * One word: -1 written, else the number of readers.  Only tried (the
 * session's MAXTRYLOCK loop sleeps between tries), so they need no wait
 * queue and work in memory shared by processes (shm.c places them).
 */
typedef struct { int state; } rwlock_t;
#define CTAP_SHARED	__attribute__((section("ctap_shared")))
#define DEFINE_RWLOCK(name)	rwlock_t name CTAP_SHARED = { 0 }

static inline bool read_trylock(rwlock_t *l)
{
	int s = __atomic_load_n(&l->state, __ATOMIC_RELAXED);

	return s >= 0 && __atomic_compare_exchange_n(&l->state, &s, s + 1, false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline bool write_trylock(rwlock_t *l)
{
	int s = 0;

	return __atomic_compare_exchange_n(&l->state, &s, -1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void read_unlock(rwlock_t *l)
{
	__atomic_sub_fetch(&l->state, 1, __ATOMIC_RELEASE);
}

static inline void write_unlock(rwlock_t *l)
{
	__atomic_store_n(&l->state, 0, __ATOMIC_RELEASE);
}

/*
 * ---- "per-CPU" data: one slot per thread that runs handlers ----
 * ctap_dyn_slot is the calling thread's (session.c gives each thread one
 * from a counter in the shared segment, so threads of stapdyn and of a
 * target never share one).  Handlers of one slot never overlap, which is
 * all the per-CPU code of stats.c assumes.
 */
#ifndef CTAP_DYN_SLOTS
#define CTAP_DYN_SLOTS	64
#endif
/* initial-exec: one load a hit, not a __tls_get_addr() call (the module
 * is loaded at startup, or by dlopen into glibc's static TLS surplus, as
 * the engine's own thread state) */
extern __thread int ctap_dyn_slot __attribute__((tls_model("initial-exec")));
#define alloc_percpu(t)		((t *)ctap_alloc(sizeof(t) * CTAP_DYN_SLOTS))
#define free_percpu(p)		ctap_free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[cpu])
#define this_cpu_ptr(p)		(&(p)[ctap_dyn_slot])
#define this_cpu_add(x, v)	((void)__atomic_add_fetch(&(&(x))[ctap_dyn_slot], (v), __ATOMIC_RELAXED))
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < CTAP_DYN_SLOTS; (cpu)++)

/* ---- the rest of the kernel's that generated code or tapsets name ---- */
/*
 * The registers at a process probe: the kernel's x86-64 layout, which is
 * the engine's struct ctapdyn_regs (patch.h; uprobes.c checks they stay
 * one), so that the code generated for uprobes reads $vars unchanged.
 */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#define instruction_pointer(regs)	((regs)->ip)
#define regs_return_value(regs)		((regs)->ax)
#define user_mode(regs)			((void)(regs), 1)	/* every probe here is in user space */
struct inode;
#include <sys/types.h>		/* loff_t */
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define __user
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
static inline cycles_t get_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

/* The kernel's, for ctime(): arithmetic, never libc's locked gmtime_r()
 * (calendar.c).  libc's struct tm, whose tm_year is an int. */
typedef int64_t time64_t;
void time64_to_tm(time64_t t, int offset, struct tm *tm);

/*
 * The process a handler runs for: its own, or (ctap_dyn_as set) one that
 * died without running its end, whose process.end stapdyn runs
 * (dyn-runtime/tasks.c): pid(), tid(), ppid(), execname() are its.
 */
struct ctap_dyn_proxy {
	s32 pid, ppid;
	char comm[16];
};
extern __thread const struct ctap_dyn_proxy *ctap_dyn_as __attribute__((tls_model("initial-exec")));
static inline pid_t ctap_dyn_getpid(void)
{
	return ctap_dyn_as ? ctap_dyn_as->pid : getpid();
}
static inline pid_t ctap_dyn_gettid(void)
{
	return ctap_dyn_as ? ctap_dyn_as->pid : gettid();
}
static inline pid_t ctap_dyn_getppid(void)
{
	return ctap_dyn_as ? ctap_dyn_as->ppid : getppid();
}
static inline void ctap_dyn_comm(char comm[16])
{
	if (ctap_dyn_as)
		memcpy(comm, ctap_dyn_as->comm, 16);
	else
		prctl(PR_GET_NAME, comm);	/* 16 bytes, NUL-terminated */
}

/* %m, %M and user_string() of the script: a read that fails is -EFAULT,
 * never a crash of the process the handler runs in (shm.c). */
long ctap_dyn_read_mem(void *dst, const void *src, size_t len);
#define copy_from_kernel_nofault(d, s, n)	ctap_dyn_read_mem((d), (s), (n))

/*
 * module_param_named(): a -G NAME=VALUE global.  Each registers itself
 * when the module is loaded; stapdyn sets them (its NAME=VALUE
 * arguments) before init, as the kernel does for a module's parameters.
 */
struct ctap_dyn_param {
	const char *name;
	void *value;
	bool is_string;			/* charp, else long */
	struct ctap_dyn_param *next;
};
void ctap_dyn_param_register(struct ctap_dyn_param *p);
#define module_param_named(name, var, type, perm)				\
	static struct ctap_dyn_param dyn_param_##name = {			\
		#name, &var, __builtin_types_compatible_p(__typeof__(var), char *) \
	};									\
	__attribute__((constructor)) static void dyn_param_reg_##name(void)	\
	{									\
		ctap_dyn_param_register(&dyn_param_##name);			\
	}

/* The module's two entry points for stapdyn (stapdyn/module.c). */
#define module_init(fn)	int ctap_dyn_module_init(void) { return fn(); }
#define module_exit(fn)	void ctap_dyn_module_exit(void) { fn(); }

#endif /* CTAP_PLATFORM_H */
