// SPDX-License-Identifier: GPL-2.0
/*
 * fleet.c - stap --remote-merge: the hosts' merged globals (the lines
 * each host's probe_merge_dump() wrote, kmod-runtime/ctap_runtime.h's
 * CTAP_MERGE_TAG format) merged into one file for the fleet's end
 * (dyn-runtime/merge.c loads it).
 *
 * Numbers and array values add (wrapping, as n++ does).  A statistic
 * arrives as every CPU part of every host, and all of them are combined
 * with ctap_stat_aggregate(), the function a single machine reads its
 * own CPUs' parts with: the result is what one machine with all those
 * CPUs would hold, @variance's integer arithmetic included.  The merged
 * statistic is written as one part, whose own aggregate is itself.
 * An entry's place is where it first appears, host 0's entries first
 * (an unsorted foreach walks insertion order).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "stat.h"
#include "xalloc.h"

#define TAG	"\036ctap-merge "

struct rec {
	char *id;		/* "KIND NAME" and, for arrays, "NKEYS KEY..." */
	char kind;		/* n, s, a, A */
	long seq;		/* its place in the hosts' dumps */
	int64_t val;		/* n, a */
	struct ctap_stat *stat;	/* s, A: one part */
	int shift, buckets;
};

/* The next field of *p as a number; false at the line's end. */
static bool num(char **p, int64_t *v)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!**p || **p == '\n')
		return false;
	errno = 0;
	*v = strtoll(*p, &end, 10);
	if (end == *p || errno)
		return false;
	*p = end;
	return true;
}

static bool parse_stat(char **p, struct rec *r)
{
	int64_t shift, nb, b, c;
	struct ctap_stat *s = xcalloc(1, sizeof(*s));

	r->stat = s;
	if (!num(p, &shift) || !num(p, &nb) || shift < 0 || shift > 62 || nb < 0 ||
	    nb > CTAP_HIST_MAX_BUCKETS || !num(p, &s->count) || !num(p, &s->sum) ||
	    !num(p, &s->min) || !num(p, &s->max) || !num(p, &s->avg_s) || !num(p, &s->variance_s))
		return false;
	r->shift = (int)shift;
	r->buckets = (int)nb;
	while (num(p, &b)) {
		if (b < 0 || b >= nb || **p != ':')
			return false;
		(*p)++;
		if (!num(p, &c))
			return false;
		s->hist[b] = c;
	}
	return true;
}

/* After the tag: "KIND NAME ...". */
static bool parse_rec(char *line, struct rec *r)
{
	char *p = line, *id_end;
	int64_t nkeys;

	r->kind = *p;
	if (!strchr("nsaA", r->kind) || p[1] != ' ')
		return false;
	p += 2 + strcspn(p + 2, " \n");		/* past the name */
	id_end = p;
	if (r->kind == 'a' || r->kind == 'A') {
		if (!num(&p, &nkeys) || nkeys < 1 || nkeys > 9)
			return false;
		for (int i = 0; i < nkeys; i++) {
			while (*p == ' ')
				p++;
			if (*p != 'i' && *p != 'x')
				return false;
			p += strcspn(p, " \n");
		}
		id_end = p;
	}
	r->id = xstrdup(line);
	r->id[id_end - line] = '\0';
	if (r->kind == 's' || r->kind == 'A')
		return parse_stat(&p, r);
	return num(&p, &r->val);
}

static int by_id(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int by_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The records of one dump; -1 if a line is not one. */
static int read_dump(char *dump, struct rec **v, size_t *n, size_t *cap, long *seq)
{
	for (char *line = dump; line && *line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(line, TAG, strlen(TAG)))
			return -1;
		line += strlen(TAG);
		if (*line != 'v' && *line != 'e') {
			if (*n == *cap)
				*v = xrealloc(*v, (*cap = *cap * 2 + 64) * sizeof(**v));
			memset(&(*v)[*n], 0, sizeof(**v));
			(*v)[*n].seq = (*seq)++;
			if (!parse_rec(line, &(*v)[(*n)++]))
				return -1;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Records v[i..j) of one id into v[i]. */
static int fold(struct rec *v, size_t i, size_t j)
{
	const struct ctap_stat **parts;
	struct ctap_stat_spec spec = { .shift = v[i].shift, .buckets = v[i].buckets };
	struct ctap_stat agg;

	if (!v[i].stat) {
		for (size_t k = i + 1; k < j; k++)
			v[i].val = (int64_t)((uint64_t)v[i].val + (uint64_t)v[k].val);
		return 0;
	}
	parts = xcalloc(j - i, sizeof(*parts));
	for (size_t k = i; k < j; k++) {
		if (v[k].shift != spec.shift || v[k].buckets != spec.buckets) {
			free(parts);
			return -1;
		}
		parts[k - i] = v[k].stat;
	}
	ctap_stat_aggregate(&spec, &agg, parts, (int)(j - i));
	*v[i].stat = agg;
	free(parts);
	return 0;
}

static void write_rec(FILE *f, const struct rec *r)
{
	fprintf(f, "%s%s", TAG, r->id);
	if (!r->stat) {
		fprintf(f, " %lld\n", (long long)r->val);
		return;
	}
	fprintf(f, " %d %d %lld %lld %lld %lld %lld %lld", r->shift, r->buckets,
		(long long)r->stat->count, (long long)r->stat->sum, (long long)r->stat->min,
		(long long)r->stat->max, (long long)r->stat->avg_s, (long long)r->stat->variance_s);
	for (int b = 0; b < r->buckets; b++)
		if (r->stat->hist[b])
			fprintf(f, " %d:%lld", b, (long long)r->stat->hist[b]);
	fputc('\n', f);
}

int fleet_merge(char *const *dumps, int ndumps, const char *path)
{
	struct rec *v = NULL;
	size_t n = 0, cap = 0, m = 0;
	long seq = 0;
	int ret = 0;
	FILE *f;

	for (int d = 0; d < ndumps && !ret; d++)
		ret = read_dump(dumps[d], &v, &n, &cap, &seq);
	if (ret) {
		fprintf(stderr, "stap: --remote-merge: a host's merged globals are garbled\n");
		goto out;
	}
	qsort(v, n, sizeof(*v), by_id);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].id, v[i].id); j++)
			;
		ret |= fold(v, i, j);
		v[m++] = v[i];	/* the first, with the smallest seq */
		for (size_t k = i + 1; k < j; k++) {
			free(v[k].id);
			free(v[k].stat);
		}
	}
	n = m;
	if (ret) {
		fprintf(stderr, "stap: --remote-merge: the hosts' statistics have different layouts\n");
		goto out;
	}
	qsort(v, n, sizeof(*v), by_seq);
	f = fopen(path, "wxe");
	if (!f) {
		fprintf(stderr, "stap: cannot write %s: %s\n", path, strerror(errno));
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		write_rec(f, &v[i]);
	if (fclose(f)) {
		fprintf(stderr, "stap: cannot write %s: %s\n", path, strerror(errno));
		ret = -1;
	}
out:
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].stat);
	}
	free(v);
	return ret;
}
