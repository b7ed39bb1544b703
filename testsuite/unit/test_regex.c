/*
 * test_regex.c - the =~ matcher (kmod-runtime/regex.c) and the pass-2
 * check that shares it.
 */
#include <stdlib.h>
#include <time.h>

#include "regex.h"
#include "unit.h"

static void match(const char *s, const char *p, int want)
{
	CHECK_INT(ctap_regex_match(s, p), want, p);
}

static void test_matches(void)
{
	match("hello", "ell", 1);
	match("hello", "^ell", 0);
	match("hello", "^hel", 1);
	match("hello", "llo$", 1);
	match("hello", "ll$", 0);
	match("hello", "^hello$", 1);
	match("", "^$", 1);
	match("x", "^$", 0);
	match("", "a*", 1);
	match("aaab", "^a+b$", 1);
	match("b", "^a+b$", 0);
	match("ab", "^a?b$", 1);
	match("aab", "^a?b$", 0);
	match("kworker/0:1", "^kworker/[0-9]+:[0-9]+$", 1);
	match("bash", "[^a-z]", 0);
	match("ba sh", "[^a-z]", 1);
	match("a.c", "a\\.c", 1);
	match("abc", "a\\.c", 0);
	match("abc", "a.c", 1);
	match("cost $5", "\\$5", 1);
	match("x]y", "[]]", 1);
	match("mississippi", "s+is+ip", 1);
	match("mississippi", "^m.*i$", 1);
	match("mississippi", "^m.*x", 0);
}

/* 200 "a*" atoms, then a 'b' the string lacks: a backtracking matcher
 * takes exponential time or its whole stack; this one reads the string
 * once, with a fixed state set. */
static void test_pathological(void)
{
	char p[512], s[600];
	int n = 0;
	clock_t t0 = clock();

	for (int i = 0; i < 200; i++) {
		p[n++] = 'a';
		p[n++] = '*';
	}
	p[n++] = 'b';
	p[n] = 0;
	memset(s, 'a', 511);
	s[511] = 0;
	CHECK_INT(ctap_regex_match(s, p), 0, "200 x a* then b, on 511 a's: no match");
	s[510] = 'b';
	CHECK_INT(ctap_regex_match(s, p), 1, "200 x a* then b, on a...ab: a match");
	CHECK((clock() - t0) / (double)CLOCKS_PER_SEC < 5, "in bounded time");
}

static void test_check(void)
{
	const char *why = NULL;
	char big[600];

	CHECK_INT(ctap_regex_check("^a[bc]*d?$", &why), 3, "atoms counted");
	CHECK_INT(ctap_regex_check("(a|b)", &why), -1, "groups refused");
	CHECK_STR(why, "groups, alternation and {m,n} are not supported yet", "why");
	CHECK_INT(ctap_regex_check("a{2}", &why), -1, "braces refused");
	CHECK_INT(ctap_regex_check("*a", &why), -1, "a leading repetition refused");
	CHECK_INT(ctap_regex_check("a^b", &why), -1, "an anchor in the middle refused");
	CHECK_INT(ctap_regex_check("[abc", &why), -1, "an unterminated bracket refused");
	memset(big, 'x', 300);
	big[300] = 0;
	CHECK_INT(ctap_regex_check(big, &why), -1, "more atoms than the state set refused");
	big[CTAP_REGEX_MAX_ATOMS] = 0;
	CHECK_INT(ctap_regex_check(big, &why), CTAP_REGEX_MAX_ATOMS, "the largest pattern accepted");
	big[CTAP_REGEX_MAX_ATOMS - 1] = 'y';
	memset(big + 300, 'x', 10);
	CHECK_INT(ctap_regex_match("xxxx", big), 0, "the largest pattern matches");
}

int main(void)
{
	test_matches();
	test_pathological();
	test_check();
	return unit_done();
}
