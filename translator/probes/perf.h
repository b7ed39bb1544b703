/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.h - what the perf provider (perf.c) tells pass 2 and pass 3 about
 * @perf("NAME").
 */
#ifndef PROBES_PERF_H
#define PROBES_PERF_H

struct derived_probe;
struct session;

/* The perf.*.counter("NAME") probe @perf("NAME") reads in a handler of
 * site (NULL: any); NULL, with *why (if why) saying why, if none. */
const struct derived_probe *perf_counter(struct session *s, const char *name,
					 const struct derived_probe *site, const char **why);

#endif /* PROBES_PERF_H */
