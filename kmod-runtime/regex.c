// SPDX-License-Identifier: GPL-2.0
/*
 * regex.c - the =~ and !~ operators.
 *
 * A backtracking matcher for the common subset of POSIX extended regular
 * expressions: literals, '.', bracket expressions ([a-z], [^...]), the
 * anchors ^ and $, and the repetitions * + ? after an atom.  Unanchored,
 * as SystemTap's =~ (a match anywhere).  Backtracking is bounded: a
 * pattern that would take longer than CTAP_REGEX_STEPS fails to match.
 * (Alternation and groups are refused by the translator.)
 */
#include "ctap_runtime.h"

#define CTAP_REGEX_STEPS	100000

struct rx {
	long steps;
};

/* Length of the atom at p: one character, an escape or a bracket. */
static int atom_len(const char *p)
{
	const char *q = p;

	if (*q == '\\' && q[1])
		return 2;
	if (*q != '[')
		return 1;
	q++;
	if (*q == '^')
		q++;
	if (*q == ']')
		q++;
	while (*q && *q != ']')
		q++;
	return *q ? q - p + 1 : q - p;
}

static bool atom_matches(const char *p, int len, char ch)
{
	bool neg = false, hit = false;
	const char *end = p + len - 1;

	if (!ch)
		return false;
	if (*p == '.')
		return true;
	if (*p == '\\')
		return p[1] == ch;
	if (*p != '[')
		return *p == ch;
	p++;
	if (*p == '^') {
		neg = true;
		p++;
	}
	for (const char *q = p; q < end; q++) {
		if (q + 2 < end && q[1] == '-') {
			hit |= ch >= q[0] && ch <= q[2];
			q += 2;
		} else {
			hit |= *q == ch;
		}
	}
	return hit != neg;
}

static bool match_here(struct rx *rx, const char *p, const char *s)
{
	int len;
	char rep;

	if (++rx->steps > CTAP_REGEX_STEPS)
		return false;
	if (!*p)
		return true;
	if (p[0] == '$' && !p[1])
		return !*s;
	len = atom_len(p);
	rep = p[len];
	if (rep == '*' || rep == '+' || rep == '?') {
		const char *t = s;
		int max = rep == '?' ? 1 : INT_MAX, n = 0;

		while (n < max && atom_matches(p, len, *t)) {
			t++;
			n++;
		}
		/* Greedy: the longest run first, then shorter ones. */
		for (; n >= (rep == '+'); n--, t--)
			if (match_here(rx, p + len + 1, t))
				return true;
		return false;
	}
	return atom_matches(p, len, *s) && match_here(rx, p + len, s + 1);
}

int64_t ctap_regex_match(const char *s, const char *pattern)
{
	struct rx rx = { 0 };

	if (*pattern == '^')
		return match_here(&rx, pattern + 1, s);
	do {
		if (match_here(&rx, pattern, s))
			return 1;
	} while (*s++);
	return 0;
}
