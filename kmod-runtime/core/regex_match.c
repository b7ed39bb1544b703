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
