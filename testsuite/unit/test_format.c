/*
 * test_format.c - the printf engine against SystemTap 4.8's output.
 *
 * Each expected line is what SystemTap 4.8 printed in the guest
 * (bench/peer/reference) for the same printf call, shown beside it.
 */
#include <errno.h>
#include <stdlib.h>

#include "format.h"
#include "quote.h"
#include "unit.h"

#define N(v)	{ .n = (v) }
#define S(v)	{ .s = (v) }

static const char *fmt(const char *f, const union ctap_arg *args, int n)
{
	static char buf[512];
	struct ctap_out o;

	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_format(&o, f, args, n, NULL);
	buf[o.len] = '\0';
	return buf;
}

#define CHECK_FMT(want, f, ...) do {						\
	const union ctap_arg a_[] = { __VA_ARGS__ };				\
	CHECK_STR(fmt(f, a_, sizeof(a_) / sizeof(*a_)), want, f);		\
} while (0)

static int read_here(void *dst, int64_t addr, size_t len)
{
	memcpy(dst, (const void *)(intptr_t)addr, len);
	return 0;
}

static size_t reads;

static int read_count(void *dst, int64_t addr, size_t len)
{
	memset(dst, 'x', len);
	reads += len;
	return 0;
}

static int read_fault(void *dst, int64_t addr, size_t len)
{
	return -EFAULT;
}

/* ctap_quote(): SystemTap's text_str()/string_quoted() rules (runtime
 * stp_string.c, _stp_text_str), case by case. */
static void quote(const char *in, size_t inlen, size_t outlen, bool quoted, bool buffer,
		  const char *want)
{
	char out[256];

	memset(out, 'X', sizeof(out));
	ctap_quote(out, sizeof(out), in, inlen, outlen, quoted, buffer);
	CHECK_STR(out, want, in);
	CHECK(strlen(out) <= (outlen ? outlen : sizeof(out) - 1), "%s: %zu chars", want, strlen(out));
}

static void test_quote(void)
{
	quote("abc", 3, 0, true, false, "\"abc\"");
	quote("abc", 3, 0, false, false, "abc");
	quote("a\nb\"c\\", 7, 0, true, false, "\"a\\nb\\\"c\\\\\"");
	quote("\a\b\f\r\t\v", 6, 0, false, false, "\\a\\b\\f\\r\\t\\v");
	quote("\001\177", 2, 0, true, false, "\"\\001\\177\"");
	quote("\xc3\xa9t\xc3\xa9", 5, 0, true, false, "\"\\u00E9t\\u00E9\"");
	quote("\xf0\x9f\x98\x80", 4, 0, true, false, "\"\\U0001F600\"");
	/* invalid or overlong UTF-8: the bytes one by one */
	quote("\xff\xc0\x80", 3, 0, true, false, "\"\\377\\300\\200\"");
	/* a string ends at its NUL; a buffer shows it, as "\0" */
	quote("a\0b", 3, 0, true, false, "\"a\"");
	quote("a\0b", 3, 0, true, true, "\"a\\0b\"");
	/* inlen cuts without "..." */
	quote("abcdef", 3, 0, true, false, "\"abc\"");
	/* outlen 8: six characters fit, the cut text ends quote then "..." */
	quote("abcdefghij", 10, 8, true, false, "\"abc\"...");
	quote("abcdef", 6, 8, true, false, "\"abcdef\"");
	/* an escape is never cut in half by the "..." */
	quote("ab\ncdefgh", 9, 8, true, false, "\"ab\"...");
	/* unquoted text is cut at outlen */
	quote("abcdefghij", 10, 4, false, false, "abcd");
}

/* ctap_utf8_put(): the encodings of RFC 3629, and what it refuses. */
static void utf8_put(uint32_t c, size_t size, int want_n, const char *want)
{
	char out[8], what[32];

	snprintf(what, sizeof(what), "U+%X in %zu bytes", c, size);
	memset(out, 'X', sizeof(out));
	CHECK_INT(ctap_utf8_put(out, size, c), want_n, what);
	if (want_n > 0)
		CHECK_STR(out, want, what);
}

