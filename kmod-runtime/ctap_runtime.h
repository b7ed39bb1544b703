/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_runtime.h - what a generated ctap module is written against.
 *
 * A module that `stap -p3` emits includes this header, target.h (for
 * $vars) and the headers of the probe families it uses.  It holds:
 *  - the limits a script may override with -D (SystemTap's names and
 *    defaults, see docs/runtime.md);
 *  - struct ctap_context, one per CPU, that probe handlers run in: the
 *    error state, the action budget, the call depth and the print buffer.
 *    The generated struct context embeds it first and adds the locals of
 *    every probe and function;
 *  - struct ctap_probe, one per concrete probe, and ctap_probe_run(), the
 *    common entry of every handler (reentrancy, session state, locks,
 *    error reporting, output flushing);
 *  - small inline helpers the generated expressions call.
 *
 * The session (kmod-runtime/session.c) ties it to the transport: start
 * runs the begin probes and arms the others, stop disarms them and runs the
 * end (or error) probes.  Probe families register through
 * kmod-runtime/probes/ (one file each).
 */
#ifndef CTAP_RUNTIME_H
#define CTAP_RUNTIME_H

#ifdef CTAP_USERSPACE
/*
 * stap --runtime=dyninst: the same generated C against libc.  The one
 * place the kernel's headers are swapped for dyn-runtime/'s stand-ins
 * (rwlock_t, per-CPU slots, module_init, ...), found on -I.
 */
#include <ctap_platform.h>
#else
#include "ctap_kheaders.h"
#include "ctap_kernel.h"	/* CTAP_HAVE_*: written by stap -p4 (translator/kernel/kfeatures.c) */
/* Memory shared with traced processes: in a module, ordinary memory. */
#define CTAP_SHARED
#endif
#include "core/ctap_limits.h"
#include "core/portable.h"
#include "core/outbuf.h"
#include "core/stat.h"
#include "core/json.h"
#include "core/format.h"
#include "core/map.h"
#include "core/regex_match.h"
#include "core/softfloat.h"
#include "core/quote.h"
#include "transport.h"

#ifndef CTAP_HAVE_STRLCPY
/*
 * The kernel dropped strlcpy() for strscpy(); tapsets and guru-mode
 * scripts written for SystemTap still call it (SystemTap's runtime also
 * supplies it).  Its contract: copy what fits, NUL-terminated, and return
 * strlen(src).
 */
static inline size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#endif

/* ---- limits: -D NAME=VALUE overrides each ---- */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN	CTAP_MAXSTRINGLEN_DEFAULT	/* ctap_limits.h */
#endif
#ifndef MAXACTION
#define MAXACTION	CTAP_MAXACTION_DEFAULT	/* ctap_limits.h */
#endif
/* begin, end and error probes run in process context with interrupts
 * on: ten times the budget, as SystemTap gives them. */
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE	(MAXACTION * 10)
#endif
#ifndef MAXNESTING
#define MAXNESTING	10
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES	CTAP_MAXMAPENTRIES_DEFAULT
#endif
#if MAXMAPENTRIES < 1 || MAXMAPENTRIES > CTAP_MAP_MAX_ENTRIES
#error "MAXMAPENTRIES must be 1 to CTAP_MAP_MAX_ENTRIES (1048576)"
#endif
#ifndef MAXERRORS
#define MAXERRORS	0
#endif
/* stap -t and stap --monitor both time each probe (session.c). */
#if defined(STP_TIMING) || defined(CTAP_MONITOR)
#define CTAP_TIMED 1
#endif

#ifndef MAXSKIPPED
#define MAXSKIPPED	100
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK	100
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY	10	/* microseconds between lock attempts */
#endif
/* Overload: a CPU spending more than THRESHOLD of each INTERVAL cycles in
 * handlers stops the session (-DSTP_NO_OVERLOAD turns the check off). */
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL	1000000000LL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD	500000000LL
#endif
/* The output buffer: sub-buffers of relay (per CPU with -b); staprun -s
 * sets the size in MB instead. */
