/*
 * test_fleet.c - stap --remote-merge's merge of the hosts' globals
 * (translator/build/fleet.c).  Host A has two CPUs, host B one; each CPU
 * part is written as the runtime ships it (ctap_stat_merge_write) and the
 * merged statistic must equal ctap_stat_aggregate() over the three parts:
 * one machine with those three CPUs.  Aggregating the hosts' aggregates
 * instead gives another @variance for these values (checked, so that the
 * test can tell the two apart).  Numbers and array entries add, entries
 * keep the order they first appear in, and garbled input is refused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet.h"
#include "stat.h"
#include "unit.h"

#define TAG "\036ctap-merge "

static const struct ctap_stat_spec *spec(void)
{
	static struct ctap_stat_spec sp = { .type = CTAP_HIST_LOG };

	if (!sp.buckets)
		ctap_stat_spec_init(&sp);
	return &sp;
}

static void fill(struct ctap_stat *s, int from, int to)
{
	memset(s, 0, sizeof(*s));
	for (int v = from; v <= to; v++)
		ctap_stat_add(spec(), s, v * v % 97);
}

/* A "s NAME" line of one part. */
static char *stat_line(const char *name, const struct ctap_stat *s)
{
	static char buf[8][8192];
	static int k;
	struct ctap_out o;
	char *b = buf[k++ % 8];
	size_t n = (size_t)snprintf(b, 64, TAG "s %s", name);

	ctap_out_init(&o, b + n, sizeof(buf[0]) - n - 2);
	ctap_stat_merge_write(&o, spec(), s);
	b[n + o.len] = '\n';
	b[n + o.len + 1] = '\0';
	return b;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

int main(void)
{
	struct ctap_stat a0, a1, b0, agg, host_a, nested;
	const struct ctap_stat *parts[3] = { &a0, &a1, &b0 }, *hosts[2];
	char dir[] = "/tmp/test_fleet.XXXXXX", path[64], *dumps[2], *text;
	char want[16384];

	if (!mkdtemp(dir))
		return 1;
	fill(&a0, 1, 30);
	fill(&a1, 31, 37);
	fill(&b0, 38, 90);
	ctap_stat_aggregate(spec(), &agg, parts, 3);

	/* host A: two CPU parts, a number, an array; host B: one part */
	dumps[0] = malloc(65536);
	dumps[1] = malloc(65536);
	snprintf(dumps[0], 65536, TAG "v 1\n%s%s" TAG "n calls 7\n" TAG "a by 1 x61 3\n"
		 TAG "a by 2 i-1 x 5\n" TAG "e\n", stat_line("lat", &a0), stat_line("lat", &a1));
	snprintf(dumps[1], 65536, TAG "v 1\n%s" TAG "a by 1 x62 1\n" TAG "n calls 4\n"
		 TAG "a by 1 x61 4\n" TAG "e\n", stat_line("lat", &b0));
	snprintf(path, sizeof(path), "%s/merged", dir);
	CHECK_INT(fleet_merge(dumps, 2, path), 0, "two hosts merged");
	text = read_file(path);
	snprintf(want, sizeof(want), "%s" TAG "n calls 11\n" TAG "a by 1 x61 7\n"
		 TAG "a by 2 i-1 x 5\n" TAG "a by 1 x62 1\n", stat_line("lat", &agg));
	CHECK_STR(text, want, "the merge: every CPU part aggregated; sums, in first-seen order");

	/* the wrong way: each host aggregated first */
	hosts[0] = &a0;
	hosts[1] = &a1;
	ctap_stat_aggregate(spec(), &host_a, hosts, 2);
	hosts[0] = &host_a;
	hosts[1] = &b0;
	ctap_stat_aggregate(spec(), &nested, hosts, 2);
	CHECK(nested.variance_s != agg.variance_s,
	      "the hosts' aggregates give another variance (%lld, not %lld)",
	      (long long)nested.variance_s, (long long)agg.variance_s);
	CHECK_INT(ctap_stat_variance(spec(), &agg) > 0, 1, "a variance there is");

	/* a bucket past the layout's, and a line that is not ours */
	unlink(path);
	snprintf(dumps[0], 65536, TAG "s lat 0 128 1 5 5 5 5 0 200:1\n");
	CHECK_INT(fleet_merge(dumps, 1, path), -1, "a bucket past the histogram refused");
	snprintf(dumps[0], 65536, "calls 7\n");
	CHECK_INT(fleet_merge(dumps, 1, path), -1, "an untagged line refused");
	snprintf(dumps[0], 65536, TAG "s lat 0 128 1 5 5 5 5 0\n");
	snprintf(dumps[1], 65536, TAG "s lat 2 128 1 5 5 5 5 0\n");
	CHECK_INT(fleet_merge(dumps, 2, path), -1, "two layouts of one statistic refused");
	unlink(path);
	rmdir(dir);
	free(dumps[0]);
	free(dumps[1]);
	return unit_done();
}
