/*
 * test_regex.c - =~ patterns: the translator's compiler
 * (translator/sem/regex_compile.c) and the runtime's matcher
 * (kmod-runtime/core/regex_match.c), checked against glibc's POSIX regexec() on
 * hand-picked and on random patterns.
 */
#include <regex.h>
#include <stdlib.h>
#include <time.h>

#include "regex_compile.h"
#include "unit.h"

/* -1: ctap refuses the pattern; else whether it matches s. */
static int ctap_match(const char *s, const char *pattern)
{
	struct ctap_regex re;
	const char *why;
	int m;

	if (regex_compile(pattern, &re, &why))
		return -1;
	m = ctap_regex_match(&re, s);
	regex_free(&re);
	return m;
}

/* The same from glibc: -1 if it refuses the pattern. */
static int posix_match(const char *s, const char *pattern)
{
	regex_t r;
	int m;

	if (regcomp(&r, pattern, REG_EXTENDED | REG_NOSUB))
		return -1;
	m = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

static void match(const char *s, const char *p, int want)
{
	char what[200];

	snprintf(what, sizeof(what), "\"%s\" =~ \"%s\"", s, p);
	CHECK_INT(ctap_match(s, p), want, what);
	if (want >= 0)
		CHECK_INT(posix_match(s, p), want, "glibc agrees");
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
	match("anything", "", 1);
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
	match("x-y", "[a-]", 1);
	match("mississippi", "s+is+ip", 1);
	match("mississippi", "^m.*i$", 1);
	match("mississippi", "^m.*x", 0);
	/* What the pattern-by-pattern matcher before this one refused. */
	match("linux.tar.xz", "(\\.tar\\.(gz|bz2|xz)|\\.zip|\\.tgz|\\.tbz)$", 1);
	match("linux.tar.Z", "(\\.tar\\.(gz|bz2|xz)|\\.zip|\\.tgz|\\.tbz)$", 0);
	match("a.zip", "(\\.tar\\.(gz|bz2|xz)|\\.zip|\\.tgz|\\.tbz)$", 1);
	match("cat", "^(cat|dog)$", 1);
	match("cow", "^(cat|dog)$", 0);
	match("abab", "^(ab)+$", 1);
	match("aba", "^(ab)+$", 0);
	match("aaa", "^a{3}$", 1);
	match("aa", "^a{3}$", 0);
	match("aaaa", "^a{2,3}$", 0);
	match("aaaa", "^a{2,}$", 1);
	match("ab", "^a{0}b$", 0);
	match("b", "^a{0}b$", 1);
	match("x9", "^[[:alpha:]][[:digit:]]$", 1);
	match("9x", "^[[:alpha:]][[:digit:]]$", 0);
	match("\t", "[[:space:]]", 1);
	match("b", "^(a*)*b$", 1);
	match("ab", "a|^b", 1);
	match("ba", "a$|^c", 1);
	match("a", "a|", 1);
	match("x", "()", 1);
	/* Refused, with a reason. */
	match("aa", "(a)\\1", -1);
	match("a", "[[.a.]]", -1);
	match("a", "[[:nope:]]", -1);
	match("a", "(a", -1);
	match("a", "a)", -1);
	match("a", "*a", -1);
	match("a", "a{3,2}", -1);
	match("a", "a{256}", -1);
	match("a", "a{x}", -1);
	match("a", "[z-a]", -1);
	match("a", "[abc", -1);
	match("a", "a\\", -1);
}

/* 200 "a*" atoms, then a 'b' the string lacks: a backtracking matcher
 * takes exponential time or its whole stack; this one reads the string
 * once, with a fixed state set.  So does "(a*)*" nested 50 deep. */
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
	CHECK_INT(ctap_match(s, p), 0, "200 x a* then b, on 511 a's: no match");
	s[510] = 'b';
	CHECK_INT(ctap_match(s, p), 1, "200 x a* then b, on a...ab: a match");
	n = 0;
	for (int i = 0; i < 50; i++)
		p[n++] = '(';
	p[n++] = 'a';
	for (int i = 0; i < 50; i++) {
		p[n++] = '*';
		p[n++] = ')';
	}
	p[n++] = 'b';
	p[n] = 0;
	s[510] = 'a';
	CHECK_INT(ctap_match(s, p), 0, "(((a*)*)*...)b nested 50 deep, on 511 a's: no match");
	CHECK((clock() - t0) / (double)CLOCKS_PER_SEC < 5, "in bounded time");
}

