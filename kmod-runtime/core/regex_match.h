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
	CTAP_RE_SAVE,		/* record the position in capture slot x */
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
	/* Its parenthesized groups; captures: compiled with SAVE
	 * instructions (slots 0 and 1 the whole match, 2n and 2n + 1 group
	 * n, for the first CTAP_REGEX_MAX_GROUPS groups). */
	uint8_t ngroups;
	bool captures;
	const struct ctap_regex_inst *inst;
	const struct ctap_regex_class *classes;
};

/* 1 if re matches anywhere in s (SystemTap's =~ is unanchored). */
int64_t ctap_regex_match(const struct ctap_regex *re, const char *s);

/*
 * Submatches (matched(), ngroups()): a Pike VM, each thread carrying its
 * capture slots.  The groups it records, the positions it can record (a
 * string is read up to CTAP_REGEX_NOPOS - 1 bytes), and its work area,
 * too big for a kernel stack: the module keeps one per CPU.
 */
#define CTAP_REGEX_MAX_GROUPS	9
#define CTAP_REGEX_SLOTS	(2 * (CTAP_REGEX_MAX_GROUPS + 1))
#define CTAP_REGEX_NOPOS	0xffff

struct ctap_regex_threads {
	uint16_t n;
	uint16_t pc[CTAP_REGEX_MAX_INST];
	uint16_t caps[CTAP_REGEX_MAX_INST][CTAP_REGEX_SLOTS];
	uint64_t on[CTAP_REGEX_MAX_INST / 64];	/* pc is in the list */
};

struct ctap_regex_work {
	struct ctap_regex_threads list[2];
	/* Following the jumps from one thread: a pc to explore, or a slot to
	 * restore; each instruction is entered once, so 2 x program length + 1. */
	uint32_t stack[2 * CTAP_REGEX_MAX_INST + 1];
	uint16_t caps[CTAP_REGEX_SLOTS];
};

/* What the last =~ of a handler found, for matched() and ngroups(). */
struct ctap_regex_last {
	bool matched;
	uint8_t ngroups;		/* of its pattern */
	uint16_t caps[CTAP_REGEX_SLOTS];
	struct ctap_regex_work work;
};

/*
 * 1 if re (compiled with captures) matches in s, with caps[] the POSIX
 * leftmost-longest match's bounds and its groups' (CTAP_REGEX_NOPOS where
 * a group took no part); else 0.  At most (length + 1) x program length
 * steps; no recursion.
 */
int64_t ctap_regex_match_groups(const struct ctap_regex *re, const char *s,
				struct ctap_regex_work *w, uint16_t *caps);

/*
 * =~ in a script that calls matched() or ngroups(): matches, records the
 * result in *m and, on a match, copies s to copy (size bytes, NUL-ended),
 * which the recorded positions index.
 */
int64_t ctap_regex_submatch(struct ctap_regex_last *m, char *copy, size_t size,
			    const struct ctap_regex *re, const char *s);

#endif /* CTAP_REGEX_MATCH_H */
