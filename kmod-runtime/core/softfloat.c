// SPDX-License-Identifier: GPL-2.0
/*
 * softfloat.c - binary64 arithmetic with integers only (see softfloat.h).
 *
 * A finite nonzero operand is unpacked to a significand m with its
 * leading 1 at bit 63 and an exponent e, its value m * 2^(e - 1086) (e is
 * the biased exponent of the leading bit, as in the format).  Each
 * operation works exactly, or keeps whatever it drops as a sticky low bit,
 * and f64_round_pack() rounds once.  128-bit integers for the wide products
 * and shifts; divisions and square roots go a bit at a time (64 steps),
 * so no 128-bit division is needed from a library the kernel lacks.
 */
#include "softfloat.h"

typedef unsigned __int128 f64_u128;

#define F64_SIGN_BIT	0x8000000000000000ull
#define F64_QUIET_BIT	0x0008000000000000ull
#define F64_INF_BITS	0x7ff0000000000000ull
#define F64_FRAC_MASK	0x000fffffffffffffull

static inline int f64_sign_of(uint64_t a)
{
	return a >> 63;
}

static inline int f64_exp_of(uint64_t a)
{
	return (a >> 52) & 0x7ff;
}

static inline bool f64_is_nan(uint64_t a)
{
	return f64_exp_of(a) == 0x7ff && (a & F64_FRAC_MASK);
}

static inline bool f64_is_inf(uint64_t a)
{
	return (a & ~F64_SIGN_BIT) == F64_INF_BITS;
}

static inline bool f64_is_zero(uint64_t a)
{
	return !(a & ~F64_SIGN_BIT);
}

static inline bool f64_is_signaling(uint64_t a)
{
	return f64_is_nan(a) && !(a & F64_QUIET_BIT);
}

static inline uint64_t f64_with_sign(uint64_t magnitude, int sign)
{
	return (magnitude & ~F64_SIGN_BIT) | (uint64_t)sign << 63;
}

/* The NaN an operation on a NaN gives: SystemTap's SoftFloat's choice. */
static uint64_t f64_nan_of(uint64_t a, uint64_t b)
{
	if (f64_is_signaling(a))
		return a | F64_QUIET_BIT;
	if (f64_is_signaling(b))
		return b | F64_QUIET_BIT;
	return f64_is_nan(a) ? a : b;
}

/* A finite nonzero a as *m (bit 63 set) and the exponent returned. */
static int f64_unpack(uint64_t a, uint64_t *m)
{
	int e = f64_exp_of(a);
	uint64_t f = a & F64_FRAC_MASK;
	int lz;

	if (e) {
		*m = (f | 1ull << 52) << 11;
		return e;
	}
	lz = __builtin_clzll(f << 11);	/* subnormal: normalized */
	*m = (f << 11) << lz;
	return 1 - lz;
}

/* m (bit 63 set; bit 0 may be a sticky bit) * 2^(e - 1086), rounded to
 * nearest even: overflow to infinity, underflow through subnormals. */
static uint64_t f64_round_pack(int sign, int e, uint64_t m)
{
	uint64_t s = (uint64_t)sign << 63, q, rem, bits;

	if (e >= 0x7ff)
		return s | F64_INF_BITS;
	if (e < 1) {
		int sh = 1 - e;

		m = sh < 64 ? m >> sh | ((m << (64 - sh)) != 0) : m != 0;
		e = 1;
	}
	q = m >> 11;
	rem = m & 0x7ff;
	if (rem > 0x400 || (rem == 0x400 && (q & 1)))
		q++;
	/* q holds the leading bit (2^52): adding it carries into the
	 * exponent field, as a rounding up to 2^53 must. */
	bits = ((uint64_t)(e - 1) << 52) + q;
	if ((bits >> 52) >= 0x7ff)
		return s | F64_INF_BITS;
	return s | bits;
}

static int f64_clz128(f64_u128 v)
{
	uint64_t hi = v >> 64;

	return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)v);
}

/* v (nonzero) to 64 bits with bit 63 set, what falls off as sticky; *e
 * goes down by the left shift. */
static uint64_t f64_narrow(f64_u128 v, int *shift)
{
	*shift = f64_clz128(v);
	v <<= *shift;
	return (uint64_t)(v >> 64) | ((uint64_t)v != 0);
}

