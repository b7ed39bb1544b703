// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - statistics and histograms, with SystemTap's exact arithmetic
 * and layout (see stat.h).
 */
#include "stat.h"

/*
 * Two's-complement arithmetic, as the kernel (-fno-strict-overflow) and
 * SystemTap compute it; spelled out so that extreme values are defined
 * behaviour in the host tests too.
 */
static inline int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

/*
 * The data buckets of @hist_linear(s, start, stop, interval), plus underflow
 * and overflow; -1 unless 3..CTAP_HIST_MAX_BUCKETS.  stop - start is taken
 * as unsigned: for any stop > start it fits in 64 bits, where the signed
 * difference of extreme bounds overflows (and once sized a table of a
 * negative number of buckets).
 */
int64_t ctap_hist_linear_buckets(int64_t start, int64_t stop, int64_t interval)
{
	uint64_t span, data;

	if (interval <= 0 || stop <= start)
		return -1;
	span = (uint64_t)stop - (uint64_t)start;
	data = ctap_udiv64(span, interval);
	if (data > CTAP_HIST_MAX_BUCKETS - 3)
		return -1;
	return (int64_t)data + 3;
}

int ctap_stat_spec_init(struct ctap_stat_spec *spec)
{
	int64_t n;

	switch (spec->type) {
	case CTAP_HIST_LOG:
		spec->buckets = CTAP_HIST_LOG_BUCKETS;
		return 0;
	case CTAP_HIST_LINEAR:
		n = ctap_hist_linear_buckets(spec->start, spec->stop, spec->interval);
		if (n < 0)
			return -1;
		spec->buckets = n;
		return 0;
	default:
		spec->buckets = 0;
		return 0;
	}
}

/* Log buckets: 0 for 0; 1, 2, 4, ... above; -1, -2, -4, ... below. */
static int log_bucket(int64_t val)
{
	uint64_t u;
	int bits = 0;

	if (val == 0)
		return CTAP_HIST_LOG_BUCKET0;
	u = val < 0 ? 0 - (uint64_t)val : (uint64_t)val;
	while (u) {
		bits++;
		u >>= 1;
	}
	return val > 0 ? CTAP_HIST_LOG_BUCKET0 + bits : CTAP_HIST_LOG_BUCKET0 - bits;
}

static int64_t log_bucket_value(int b)
{
	if (b == CTAP_HIST_LOG_BUCKET0)
		return 0;
	if (b > CTAP_HIST_LOG_BUCKET0)
		return (int64_t)1 << (b - CTAP_HIST_LOG_BUCKET0 - 1);
	if (b == 0)
		return INT64_MIN;
	return -((int64_t)1 << (CTAP_HIST_LOG_BUCKET0 - b - 1));
}

static int linear_bucket(const struct ctap_stat_spec *spec, int64_t val)
{
	uint64_t b;

	if (val < spec->start)
		return 0;					/* underflow */
	/* Unsigned, as in ctap_hist_linear_buckets: no overflow. */
	b = ctap_udiv64((uint64_t)val - (uint64_t)spec->start, spec->interval) + 1;
	return b >= (uint64_t)spec->buckets - 1 ? spec->buckets - 1 : (int)b;	/* last: overflow */
}

void ctap_stat_add(const struct ctap_stat_spec *spec, struct ctap_stat *s, int64_t val)
{
	int64_t scaled = (int64_t)((uint64_t)val << spec->shift);

	if (s->count == 0) {
		s->count = 1;
		s->sum = s->min = s->max = val;
		s->avg_s = scaled;
		s->m2 = 0;
	} else {
		int64_t delta;

		s->count++;
		s->sum = wrap_add(s->sum, val);
		if (val > s->max)
			s->max = val;
		if (val < s->min)
			s->min = val;
		/* Welford on integers: the running mean truncates, on purpose. */
		delta = wrap_sub(scaled, s->avg_s);
		s->avg_s = wrap_add(s->avg_s, ctap_div64(delta, s->count));
		s->m2 = wrap_add(s->m2, wrap_mul(delta, wrap_sub(scaled, s->avg_s)));
		s->variance_s = ctap_div64(s->m2, s->count - 1);
	}
	if (spec->type == CTAP_HIST_LOG)
		s->hist[log_bucket(val)]++;
	else if (spec->type == CTAP_HIST_LINEAR)
		s->hist[linear_bucket(spec, val)]++;
}

