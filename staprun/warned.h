/* SPDX-License-Identifier: GPL-2.0 */
/*
 * warned.h - the warnings printed, to print each once (warned.c):
 * staprun's and stapdyn's.
 */
#ifndef STAPRUN_WARNED_H
#define STAPRUN_WARNED_H

#include <stdbool.h>
#include <stddef.h>

#define WARNED_MAX	256	/* distinct warnings remembered */
struct warned {
	struct warned_line {
		char *text;	/* a copy, not NUL-terminated; NULL: free slot */
		size_t len;
		unsigned long hash;
	} lines[WARNED_MAX];
	unsigned int n;		/* remembered so far: the next slot, mod WARNED_MAX */
};
/* True if line (a "WARNING..." message of len bytes) was printed already;
 * else it is remembered, and false. */
bool warned_before(struct warned *w, const char *line, size_t len);

#endif /* STAPRUN_WARNED_H */
