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

#endif /* MERGE_H */
