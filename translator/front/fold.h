/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fold.h - constant folding, in place, over a script's probes and functions.
 */
#ifndef FOLD_H
#define FOLD_H

#include "arena.h"
#include "ast.h"

void fold_script(struct arena *a, struct script *s);

#endif /* FOLD_H */
