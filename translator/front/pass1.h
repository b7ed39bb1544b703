/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pass1.h - pass 1: the user's script and the tapset library, parsed.
 */
#ifndef PASS1_H
#define PASS1_H

#include "session.h"

/*
 * Parse the user script (-e text, a file, or stdin) and the tapset files
 * it may need (the tapset index says which).  Returns 0 if clean.
 */
int pass1_parse(struct session *s);

#endif /* PASS1_H */
