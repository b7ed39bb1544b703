/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex.h - =~ and !~ (see regex.c).  Portable: the translator checks
 * patterns with the same code in pass 2, and the host unit tests run it.
 */
#ifndef CTAP_REGEX_H
#define CTAP_REGEX_H

#include "portable.h"

/* Atoms in one pattern: the matcher's state set is a bitmap this wide. */
#define CTAP_REGEX_MAX_ATOMS		255
#define CTAP_REGEX_MAX_ATOMS_STR	"255"

/* The number of atoms of pattern, or -1 with *why saying what is wrong. */
int ctap_regex_check(const char *pattern, const char **why);

/* 1 if pattern matches anywhere in s; pattern passed ctap_regex_check(). */
int64_t ctap_regex_match(const char *s, const char *pattern);

#endif /* CTAP_REGEX_H */
