/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elaborate.h - pass 2: resolve the script's probe points to concrete probes.
 *
 * (Function and global resolution and type inference follow in the same
 * pass; see docs/translator.md for what is done.)
 */
#ifndef ELABORATE_H
#define ELABORATE_H

#include <stdio.h>

#include "parse.h"
#include "provider.h"
#include "session.h"

/* Resolve every probe point of the user script.  Returns 0 if clean. */
int pass2_elaborate(struct session *s);

/* -l / -L PATTERN: print the matching probe points, one per line, sorted. */
int pass2_list(struct session *s, FILE *out);

/* --dump-probe-aliases: every tapset alias, "name = points", sorted. */
void pass2_dump_aliases(struct session *s, FILE *out);

/* -p2: the resolved program. */
void pass2_print(struct session *s, FILE *out);

void pass2_free(struct session *s);

/* The concrete probes, for the semantic pass and code generation. */
struct derived_probe *elab_probes(struct session *s);
/* The runtime sides of the probe families the script uses ("probes/kprobes"),
 * NULL-terminated; after pass 2. */
const char **elab_runtime_families(struct session *s);
/* Every probe family's runtime side, the same way (`make prebuilt`). */
const char **elab_all_runtime_families(struct session *s);
/* Drops the concrete probes for which drop(d, arg) is true (pass 2's
 * optimizer); keeps the others in order. */
void elab_filter(struct session *s, bool (*drop)(const struct derived_probe *d, void *arg),
		 void *arg);

#endif /* ELABORATE_H */
