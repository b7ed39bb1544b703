/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex_compile.h - a POSIX extended regular expression to the program
 * that the runtime's matcher runs (kmod-runtime/core/regex_match.h).
 */
#ifndef REGEX_COMPILE_H
#define REGEX_COMPILE_H

#include <stdbool.h>
#include <stdio.h>

#include "regex_match.h"

/*
 * Compiles pattern into *re (its arrays malloc'ed: regex_free() them).
 * 0, or -1 with *why saying what is wrong (not supported, or too big for
 * CTAP_REGEX_MAX_INST instructions); -ENOMEM without memory.
 */
int regex_compile(const char *pattern, struct ctap_regex *re, const char **why);

/* The same, with the SAVE instructions of matched() where captures is
 * true (the Pike VM of regex_match.c runs those). */
int regex_compile_ex(const char *pattern, bool captures, struct ctap_regex *re,
		     const char **why);

void regex_free(struct ctap_regex *re);

/* Writes re as constant C data: NAME_classes[], NAME_inst[] and NAME. */
void regex_emit_c(FILE *out, const char *name, const struct ctap_regex *re);

#endif /* REGEX_COMPILE_H */
