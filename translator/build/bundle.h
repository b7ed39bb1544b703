/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bundle.h - one file of modules for several kernels (stap -p4 -m NAME
 * -r K1 -r K2 ...), which staprun loads on whichever of them runs.
 */
#ifndef BUNDLE_H
#define BUNDLE_H

#include "session.h"

/* The parent: builds a module per s->targets[] (this stap again, with
 * argv, for each) and writes NAME.ctap; stap's exit status. */
int bundle_build(struct session *s, int argc, char **argv);

/* A member, after pass 4: NAME.kernel, the release and build id of the
 * kernel its module is for.  0, or -1 after saying why. */
int bundle_note_kernel(struct session *s, const char *name);

#endif /* BUNDLE_H */
