/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dyn_abi.h - what stapdyn and a --runtime=dyninst module agree on: the
 * shared segment's layout and the module's entry points.
 *
 * stapdyn makes the segment (a memfd) and names it in the environment,
 * CTAP_DYN_SHM="FD:ADDR:SIZE:OWNER": every process that loads the module
 * (stapdyn by dlopen, a -c target by LD_PRELOAD) maps it at ADDR, the
 * same address everywhere, so that pointers into it (the arrays, the
 * contexts, the output ring) mean the same in each.  OWNER is stapdyn's
 * pid: there the segment is already mapped.  docs/userspace.md.
 */
#ifndef CTAP_DYN_ABI_H
#define CTAP_DYN_ABI_H

#include <stdint.h>

#define CTAP_DYN_ENV		"CTAP_DYN_SHM"
#define CTAP_DYN_MAGIC		0x43544150u	/* "CTAP" */
#define CTAP_DYN_ABI_VERSION	4

/* Ring records: this header, then len bytes, padded to 8. */
struct ctap_dyn_rec {
	uint32_t len;
	uint32_t chan;			/* CTAP_DYN_OUT or CTAP_DYN_ERR */
};
#define CTAP_DYN_OUT	0		/* the script's output: stdout or -o */
#define CTAP_DYN_ERR	1		/* ERROR:/WARNING: lines: stderr */
#define CTAP_DYN_SWITCH	2		/* switch_file(): no data, the next -o file */

/* At the segment's start.  Everything after it is carved by offsets. */
struct ctap_dyn_shm {
	uint32_t magic, abi;
	uint64_t size;
	/* A futex word: bumped after each record and on an exit request,
	 * so that stapdyn sleeps until there is something to do. */
	uint32_t wake;
	int ring_lock;			/* writers and the reader: tried, bounded */
	uint64_t head, tail;		/* ring bytes written, read (monotonic) */
	uint64_t ring_off, ring_size;
	uint64_t dropped;		/* records that found the ring full or locked */
	uint64_t cut;			/* handler runs whose output was cut short */
	int exit_requested;		/* exit(), an error limit, MAXSKIPPED */
	int next_slot;			/* handler slots given out (ctap_dyn_slot) */
	int attached;			/* target processes that mapped the segment */
	int32_t attached_pid;		/* the last of them */
	/* The module's CTAP_SHARED section (globals, their locks), copied
	 * here by stapdyn and mapped over the section in every process. */
	uint64_t shared_off, shared_size;
	/* The heap ctap_alloc() hands out (arrays, contexts): a bump
	 * allocator, freed all at once with the segment. */
	uint64_t heap_off, heap_used;
	/* stapdyn's time zone when it started, as staprun sends the kernel
	 * module its own (tz_gmtoff(), tz_name(), tz_ctime()): read once by
	 * stapdyn, so that no handler calls libc's locked localtime_r(). */
	int32_t tz_gmtoff;		/* seconds west of UTC, SystemTap's sign */
	char tz_name[16];
};

/* The module's entry points (dlsym by stapdyn). */
typedef int (*ctap_dyn_init_fn)(void);		/* ctap_dyn_module_init */
typedef void (*ctap_dyn_exit_fn)(void);		/* ctap_dyn_module_exit */
typedef int (*ctap_dyn_start_fn)(int32_t target, int32_t stapdyn_pid);	/* ctap_dyn_start */
typedef void (*ctap_dyn_stop_fn)(void);		/* ctap_dyn_stop */
typedef int (*ctap_dyn_param_fn)(const char *name, const char *value);	/* ctap_dyn_set_param */
typedef void (*ctap_dyn_report_fn)(void);	/* ctap_dyn_report: the end-of-run counts */
typedef void (*ctap_dyn_reap_fn)(void);		/* ctap_dyn_reap: ends of dead processes */

#endif /* CTAP_DYN_ABI_H */
