/*
 * test_stat.c - statistics and histograms against SystemTap 4.8's output.
 *
 * The expected text below is what SystemTap 4.8 printed in the guest
 * (bench/peer/reference) for this script; the tests feed the same values:
 *
 *	global s, neg, lin, lin2, one, one2
 *	probe begin {
 *	  for (i = 1; i <= 20; i++) s <<< i
 *	  for (i = -5; i <= 5; i++) neg <<< i * 1000
 *	  for (i = 0; i < 50; i++) { lin <<< i * 3; lin2 <<< i * 3 }
 *	  one <<< 7; one2 <<< 7
 *	  printf("s: %d %d %d %d %d var=%d\n", @count(s), @sum(s), @min(s),
 *	         @max(s), @avg(s), @variance(s))
 *	  ... print(@hist_log(s)); print(@hist_log(neg));
 *	  print(@hist_linear(lin, 0, 100, 10)); print(@hist_linear(lin2, 20, 60, 5))
 *	  print(@hist_log(one)); print(@hist_linear(one2, 0, 10, 1))
 *	}
 */
#include <stdlib.h>

#include "stat.h"
#include "unit.h"

static const char expect_log_1_to_20[] =
	"value |-------------------------------------------------- count\n"
	"    0 |                                                   0\n"
	"    1 |@                                                  1\n"
	"    2 |@@                                                 2\n"
	"    4 |@@@@                                               4\n"
	"    8 |@@@@@@@@                                           8\n"
	"   16 |@@@@@                                              5\n"
	"   32 |                                                   0\n"
	"   64 |                                                   0\n"
	"\n";

static const char expect_log_negative[] =
	" value |-------------------------------------------------- count\n"
	"-16384 |                                                   0\n"
	" -8192 |                                                   0\n"
	" -4096 |@                                                  1\n"
	" -2048 |@@                                                 2\n"
	" -1024 |@                                                  1\n"
	"  -512 |@                                                  1\n"
	"  -256 |                                                   0\n"
	"  -128 |                                                   0\n"
	"       ~\n"
	"    -2 |                                                   0\n"
	"    -1 |                                                   0\n"
	"     0 |@                                                  1\n"
	"     1 |                                                   0\n"
	"     2 |                                                   0\n"
	"       ~\n"
	"   128 |                                                   0\n"
	"   256 |                                                   0\n"
	"   512 |@                                                  1\n"
	"  1024 |@                                                  1\n"
	"  2048 |@@                                                 2\n"
	"  4096 |@                                                  1\n"
	"  8192 |                                                   0\n"
	" 16384 |                                                   0\n"
	"\n";

static const char expect_linear_0_100_10[] =
	"value |-------------------------------------------------- count\n"
	"    0 |@@@@                                                4\n"
	"   10 |@@@                                                 3\n"
	"   20 |@@@                                                 3\n"
	"   30 |@@@@                                                4\n"
	"   40 |@@@                                                 3\n"
	"   50 |@@@                                                 3\n"
	"   60 |@@@@                                                4\n"
	"   70 |@@@                                                 3\n"
	"   80 |@@@                                                 3\n"
	"   90 |@@@@                                                4\n"
	"  100 |@@@                                                 3\n"
	" >100 |@@@@@@@@@@@@@                                      13\n"
	"\n";

static const char expect_linear_20_60_5[] =
	"value |-------------------------------------------------- count\n"
	"  <20 |@@@@@@@                                             7\n"
	"   20 |@@                                                  2\n"
	"   25 |@                                                   1\n"
	"   30 |@@                                                  2\n"
	"   35 |@@                                                  2\n"
	"   40 |@                                                   1\n"
	"   45 |@@                                                  2\n"
	"   50 |@@                                                  2\n"
	"   55 |@                                                   1\n"
	"   60 |@@                                                  2\n"
	"  >60 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@                       28\n"
	"\n";

static const char expect_log_single[] =
	"value |-------------------------------------------------- count\n"
	"    1 |                                                   0\n"
	"    2 |                                                   0\n"
	"    4 |@                                                  1\n"
	"    8 |                                                   0\n"
	"   16 |                                                   0\n"
	"\n";