static void test_utf8_put(void)
{
	utf8_put('A', 8, 1, "A");
	utf8_put(0x7f, 8, 1, "\x7f");
	utf8_put(0x80, 8, 2, "\xc2\x80");
	utf8_put(0xe9, 8, 2, "\xc3\xa9");
	utf8_put(0x7ff, 8, 2, "\xdf\xbf");
	utf8_put(0x800, 8, 3, "\xe0\xa0\x80");
	utf8_put(0x20ac, 8, 3, "\xe2\x82\xac");
	utf8_put(0xffff, 8, 3, "\xef\xbf\xbf");
	utf8_put(0x10000, 8, 4, "\xf0\x90\x80\x80");
	utf8_put(0x1f600, 8, 4, "\xf0\x9f\x98\x80");
	utf8_put(0x10ffff, 8, 4, "\xf4\x8f\xbf\xbf");
	utf8_put(0xd800, 8, -1, NULL);
	utf8_put(0xdfff, 8, -1, NULL);
	utf8_put(0x110000, 8, -1, NULL);
	utf8_put(0x20ac, 4, 3, "\xe2\x82\xac");	/* exactly room for the NUL */
	utf8_put(0x20ac, 3, 0, NULL);			/* no room for it */
	utf8_put('A', 1, 0, NULL);
}

