// SPDX-License-Identifier: GPL-2.0
/*
 * regex_match.c - the =~ and !~ operators: running a compiled pattern.
 *
 * The translator parsed the POSIX extended regular expression and checked
 * it in pass 2 (translator/sem/regex_compile.c); what reaches the module is a
 * program of at most CTAP_REGEX_MAX_INST instructions.  It runs as a
 * Thompson NFA simulation: the set of live instructions is a bitmap, the
 * string is read once, left to right.  No recursion and no backtracking: a
 * match costs at most (string length + 1) x (program length) steps and a
 * fixed 400 bytes of stack, whatever the pattern ("a*a*a*...b" and
 * "(a*)*b" included), so it can run in any probe handler with interrupts
 * off.
 *
 * matched() and ngroups() need where the groups matched: a script that
 * calls them gets programs with SAVE instructions, run by the Pike VM at
 * the end of this file instead, in a work area of the module's.
 */
#include "regex_match.h"

#define WORDS	(CTAP_REGEX_MAX_INST / 64)

struct states {
	uint64_t w[WORDS];
};

static inline bool has(const struct states *s, unsigned int i)
{
	return s->w[i / 64] >> (i % 64) & 1;
}

static inline void put(struct states *s, unsigned int i)
{
	s->w[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Adds pc to s; if it is new, also to todo, whose jumps are not followed yet. */
static inline void add(struct states *s, struct states *todo, unsigned int pc)
{
	if (!has(s, pc)) {
		put(s, pc);
		put(todo, pc);
	}
}

/* Removes and returns the lowest instruction of todo, or -1. */
static int take(struct states *todo)
{
	for (int i = 0; i < WORDS; i++) {
		if (todo->w[i]) {
			int bit = __builtin_ctzll(todo->w[i]);

			todo->w[i] &= todo->w[i] - 1;
			return i * 64 + bit;
		}
	}
	return -1;
}

/*
 * Follows every jump, split and anchor that holds here from the states in
 * todo, so that s holds only what reads a character or matches.  Each
 * instruction enters todo once, so this ends, in O(program length).
 */
static void close_states(const struct ctap_regex *re, struct states *s, struct states *todo,
			 bool at_start, bool at_end)
{
	int pc;

	while ((pc = take(todo)) >= 0) {
		const struct ctap_regex_inst *in = &re->inst[pc];

		switch (in->op) {
		case CTAP_RE_SPLIT:
			add(s, todo, in->y);
			add(s, todo, in->x);
			break;
		case CTAP_RE_JMP:
			add(s, todo, in->x);
			break;
		case CTAP_RE_BOL:
			if (at_start)
				add(s, todo, pc + 1);
			break;
		case CTAP_RE_EOL:
			if (at_end)
				add(s, todo, pc + 1);
			break;
		case CTAP_RE_SAVE:	/* only positions: nothing to record here */
			add(s, todo, pc + 1);
			break;
		}
	}
}

static bool reads(const struct ctap_regex *re, const struct ctap_regex_inst *in,
		  unsigned char ch)
{
	switch (in->op) {
	case CTAP_RE_CHAR:
		return in->ch == ch;
	case CTAP_RE_ANY:
		return true;
	case CTAP_RE_CLASS:
		return re->classes[in->x].bits[ch / 8] >> (ch % 8) & 1;
	}
	return false;
}

int64_t ctap_regex_match(const struct ctap_regex *re, const char *s)
{
	struct states a, b, todo, *cur = &a, *next = &b, *t;

	memset(cur, 0, sizeof(*cur));
	memset(&todo, 0, sizeof(todo));
	for (size_t i = 0;; i++) {
		unsigned char ch = s[i];

		add(cur, &todo, 0);	/* a match may start anywhere */
		close_states(re, cur, &todo, i == 0, !ch);
		if (has(cur, re->ninst - 1))	/* the program ends in its MATCH */
			return 1;
		if (!ch)
			return 0;
		memset(next, 0, sizeof(*next));
		for (int w = 0; w < WORDS; w++) {
			for (uint64_t bits = cur->w[w]; bits; bits &= bits - 1) {
				unsigned int pc = w * 64 + __builtin_ctzll(bits);

				if (reads(re, &re->inst[pc], ch))
					add(next, &todo, pc + 1);
			}
		}
		t = cur;
		cur = next;
		next = t;
	}
}

/* ---- submatches: a Pike VM ---- */

/* A stack entry that restores a capture slot: RESTORE | slot << 16 | old. */
#define RESTORE		0x80000000u

static void clear_threads(struct ctap_regex_threads *l)
{
	l->n = 0;
	memset(l->on, 0, sizeof(l->on));
}

/*
 * Adds to l the threads that pc0 leads to at position pos without reading
 * a character, each with w->caps as the SAVEs on its way left them, in
 * priority order (a SPLIT's x before its y).  Depth first with an explicit
 * stack: each instruction is entered once per list, and pushes at most
 * two entries, so the stack holds at most 2 x program length + 1.
 */
static void add_thread(const struct ctap_regex *re, struct ctap_regex_work *w,
		       struct ctap_regex_threads *l, unsigned int pc0, size_t pos, bool at_end)
{
	uint32_t *stack = w->stack;
	unsigned int sp = 0;

	stack[sp++] = pc0;
	while (sp) {
		uint32_t e = stack[--sp];
		const struct ctap_regex_inst *in;
		unsigned int pc = e;

		if (e & RESTORE) {
			w->caps[(e >> 16) & 0xff] = e & 0xffff;
			continue;
		}
		if (l->on[pc / 64] >> (pc % 64) & 1)
			continue;
		l->on[pc / 64] |= (uint64_t)1 << (pc % 64);
		in = &re->inst[pc];
		switch (in->op) {
		case CTAP_RE_JMP:
			stack[sp++] = in->x;
			break;
		case CTAP_RE_SPLIT:
			stack[sp++] = in->y;
			stack[sp++] = in->x;
			break;
		case CTAP_RE_BOL:
			if (pos == 0)
				stack[sp++] = pc + 1;
			break;
		case CTAP_RE_EOL:
			if (at_end)
				stack[sp++] = pc + 1;
			break;
		case CTAP_RE_SAVE:
			if (in->x < CTAP_REGEX_SLOTS) {
				stack[sp++] = RESTORE | (uint32_t)in->x << 16 | w->caps[in->x];
				w->caps[in->x] = pos;
			}
			stack[sp++] = pc + 1;
			break;
		default:	/* reads a character, or matches: a thread */
			l->pc[l->n] = pc;
			memcpy(l->caps[l->n], w->caps, sizeof(w->caps));
			l->n++;
		}
	}
}

/* Does the thread's match (start tc[0], end tc[1]) beat the best so far?
 * POSIX's: the leftmost, then the longest. */
static bool better(const uint16_t *tc, const uint16_t *best, bool found)
{
	return !found || tc[0] < best[0] || (tc[0] == best[0] && tc[1] > best[1]);
}

int64_t ctap_regex_match_groups(const struct ctap_regex *re, const char *s,
				struct ctap_regex_work *w, uint16_t *caps)
{
	struct ctap_regex_threads *cur = &w->list[0], *next = &w->list[1], *t;
	const size_t max = CTAP_REGEX_NOPOS - 1;	/* positions a slot holds */
	bool found = false;

	memset(caps, 0xff, sizeof(w->caps));
	if (!re->captures)
		return 0;
	clear_threads(cur);
	for (size_t i = 0;; i++) {
		unsigned char ch = i < max ? s[i] : 0;

		if (!found) {	/* a match may start here, after those under way */
			memset(w->caps, 0xff, sizeof(w->caps));
			add_thread(re, w, cur, 0, i, !ch);
		}
		clear_threads(next);
		for (unsigned int k = 0; k < cur->n; k++) {
			const struct ctap_regex_inst *in = &re->inst[cur->pc[k]];
			uint16_t *tc = cur->caps[k];

			if (found && tc[0] > caps[0])	/* starts later: cannot win */
				continue;
			if (in->op == CTAP_RE_MATCH) {
				if (better(tc, caps, found))
					memcpy(caps, tc, sizeof(w->caps));
				found = true;
				continue;
			}
			if (ch && reads(re, in, ch)) {
				memcpy(w->caps, tc, sizeof(w->caps));
				add_thread(re, w, next, cur->pc[k] + 1, i + 1,
					   i + 1 >= max || !s[i + 1]);
			}
		}
		if (!ch || (found && !next->n))
			return found;
		t = cur;
		cur = next;
		next = t;
	}
}

int64_t ctap_regex_submatch(struct ctap_regex_last *m, char *copy, size_t size,
			    const struct ctap_regex *re, const char *s)
{
	size_t n = 0;

	m->ngroups = re->ngroups;
	m->matched = ctap_regex_match_groups(re, s, &m->work, m->caps);
	if (m->matched && size) {
		for (; n + 1 < size && s[n]; n++)
			copy[n] = s[n];
		copy[n] = 0;
	}
	return m->matched;
}