static void test_limits(void)
{
	struct ctap_regex re;
	const char *why = NULL;
	char big[2100];

	memset(big, 'x', 2000);
	big[2000] = 0;
	CHECK_INT(regex_compile(big, &re, &why), -1, "more instructions than the state set refused");
	CHECK_STR(why, "too long: a pattern compiles to at most 1024 instructions", "why");
	big[CTAP_REGEX_MAX_INST - 1] = 0;
	CHECK_INT(regex_compile(big, &re, &why), 0, "the largest pattern accepted");
	CHECK_INT(re.ninst, CTAP_REGEX_MAX_INST, "and fills the program");
	CHECK_INT(ctap_regex_match(&re, "xxxx"), 0, "which matches");
	regex_free(&re);
	CHECK_INT(regex_compile("(a{200}){200}", &re, &why), -1, "a repetition's copies counted");
	memset(big, '(', 150);
	big[150] = 0;
	CHECK_INT(regex_compile(big, &re, &why), -1, "150 open parentheses refused");
	CHECK_STR(why, "nested too deeply", "why");
	CHECK_INT(regex_compile("(a|b", &re, &why), -1, "an unclosed group refused");
	CHECK_STR(why, "unmatched '('", "why");
}

/*
 * Random patterns over the grammar's characters, random strings over
 * their letters: wherever ctap accepts a pattern, glibc must accept it and
 * agree on every string.  Seeded: a failure repeats.
 */
static void test_against_glibc(void)
{
	static const char pat_chars[] = "abc.*+?|()[]^$-{},12\\";
	int compared = 0, disagreed = 0;
	char p[16], s[12], first[120] = "";

	srand(12345);
	for (int i = 0; i < 40000; i++) {
		int plen = rand() % 10;

		for (int j = 0; j < plen; j++)
			p[j] = pat_chars[rand() % (sizeof(pat_chars) - 1)];
		p[plen] = 0;
		if (ctap_match("", p) < 0)
			continue;
		for (int k = 0; k < 8; k++) {
			int slen = rand() % 8;
			int want, got;

			for (int j = 0; j < slen; j++)
				s[j] = "abc-"[rand() % 4];
			s[slen] = 0;
			want = posix_match(s, p);
			got = ctap_match(s, p);
			compared++;
			if (got != want && getenv("REGEX_VERBOSE"))
				printf("# \"%s\" =~ \"%s\": ctap %d, glibc %d\n", s, p, got, want);
			if (got != want && !disagreed++)
				snprintf(first, sizeof(first), "\"%s\" =~ \"%s\": ctap %d, glibc %d",
					 s, p, got, want);
		}
	}
	CHECK(compared > 50000, "%d random cases compared", compared);
	CHECK(!disagreed, "%d disagreements; the first: %s", disagreed, first);
}

/* The capturing matcher on s: "start,end" of the whole match, then each
 * group's "start,end" or "-" ("" if it refuses the pattern, "no" if it
 * does not match). */
static struct ctap_regex_work work;

