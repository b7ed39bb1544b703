/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch.h - the instrumentation engine of the user-space runtime: probes
 * on the instructions of the current process (docs/userspace-patching.md).
 *
 * A libbpf-like boundary: every verb is ctapdyn_*, returns 0 or a
 * non-negative id on success and a negative errno on failure, never
 * prints and never exits.  Nothing here needs privilege: the process
 * patches its own text.
 */
#ifndef CTAPDYN_PATCH_H
#define CTAPDYN_PATCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * The registers at the probed instruction, in the layout of the kernel's
 * x86-64 struct pt_regs, so that code generated for kernel uprobes reads
 * $args the same way (di, si, dx, cx, r8, r9; ax for $return).
 * ip is the probed address, sp the stack pointer there.
 */
struct ctapdyn_regs {
	uint64_t r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	uint64_t ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

typedef void (*ctapdyn_handler_t)(struct ctapdyn_regs *regs, void *data);

/* How a probe was put in: a jump to a trampoline, or a breakpoint. */
enum ctapdyn_method { CTAPDYN_JMP = 1, CTAPDYN_INT3 = 2 };

/* Why a probe is a breakpoint rather than a jump (ctapdyn_probe_info). */
enum ctapdyn_reason {
	CTAPDYN_R_NONE = 0,		/* it is a jump */
	CTAPDYN_R_FORCED,		/* CTAPDYN_F_INT3 asked for it */
	CTAPDYN_R_NO_FUNC,		/* no symbol bounds: the jump's 5 bytes are unproved */
	CTAPDYN_R_TOO_SHORT,		/* fewer than 5 bytes to the function's end */
	CTAPDYN_R_BRANCH_TARGET,	/* a branch of the function lands in the 5 bytes */
	CTAPDYN_R_INDIRECT_JMP,		/* the function jumps through a table: targets unknown */
	CTAPDYN_R_UNRELOCATABLE,	/* an instruction in the 5 bytes cannot move */
	CTAPDYN_R_THREADS,		/* a thread that may be inside them did not answer */
};

/* Options of ctapdyn_probe_insert_opts(); zero-initialise, set sz. */
struct ctapdyn_opts {
	size_t sz;		/* sizeof(struct ctapdyn_opts) */
	uintptr_t func;		/* the function's first byte (0: ask dladdr) */
	size_t func_size;	/* its size in bytes */
	unsigned int flags;
};
#define CTAPDYN_F_INT3	1u	/* use a breakpoint even where a jump fits */

struct ctapdyn_probe_info {
	enum ctapdyn_method method;
	enum ctapdyn_reason reason;
	uintptr_t addr;		/* the patched byte: after an endbr64 at function entry */
	unsigned int displaced;	/* bytes of original instructions moved out */
	uintptr_t trampoline;
	int at_entry;		/* 1: a function's entry, where only xmm0-7 (ymm) are
				   live and saved; 0: all vector state is (xsave) */
	uint64_t skipped;	/* hits not handled: the thread was already in a handler */
	uint64_t ret_skipped;	/* return probes not armed: shadow stack full */
};

/* Counters of the whole library (ctapdyn_stats). */
struct ctapdyn_stats {
	uint64_t reentered;	/* hits skipped because a handler was running on the thread */
	uint64_t shadow_full;	/* return probes skipped: shadow stack full */
	uint64_t unwound;	/* shadow frames dropped: longjmp past them */
	uint64_t faults;	/* ctapdyn_read*() that returned -EFAULT */
};

/*
 * Probe the instruction at addr (an instruction boundary of a function)
 * in this process: handler(regs, data) runs on each thread that gets
 * there, before the instruction.  Returns the probe's id (>= 0), or
 * -EINVAL (not an instruction boundary, or not decodable), -EEXIST or
 * -EBUSY (another probe's patched bytes), -EOPNOTSUPP (an instruction
 * that can neither move nor trap: loop, jrcxz), -ENOMEM, or the errno
 * of mprotect().
 */
int ctapdyn_probe_insert(void *addr, ctapdyn_handler_t handler, void *data);
int ctapdyn_probe_insert_opts(void *addr, ctapdyn_handler_t handler, void *data,
			      const struct ctapdyn_opts *opts);

/*
 * A return probe on the function whose first byte is addr:
 * entry_handler (may be NULL) at entry, return_handler with regs->ax
 * (and dx) holding the value returned.  Recursion nests; a longjmp out
 * of probed frames drops their shadow frames at the next entry or return
 * on the thread.  C++ exceptions through a probed frame: not covered.
 */
int ctapdyn_retprobe_insert(void *addr, ctapdyn_handler_t entry_handler,
			    ctapdyn_handler_t return_handler, void *data);
/* ... with the function's bounds (opts->func must be addr): a jump where
 * the symbol is not in the dynamic symbols (a program's own functions). */
int ctapdyn_retprobe_insert_opts(void *addr, ctapdyn_handler_t entry_handler,
				 ctapdyn_handler_t return_handler, void *data,
				 const struct ctapdyn_opts *opts);

/*
 * Take a probe out: the original bytes are back when it returns.  A
 * thread already past the jump finishes in the trampoline, which is
 * never unmapped; a handler may run once more on such a thread.
 * -ENOENT for an unknown id.  A return probe's pending returns still
 * go back to their callers.
 */
int ctapdyn_probe_remove(int id);

/*
 * The text a probe patched is gone (its object unmapped: dlclose()):
 * the probe is dropped without a write, and the address is free for a
 * probe in what is mapped there next.  Its trampoline stays, as after
 * ctapdyn_probe_remove().  -ENOENT for an unknown or removed id.
 */
int ctapdyn_probe_forget(int id);

int ctapdyn_probe_info(int id, struct ctapdyn_probe_info *info);
void ctapdyn_stats(struct ctapdyn_stats *stats);

/* A text name for a reason, e.g. "branch target in the patched bytes". */
const char *ctapdyn_reason_str(enum ctapdyn_reason reason);

/*
 * Fault-safe reads for handlers: copy n bytes from src, 0 or -EFAULT
 * (src unmapped or unreadable: the process goes on).  read_string
 * copies up to a NUL or n - 1 bytes, always terminates dst, and returns
 * the length copied, or -EFAULT.
 */
int ctapdyn_read(void *dst, const void *src, size_t n);
long ctapdyn_read_string(char *dst, const char *src, size_t n);

#endif
