/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat.h - statistics ("s <<< v") and their histograms.
 *
 * Each CPU accumulates into its own struct ctap_stat without locks; a
 * reader aggregates them.  The arithmetic is SystemTap's, to the quirk:
 * variance is Welford's online method on integers, per CPU, combined
 * with the "total variance" formula, so @variance matches SystemTap's
 * output exactly (1..20 gives 215, not the textbook 35).
 */
#ifndef CTAP_STAT_H
#define CTAP_STAT_H

#include "outbuf.h"

#define CTAP_HIST_LOG_BUCKETS	128	/* 64 negative, 0, 63 positive */
#define CTAP_HIST_LOG_BUCKET0	64
#define CTAP_HIST_MAX_BUCKETS	256
#define CTAP_HIST_WIDTH		50	/* columns of '@' */
#define CTAP_HIST_ELISION	2	/* empty rows kept around data */

enum ctap_hist_type { CTAP_HIST_NONE, CTAP_HIST_LOG, CTAP_HIST_LINEAR };

/* What a statistics variable is declared to collect. */
struct ctap_stat_spec {
	enum ctap_hist_type type;
	int64_t start, stop, interval;	/* linear */
	int buckets;			/* from ctap_stat_spec_init */
	int shift;			/* @variance(s, shift) */
};

struct ctap_stat {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;	/* scaled by 2^shift */
	int64_t hist[CTAP_HIST_MAX_BUCKETS];
};

/* All buckets of a linear histogram, or -1 if its parameters are unusable
 * (the translator rejects those in pass 2 with the same function). */
int64_t ctap_hist_linear_buckets(int64_t start, int64_t stop, int64_t interval);

/* Fills in spec->buckets; -1 if the linear parameters are unusable. */
int ctap_stat_spec_init(struct ctap_stat_spec *spec);

void ctap_stat_add(const struct ctap_stat_spec *spec, struct ctap_stat *s, int64_t val);

/* agg = the combination of parts[0..n), as SystemTap aggregates CPUs. */
void ctap_stat_aggregate(const struct ctap_stat_spec *spec, struct ctap_stat *agg,
			 const struct ctap_stat *const *parts, int n);

int64_t ctap_stat_avg(const struct ctap_stat *agg);
int64_t ctap_stat_variance(const struct ctap_stat_spec *spec, const struct ctap_stat *agg);

/* "@count=N @min=N @max=N @sum=N @avg=N": how SystemTap prints an unread
 * statistic when the session ends. */
void ctap_stat_print_summary(struct ctap_out *o, const struct ctap_stat *agg);

/* stap --remote-merge: one part exactly as it is kept, " SHIFT NBUCKETS
 * count sum min max avg_s variance_s" and " B:C" for each bucket that is
 * not empty (translator/build/fleet.c reads it). */
void ctap_stat_merge_write(struct ctap_out *o, const struct ctap_stat_spec *spec,
			   const struct ctap_stat *s);

/* The value a histogram's row b is labelled with: its bucket's lowest. */
int64_t ctap_hist_bucket_value(const struct ctap_stat_spec *spec, int b);

/* print(@hist_log(s)) / print(@hist_linear(s, ...)): SystemTap's layout. */
void ctap_hist_print(struct ctap_out *o, const struct ctap_stat_spec *spec,
		     const struct ctap_stat *agg);

#endif /* CTAP_STAT_H */
