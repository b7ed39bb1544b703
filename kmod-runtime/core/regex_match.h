/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex_match.h - =~ and !~ (see regex_match.c).  The translator compiles each pattern
 * (translator/sem/regex_compile.c) into the program below and writes it into
 * the module as constant data; the runtime only runs programs.  Portable:
 * the host unit tests and the fuzz target run the same matcher.
 */
#ifndef CTAP_REGEX_MATCH_H
#define CTAP_REGEX_MATCH_H

#include "portable.h"

/* Instructions in one program: the matcher's state sets are this wide. */
#define CTAP_REGEX_MAX_INST	1024

/* What one instruction does (a Thompson NFA, as in Pike's VM). */
enum ctap_regex_op {
	CTAP_RE_CHAR,		/* read ch */
	CTAP_RE_ANY,		/* read any character */
	CTAP_RE_CLASS,		/* read a character of classes[x] */
	CTAP_RE_SPLIT,		/* go on at both x and y */
	CTAP_RE_JMP,		/* go on at x */
	CTAP_RE_BOL,		/* holds at the start of the string */
	CTAP_RE_EOL,		/* holds at its end */
	CTAP_RE_MATCH,		/* the pattern matched */
};

struct ctap_regex_inst {
	uint8_t op;
	uint8_t ch;
	uint16_t x, y;
};

/* A bracket expression: bit c of the 256 set if it takes character c. */
struct ctap_regex_class {
	uint8_t bits[32];
};

struct ctap_regex {
	uint16_t ninst;
	const struct ctap_regex_inst *inst;
	const struct ctap_regex_class *classes;
};

/* 1 if re matches anywhere in s (SystemTap's =~ is unanchored). */
int64_t ctap_regex_match(const struct ctap_regex *re, const char *s);

#endif /* CTAP_REGEX_MATCH_H */