#ifndef CTAP_SUBBUF_SIZE
#define CTAP_SUBBUF_SIZE	65536
#endif
#ifndef CTAP_N_SUBBUFS
#define CTAP_N_SUBBUFS	8
#endif
/* Per-CPU output of one handler, flushed to the transport when it ends
 * (or earlier, when a print would not fit). */
#ifndef CTAP_PRINTBUF
#define CTAP_PRINTBUF	32768
#endif

enum ctap_probe_kind {
	CTAP_PROBE_BEGIN,	/* runs while the session starts */
	CTAP_PROBE_END,		/* ... while it stops without errors */
	CTAP_PROBE_ERROR,	/* ... while it stops after errors */
	CTAP_PROBE_EVENT,	/* kprobes, timers: while it runs */
};

/*
 * ctap_probe.family: the kind of low-level handler that runs the probe, as
 * SystemTap counts them, set by the provider in translator/probes/ that
 * made the probe: probe_type() names it ("kprobe", "timer": a .return of
 * KPROBE and UPROBE is "kretprobe", "uretprobe"; context_probe.stp), and
 * the tapset functions whose answer depends on it ask it (probemod(),
 * set_int_arg() on SYSCALLS).  BEGIN_END is 0: the probes the translator
 * adds to the session's own begin and end (autoprint, --merge) say none.
 */
enum ctap_probe_family {
	CTAP_FAMILY_BEGIN_END,	/* begin, end, error, init, never */
	CTAP_FAMILY_TIMER,	/* timer.jiffies */
	CTAP_FAMILY_HRTIMER,	/* the other intervals: timer.ms... */
	CTAP_FAMILY_PERF,	/* perf.*, and timer.profile */
	CTAP_FAMILY_PROCFS,
	CTAP_FAMILY_KPROBE,	/* kernel.function, kprobe.*, kernel.statement */
	CTAP_FAMILY_UPROBE,	/* process(...).function, .statement, .mark, .plt */
	CTAP_FAMILY_TRACEPOINT,	/* kernel.trace */
	CTAP_FAMILY_SYSCALLS,	/* kernel.syscall, kernel.compat_syscall */
	CTAP_FAMILY_TASKS,	/* process[(...)].begin/end, .thread.begin/end */
	CTAP_FAMILY_TASK_SYSCALLS, /* process[(...)].syscall[.return] */
	CTAP_FAMILY_WATCHPOINT,	/* kernel.data */
	CTAP_FAMILY_NETFILTER,
	CTAP_NFAMILIES
};

/* ctap_probe.type, for is_return() */
#define CTAP_PROBE_ENTRY	0
#define CTAP_PROBE_RETURN	1

struct ctap_context;

/* A global's lock, taken by a handler for reading or writing. */
struct ctap_lock {
	rwlock_t *lock;
	bool write;
};

/* One concrete probe: what ctap_probe_run needs to run its handler. */
struct ctap_probe {
	const char *pp;			/* kernel.function("vfs_read") */
	const char *pn;			/* the alias it came through (pn()), or NULL */
	const char *function;		/* its symbol, or NULL */
	enum ctap_probe_kind kind;
	enum ctap_probe_family family;
	int type;			/* CTAP_PROBE_ENTRY / RETURN */
	int64_t order;			/* begin(N): lower first */
	void (*handler)(struct ctap_context *c);
	const struct ctap_lock *locks;	/* in the one global order */
	int nlocks;
	/* Where this probe passes its handler's $vars, when the probes of
	 * one handler pass them at different argument positions. */
	const unsigned char *args_of;
	/* Runs for no task in particular (an interval timer, a procfs
	 * file): stap --cgroup does not filter it (scope.h). */
	bool any_task;
	/* stap -t (STP_TIMING) and --monitor: 1 + its row of the probe hit
	 * report (its index in monitor_status), 0 if it has none; where the
	 * probe is (x.stp:3:1), what it came from. */
	int timing;
	const char *location;
	const char *derivation;
};

