/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - what the timer provider (timers.c) shares with the other
 * clock-driven family, perf's clock samplers (perf.c).
 */
#ifndef PROBES_TIMERS_H
#define PROBES_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

struct elab;
struct pp_match;

/* The shortest period a timer or a perf clock sampler may have: 100 us. */
#define TIMER_MIN_PERIOD_NS	100000LL

/*
 * A clock-driven probe of m firing every period_ns (at least
 * TIMER_MIN_PERIOD_NS) on some CPU: counted into the script's hits a
 * second.  False, the error given (once, "?" point or not), when they
 * pass TIMER_MAX_RATE.
 */
bool timers_claim_rate(struct elab *elab, const struct pp_match *m, int64_t period_ns);

#endif /* PROBES_TIMERS_H */