static const char expect_linear_single[] =
	"value |-------------------------------------------------- count\n"
	"    5 |                                                   0\n"
	"    6 |                                                   0\n"
	"    7 |@                                                  1\n"
	"    8 |                                                   0\n"
	"    9 |                                                   0\n"
	"\n";

/* Feed first..last step `step` (times mul) into a statistic, render it. */
static const char *render(enum ctap_hist_type type, int64_t start, int64_t stop,
			  int64_t interval, int64_t first, int64_t last, int64_t step,
			  int64_t mul, struct ctap_stat *agg_out)
{
	static char buf[8192];
	struct ctap_stat_spec spec = { .type = type, .start = start, .stop = stop,
				       .interval = interval };
	struct ctap_stat *s = calloc(1, sizeof(*s)), *agg = calloc(1, sizeof(*agg));
	const struct ctap_stat *parts[] = { s };
	struct ctap_out o;

	if (ctap_stat_spec_init(&spec))
		return "bad spec";
	for (int64_t i = first; i <= last; i += step)
		ctap_stat_add(&spec, s, i * mul);
	ctap_stat_aggregate(&spec, agg, parts, 1);
	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_hist_print(&o, &spec, agg);
	buf[o.len] = '\0';
	if (agg_out)
		*agg_out = *agg;
	free(s);
	free(agg);
	return buf;
}

static void test_histograms(void)
{
	CHECK_STR(render(CTAP_HIST_LOG, 0, 0, 0, 1, 20, 1, 1, NULL), expect_log_1_to_20,
		  "@hist_log of 1..20");
	CHECK_STR(render(CTAP_HIST_LOG, 0, 0, 0, -5, 5, 1, 1000, NULL), expect_log_negative,
		  "@hist_log with negative values and elided runs (~)");
	CHECK_STR(render(CTAP_HIST_LINEAR, 0, 100, 10, 0, 49, 1, 3, NULL), expect_linear_0_100_10,
		  "@hist_linear with overflow");
	CHECK_STR(render(CTAP_HIST_LINEAR, 20, 60, 5, 0, 49, 1, 3, NULL), expect_linear_20_60_5,
		  "@hist_linear with underflow and overflow");
	CHECK_STR(render(CTAP_HIST_LOG, 0, 0, 0, 7, 7, 1, 1, NULL), expect_log_single,
		  "@hist_log of one value");
	CHECK_STR(render(CTAP_HIST_LINEAR, 0, 10, 1, 7, 7, 1, 1, NULL), expect_linear_single,
		  "@hist_linear of one value");
}

static void test_aggregates(void)
{
	struct ctap_stat agg;
	struct ctap_stat_spec none = { .type = CTAP_HIST_NONE };

	render(CTAP_HIST_LOG, 0, 0, 0, 1, 20, 1, 1, &agg);
	CHECK_INT(agg.count, 20, "@count");
	CHECK_INT(agg.sum, 210, "@sum");
	CHECK_INT(agg.min, 1, "@min");
	CHECK_INT(agg.max, 20, "@max");
	CHECK_INT(ctap_stat_avg(&agg), 10, "@avg truncates");
	CHECK_INT(ctap_stat_variance(&none, &agg), 215, "@variance: SystemTap's integer Welford (not 35)");
	render(CTAP_HIST_LOG, 0, 0, 0, -5, 5, 1, 1000, &agg);
	CHECK_INT(agg.min, -5000, "@min negative");
	CHECK_INT(ctap_stat_avg(&agg), 0, "@avg of a symmetric range");
	CHECK_INT(ctap_stat_variance(&none, &agg), 11000000, "@variance of -5000..5000");
	render(CTAP_HIST_LOG, 0, 0, 0, 7, 7, 1, 1, &agg);
	CHECK_INT(ctap_stat_variance(&none, &agg), 0, "@variance of one value");
}