#define CTAP_CALLED	8	/* calls an error report names */

struct ctap_context {
	local_t busy;			/* in a handler: entry.h */
	/* The probe that runs, for pp(), ppfunc(), is_return(): */
	const struct ctap_probe *probe;
	struct pt_regs *regs;		/* NULL for begin/end/timers */
	unsigned long probe_addr;	/* a .return probe's function, or 0 */
	/* The probe's arguments when registers do not hold them: a .return
	 * probe's as saved at entry, a tracepoint's as passed to it. */
	const unsigned long *args;
	int nargs;
	/* Soft errors: the message, and where it happened ("operator '/'
	 * at x.stp:4:12").  A set last_error unwinds the handler. */
	const char *last_error;
	const char *last_stmt;
	/* The script-function calls the error unwound through, innermost
	 * first ("function f, called from x.stp:3:20"), the first CTAP_CALLED
	 * of ncalled; written only on the error path. */
	const char *called[CTAP_CALLED];
	int ncalled;
	char error_buf[MAXSTRINGLEN];
	char quote_buf[MAXSTRINGLEN];	/* user_buffer_quoted()'s bytes */
	/* tokenize(): the string being split, and where the rest starts
	 * (NULL when done); kept from one call to the next, as SystemTap. */
	char tok_str[MAXSTRINGLEN];
	char *tok_rest;
	long actions;			/* statements left (MAXACTION) */
	int nesting;			/* function call depth */
	u64 cycles_base, cycles_sum;	/* overload: this interval, time in handlers */
	struct ctap_out out;
	/* stap --json: statements printing now (nested calls), and where the
	 * text of the outermost one starts in out. */
	int json_depth;
	size_t json_start;
	char printbuf[CTAP_PRINTBUF];
};

/* CONTEXT in tapsets' embedded C. */
#define CONTEXT	c

/**
 * ctap_probe_run - run one probe's handler on this CPU
 * @p: the probe
 * @regs: the registers at the probe point, or NULL
 * @args: its arguments for $vars when @regs does not hold them (a .return
 *	  probe's saved at entry, a tracepoint's), or NULL
 * @nargs: how many
 * @addr: a .return probe's function (print_backtrace() names it), or 0
 *
 * Skips (and counts) the hit if the session is not in the probe's state,
 * this CPU is already in a handler, or a global's lock cannot be had
 * within MAXTRYLOCK tries.  Reports an uncaught soft error, and stops the
 * session after MAXERRORS of them or MAXSKIPPED skips.  Any context.
 */
void ctap_probe_run_at(const struct ctap_probe *p, struct pt_regs *regs,
		       const unsigned long *args, int nargs, unsigned long addr);

/* ctap_probe_run_at() where the registers say where the probe is: all but
 * .return probes, whose @addr is the function returned from. */
static inline void ctap_probe_run(const struct ctap_probe *p, struct pt_regs *regs,
				  const unsigned long *args, int nargs)
{
	ctap_probe_run_at(p, regs, args, nargs, 0);
}

/* ---- soft errors ---- */

/* Set the handler's error (printf-style); the handler unwinds. */
__printf(2, 3) void ctap_soft_error(struct ctap_context *c, const char *fmt, ...);

static inline void ctap_error(struct ctap_context *c, const char *msg, const char *where)
{
	c->last_error = msg;
	c->last_stmt = where;
}

/* An error unwinds through the call of a script function at where. */
static inline void ctap_error_called(struct ctap_context *c, const char *where)
{
	if (c->ncalled < CTAP_CALLED)
		c->called[c->ncalled] = where;
	c->ncalled++;
}

/* ---- session ---- */

