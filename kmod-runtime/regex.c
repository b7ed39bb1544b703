// SPDX-License-Identifier: GPL-2.0
/*
 * regex.c - the =~ and !~ operators.
 *
 * The subset of POSIX extended regular expressions that ctap supports
 * today: literals, '.', escapes, bracket expressions ([a-z], [^...]), '^'
 * at the start, '$' at the end, and the repetitions * + ? after an atom.
 * Unanchored, as SystemTap's =~ (a match anywhere).  The translator checks
 * a pattern with ctap_regex_check() in pass 2, so the matcher only ever
 * sees one that it handles.
 *
 * The matcher simulates the pattern's NFA: one state per atom plus the
 * accepting one, the set of live states a bitmap, the input read once,
 * left to right.  No recursion and no backtracking: a match costs at most
 * (string length) x (pattern length) steps and a fixed 100 bytes of stack,
 * whatever the pattern ("a*a*a*...b" included), so it can run in any probe
 * handler with interrupts off.
 */
#include "regex.h"

#define WORDS	((CTAP_REGEX_MAX_ATOMS + 1 + 63) / 64)

struct states {
	uint64_t w[WORDS];
};

static inline bool has(const struct states *s, int i)
{
	return s->w[i / 64] >> (i % 64) & 1;
}

static inline void add(struct states *s, int i)
{
	s->w[i / 64] |= (uint64_t)1 << (i % 64);
}

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

static bool is_rep(char c)
{
	return c == '*' || c == '+' || c == '?';
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

/* The pattern without its anchors: [*body, *body + *len). */
static void body_of(const char *pattern, const char **body, size_t *len, bool *bol, bool *eol)
{
	size_t n = strlen(pattern);

	*bol = n && pattern[0] == '^';
	if (*bol) {
		pattern++;
		n--;
	}
	/* A trailing '$' anchors unless it is escaped ("\$"). */
	*eol = n && pattern[n - 1] == '$' && !(n >= 2 && pattern[n - 2] == '\\');
	if (*eol)
		n--;
	*body = pattern;
	*len = n;
}

int ctap_regex_check(const char *pattern, const char **why)
{
	const char *p, *end;
	size_t n;
	bool bol, eol;
	int atoms = 0;

	body_of(pattern, &p, &n, &bol, &eol);
	for (end = p + n; p < end; atoms++) {
		int len = atom_len(p);

		if (p + len > end || (*p == '[' && p[len - 1] != ']')) {
			*why = "unterminated bracket expression";
			return -1;
		}
		if (*p == '(' || *p == ')' || *p == '|' || *p == '{') {
			*why = "groups, alternation and {m,n} are not supported yet";
			return -1;
		}
		if (*p == '^' || *p == '$') {
			*why = "'^' and '$' anchor only at the start and at the end";
			return -1;
		}
		if (is_rep(*p)) {
			*why = "a repetition needs an atom before it";
			return -1;
		}
		if (atoms == CTAP_REGEX_MAX_ATOMS) {
			*why = "too many atoms (at most " CTAP_REGEX_MAX_ATOMS_STR ")";
			return -1;
		}
		p += len;
		if (p < end && is_rep(*p))
			p++;
	}
	return atoms;
}

/*
 * Follows every state whose atom may repeat zero times (* and ?) to the
 * next one.  Such edges only go forward, so one ascending pass closes.
 */
static void close_skips(struct states *s, const char *body, const char *end)
{
	int i = 0;

	for (const char *p = body; p < end; i++) {
		int len = atom_len(p);
		char rep = p + len < end ? p[len] : 0;

		if (has(s, i) && (rep == '*' || rep == '?'))
			add(s, i + 1);
		p += len + (is_rep(rep) ? 1 : 0);
	}
}

/* The states after reading ch in the states of cur. */
static void step(const struct states *cur, struct states *next, const char *body,
		 const char *end, char ch)
{
	int i = 0;

	memset(next, 0, sizeof(*next));
	for (const char *p = body; p < end; i++) {
		int len = atom_len(p);
		char rep = p + len < end ? p[len] : 0;

		if (has(cur, i) && atom_matches(p, len, ch)) {
			if (rep == '*' || rep == '+')
				add(next, i);
			add(next, i + 1);
		}
		p += len + (is_rep(rep) ? 1 : 0);
	}
	close_skips(next, body, end);
}

int64_t ctap_regex_match(const char *s, const char *pattern)
{
	struct states a, b, *cur = &a, *next = &b, *t;
	const char *body, *why;
	size_t n;
	bool bol, eol;
	int accept = ctap_regex_check(pattern, &why);

	if (accept < 0)
		return 0;	/* pass 2 refused it: not reached */
	body_of(pattern, &body, &n, &bol, &eol);
	memset(cur, 0, sizeof(*cur));
	for (bool first = true;; s++, first = false) {
		if (first || !bol)	/* where a match may start */
			add(cur, 0);
		close_skips(cur, body, body + n);
		if (has(cur, accept) && (!eol || !*s))
			return 1;
		if (!*s)
			return 0;
		step(cur, next, body, body + n, *s);
		t = cur;
		cur = next;
		next = t;
	}
}
