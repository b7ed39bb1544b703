/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h - stap --remote-merge: which globals are merged across hosts
 * (var.merged), and whether the script qualifies (docs/remote.md).
 */
#ifndef MERGE_H
#define MERGE_H

#include <stdio.h>

#include "sem.h"

/* Pass 2, after a clean pass2_semantic(): marks var.merged on the
 * globals an end probe reads and other probes change, and reports each
 * use that keeps the script from one report of the fleet.  Returns how
 * many errors. */
int merge_check(struct session *s);

/* -p2 --remote-merge: "# merged across hosts" and a line per merged global. */
void merge_print(struct session *s, FILE *out);

struct xlate;

/* Pass 3 on each host's side: probe_merge_dump(), an end probe after all
 * others that writes the merged globals for stap; false if not that side. */
bool merge_emit_dump(struct xlate *x, FILE *out);

/* Pass 3 of the fleet's end (--merge-end): probe_merge_load(), a begin
 * probe that fills the merged globals from the file stap merged, then
 * ends the session (the end probes run); false if not that build. */
bool merge_emit_load(struct xlate *x, FILE *out);

/* The fleet's end (--merge-end), after pass 2: only the end probes, the
 * handlers they have and the functions those call are kept. */
void merge_prune(struct session *s);

#endif /* MERGE_H */
