/* SPDX-License-Identifier: GPL-2.0 */
/*
 * translate.h - pass 3: the module's C.
 *
 * Pass 3 writes one C file that reads like a kernel sample module: the
 * globals and their locks, one function per probe body and per script
 * function, a struct ctap_probe per concrete probe, each probe family's
 * table (from its provider's emit callback), and module init/exit.  It
 * is written against kmod-runtime/ctap_runtime.h; docs/translator.md
 * describes the layout and the calling conventions.
 */
#ifndef TRANSLATE_H
#define TRANSLATE_H

#include <stdio.h>

#include "session.h"

/* Pass 3: write the module's C to out.  Returns 0 if clean. */
int pass3_translate(struct session *s, FILE *out);

#endif /* TRANSLATE_H */
