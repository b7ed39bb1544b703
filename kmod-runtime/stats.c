// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - the kernel side of statistics, counters and arrays: the
 * per-CPU storage the portable core (core/stat.c, core/map.c) cannot
 * allocate itself, and the soft errors of an array that is full.
 *
 * Apart from session.c so that the life of a module does not hold the
 * glue of every value type; the arithmetic stays in core/.
 */
#ifndef CTAP_USERSPACE
#include <linux/percpu.h>
#endif

#include "ctap_runtime.h"

/* ---- statistics of scalars: one struct ctap_stat per CPU ---- */

int ctap_pstat_init(struct ctap_pstat *s)
{
	s->cpu = alloc_percpu(struct ctap_stat);
	return s->cpu ? 0 : -ENOMEM;
}

void ctap_pstat_free(struct ctap_pstat *s)
{
	free_percpu(s->cpu);
}

void ctap_pstat_clear(struct ctap_pstat *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->cpu, cpu), 0, sizeof(struct ctap_stat));
}

void ctap_pstat_add(const struct ctap_stat_spec *spec, struct ctap_pstat *s, int64_t v)
{
	ctap_stat_add(spec, this_cpu_ptr(s->cpu), v);
}

struct ctap_stat *ctap_pstat_aggregate(const struct ctap_stat_spec *spec, struct ctap_pstat *s)
{
	const struct ctap_stat *parts[64];
	int n = 0, cpu;

	/* Aggregate in groups of 64 CPUs at most; machines with more fold
	 * the first groups into one part first. */
	for_each_possible_cpu(cpu) {
		if (n == ARRAY_SIZE(parts)) {
			ctap_stat_aggregate(spec, &s->agg, parts, n);
			parts[0] = &s->agg;
			n = 1;
		}
		parts[n++] = per_cpu_ptr(s->cpu, cpu);
	}
	ctap_stat_aggregate(spec, &s->agg, parts, n);
	return &s->agg;
}

/* ---- counters: a slot per CPU ---- */

int ctap_counter_init(struct ctap_counter *k, int64_t value)
{
	k->base = value;
	k->cpu = alloc_percpu(int64_t);
	return k->cpu ? 0 : -ENOMEM;
}

void ctap_counter_free(struct ctap_counter *k)
{
	free_percpu(k->cpu);
}

/* Sums wrap as the script's n++ does (unsigned: no undefined overflow). */
int64_t ctap_counter_read(const struct ctap_counter *k)
{
	u64 sum = k->base;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(k->cpu, cpu);
	return (int64_t)sum;
}

void ctap_counter_set(struct ctap_counter *k, int64_t value)
{
	int cpu;

	for_each_possible_cpu(cpu)
		*per_cpu_ptr(k->cpu, cpu) = 0;
	k->base = value;
}

/* ---- maps ---- */

int ctap_map_slot(struct ctap_context *c, struct ctap_map *m, const struct ctap_key *k,
		  const char *overflow, const char *where)
{
	int e = ctap_map_find(m, k, true);

	if (e == -E2BIG)
		ctap_error(c, overflow, where);
	return e;
}

/* A stats array's value for k, aggregated (its one part) into scratch. */
struct ctap_stat *ctap_map_stat_agg(struct ctap_map *m, const struct ctap_key *k,
				    struct ctap_stat *scratch)
{
	int e = ctap_map_find(m, k, false);
	const struct ctap_stat *part;

	if (e < 0) {
		memset(scratch, 0, sizeof(*scratch));
		return scratch;
	}
	part = ctap_map_stat(m, e);
	ctap_stat_aggregate(ctap_map_stat_spec(m), scratch, &part, 1);
	return scratch;
}

/* ---- stap --remote-merge: the merged globals, as each host ships them ---- */

static void merge_tag(struct ctap_out *o, char kind, const char *name)
{
	ctap_out_write(o, CTAP_MERGE_TAG, sizeof(CTAP_MERGE_TAG) - 1);
	ctap_out_write(o, &kind, 1);
	ctap_out_write(o, " ", 1);
	ctap_out_write(o, name, strlen(name));
}

static void merge_num(struct ctap_out *o, int64_t v)
{
	ctap_out_write(o, " ", 1);
	ctap_out_dec(o, v);
}

void ctap_merge_write_mark(struct ctap_context *c, bool end)
{
	struct ctap_out *o = ctap_out(c);

	ctap_out_write(o, CTAP_MERGE_TAG, sizeof(CTAP_MERGE_TAG) - 1);
	ctap_out_write(o, end ? "e\n" : "v 1\n", end ? 2 : 4);
}

void ctap_merge_write_long(struct ctap_context *c, const char *name, int64_t v)
{
	struct ctap_out *o = ctap_out(c);

	merge_tag(o, 'n', name);
	merge_num(o, v);
	ctap_out_write(o, "\n", 1);
}

void ctap_merge_write_pstat(struct ctap_context *c, const char *name,
			    const struct ctap_stat_spec *spec, struct ctap_pstat *s)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct ctap_stat *part = per_cpu_ptr(s->cpu, cpu);
		struct ctap_out *o;

		if (!part->count)
			continue;
		o = ctap_out(c);
		merge_tag(o, 's', name);
		ctap_stat_merge_write(o, spec, part);
		ctap_out_write(o, "\n", 1);
	}
}

static void merge_key_string(struct ctap_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	ctap_out_write(o, " x", 2);
	for (; *s; s++) {
		char two[2] = { hex[(unsigned char)*s >> 4], hex[*s & 15] };

		ctap_out_write(o, two, 2);
	}
}

void ctap_merge_write_map(struct ctap_context *c, const char *name, struct ctap_map *m,
			  const struct ctap_map_spec *spec)
{
	const struct ctap_map_sort unsorted = { .column = 0, .dir = 0 };

	for (int e = ctap_map_walk_first(m, &unsorted); e >= 0;
	     e = ctap_map_walk_next(m, &unsorted, e)) {
		struct ctap_out *o = ctap_out(c);

		merge_tag(o, spec->value == CTAP_STATS ? 'A' : 'a', name);
		merge_num(o, spec->nkeys);
		for (int i = 0; i < spec->nkeys; i++) {
			if (spec->keys[i] == CTAP_STRING) {
				merge_key_string(o, ctap_map_key_string(m, e, i));
			} else {
				ctap_out_write(o, " i", 2);
				ctap_out_dec(o, ctap_map_key_long(m, e, i));
			}
		}
		if (spec->value == CTAP_STATS)
			ctap_stat_merge_write(o, spec->stat, ctap_map_stat(m, e));
		else
			merge_num(o, *ctap_map_long(m, e));
		ctap_out_write(o, "\n", 1);
	}
}
