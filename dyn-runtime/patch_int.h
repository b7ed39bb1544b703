/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch_int.h - what the files of the instrumentation engine share:
 * the probe record, the per-thread state and each file's entry points.
 * Not for the generated module: it includes patch.h only.
 */
#ifndef CTAPDYN_PATCH_INT_H
#define CTAPDYN_PATCH_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "patch.h"

#define CTAPDYN_JMP_LEN		5	/* e9 rel32 */
#define CTAPDYN_MAX_DISPLACED	32	/* original bytes moved out, at most */
#define CTAPDYN_RELOC_MAX	96	/* their relocated form, at most */
#define CTAPDYN_TRAMP_SIZE	192	/* one probe's trampoline */
#define CTAPDYN_MAX_PROBES	4096
#define CTAPDYN_SHADOW_DEPTH	64	/* return probes armed per thread */

#define HIDDEN __attribute__((visibility("hidden")))

/* Where each moved instruction starts, before and after the move. */
struct ctapdyn_bounds {
	unsigned int n;
	uint8_t orig[CTAPDYN_MAX_DISPLACED];	/* offsets from addr */
	uint8_t moved[CTAPDYN_MAX_DISPLACED];	/* offsets from ool */
};

struct ctapdyn_probe {
	uintptr_t addr;			/* the patched byte */
	uintptr_t req;			/* what the caller asked for (regs->ip) */
	ctapdyn_handler_t handler;
	ctapdyn_handler_t ret_handler;	/* return probes only */
	void *data;
	enum ctapdyn_method method;
	enum ctapdyn_reason reason;
	bool live;
	bool at_entry;			/* only the ABI's live vectors are saved */
	unsigned int displaced;		/* original bytes moved out */
	uint8_t orig[CTAPDYN_MAX_DISPLACED];
	uint8_t *tramp;			/* entry: saves, calls, runs the moved code */
	uint8_t *ool;			/* the moved code (+ jump back) in tramp */
	struct ctapdyn_bounds bounds;
	uint64_t skipped, ret_skipped;
};

/* One shadow frame of a return probe: where to go back to. */
struct ctapdyn_shadow {
	uint64_t ret;			/* the real return address */
	uint64_t sp;			/* sp at entry: where the return address sat */
	struct ctapdyn_probe *probe;
};

struct ctapdyn_thread {
	int busy;			/* in a handler: probes hit now are skipped */
	int depth;			/* shadow frames in use */
	struct ctapdyn_shadow shadow[CTAPDYN_SHADOW_DEPTH];
};

extern __thread struct ctapdyn_thread ctapdyn__thread
	__attribute__((tls_model("initial-exec"))) HIDDEN;
extern struct ctapdyn_stats ctapdyn__stats HIDDEN;

/* patch.c */
HIDDEN void ctapdyn__dispatch(struct ctapdyn_regs *regs, struct ctapdyn_probe *p);
HIDDEN struct ctapdyn_probe *ctapdyn__probe_at(uintptr_t addr);

/* reloc.c: move the instructions at p->addr out (p->ool), or a reason why not. */
struct ctapdyn_func { uintptr_t start; size_t size; };
HIDDEN int ctapdyn__plan(uintptr_t addr, const struct ctapdyn_func *f, bool jmp,
			 const uint8_t *code, unsigned int *displaced,
			 enum ctapdyn_reason *reason);
HIDDEN int ctapdyn__relocate(const uint8_t *code, uintptr_t from, unsigned int len,
			     uint8_t *out, uintptr_t to, size_t room, struct ctapdyn_bounds *b);
HIDDEN bool ctapdyn__is_endbr64(const uint8_t *code);

/* tramp.c */
HIDDEN uint8_t *ctapdyn__tramp_alloc(uintptr_t near);
HIDDEN int ctapdyn__tramp_fill(struct ctapdyn_probe *p);
HIDDEN void ctapdyn__cpu_init(void);

/* text.c */
HIDDEN int ctapdyn__text_write(uintptr_t addr, const void *bytes, size_t n);
HIDDEN void ctapdyn__text_sync(void);

/* trap.c */
HIDDEN int ctapdyn__trap_init(void);

/* sweep.c */
HIDDEN int ctapdyn__sweep(struct ctapdyn_probe *p);
HIDDEN int ctapdyn__sweep_init(void);

/* retprobe.c */
HIDDEN void ctapdyn__ret_entry(struct ctapdyn_regs *regs, struct ctapdyn_probe *p);

/* uread.c */
HIDDEN int ctapdyn__fault_init(void);

/*
 * The engine's own memory and reads of /proc, with no libc malloc (nor
 * stdio or opendir, which allocate): what it does before main in a -c
 * target must leave the program's heap as it would be untraced (libc's
 * first malloc in a thread sets up its cache, run/ulib_dbg sees that).
 * ctapdyn__zalloc: n zeroed bytes of their own pages, or NULL.
 * ctapdyn__read_lines: each line of path, NUL-terminated, to line()
 * until it returns false; 0 or -errno.  Lines longer than 4 KiB are
 * skipped.
 */
HIDDEN void *ctapdyn__zalloc(size_t n);
HIDDEN void ctapdyn__zfree(void *p, size_t n);
HIDDEN int ctapdyn__read_lines(const char *path, bool (*line)(char *s, void *arg), void *arg);

#endif