void ctap_stat_aggregate(const struct ctap_stat_spec *spec, struct ctap_stat *agg,
			 const struct ctap_stat *const *parts, int n)
{
	int64_t s1 = 0, s2 = 0;

	memset(agg, 0, sizeof(*agg));
	for (int i = 0; i < n; i++) {
		const struct ctap_stat *p = parts[i];

		if (!p->count)
			continue;
		if (!agg->count || p->min < agg->min)
			agg->min = p->min;
		if (!agg->count || p->max > agg->max)
			agg->max = p->max;
		agg->count += p->count;
		agg->sum = wrap_add(agg->sum, p->sum);
		for (int b = 0; b < spec->buckets; b++)
			agg->hist[b] += p->hist[b];
	}
	if (!agg->count)
		return;
	agg->avg_s = ctap_div64((int64_t)((uint64_t)agg->sum << spec->shift), agg->count);
	/* Total variance: between the parts' means, plus within each part. */
	for (int i = 0; i < n; i++) {
		const struct ctap_stat *p = parts[i];
		int64_t d;

		if (!p->count)
			continue;
		d = wrap_sub(p->avg_s, agg->avg_s);

		s1 = wrap_add(s1, wrap_mul(p->count, wrap_mul(d, d)));
		s2 = wrap_add(s2, wrap_mul(p->count - 1, p->variance_s));
	}
	agg->variance_s = agg->count > 1 ? ctap_div64(wrap_add(s1, s2), agg->count - 1) : 0;
}

int64_t ctap_stat_avg(const struct ctap_stat *agg)
{
	return agg->count ? ctap_div64(agg->sum, agg->count) : 0;
}

int64_t ctap_stat_variance(const struct ctap_stat_spec *spec, const struct ctap_stat *agg)
{
	return agg->variance_s >> (2 * spec->shift);
}

void ctap_stat_print_summary(struct ctap_out *o, const struct ctap_stat *agg)
{
	static const char *const names[] = { "@count=", " @min=", " @max=", " @sum=", " @avg=" };
	const int64_t values[] = { agg->count, agg->min, agg->max, agg->sum, ctap_stat_avg(agg) };

	for (int i = 0; i < 5; i++) {
		ctap_out_write(o, names[i], strlen(names[i]));
		ctap_out_dec(o, values[i]);
	}
}

/* Characters of v in decimal, with its sign. */
static int dec_width(int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n = v < 0;

	do {
		n++;
		u /= 10;
	} while (u);
	return n;
}

int64_t ctap_hist_bucket_value(const struct ctap_stat_spec *spec, int b)
{
	if (spec->type == CTAP_HIST_LOG)
		return log_bucket_value(b);
	if (b == 0)
		return spec->start;				/* "<start" */
	if (b == spec->buckets - 1)
		return spec->start + (int64_t)(b - 2) * spec->interval;	/* ">last" */
	return spec->start + (int64_t)(b - 1) * spec->interval;
}

/* A row is elided when it and its ELISION neighbours (within the shown
 * range) are all empty; a run of elided rows shows as one "~". */
static bool elided(const struct ctap_stat *agg, int b, int low, int high)
{
	int from = b - CTAP_HIST_ELISION > low ? b - CTAP_HIST_ELISION : low;
	int to = b + CTAP_HIST_ELISION < high ? b + CTAP_HIST_ELISION : high;

	for (int k = from; k <= to; k++)
		if (agg->hist[k])
			return false;
	return true;
}

