/*
 * test_softfloat.c - the runtime's integer-only binary64 arithmetic
 * (kmod-runtime/core/softfloat.c) against this machine's double
 * arithmetic, bit for bit, on hand-picked and on random operands: random
 * bit patterns (every exponent, subnormals, infinities, NaNs) and random
 * values near each other (cancellation, ties).  NaN results are checked
 * to be NaNs: their payload is SoftFloat's rule, not the hardware's.
 */
#include <math.h>
#include <stdlib.h>

#include "softfloat.h"
#include "unit.h"

static uint64_t bits_of(double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return v;
}

static double double_of(uint64_t v)
{
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

static uint64_t rand64(void)
{
	return (uint64_t)rand() << 62 ^ (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

/* An operand: any bit pattern, or a "nice" value, or a neighbour of b. */
static uint64_t operand(uint64_t b)
{
	switch (rand() % 6) {
	case 0:
		return rand64();
	case 1:		/* a small integer, or a simple fraction */
		return bits_of((double)(rand() % 2001 - 1000) / (1 << (rand() % 8)));
	case 2:		/* close to b: cancellation in a - b, ties in rounding */
		return b + (rand() % 9) - 4;
	case 3:		/* subnormal or tiny */
		return (rand64() & 0x801fffffffffffffull);
	case 4:		/* a moderate exponent */
		return (rand64() & 0x800fffffffffffffull) | (uint64_t)(1023 + rand() % 120 - 60) << 52;
	default:	/* a special value */
		return (const uint64_t[]){ 0, 1ull << 63, 0x7ff0000000000000ull,
					   0xfff0000000000000ull, 0x7ff8000000000000ull,
					   0x7ff4000000000000ull, 1, 0x7fefffffffffffffull,
					   0x3ff0000000000000ull }[rand() % 9];
	}
}

static int isnan_bits(uint64_t v)
{
	return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull);
}

struct tally {
	const char *op;
	long compared, wrong;
	char first[160];
};

static void agree(struct tally *t, uint64_t a, uint64_t b, uint64_t got, uint64_t want)
{
	t->compared++;
	if (got == want || (isnan_bits(got) && isnan_bits(want)))
		return;
	/* A zero remainder has x's sign (IEEE 754, SoftFloat); glibc's
	 * remainder() gives +0 for some x a multiple of a subnormal y. */
	if (!strcmp(t->op, "rem") && !(got << 1) && !(want << 1) && got >> 63 == a >> 63)
		return;
	if (!t->wrong++)
		snprintf(t->first, sizeof(t->first), "%s(%016llx, %016llx): %016llx, libc %016llx",
			 t->op, (unsigned long long)a, (unsigned long long)b,
			 (unsigned long long)got, (unsigned long long)want);
}

static void report(struct tally *t)
{
	CHECK(t->compared > 100000, "%s: %ld random cases", t->op, t->compared);
	CHECK(!t->wrong, "%s: %ld disagreements; the first: %s", t->op, t->wrong, t->first);
}

static void test_random_arithmetic(void)
{
	struct tally add = { .op = "add" }, sub = { .op = "sub" }, mul = { .op = "mul" },
		     dv = { .op = "div" }, rem = { .op = "rem" }, sq = { .op = "sqrt" },
		     cmp = { .op = "compare" }, i64 = { .op = "from_i64" }, f32 = { .op = "from_f32" };

	srand(20261130);
	for (int i = 0; i < 300000; i++) {
		uint64_t a = operand(rand64()), b = operand(a);
		double x = double_of(a), y = double_of(b);
		int64_t n = (int64_t)rand64() >> (rand() % 64);
		uint32_t w = rand64();
		float fw;

		agree(&add, a, b, ctap_f64_add(a, b), bits_of(x + y));
		agree(&sub, a, b, ctap_f64_sub(a, b), bits_of(x - y));
		agree(&mul, a, b, ctap_f64_mul(a, b), bits_of(x * y));
		agree(&dv, a, b, ctap_f64_div(a, b), bits_of(x / y));
		agree(&rem, a, b, ctap_f64_rem(a, b), bits_of(remainder(x, y)));
		agree(&sq, a, 0, ctap_f64_sqrt(a), bits_of(sqrt(x)));
		agree(&cmp, a, b,
		      ctap_f64_eq(a, b) | ctap_f64_lt(a, b) << 1 | ctap_f64_le(a, b) << 2,
		      (x == y) | (x < y) << 1 | (x <= y) << 2);
		agree(&i64, n, 0, ctap_f64_from_i64(n), bits_of((double)n));
		memcpy(&fw, &w, sizeof(fw));
		agree(&f32, w, 0, ctap_f64_from_f32(w), bits_of((double)fw));
	}
	report(&add);
	report(&sub);
	report(&mul);
	report(&dv);
	report(&rem);
	report(&sq);
	report(&cmp);
	report(&i64);
	report(&f32);
}

/* NaNs as SystemTap's SoftFloat makes them. */
static void test_nans(void)
{
	uint64_t inf = 0x7ff0000000000000ull, qnan = 0x7ff8000000000001ull,
		 snan = 0x7ff0000000000002ull, one = 0x3ff0000000000000ull;

	CHECK_INT(ctap_f64_sub(inf, inf), CTAP_F64_DEFAULT_NAN, "inf - inf: the default NaN");
	CHECK_INT(ctap_f64_sqrt(0xbff0000000000000ull), CTAP_F64_DEFAULT_NAN, "sqrt(-1)");
	CHECK_INT(ctap_f64_div(0, 0), CTAP_F64_DEFAULT_NAN, "0 / 0");
	CHECK_INT(ctap_f64_add(qnan, one), qnan, "a quiet NaN passes through");
	CHECK_INT(ctap_f64_add(one, snan), snan | 0x0008000000000000ull, "a signaling one, quieted");
	CHECK_INT(ctap_f64_add(qnan, snan), snan | 0x0008000000000000ull, "the signaling one first");
	CHECK_INT(ctap_f64_sub(one, qnan), qnan, "sub passes b's NaN unchanged");
}

static void test_to_i64(void)
{
	static const struct {
		double v;
		int mode;
		int64_t want;
	} cases[] = {
		{ 2.5, 0, 2 }, { 3.5, 0, 4 }, { -2.5, 0, -2 }, { 2.5, 4, 3 }, { -2.5, 4, -3 },
		{ 2.7, 1, 2 }, { -2.7, 1, -2 }, { 2.7, 2, 2 }, { -2.2, 2, -3 }, { 2.2, 3, 3 },
		{ -2.7, 3, -2 }, { 2.0, 6, 2 }, { 2.5, 6, 3 }, { 3.14, 0, 3 },
		{ 9.3e18, 0, INT64_MAX }, { -9.3e18, 0, INT64_MIN }, { -9223372036854775808.0, 0, INT64_MIN },
		{ 1e-300, 3, 1 }, { -1e-300, 2, -1 }, { 0.5, 0, 0 }, { 1.5, 0, 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(ctap_f64_to_i64(bits_of(cases[i].v), cases[i].mode) == cases[i].want,
		      "to_i64(%g, mode %d): %lld", cases[i].v, cases[i].mode,
		      (long long)ctap_f64_to_i64(bits_of(cases[i].v), cases[i].mode));
	CHECK_INT(ctap_f64_to_i64(0x7ff8000000000000ull, 0), 0, "a NaN: 0");
	CHECK_INT(ctap_f64_to_i64(0x7ff0000000000000ull, 0), INT64_MAX, "+inf");
	/* Mode 0 against the C library's rint() on random values in range. */
	srand(7);
	for (int i = 0, wrong = 0; i < 100000; i++) {
		double x = ldexp((double)(rand64() >> 11), -(rand() % 60)) * (rand() & 1 ? 1 : -1);

		if (ctap_f64_to_i64(bits_of(x), 0) != (int64_t)rint(x) && !wrong++)
			CHECK(0, "to_i64(%.17g, 0): %lld, rint %lld", x,
			      (long long)ctap_f64_to_i64(bits_of(x), 0), (long long)rint(x));
		if (i == 99999)
			CHECK(!wrong, "to_i64 mode 0 = rint on 100000 random values");
	}
}

static void str(uint64_t v, int64_t precision, const char *want)
{
	char buf[512];

	ctap_f64_to_str(buf, sizeof(buf), v, precision);
	CHECK(!strcmp(buf, want), "to_str(%016llx, %lld): \"%s\" (want \"%s\")",
	      (unsigned long long)v, (long long)precision, buf, want);
}

static void test_to_str(void)
{
	char buf[512], want[512];

	str(bits_of(3.14159), 5, "3.14159");
	str(bits_of(-2.5), 3, "-2.500");
	str(bits_of(0.125), 2, "0.13");		/* half up */
	str(bits_of(0.96), 1, "1.0");		/* carried into the integer part */
	str(bits_of(99.995), 2, "100.00");	/* 99.99500000000000454... in binary */
	str(bits_of(1.005), 2, "1.00");		/* 1.00499999999999989... */
	str(bits_of(7.0), 0, "7.0");		/* at least one digit */
	str(bits_of(1e-5), 8, "0.00001000");
	str(bits_of(9007199254740993.0), 1, "9007199254740992.0");
	str(0x7ff0000000000000ull, 3, "inf");
	str(0xfff0000000000000ull, 3, "-inf");
	str(0x7ff8000000000000ull, 3, "nan");
	ctap_f64_to_str(buf, 8, bits_of(1234.5678), 10);
	CHECK(!strcmp(buf, "1234.57"), "cut to the buffer, rounded: \"%s\"", buf);
	/* Against printf's exact conversion: the same digits where the first
	 * digit dropped is not a 5 (printf rounds that tie to even, on the
	 * exact binary value; this rounds it up, as SystemTap). */
	srand(99);
	for (int i = 0, wrong = 0; i < 20000; i++) {
		uint64_t v = rand64() & 0x7fffffffffffffffull;
		int prec = 1 + rand() % 30;
		char more[600];

		if ((v >> 52) == 0x7ff)
			continue;
		snprintf(more, sizeof(more), "%.*f", prec + 1, double_of(v));
		if (more[strlen(more) - 1] == '5')
			continue;
		snprintf(want, sizeof(want), "%.*f", prec, double_of(v));
		ctap_f64_to_str(buf, sizeof(buf), v, prec);
		if (strcmp(buf, want) && !wrong++)
			CHECK(0, "to_str(%016llx, %d): \"%s\", printf \"%s\"",
			      (unsigned long long)v, prec, buf, want);
		if (i == 19999)
			CHECK(!wrong, "to_str = printf's %%.Nf on 20000 random values");
	}
}

static void test_from_str(void)
{
	uint64_t v;

	CHECK(ctap_f64_from_str("3.14", &v) && v == bits_of(3.14), "3.14");
	CHECK(ctap_f64_from_str("-0.5", &v) && v == bits_of(-0.5), "-0.5");
	CHECK(ctap_f64_from_str("+12", &v) && v == bits_of(12.0), "+12");
	/* Its own arithmetic, in SystemTap's order: 1 / (1 / 10 / 10). */
	CHECK(ctap_f64_from_str("1e2", &v) && v == bits_of(1.0 / (1.0 / 10 / 10)), "1e2");
	CHECK(ctap_f64_from_str("25e-1", &v) && v == bits_of(25.0 / 10), "25e-1");
	CHECK(ctap_f64_from_str("", &v) && v == 0, "\"\" reads 0, as SystemTap's");
	CHECK(!ctap_f64_from_str("1.5x", &v), "characters after the number refused");
	CHECK(!ctap_f64_from_str(" 1", &v), "leading space refused");
	CHECK(ctap_f64_from_str("1e99999999999999999999", &v) && v == 0x7ff0000000000000ull,
	      "a huge exponent ends (infinity)");
	CHECK(ctap_f64_from_str("1e-99999999999999999999", &v) && v == 0,
	      "a huge negative exponent ends (0)");
}

int main(void)
{
	test_random_arithmetic();
	test_nans();
	test_to_i64();
	test_to_str();
	test_from_str();
	return unit_done();
}