static uint64_t f64_add_sub(uint64_t a, uint64_t b, bool negate_b)
{
	int sa = f64_sign_of(a), sb = f64_sign_of(b) ^ negate_b, ea, eb, d, lz;
	uint64_t ma, mb;
	f64_u128 A, B, R;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (f64_is_inf(a))
		return f64_is_inf(b) && sa != sb ? CTAP_F64_DEFAULT_NAN : a;
	if (f64_is_inf(b))
		return f64_with_sign(b, sb);
	if (f64_is_zero(a))
		return f64_is_zero(b) ? (uint64_t)(sa & sb) << 63 : f64_with_sign(b, sb);
	if (f64_is_zero(b))
		return a;
	ea = f64_unpack(a, &ma);
	eb = f64_unpack(b, &mb);
	if (ea < eb || (ea == eb && ma < mb)) {	/* a the larger */
		int t = ea; uint64_t tm = ma;

		ea = eb, eb = t;
		ma = mb, mb = tm;
		t = sa, sa = sb, sb = t;
	}
	/* 62 bits of room below: an alignment of 0 or 1 loses nothing, and a
	 * sum cannot pass bit 127. */
	A = (f64_u128)ma << 62;
	B = (f64_u128)mb << 62;
	d = ea - eb;
	if (d >= 128)
		B = 1;
	else if (d)
		B = B >> d | ((B << (128 - d)) != 0);
	R = sa == sb ? A + B : A - B;
	if (!R)
		return 0;	/* x - x is +0 when rounding to nearest */
	ma = f64_narrow(R, &lz);
	return f64_round_pack(sa, ea + 2 - lz, ma);
}

uint64_t ctap_f64_add(uint64_t a, uint64_t b)
{
	return f64_add_sub(a, b, false);
}

uint64_t ctap_f64_sub(uint64_t a, uint64_t b)
{
	return f64_add_sub(a, b, true);
}

uint64_t ctap_f64_mul(uint64_t a, uint64_t b)
{
	int s = f64_sign_of(a) ^ f64_sign_of(b), ea, eb, lz;
	uint64_t ma, mb, m;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (f64_is_inf(a) || f64_is_inf(b))
		return f64_is_zero(a) || f64_is_zero(b) ? CTAP_F64_DEFAULT_NAN : f64_with_sign(F64_INF_BITS, s);
	if (f64_is_zero(a) || f64_is_zero(b))
		return (uint64_t)s << 63;
	ea = f64_unpack(a, &ma);
	eb = f64_unpack(b, &mb);
	m = f64_narrow((f64_u128)ma * mb, &lz);	/* the product has bit 126 or 127 set */
	return f64_round_pack(s, ea + eb - 1022 - lz, m);
}

uint64_t ctap_f64_div(uint64_t a, uint64_t b)
{
	int s = f64_sign_of(a) ^ f64_sign_of(b), ea, eb;
	uint64_t ma, mb, q = 0;
	f64_u128 r;
	bool top;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (f64_is_inf(a))
		return f64_is_inf(b) ? CTAP_F64_DEFAULT_NAN : f64_with_sign(F64_INF_BITS, s);
	if (f64_is_inf(b))
		return (uint64_t)s << 63;
	if (f64_is_zero(b))
		return f64_is_zero(a) ? CTAP_F64_DEFAULT_NAN : f64_with_sign(F64_INF_BITS, s);
	if (f64_is_zero(a))
		return (uint64_t)s << 63;
	ea = f64_unpack(a, &ma);
	eb = f64_unpack(b, &mb);
	/* ma * 2^64 / mb, in (2^63, 2^65): its top bit, then 64 more. */
	top = ma >= mb;
	r = top ? ma - mb : ma;
	for (int i = 0; i < 64; i++) {
		r <<= 1;
		q <<= 1;
		if (r >= mb) {
			r -= mb;
			q |= 1;
		}
	}
	if (top)
		return f64_round_pack(s, ea - eb + 1023, 1ull << 63 | q >> 1 | (q & 1) | (r != 0));
	return f64_round_pack(s, ea - eb + 1022, q | (r != 0));
}

