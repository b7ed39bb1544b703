/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xalloc.h - the translator's one out-of-memory policy.
 *
 * stap is a short-lived process: its passes allocate from an arena and
 * unwind errors with longjmp, and nothing it holds outlives it.  Running
 * out of memory is therefore fatal, reported once the same way from
 * everywhere: "stap: out of memory" and exit status 1.  Every allocation
 * of the translator's own goes through these (or the arena, built on
 * them); a unit that is also a library of the fuzzers or the runtime
 * (regex_compile.c) returns -ENOMEM, and its caller in a pass calls
 * out_of_memory().  Header-only, so that a unit test linking one file
 * links no more.
 */
#ifndef XALLOC_H
#define XALLOC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline _Noreturn void out_of_memory(void)
{
	fprintf(stderr, "stap: out of memory\n");
	exit(1);
}

static inline void *xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		out_of_memory();
	return p;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		out_of_memory();
	return p;
}

static inline void *xrealloc(void *old, size_t size)
{
	void *p = realloc(old, size);

	if (!p)
		out_of_memory();
	return p;
}

static inline char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

#endif /* XALLOC_H */