static const char *ctap_groups(const char *s, const char *pattern, char *out, size_t size)
{
	struct ctap_regex re;
	uint16_t caps[CTAP_REGEX_SLOTS];
	const char *why;
	size_t n = 0;

	*out = 0;
	if (regex_compile_ex(pattern, true, &re, &why))
		return out;
	if (!ctap_regex_match_groups(&re, s, &work, caps)) {
		regex_free(&re);
		snprintf(out, size, "no");
		return out;
	}
	for (int g = 0; g <= re.ngroups && g <= CTAP_REGEX_MAX_GROUPS && n < size; g++) {
		if (caps[2 * g] == CTAP_REGEX_NOPOS)
			n += snprintf(out + n, size - n, "%s-", g ? " " : "");
		else
			n += snprintf(out + n, size - n, "%s%d,%d", g ? " " : "", caps[2 * g],
				      caps[2 * g + 1]);
	}
	regex_free(&re);
	return out;
}

static void groups(const char *s, const char *pattern, const char *want)
{
	char buf[200];
	const char *got = ctap_groups(s, pattern, buf, sizeof(buf));

	CHECK(!strcmp(got, want), "\"%s\" =~ \"%s\": %s (want %s)", s, pattern, got, want);
}

static void test_groups(void)
{
	groups("size=4096", "^([a-z]+)=([0-9]+)$", "0,9 0,4 5,9");
	groups("xx ab yy", "(a|x)(b)?", "0,1 0,1 -");
	groups("b", "a|(b)", "0,1 0,1");
	groups("a", "a|(b)", "0,1 -");
	groups("baaac", "a+", "1,4");
	groups("aaa", "(a*)(a*)", "0,3 0,3 3,3");
	groups("abcabc!", "(abc)+", "0,6 3,6");
	groups("abcd", "(a|ab)(c|bcd)(d*)", "0,4 0,1 1,4 4,4");
	groups("xyz", "()", "0,0 0,0");
	groups("", "^$", "0,0");
	groups("nothing", "[0-9]", "no");
	/* Leftmost, then longest: not the first alternative's. */
	groups("xabcd", "a|abcd|ab", "1,5");
	/* Groups past the ninth are counted, not recorded. */
	groups("abcdefghij", "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)",
	       "0,10 0,1 1,2 2,3 3,4 4,5 5,6 6,7 7,8 8,9");
}

/* The capturing matcher's whole match is glibc's (POSIX leftmost-longest)
 * on random patterns and strings, and it matches where the plain one does. */
static void test_groups_against_glibc(void)
{
	static const char pat_chars[] = "abc.*+?|()[]^$-{},12\\";
	int compared = 0, disagreed = 0;
	char p[16], s[12], first[400] = "", got[200];

	srand(54321);
	for (int i = 0; i < 20000; i++) {
		int plen = rand() % 10;
		regex_t r;

		for (int j = 0; j < plen; j++)
			p[j] = pat_chars[rand() % (sizeof(pat_chars) - 1)];
		p[plen] = 0;
		if (ctap_match("", p) < 0 || regcomp(&r, p, REG_EXTENDED))
			continue;
		for (int k = 0; k < 8; k++) {
			int slen = rand() % 8;
			regmatch_t m[1];
			char want[40];

			for (int j = 0; j < slen; j++)
				s[j] = "abc-"[rand() % 4];
			s[slen] = 0;
			if (regexec(&r, s, 1, m, 0))
				snprintf(want, sizeof(want), "no");
			else
				snprintf(want, sizeof(want), "%d,%d", (int)m[0].rm_so, (int)m[0].rm_eo);
			ctap_groups(s, p, got, sizeof(got));
			got[strcspn(got, " ")] = 0;
			compared++;
			if (strcmp(got, want) && !disagreed++)
				snprintf(first, sizeof(first), "\"%s\" =~ \"%s\": ctap %s, glibc %s",
					 s, p, got, want);
		}
		regfree(&r);
	}
	CHECK(compared > 30000, "%d random cases compared", compared);
	CHECK(!disagreed, "%d disagreements; the first: %s", disagreed, first);
}

int main(void)
{
	test_matches();
	test_pathological();
	test_limits();
	test_against_glibc();
	test_groups();
	test_groups_against_glibc();
	return unit_done();
}
