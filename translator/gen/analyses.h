/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyses.h - whole-program facts for pass 3, from pass 2's results.
 */
#ifndef ANALYSES_H
#define ANALYSES_H

#include "sem.h"

/*
 * How handler h (with everything it can call) uses each global:
 * mode[var.index] is 0 (not at all), 'r' (reads, or adds to scalar
 * statistics, which is per CPU) or 'w'.  mode holds one byte per global
 * and one more.
 */
void analyses_lock_modes(struct session *s, const struct sem_handler *h, char *mode);

/*
 * Pass 3, before any C: marks var.counter on each long scalar global that
 * event probes (everything but begin, end and error) only add to, each add
 * a statement of its own (n++, n += x), and that only begin, end and error
 * probes read or set.  Such a global needs no lock: each CPU adds to a
 * slot of its own and a read, when no event probe runs, sums the slots
 * (struct ctap_counter) -- the value the locked global would have.
 */
void analyses_find_counters(struct session *s);

/*
 * SystemTap's default MAXNESTING: the deepest chain of calls from any
 * handler, plus 10 if a function recurses; at least 1.
 */
int analyses_max_nesting(struct session *s);

/*
 * Pass 2: a foreach over a global array whose body (with everything it
 * calls) changes that array is an error, reported here.  Returns how
 * many.
 */
int analyses_check_foreach(struct session *s);

/*
 * Pass 2, after analyses_check_foreach(): what the script's declarations
 * make the module allocate for every session, bounded.  An array holds at
 * most CTAP_MAP_MAX_ENTRIES (also -D MAXMAPENTRIES), all arrays at most
 * CTAP_MAPS_MAX_BYTES, the copies of foreach orders (fe->snapshot) at
 * most SNAPSHOT_MAX_BYTES of each CPU's context.  Returns the errors.
 */
int analyses_check_sizes(struct session *s);

/*
 * What handler h (with everything it can call) reads of its probe's
 * registers: none, the probed function's arguments only ($vars of a
 * function's entry: ctap_arg(), the argument registers and the stack
 * pointer), or anything (register(), backtraces, addr(), $return, embedded
 * C that names the registers...).  An entry probe through ftrace that
 * reads at most the arguments need not have the others saved.
 */
enum analyses_regs { REGS_NONE, REGS_ARGS, REGS_ALL };
enum analyses_regs analyses_regs_used(struct session *s, const struct sem_handler *h);

#endif /* ANALYSES_H */
