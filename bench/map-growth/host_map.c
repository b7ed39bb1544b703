/*
 * host_map SIZE... - the runtime's map code alone (kmod-runtime/core/map.c,
 * built for the host) at each SIZE: ns per a[key]++ on existing keys,
 * visited in a shuffled order (a probe's keys do not come in the order
 * they were inserted), and per delete-and-insert at that size.  The guest
 * benchmark counts instructions, which stay flat when every operation is
 * O(1); this shows what caches and TLBs add on real hardware as the map
 * outgrows them (bench/map-growth.sh prints it beside the guest's table).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "map.h"

#define OPS	2000000

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void bump(struct ctap_map *m, int64_t k)
{
	struct ctap_key key = { .n = { k } };
	int e = ctap_map_find(m, &key, true);

	if (e < 0)
		abort();
	(*ctap_map_long(m, e))++;
}

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		uint32_t n = atoi(argv[a]), *order = malloc(OPS * sizeof(*order));
		struct ctap_map_spec spec = { .nkeys = 1, .keys = { CTAP_LONG }, .value = CTAP_LONG,
					      .max_entries = n, .string_len = 64 };
		struct ctap_map *m = ctap_map_init(aligned_alloc(64, (ctap_map_bytes(&spec) + 63) & ~63ul),
						   &spec);
		uint64_t x = 88172645463325252ull;
		double t0, fill, look, churn;

		for (int i = 0; i < OPS; i++) {	/* xorshift: keys in no order */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			order[i] = x % n;
		}
		t0 = now_ns();
		for (uint32_t k = 0; k < n; k++)
			bump(m, k);
		fill = (now_ns() - t0) / n;
		t0 = now_ns();
		for (int i = 0; i < OPS; i++)
			bump(m, order[i]);
		look = (now_ns() - t0) / OPS;
		t0 = now_ns();
		for (int64_t k = 0; k < OPS; k++) {
			struct ctap_key old = { .n = { k } };

			ctap_map_delete(m, &old);
			bump(m, k + n);
		}
		churn = (now_ns() - t0) / OPS;
		printf("RESULT host-map_%u-fill %.1f\nRESULT host-map_%u-lookup %.1f\n"
		       "RESULT host-map_%u-churn %.1f\n", n, fill, n, look, n, churn);
		free(order);
	}
	return 0;
}