/* target(): the -c command's or -x pid, 0 if none. */
s32 ctap_target(void);
/* module_size()'s text (session.c). */
void ctap_module_size(char *buf, size_t len);
/* remote_id(), remote_uri(): the host's index and name under stap
 * --remote (module parameters its staprun gets), else -1 and "". */
extern int ctap_remote_id;
extern char *ctap_remote_uri;
struct inode;
/* The executable current runs (its inode, to compare with one held), or NULL. */
struct inode *ctap_exe_inode(void);
/* stp_pid(): staprun's pid. */
s32 ctap_staprun_pid(void);
/* Whether the current task's effective user is the one who started the
 * session (staprun's real user): SystemTap's is_myproc(). */
bool ctap_is_myproc(void);
/* exit(): no more event or begin probes; staprun is asked to stop. */
void ctap_exit(void);
/* abort(): the last_error that unwinds the handler past every catch and
 * is no error (session.c's report_error() takes it for what it is). */
extern const char ctap_abort_error[];
/* Hits a family lost before its handler, reported with the skipped ones. */
void ctap_add_skipped(unsigned long n);
/* Between two probes a family arms: true if staprun was interrupted. */
bool ctap_arming_interrupted(void);

/**
 * struct ctap_family - how the generated module arms one probe family
 * @start: register its probes; 0 or -errno (an error message is sent)
 * @stop: unregister them; no handler of theirs runs after it returns
 */
struct ctap_family {
	int (*start)(void);
	void (*stop)(void);
};

/**
 * struct ctap_module - what a generated module declares to the session
 * @name: the module name (debugfs directory)
 * @probes: the begin, end and error probes, sorted by order
 * @nprobes: how many
 * @families: the event families, armed in this order after begin
 * @nfamilies: how many
 * @context_size: sizeof the generated struct context
 * @init_globals: allocate maps and set initial values; 0 or -ENOMEM
 * @free_globals: free them
 */
struct ctap_module {
	const char *name;
	const struct ctap_probe *const *probes;
	int nprobes;
	const struct ctap_family *families;
	int nfamilies;
	size_t context_size;
	int (*init_globals)(void);
	void (*free_globals)(void);
	const char *cgroup_path;	/* stap --cgroup, or NULL (scope.c) */
	/* stap -t: the probes of the hit report, row i at timed[i] */
	const struct ctap_probe *timed;
	int ntimed;
};

/*
 * A family's registration refused for probe p: "ERROR: probe PP
 * registration error WHY" to staprun (a WARNING for an optional probe,
 * which does not stop the others), WHY from fmt ("(rc %d)").  The one
 * wording of every family, SystemTap's.
 */
__printf(3, 4) void ctap_probe_refused(const struct ctap_probe *p, bool optional,
				       const char *fmt, ...);

int ctap_module_init(const struct ctap_module *m);
void ctap_module_exit(void);

/*
 * Memory the script sizes, zeroed, allocated when the module loads; NULL
 * on failure.  Reserved first: 0, or -ENOMEM (and a line in the kernel
 * log) when the module's whole would pass half the memory available.
 */
int ctap_reserve(size_t bytes);
void *ctap_alloc(size_t size);
void ctap_free(void *p);

/* ---- helpers for generated expressions ---- */

/*
 * The generated code's strings are MAXSTRINGLEN buffers (or literals),
 * always NUL-terminated.  FORTIFY_SOURCE, seeing a buffer's size, would
 * run strnlen() over the source before each copy (twice the copy's cost:
 * 100 instructions of a 12-byte execname()); the bound is MAXSTRINGLEN
 * anyway, so the sizes are hidden from it.
 */
static inline char *ctap_strcpy(char *dst, const char *src)
{
	char *d = dst;
	const char *s = src;

	OPTIMIZER_HIDE_VAR(d);
	OPTIMIZER_HIDE_VAR(s);
	strscpy(d, s, MAXSTRINGLEN);
	return dst;
}