/* Two CPUs' partial statistics combine like one. */
static void test_per_cpu(void)
{
	struct ctap_stat_spec spec = { .type = CTAP_HIST_LOG };
	struct ctap_stat *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct ctap_stat *all = calloc(1, sizeof(*all)), *agg = calloc(1, sizeof(*agg));
	const struct ctap_stat *parts[] = { a, b, all };

	ctap_stat_spec_init(&spec);
	for (int i = 0; i < 100; i++)
		ctap_stat_add(&spec, i % 2 ? a : b, i);
	ctap_stat_aggregate(&spec, agg, parts, 2);
	CHECK_INT(agg->count, 100, "count over CPUs");
	CHECK_INT(agg->sum, 4950, "sum over CPUs");
	CHECK_INT(agg->min, 0, "min over CPUs");
	CHECK_INT(agg->max, 99, "max over CPUs");
	CHECK_INT(agg->hist[CTAP_HIST_LOG_BUCKET0 + 7], 36, "bucket 64..127 over CPUs");
	memset(a, 0, sizeof(*a));
	ctap_stat_aggregate(&spec, agg, (const struct ctap_stat *const []){ a }, 1);
	CHECK_INT(agg->count, 0, "an empty statistic aggregates to nothing");
	free(a);
	free(b);
	free(all);
	free(agg);
}

static void test_limits(void)
{
	struct ctap_stat_spec bad = { .type = CTAP_HIST_LINEAR, .start = 0, .stop = 10, .interval = 0 };
	struct ctap_stat_spec big = { .type = CTAP_HIST_LINEAR, .start = 0, .stop = 100000, .interval = 1 };
	struct ctap_stat_spec ext = { .type = CTAP_HIST_LOG };
	struct ctap_stat *s = calloc(1, sizeof(*s));

	CHECK_INT(ctap_stat_spec_init(&bad), -1, "zero interval refused");
	CHECK_INT(ctap_stat_spec_init(&big), -1, "too many buckets refused");
	/* stop - start overflows int64: it once sized a negative table. */
	CHECK_INT(ctap_hist_linear_buckets(-9223372036854775700LL, INT64_MAX, 1), -1,
		  "a span past INT64_MAX refused");
	CHECK_INT(ctap_hist_linear_buckets(INT64_MIN, INT64_MAX, INT64_MAX), 5,
		  "the widest range with a huge interval: 2 data buckets");
	CHECK_INT(ctap_hist_linear_buckets(0, 253, 1), CTAP_HIST_MAX_BUCKETS, "the largest table");
	CHECK_INT(ctap_hist_linear_buckets(0, 254, 1), -1, "one bucket more refused");
	CHECK_INT(ctap_hist_linear_buckets(10, 0, 1), -1, "stop below start refused");
	CHECK_INT(ctap_hist_linear_buckets(0, 10, -1), -1, "negative interval refused");
	{
		struct ctap_stat_spec wide = { .type = CTAP_HIST_LINEAR, .start = INT64_MIN,
					       .stop = INT64_MAX, .interval = INT64_MAX };

		ctap_stat_spec_init(&wide);
		memset(s, 0, sizeof(*s));
		ctap_stat_add(&wide, s, INT64_MAX);
		ctap_stat_add(&wide, s, INT64_MIN);
		ctap_stat_add(&wide, s, 0);
		CHECK_INT(s->hist[3] + s->hist[1] + s->hist[2], 3,
			  "extreme values in a full-range histogram land in range (no overflow)");
		memset(s, 0, sizeof(*s));
	}
	ctap_stat_spec_init(&ext);
	ctap_stat_add(&ext, s, INT64_MIN);
	ctap_stat_add(&ext, s, INT64_MAX);
	CHECK_INT(s->hist[0] + s->hist[CTAP_HIST_LOG_BUCKETS - 1], 2,
		  "INT64_MIN and INT64_MAX land in the end buckets");
	free(s);
}

int main(void)
{
	test_histograms();
	test_aggregates();
	test_per_cpu();
	test_limits();
	return unit_done();
}