uint64_t ctap_f64_sqrt(uint64_t a)
{
	uint64_t m;
	f64_u128 x, res = 0, bit;
	int e, u;

	if (f64_is_nan(a))
		return f64_nan_of(a, 0);
	if (f64_is_zero(a))
		return a;
	if (f64_sign_of(a))
		return CTAP_F64_DEFAULT_NAN;
	if (f64_is_inf(a))
		return a;
	e = f64_unpack(a, &m);
	u = e - 1023;		/* a = (m / 2^63) * 2^u */
	/* An odd u lends a factor 2 to the significand; the root of
	 * m * 2^63 (or 2^64) has bit 63 set. */
	x = (f64_u128)m << (63 + (u & 1));
	for (bit = (f64_u128)1 << 126; bit; bit >>= 2) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
	}
	return f64_round_pack(0, (u - (u & 1)) / 2 + 1023, (uint64_t)res | (x != 0));
}

/* a as an integer significand (53 bits at most) times 2^(e - 1075). */
static int f64_unpack_int(uint64_t a, uint64_t *M)
{
	int e = f64_exp_of(a);

	*M = a & F64_FRAC_MASK;
	if (e) {
		*M |= 1ull << 52;
		return e;
	}
	return 1;
}

uint64_t ctap_f64_rem(uint64_t a, uint64_t b)
{
	int sa = f64_sign_of(a), ea, eb, unit, lz;
	uint64_t Ma, Mb, r, y;
	bool odd;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (f64_is_inf(a) || f64_is_zero(b))
		return CTAP_F64_DEFAULT_NAN;
	if (f64_is_inf(b) || f64_is_zero(a))
		return a;
	ea = f64_unpack_int(a, &Ma);
	eb = f64_unpack_int(b, &Mb);
	if (ea < eb - 1)
		return a;	/* |a| < |b| / 2 */
	if (ea >= eb) {
		/* Ma * 2^(ea - eb) mod Mb, a bit of the exponent at a time,
		 * keeping the quotient's last bit for the tie. */
		y = Mb;
		r = ctap_udiv64(Ma, Mb);
		odd = r & 1;
		r = Ma - r * Mb;
		for (int d = ea - eb; d > 0; d--) {
			r <<= 1;
			odd = r >= y;
			if (odd)
				r -= y;
		}
		unit = eb;
	} else {		/* ea == eb - 1: b normal, |a| < |b| */
		y = Mb << 1;
		r = Ma;
		odd = false;
		unit = ea;
	}
	/* To the nearest multiple: past half of |b|, or at half with an odd
	 * quotient, the remainder is negative. */
	if (2 * r > y || (2 * r == y && odd)) {
		r = y - r;
		sa ^= 1;
	}
	if (!r)
		return (uint64_t)f64_sign_of(a) << 63;
	lz = __builtin_clzll(r);
	return f64_round_pack(sa, unit + 11 - lz, r << lz);
}

bool ctap_f64_eq(uint64_t a, uint64_t b)
{
	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	return a == b || (f64_is_zero(a) && f64_is_zero(b));
}

bool ctap_f64_lt(uint64_t a, uint64_t b)
{
	int sa = f64_sign_of(a), sb = f64_sign_of(b);

	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	if (sa != sb)
		return sa && !(f64_is_zero(a) && f64_is_zero(b));
	return a != b && (sa ^ (a < b));
}

bool ctap_f64_le(uint64_t a, uint64_t b)
{
	int sa = f64_sign_of(a), sb = f64_sign_of(b);

	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	if (sa != sb)
		return sa || (f64_is_zero(a) && f64_is_zero(b));
	return a == b || (sa ^ (a < b));
}

uint64_t ctap_f64_from_i64(int64_t v)
{
	int s = v < 0, lz;
	uint64_t mag = s ? -(uint64_t)v : (uint64_t)v;

	if (!v)
		return 0;
	lz = __builtin_clzll(mag);
	return f64_round_pack(s, 1086 - lz, mag << lz);
}

uint64_t ctap_f64_from_f32(uint32_t v)
{
	uint64_t s = (uint64_t)(v >> 31) << 63, f = v & 0x7fffff;
	int e = (v >> 23) & 0xff, lz;

	if (e == 0xff)
		return f ? s | 0x7ff8000000000000ull | f << 29 : s | F64_INF_BITS;
	if (!e) {
		if (!f)
			return s;
		lz = __builtin_clzll(f);	/* subnormal: f * 2^-149 */
		return f64_round_pack(v >> 31, 937 - lz, f << lz);
	}
	return s | (uint64_t)(e + 896) << 52 | f << 29;
}