int main(void)
{
	char buf[64];
	struct ctap_out o;

	/* printf("<%d|%i|%u|%x|%X|%o>\n", -42, 42, -1, 255, 255, 8) */
	CHECK_FMT("<-42|42|18446744073709551615|ff|FF|10>", "<%d|%i|%u|%x|%X|%o>",
		  N(-42), N(42), N(-1), N(255), N(255), N(8));
	/* printf("<%5d|%-5d|%05d|%+d|% d|%+5d>\n", 42, 42, 42, 42, 42, -42) */
	CHECK_FMT("<   42|42   |00042|+42| 42|  -42>", "<%5d|%-5d|%05d|%+d|% d|%+5d>",
		  N(42), N(42), N(42), N(42), N(42), N(-42));
	/* printf("<%#x|%#o|%#X|%x>\n", 255, 8, 255, -1) */
	CHECK_FMT("<0xff|010|0XFF|ffffffffffffffff>", "<%#x|%#o|%#X|%x>",
		  N(255), N(8), N(255), N(-1));
	/* '#' on 0, as SystemTap 4.8 prints it (C would print "0"):
	 * printf("[%#x] [%#X] [%#o] [%#8x]\n", 0, 0, 0, 0) */
	CHECK_FMT("[0x0] [0X0] [00] [     0x0]", "[%#x] [%#X] [%#o] [%#8x]",
		  N(0), N(0), N(0), N(0));
	/* printf("<%s|%10s|%-10s|%.2s|%10.3s|%-*s|%*.*s>\n", "abc", "abc", "abc",
	 *        "abc", "abcdef", 6, "ab", 5, 2, "xyz") */
	CHECK_FMT("<abc|       abc|abc       |ab|       abc|ab    |   xy>",
		  "<%s|%10s|%-10s|%.2s|%10.3s|%-*s|%*.*s>", S("abc"), S("abc"), S("abc"),
		  S("abc"), S("abcdef"), N(6), S("ab"), N(5), N(2), S("xyz"));
	/* printf("<%c|%3c|%-3c>\n", 65, 66, 67) */
	CHECK_FMT("<A|  B|C  >", "<%c|%3c|%-3c>", N(65), N(66), N(67));
	/* %#c, what $var$ prints a char with: C's letter escapes, else octal */
	CHECK_FMT("'a' '\\n' '\\000' '\\'' '\\\\' '\\377'", "'%#c' '%#c' '%#c' '%#c' '%#c' '%#c'",
		  N('a'), N('\n'), N(0), N('\''), N('\\'), N(255));
	/* printf("<%p|%p>\n", 0, 4096) */
	CHECK_FMT("<0x0|0x1000>", "<%p|%p>", N(0), N(4096));
	/* printf("<%20s>\n", "this string is longer than twenty") */
	CHECK_FMT("<this string is longer than twenty>", "<%20s>",
		  S("this string is longer than twenty"));

	/* C's rules where the reference has no line of its own. */
	CHECK_FMT("100%", "%d%%", N(100));
	CHECK_FMT("-9223372036854775808", "%d", N(INT64_MIN));
	CHECK_FMT("[  007]", "[%5.3d]", N(7));
	CHECK_FMT("[]", "[%.0d]", N(0));
	CHECK_FMT("[-3   ]", "[%-5d]", N(-3));
	CHECK_FMT("[-0003]", "[%05d]", N(-3));
	CHECK_FMT("[x   ]", "[%*s]", N(-4), S("x"));

	/* %b writes the value's bytes; %1b, %2b, %4b narrow it. */
	ctap_out_init(&o, buf, sizeof(buf));
	ctap_format(&o, "%1b%2b%4b%b", (union ctap_arg[]){ N(0x41), N(0x4342), N(0x47464544),
			   N(0x4f4e4d4c4b4a4948) }, 4, NULL);
	CHECK(o.len == 15 && !memcmp(buf, "ABCDEFGHIJKLMNO", 15), "%%b family writes %zu bytes", o.len);

	/* %m / %M: memory at an address, raw or as hex; a fault ends it. */
	static const char mem[] = "ctap";
	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_format(&o, "[%.4m]", (union ctap_arg[]){ N((intptr_t)mem) }, 1, read_here);
	buf[o.len] = '\0';
	CHECK_STR(buf, "[ctap]", "%m prints raw bytes");
	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_format(&o, "[%.4M]", (union ctap_arg[]){ N((intptr_t)mem) }, 1, read_here);
	buf[o.len] = '\0';
	CHECK_STR(buf, "[63746170]", "%M prints hex");
	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_format(&o, "[%.4m]", (union ctap_arg[]){ N(0) }, 1, read_fault);
	buf[o.len] = '\0';
	CHECK_STR(buf, "[]", "a fault reading %m memory prints nothing");

	/* A full buffer truncates and says so, never overflows. */
	char small[8];
	ctap_out_init(&o, small, sizeof(small));
	ctap_format(&o, "%s and %d", (union ctap_arg[]){ S("a long string"), N(12345) }, 2, NULL);
	CHECK(o.len == sizeof(small) && o.truncated, "output is bounded and marked truncated");

	/* %.*m with a huge precision reads only what fits (it once read the
	 * whole span, 64 bytes at a time, with interrupts off). */
	reads = 0;
	ctap_out_init(&o, buf, sizeof(buf));
	ctap_format(&o, "%.*m", (union ctap_arg[]){ N(INT64_MAX), N(0) }, 2, read_count);
	CHECK(o.len == sizeof(buf) && reads == sizeof(buf), "%%.*m of INT64_MAX reads %zu bytes", reads);
	reads = 0;
	ctap_out_init(&o, buf, sizeof(buf));
	ctap_format(&o, "%.*M", (union ctap_arg[]){ N(1 << 30), N(0) }, 2, read_count);
	CHECK(reads == sizeof(buf) / 2, "%%.*M reads half the room (two hex digits a byte): %zu", reads);
	/* A '*' width of INT64_MIN: clamped, no overflow when negated. */
	ctap_out_init(&o, buf, sizeof(buf));
	ctap_format(&o, "%*d", (union ctap_arg[]){ N(INT64_MIN), N(7) }, 2, NULL);
	CHECK(o.len == sizeof(buf) && buf[0] == '7', "%%*d of INT64_MIN pads to the room, left-aligned");
	test_quote();
	test_utf8_put();
	return unit_done();
}