/* a . b into dst (dst may be a or b's storage only if it is a). */
static inline char *ctap_strcat(char *dst, const char *a, const char *b)
{
	char *d = dst;
	const char *s = b;

	OPTIMIZER_HIDE_VAR(d);
	OPTIMIZER_HIDE_VAR(s);
	if (dst != a)
		ctap_strcpy(dst, a);
	strlcat(d, s, MAXSTRINGLEN);
	return dst;
}

/*
 * a / b and a % b of SystemTap's longs, b != 0 (the generated code checks
 * it first): INT64_MIN / -1 wraps, as a long's arithmetic does, where the
 * CPU would trap.
 */
static inline int64_t ctap_sdiv(int64_t a, int64_t b)
{
	return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

static inline int64_t ctap_smod(int64_t a, int64_t b)
{
	return b == -1 ? 0 : a % b;
}

/* "ENOENT" for 2 or -2, as SystemTap's errno_str(); NULL if unnamed. */
const char *ctap_errno_name(int64_t err);

/* ---- a context's output (output.c) ---- */

/* Flush the handler's output to the transport. */
void ctap_flush(struct ctap_context *c);
/* At a handler's end: an open --json statement closed, then flushed. */
void ctap_handler_output(struct ctap_context *c);

/* Make room for one print in the handler's output buffer (under --json,
 * not in the middle of a statement's text: that is escaped at its end). */
static inline struct ctap_out *ctap_out(struct ctap_context *c)
{
	if (c->out.len > CTAP_PRINTBUF / 2 && !c->json_depth)
		ctap_flush(c);
	return &c->out;
}

/*
 * stap --json: what the statement between ctap_json_begin() and
 * ctap_json_end() prints is one {"type":"printf","data":"..."} line
 * (nothing if it printed nothing); a handler that ends inside one, by an
 * error, closes it, as does the catch of a try around it.  ctap_json_hist_print() writes a histogram's own
 * line, splitting the text around it.  At most CTAP_PRINTBUF / 2 bytes
 * of one statement's text, escaped, are kept.
 */
void ctap_json_begin(struct ctap_context *c);
void ctap_json_end(struct ctap_context *c);
void ctap_json_abandon(struct ctap_context *c);
/* A caught error left the statements entered since the try: back to depth. */
void ctap_json_unwind(struct ctap_context *c, int depth);
void ctap_json_hist_print(struct ctap_context *c, const char *name,
			  const struct ctap_stat_spec *spec, const struct ctap_stat *agg);

/* printf into the output, or into dst (MAXSTRINGLEN) for sprintf (print.c). */
void ctap_printf(struct ctap_context *c, const char *fmt, const union ctap_arg *args, int n);
char *ctap_sprintf(char *dst, const char *fmt, const union ctap_arg *args, int n);

/* ---- statistics, counters and arrays: the kernel side (stats.c) ---- */

/* Statistics: a per-CPU struct ctap_stat for scalars. */
struct ctap_pstat {
	struct ctap_stat __percpu *cpu;
	struct ctap_stat agg;		/* the last aggregate, under the write lock */
};

int ctap_pstat_init(struct ctap_pstat *s);
void ctap_pstat_free(struct ctap_pstat *s);
void ctap_pstat_clear(struct ctap_pstat *s);
void ctap_pstat_add(const struct ctap_stat_spec *spec, struct ctap_pstat *s, int64_t v);
struct ctap_stat *ctap_pstat_aggregate(const struct ctap_stat_spec *spec, struct ctap_pstat *s);

/*
 * Counters: long scalar globals that event probes only add to and only
 * begin, end and error probes read or set (translator/gen/analyses.c).  An add
 * goes to this CPU's slot, one instruction and no lock; a read sums.
 */
struct ctap_counter {
	int64_t base;			/* set at load (-G, an initializer) or by = */
	int64_t __percpu *cpu;		/* added since */
};

int ctap_counter_init(struct ctap_counter *k, int64_t value);
void ctap_counter_free(struct ctap_counter *k);
int64_t ctap_counter_read(const struct ctap_counter *k);
void ctap_counter_set(struct ctap_counter *k, int64_t value);

static inline void ctap_counter_add(struct ctap_counter *k, int64_t v)
{
	this_cpu_add(*k->cpu, v);
}

/*
 * stap --remote-merge (docs/remote.md): each merged global written into
 * the output as lines "\036ctap-merge ..." that stap cuts out and merges
 * across hosts: a number ("n NAME V"), a statistic's every CPU part ("s
 * NAME SHIFT NBUCKETS count sum min max avg_s variance_s B:C..."), an
 * array's entries ("a"/"A NAME NKEYS KEY... VALUE", a key "i-12" or the
 * hex of a string "x6869"), between "v 1" and "e" lines.
 */
#define CTAP_MERGE_TAG	"\036ctap-merge "
void ctap_merge_write_mark(struct ctap_context *c, bool end);
void ctap_merge_write_long(struct ctap_context *c, const char *name, int64_t v);
void ctap_merge_write_pstat(struct ctap_context *c, const char *name,
			    const struct ctap_stat_spec *spec, struct ctap_pstat *s);
void ctap_merge_write_map(struct ctap_context *c, const char *name, struct ctap_map *m,
			  const struct ctap_map_spec *spec);

#ifdef CTAP_USERSPACE
/* The fleet's end (user space, dyn-runtime/merge.c): a merged global and
 * where it lives; ctap_merge_load() fills them from $CTAP_MERGE_FILE, the
 * lines stap merged (each statistic one part).  0, or -1 if unreadable. */
struct ctap_merge_var {
	const char *name;
	int64_t *num;
	struct ctap_counter *counter;
	struct ctap_pstat *pstat;
	struct ctap_map **map;
	const struct ctap_map_spec *mspec;
};
int ctap_merge_load(const struct ctap_merge_var *vars, int n);
#endif

/* Map access with SystemTap's errors; NULL with c->last_error set. */
int ctap_map_slot(struct ctap_context *c, struct ctap_map *m, const struct ctap_key *k,
		  const char *overflow, const char *where);
struct ctap_stat *ctap_map_stat_agg(struct ctap_map *m, const struct ctap_key *k,
				    struct ctap_stat *scratch);

static inline int64_t ctap_map_get_long(struct ctap_map *m, const struct ctap_key *k)
{
	int e = ctap_map_find(m, k, false);

	return e < 0 ? 0 : *ctap_map_long(m, e);
}

static inline const char *ctap_map_get_string(struct ctap_map *m, const struct ctap_key *k)
{
	int e = ctap_map_find(m, k, false);

	return e < 0 ? "" : ctap_map_string(m, e);
}


/*
 * What sorting m for a foreach costs of the action budget: n log2 n / 64
 * actions for n entries (352 for 2,048) in an event probe, which runs
 * with interrupts off, so that the budget bounds that time too; nothing
 * in begin, end and error probes, which run with interrupts on.
 */
static inline long ctap_sort_actions(const struct ctap_context *c, const struct ctap_map *m)
{
	uint32_t n = ctap_map_count(m);

	if (c->probe->kind != CTAP_PROBE_EVENT || n < 2)
		return 0;
	return (long)n * ilog2(n) / 64;
}

/* The action budget: a statement or a loop iteration.  The message
 * names the last statement that ran (c->last_stmt), as SystemTap's. */
#define CTAP_ACTIONS(c, n, err)							\
	do {									\
		if (unlikely(((c)->actions -= (n)) < 0)) {			\
			(c)->last_error = "MAXACTION exceeded";			\
			goto err;						\
		}								\
	} while (0)

#endif /* CTAP_RUNTIME_H */