int64_t ctap_f64_to_i64(uint64_t a, int mode)
{
	int s = f64_sign_of(a), e = f64_exp_of(a), sh;
	uint64_t M = a & F64_FRAC_MASK, sig, extra;
	int64_t z;
	bool up;

	if (e == 0x7ff && M)
		return 0;
	if (e)
		M |= 1ull << 52;
	sh = 0x433 - e;		/* a = M * 2^-sh (a subnormal's 2^-1075: < 1 alike) */
	if (sh <= 0) {
		if (sh < -11)
			goto overflow;
		sig = M << -sh;
		extra = 0;
	} else if (sh < 64) {
		sig = M >> sh;
		extra = M << (64 - sh);	/* the fraction, from bit 63 down */
	} else {
		sig = 0;
		extra = sh == 64 ? M : M != 0;
	}
	if (mode == 0 || mode == 4)		/* to nearest */
		up = extra >= F64_SIGN_BIT;
	else
		up = extra && (s ? mode == 2 || mode == 6 : mode == 3);
	if (up) {
		if (!++sig)
			goto overflow;
		if (extra == F64_SIGN_BIT && mode == 0)
			sig &= ~1ull;	/* a tie: to even */
	}
	z = s ? (int64_t)-sig : (int64_t)sig;
	if (z && ((z < 0) ^ s))
		goto overflow;
	if (extra && mode == 6)
		z |= 1;
	return z;
overflow:
	return s ? INT64_MIN : INT64_MAX;
}

/* ---- decimal ---- */

/* A big number: 36 limbs of 32 bits hold 2^1024 and 1074 + 4 fraction bits. */
#define F64_LIMBS	36

struct f64_big {
	uint32_t w[F64_LIMBS];
};

/* b = M << sh (M < 2^53, sh < F64_LIMBS * 32 - 53). */
static void f64_big_set(struct f64_big *b, uint64_t M, int sh)
{
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < 64; i++)
		if (M >> i & 1)
			b->w[(i + sh) / 32] |= 1u << ((i + sh) % 32);
}

static bool f64_big_zero(const struct f64_big *b)
{
	for (int i = 0; i < F64_LIMBS; i++)
		if (b->w[i])
			return false;
	return true;
}

/* b /= 10^9, the remainder returned. */
static uint32_t f64_big_div_1e9(struct f64_big *b)
{
	uint64_t r = 0;

	for (int i = F64_LIMBS - 1; i >= 0; i--) {
		uint64_t cur = r << 32 | b->w[i];

		b->w[i] = ctap_udiv64(cur, 1000000000);
		r = cur - (uint64_t)b->w[i] * 1000000000;
	}
	return r;
}

/* b *= 10, then the bits from sh up (< 10) taken out and returned. */
static int f64_big_next_digit(struct f64_big *b, int sh)
{
	uint64_t carry = 0;
	int li = sh / 32, bit = sh % 32, d;

	for (int i = 0; i < F64_LIMBS; i++) {
		uint64_t cur = (uint64_t)b->w[i] * 10 + carry;

		b->w[i] = cur;
		carry = cur >> 32;
	}
	d = b->w[li] >> bit;
	if (bit && li + 1 < F64_LIMBS)
		d |= b->w[li + 1] << (32 - bit);
	b->w[li] &= bit ? (1u << bit) - 1 : 0;
	if (bit && li + 1 < F64_LIMBS)
		b->w[li + 1] = 0;
	return d & 0xf;
}

/* Appends c to out if it fits (one byte stays for the NUL). */
static void f64_put(char *out, size_t size, size_t *n, char c)
{
	if (*n + 1 < size)
		out[(*n)++] = c;
}

static void f64_put_str(char *out, size_t size, size_t *n, const char *s)
{
	while (*s)
		f64_put(out, size, n, *s++);
}