void ctap_hist_print(struct ctap_out *o, const struct ctap_stat_spec *spec,
		     const struct ctap_stat *agg)
{
	int low = -1, high = -1, val_w, cnt_w;
	int64_t max = 0, scale = 1;
	bool under = false, over = false, eliding = false;

	if (spec->type == CTAP_HIST_NONE)
		return;
	for (int b = 0; b < spec->buckets; b++) {
		if (agg->hist[b] && low < 0)
			low = b;
		if (agg->hist[b])
			high = b;
		if (agg->hist[b] > max)
			max = agg->hist[b];
	}
	/* Two empty rows either side of the data; a log histogram goes below
	 * zero only when it has negative values. */
	for (int i = 0; i < CTAP_HIST_ELISION; i++) {
		if (spec->type == CTAP_HIST_LOG ? (low != CTAP_HIST_LOG_BUCKET0 && low > 0) : low > 0)
			low--;
		if (high < spec->buckets - 1)
			high++;
	}
	if (spec->type == CTAP_HIST_LINEAR) {
		if (low == 0 && !agg->hist[0])
			low++;
		if (high == spec->buckets - 1 && !agg->hist[high])
			high--;
		under = low == 0;
		over = high == spec->buckets - 1;
	}
	if (max > CTAP_HIST_WIDTH)
		scale = ctap_div64(max + CTAP_HIST_WIDTH - 1, CTAP_HIST_WIDTH);
	cnt_w = dec_width(max);
	if (spec->type == CTAP_HIST_LINEAR) {
		int a = dec_width(spec->start) + under;
		int b = dec_width(spec->start + spec->interval * high) + over;

		val_w = a > b ? a : b;
	} else {
		int a = dec_width(log_bucket_value(high)), b = dec_width(log_bucket_value(low));

		val_w = a > b ? a : b;
	}
	if (val_w < 5)
		val_w = 5;	/* "value" */

	ctap_out_fill(o, ' ', val_w - 5);
	ctap_out_write(o, "value |", 7);
	ctap_out_fill(o, '-', CTAP_HIST_WIDTH);
	ctap_out_write(o, " count\n", 7);
	for (int b = low; b <= high && low >= 0; b++) {
		int64_t v = ctap_hist_bucket_value(spec, b), bar;
		const char *prefix = "";

		if (elided(agg, b, low, high)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			ctap_out_fill(o, ' ', val_w);
			ctap_out_write(o, " ~\n", 3);
			eliding = false;
		}
		if (spec->type == CTAP_HIST_LINEAR && b == 0)
			prefix = "<";
		else if (spec->type == CTAP_HIST_LINEAR && b == spec->buckets - 1)
			prefix = ">";
		ctap_out_fill(o, ' ', val_w - dec_width(v) - (*prefix != 0));
		ctap_out_write(o, prefix, *prefix != 0);
		ctap_out_dec(o, v);
		ctap_out_write(o, " |", 2);
		bar = ctap_div64(agg->hist[b], scale);
		ctap_out_fill(o, '@', bar);
		ctap_out_fill(o, ' ', CTAP_HIST_WIDTH - bar + 1 + cnt_w - dec_width(agg->hist[b]));
		ctap_out_dec(o, agg->hist[b]);
		ctap_out_write(o, "\n", 1);
	}
	ctap_out_write(o, "\n", 1);
}

static void part_num(struct ctap_out *o, int64_t v)
{
	ctap_out_write(o, " ", 1);
	ctap_out_dec(o, v);
}

void ctap_stat_merge_write(struct ctap_out *o, const struct ctap_stat_spec *spec,
			   const struct ctap_stat *s)
{
	part_num(o, spec->shift);
	part_num(o, spec->buckets);
	part_num(o, s->count);
	part_num(o, s->sum);
	part_num(o, s->min);
	part_num(o, s->max);
	part_num(o, s->avg_s);
	part_num(o, s->variance_s);
	for (int b = 0; b < spec->buckets; b++)
		if (s->hist[b]) {
			part_num(o, b);
			ctap_out_write(o, ":", 1);
			ctap_out_dec(o, s->hist[b]);
		}
}