/* Appends v in decimal. */
static void f64_put_u64(char *out, size_t size, size_t *n, uint64_t v)
{
	char d[20];
	int nd = 0;

	do {
		d[nd++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (nd)
		f64_put(out, size, n, d[--nd]);
}

void ctap_f64_to_str(char *out, size_t size, uint64_t a, int64_t precision)
{
	char ipart[340];
	int e = f64_exp_of(a), k, ni = 0, lim;
	uint64_t M = a & F64_FRAC_MASK;
	size_t n = 0, fstart;
	struct f64_big b;
	int64_t digits = precision < 1 ? 1 : precision;

	if (!size)
		return;
	if (f64_is_nan(a) || f64_is_inf(a)) {
		f64_put_str(out, size, &n, f64_is_nan(a) ? "nan" : f64_sign_of(a) ? "-inf" : "inf");
		out[n] = 0;
		return;
	}
	if (f64_sign_of(a))
		f64_put(out, size, &n, '-');
	if (e)
		M |= 1ull << 52;
	k = (e ? e : 1) - 1075;		/* a = M * 2^k */
	/* The integer part, least significant f64_digit first. */
	if (k >= 0) {
		f64_big_set(&b, M, k);
		do {
			uint32_t r = f64_big_div_1e9(&b);

			for (int i = 0; i < 9 && (r || !f64_big_zero(&b) || !i); i++, r /= 10)
				ipart[ni++] = '0' + r % 10;
		} while (!f64_big_zero(&b));
		while (ni)
			f64_put(out, size, &n, ipart[--ni]);
	} else {
		f64_put_u64(out, size, &n, -k < 64 ? M >> -k : 0);
	}
	f64_put(out, size, &n, '.');
	fstart = n;
	/* The fraction's digits, as many as fit; the first one dropped
	 * rounds the last kept half up, carrying leftwards. */
	lim = size - 1 - fstart;
	if (digits > lim)
		digits = lim;
	if (k >= 0) {
		for (int64_t i = 0; i < digits; i++)
			f64_put(out, size, &n, '0');
	} else {
		int sh = -k;

		f64_big_set(&b, sh < 64 ? M & ((1ull << sh) - 1) : M, 0);
		for (int64_t i = 0; i < digits; i++)
			f64_put(out, size, &n, '0' + f64_big_next_digit(&b, sh));
		if (f64_big_next_digit(&b, sh) >= 5) {
			size_t i = n;

			while (i > fstart && out[i - 1] == '9')
				out[--i] = '0';
			if (i > fstart) {
				out[i - 1]++;
			} else {	/* into the integer part (< 2^53 here) */
				uint64_t ip = (sh < 64 ? M >> sh : 0) + 1;
				size_t at = f64_sign_of(a);

				n = at;
				f64_put_u64(out, size, &n, ip);
				f64_put(out, size, &n, '.');
				for (int64_t j = 0; j < digits; j++)
					f64_put(out, size, &n, '0');
			}
		}
	}
	out[n] = 0;
}

static bool f64_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool ctap_f64_from_str(const char *s, uint64_t *out)
{
	uint64_t zero = 0, one = ctap_f64_from_i64(1), ten = ctap_f64_from_i64(10);
	uint64_t sign = ctap_f64_from_i64(*s == '-' ? -1 : 1), value = zero, power = one;

	if (*s == '-' || *s == '+')
		s++;
	for (; f64_digit(*s); s++)
		value = ctap_f64_add(ctap_f64_mul(value, ten), ctap_f64_from_i64(*s - '0'));
	if (*s == '.')
		s++;
	for (; f64_digit(*s); s++) {
		value = ctap_f64_add(ctap_f64_mul(value, ten), ctap_f64_from_i64(*s - '0'));
		power = ctap_f64_mul(power, ten);
	}
	if (*s == 'e' || *s == 'E') {
		uint64_t power2 = zero;
		bool negative;

		s++;
		negative = *s == '-';
		if (*s == '-' || *s == '+')
			s++;
		for (; f64_digit(*s); s++)
			power2 = ctap_f64_add(ctap_f64_mul(power2, ten), ctap_f64_from_i64(*s - '0'));
		/* One step per unit of the exponent, as SystemTap's; once power
		 * is infinite or zero the steps left change nothing (and an
		 * exponent past 2^53 would never count down to 0). */
		while (!ctap_f64_eq(power2, zero) && !f64_is_inf(power) && !f64_is_zero(power)) {
			power = negative ? ctap_f64_mul(power, ten) : ctap_f64_div(power, ten);
			power2 = ctap_f64_sub(power2, one);
		}
	}
	if (*s)
		return false;
	*out = ctap_f64_mul(sign, ctap_f64_div(value, power));
	return true;
}
