/*
 * test_map.c - associative arrays: keys, values, limits, wrap, order.
 */
#include <stdlib.h>

#include "map.h"
#include "unit.h"

#define STRLEN	16

static struct ctap_map *new_map(struct ctap_map_spec spec)
{
	size_t n = ctap_map_bytes(&spec);

	return n ? ctap_map_init(aligned_alloc(8, (n + 7) & ~(size_t)7), &spec) : NULL;
}

static struct ctap_key lkey(int64_t a)
{
	return (struct ctap_key){ .n = { a } };
}

static struct ctap_key skey(const char *s)
{
	return (struct ctap_key){ .s = { s } };
}

static void test_long_values(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_STRING }, .value = CTAP_LONG,
		.max_entries = 4, .string_len = STRLEN });
	struct ctap_key k = skey("bash");
	int e;

	e = ctap_map_find(m, &k, true);
	CHECK(e >= 0, "create an entry");
	*ctap_map_long(m, e) += 5;
	*ctap_map_long(m, ctap_map_find(m, &k, true)) += 1;
	CHECK_INT(*ctap_map_long(m, ctap_map_find(m, &k, false)), 6, "the same key finds the same entry");
	CHECK_INT(ctap_map_find(m, &(struct ctap_key){ .s = { "sh" } }, false), -ENOENT,
		  "an absent key is not created by a read");
	CHECK_INT(ctap_map_count(m), 1, "one entry");
	for (int i = 0; i < 3; i++)
		ctap_map_find(m, &(struct ctap_key){ .s = { i == 0 ? "a" : i == 1 ? "b" : "c" } }, true);
	CHECK_INT(ctap_map_find(m, &(struct ctap_key){ .s = { "d" } }, true), -E2BIG,
		  "a full map refuses a new key (Array overflow)");
	CHECK(ctap_map_find(m, &k, true) >= 0, "a full map still finds old keys");
	CHECK_INT(ctap_map_delete(m, &k), 0, "delete");
	CHECK_INT(ctap_map_find(m, &k, false), -ENOENT, "deleted is gone");
	CHECK(ctap_map_find(m, &(struct ctap_key){ .s = { "d" } }, true) >= 0, "delete frees a slot");
	e = ctap_map_find(m, &k, true);
	CHECK_INT(e, -E2BIG, "and the map is full again");
	ctap_map_clear(m);
	CHECK_INT(ctap_map_count(m), 0, "clear empties it");
	e = ctap_map_find(m, &k, true);
	CHECK(e >= 0 && *ctap_map_long(m, e) == 0, "a re-created entry starts at 0");
	free(m);
}

static void test_nine_keys_and_strings(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 9, .keys = { CTAP_LONG, CTAP_STRING, CTAP_LONG, CTAP_STRING, CTAP_LONG,
				      CTAP_STRING, CTAP_LONG, CTAP_STRING, CTAP_LONG },
		.value = CTAP_STRING, .max_entries = 8, .string_len = STRLEN });
	struct ctap_key k = { .n = { 1, 0, 3, 0, 5, 0, 7, 0, 9 },
			      .s = { 0, "two", 0, "four", 0, "six", 0, "eight", 0 } };
	struct ctap_key k2 = k;
	int e = ctap_map_find(m, &k, true);

	strcpy(ctap_map_string(m, e), "value");
	k2.n[8] = 10;
	CHECK_INT(ctap_map_find(m, &k2, false), -ENOENT, "a different 9th key is another entry");
	CHECK_STR(ctap_map_string(m, ctap_map_find(m, &k, false)), "value", "string value kept");
	CHECK_STR(ctap_map_key_string(m, e, 7), "eight", "string key stored");
	CHECK_INT(ctap_map_key_long(m, e, 8), 9, "long key stored");

	/* Keys longer than the string length are cut, consistently. */
	struct ctap_key l1 = k, l2 = k;
	l1.s[1] = "a-very-long-key-indeed-1";
	l2.s[1] = "a-very-long-key-indeed-2";
	e = ctap_map_find(m, &l1, true);
	CHECK_INT(ctap_map_find(m, &l2, false), e, "keys equal in their first string_len-1 bytes meet");
	CHECK_INT((long long)strlen(ctap_map_key_string(m, e, 1)), STRLEN - 1, "stored key is bounded");
	free(m);
}

static void test_wrap(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_LONG }, .value = CTAP_LONG,
		.max_entries = 3, .wrap = true, .string_len = STRLEN });
	struct ctap_key k;

	for (int i = 1; i <= 5; i++) {
		k = lkey(i);
		*ctap_map_long(m, ctap_map_find(m, &k, true)) = i * 10;
	}
	CHECK_INT(ctap_map_count(m), 3, "a wrap map stays at its size");
	k = lkey(1);
	CHECK_INT(ctap_map_find(m, &k, false), -ENOENT, "the oldest key was forgotten");
	k = lkey(5);
	CHECK_INT(*ctap_map_long(m, ctap_map_find(m, &k, false)), 50, "the newest is there");
	free(m);
}

static char *join(struct ctap_map *m, const int *e, int n, char *buf);

static void test_order(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 2, .keys = { CTAP_STRING, CTAP_LONG }, .value = CTAP_LONG,
		.max_entries = 64, .string_len = STRLEN });
	static const struct { const char *name; int64_t pid, count; } rows[] = {
		{ "sshd", 10, 7 }, { "bash", 20, 42 }, { "cron", 30, 7 }, { "apt", 40, 1 },
		{ "zsh", 5, 99 }, { "init", 1, 7 },
	};
	int out[64], scratch[64], n;
	char got[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct ctap_key k = { .n = { 0, rows[i].pid }, .s = { rows[i].name } };

		*ctap_map_long(m, ctap_map_find(m, &k, true)) = rows[i].count;
	}
#define ORDER(col, dir, limit) (n = ctap_map_sorted(m, &(struct ctap_map_sort){ col, dir, 0 }, \
		out, scratch, limit), join(m, out, n, got))
	CHECK_STR(ORDER(0, 0, -1), "sshd bash cron apt zsh init", "unsorted: insertion order");
	CHECK_STR(ORDER(0, -1, -1), "zsh bash sshd cron init apt",
		  "by value descending; ties keep insertion order");
	CHECK_STR(ORDER(0, 1, 3), "apt sshd cron", "by value ascending, limit 3");
	CHECK_STR(ORDER(1, 1, -1), "apt bash cron init sshd zsh", "by string key ascending");
	CHECK_STR(ORDER(2, -1, 2), "apt cron", "by long key descending, limit 2");
	CHECK_STR(ORDER(0, -1, 0), "", "limit 0 visits nothing");
	/* SystemTap sorts in place: the last sort (by value descending, its
	 * ties in the order the pid sort before it left) is the map's order. */
	CHECK_STR(ORDER(0, 0, -1), "zsh bash cron sshd init apt",
		  "unsorted after a sort: that sort's order");
	free(m);
}

static void test_stats_values(void)
{
	struct ctap_stat_spec spec = { .type = CTAP_HIST_NONE };
	struct ctap_map *m;
	int out[16], scratch[16], n;
	char got[128];

	ctap_stat_spec_init(&spec);
	m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_STRING }, .value = CTAP_STATS, .max_entries = 16,
		.string_len = STRLEN, .stat = &spec });
	for (int i = 0; i < 10; i++) {
		const char *name = i < 5 ? "many" : i < 8 ? "some" : "few";
		struct ctap_key k = skey(name);

		ctap_stat_add(&spec, ctap_map_stat(m, ctap_map_find(m, &k, true)), i < 8 ? 1 : 100);
	}
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, -1, 'c' }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "many some few", "stats sorted by @count-");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, -1, 's' }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "few many some", "stats sorted by @sum-");
	{
		struct ctap_out o;
		struct ctap_key k = skey("some");

		ctap_out_init(&o, got, sizeof(got));
		ctap_map_print_entry(&o, m, ctap_map_find(m, &k, false), "lat");
		CHECK_STR((got[o.len] = '\0', got), "lat[\"some\"] @count=3 @min=1 @max=1 @sum=3 @avg=1\n",
			  "a statistics entry printed as SystemTap's end-of-session display");
	}
	free(m);
}

/* name[1,"k"]=v and name[2]="s", as SystemTap prints unread arrays. */
static void test_print_entry(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 2, .keys = { CTAP_LONG, CTAP_STRING }, .value = CTAP_LONG,
		.max_entries = 4, .string_len = STRLEN });
	struct ctap_map *s = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_LONG }, .value = CTAP_STRING,
		.max_entries = 4, .string_len = STRLEN });
	struct ctap_key k = { .n = { -3 }, .s = { NULL, "x y" } }, one = lkey(2);
	struct ctap_out o;
	char got[64];

	*ctap_map_long(m, ctap_map_find(m, &k, true)) = 42;
	ctap_out_init(&o, got, sizeof(got));
	ctap_map_print_entry(&o, m, ctap_map_find(m, &k, false), "pairs");
	CHECK_STR((got[o.len] = '\0', got), "pairs[-3,\"x y\"]=42\n", "a long entry, two keys");
	strcpy(ctap_map_string(s, ctap_map_find(s, &one, true)), "two");
	ctap_out_init(&o, got, sizeof(got));
	ctap_map_print_entry(&o, s, ctap_map_find(s, &one, false), "names");
	CHECK_STR((got[o.len] = '\0', got), "names[2]=\"two\"\n", "a string entry");
	free(m);
	free(s);
}

/* Entries' first keys, space-separated. */
static char *join(struct ctap_map *m, const int *e, int n, char *buf)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		sprintf(buf + strlen(buf), "%s%s", i ? " " : "", ctap_map_key_string(m, e[i], 0));
	return buf;
}

/*
 * foreach order as SystemTap 4.8 prints it in the guest (bench/peer/reference):
 *	a["x"] = 1; a["y"] = 1; a["z"] = 2; a["w"] = 1; a["v"] = 3
 *	foreach (k in a)    -> x y z w v
 *	foreach (k in a-)   -> v z x y w
 *	foreach (k in a+)   -> x y w z v
 *	foreach (k- in a)   -> z y x w v
 *	foreach (k in a- limit 2) -> v z
 */
static void test_systemtap_order(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_STRING }, .value = CTAP_LONG,
		.max_entries = 8, .string_len = STRLEN });
	static const struct { const char *k; int64_t v; } rows[] = {
		{ "x", 1 }, { "y", 1 }, { "z", 2 }, { "w", 1 }, { "v", 3 },
	};
	int out[8], scratch[8], n;
	char got[64];

	for (size_t i = 0; i < 5; i++) {
		struct ctap_key k = skey(rows[i].k);

		*ctap_map_long(m, ctap_map_find(m, &k, true)) = rows[i].v;
	}
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, 0, 0 }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "x y z w v", "SystemTap: unsorted is insertion order");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, -1, 0 }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "v z x y w", "SystemTap: a- keeps ties in insertion order");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, 1, 0 }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "x y w z v", "SystemTap: a+");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 1, -1, 0 }, out, scratch, -1);
	CHECK_STR(join(m, out, n, got), "z y x w v", "SystemTap: k-");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 0, -1, 0 }, out, scratch, 2);
	CHECK_STR(join(m, out, n, got), "v z", "SystemTap: a- limit 2");
	free(m);
}

static void test_many(void)
{
	enum { N = 2048 };
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_LONG }, .value = CTAP_LONG,
		.max_entries = N, .string_len = STRLEN });
	int *out = malloc(N * sizeof(int)), *scratch = malloc(N * sizeof(int));
	int ok = 1, n;

	for (int64_t i = 0; i < N; i++) {
		struct ctap_key k = lkey(i * 7919 % N);

		*ctap_map_long(m, ctap_map_find(m, &k, true)) = i;
	}
	for (int64_t i = 0; i < N && ok; i++) {
		struct ctap_key k = lkey(i);

		ok = ctap_map_find(m, &k, false) >= 0;
	}
	CHECK(ok && ctap_map_count(m) == N, "MAXMAPENTRIES (2048) keys, every one found");
	n = ctap_map_sorted(m, &(struct ctap_map_sort){ 1, 1, 0 }, out, scratch, -1);
	for (int i = 1; i < n && ok; i++)
		ok = ctap_map_key_long(m, out[i - 1], 0) < ctap_map_key_long(m, out[i], 0);
	CHECK(ok && n == N, "2048 keys sorted");
	free(out);
	free(scratch);
	free(m);
}

/*
 * Strings are hashed and compared a word at a time: every length around
 * the word boundaries and the limit (string_len - 1 bytes) is its own key,
 * and keys that differ only past the limit meet.
 */
static void test_string_lengths(void)
{
	enum { LEN = 128 };
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 2, .keys = { CTAP_STRING, CTAP_LONG }, .value = CTAP_LONG,
		.max_entries = 256, .string_len = LEN });
	char text[LEN + 8], key[LEN + 8];
	int ok = 1, e;

	for (int i = 0; i < LEN + 7; i++)
		text[i] = 'a' + i % 26;
	text[LEN + 7] = '\0';
	for (int n = 0; n <= LEN + 6; n++) {
		struct ctap_key k = { .s = { key }, .n = { 0, 42 } };

		memcpy(key, text, n);
		key[n] = '\0';
		e = ctap_map_find(m, &k, true);
		*ctap_map_long(m, e) += 1;
	}
	CHECK_INT(ctap_map_count(m), LEN, "lengths 0 to 127 are 128 keys; longer ones are cut to 127");
	for (int n = 0; n < LEN - 1 && ok; n++) {
		struct ctap_key k = { .s = { key }, .n = { 0, 42 } };

		memcpy(key, text, n);
		key[n] = '\0';
		e = ctap_map_find(m, &k, false);
		ok = e >= 0 && *ctap_map_long(m, e) == 1 && strlen(ctap_map_key_string(m, e, 0)) == (size_t)n;
	}
	CHECK(ok, "each shorter key is found once, with its own length");
	memcpy(key, text, LEN + 6);
	key[LEN + 6] = '\0';
	e = ctap_map_find(m, &(struct ctap_key){ .s = { key }, .n = { 0, 42 } }, false);
	CHECK_INT(e >= 0 ? *ctap_map_long(m, e) : -1, 8, "the 8 keys of 127 to 134 bytes are one");
	key[3] = '\0';
	CHECK_INT(ctap_map_find(m, &(struct ctap_key){ .s = { key }, .n = { 0, 43 } }, false), -ENOENT,
		  "the number key counts too");
	free(m);
}

/* The walk's entries into out; how many. */
static int walk(struct ctap_map *m, const struct ctap_map_sort *sort, int *out)
{
	int n = 0;

	for (int e = ctap_map_walk_first(m, sort); e >= 0; e = ctap_map_walk_next(m, sort, e))
		out[n++] = e;
	return n;
}

/*
 * foreach's walk in place (no buffer) visits what ctap_map_sorted() lists,
 * in the same order, ties included, and leaves the map in the same order:
 * two maps filled alike, one sorted each way, through random sorts,
 * deletes and refills (small values: many ties).
 */
static void test_walk_matches_sorted(void)
{
	enum { N = 300 };
	struct ctap_map_spec spec = { .nkeys = 2, .keys = { CTAP_LONG, CTAP_STRING },
				      .value = CTAP_LONG, .max_entries = N, .string_len = STRLEN };
	struct ctap_map *a = new_map(spec), *b = new_map(spec);
	static int out[2 * N], got[N];
	int bad = 0, rounds = 0;

	srand(39);
	for (int round = 0; round < 200; round++) {
		struct ctap_map_sort sort = { rand() % 3, (rand() % 3) - 1, 0 };
		int fill = rand() % N, n, k;

		if (round % 50 == 49) {
			ctap_map_clear(a);
			ctap_map_clear(b);
		}
		for (int i = 0; i < fill; i++) {
			char name[8];
			struct ctap_key key;
			int ea, eb;

			snprintf(name, sizeof(name), "k%d", rand() % 40);
			key = (struct ctap_key){ .n = { rand() % 30 }, .s = { NULL, name } };
			ea = ctap_map_find(a, &key, true);
			eb = ctap_map_find(b, &key, true);
			if (ea < 0 || eb < 0)
				break;
			*ctap_map_long(a, ea) = *ctap_map_long(b, eb) = rand() % 7;
		}
		n = ctap_map_sorted(a, &sort, out, out + N, -1);
		k = walk(b, &sort, got);
		for (int i = 0; i < n && i < k && !bad; i++)
			bad = ctap_map_key_long(a, out[i], 0) != ctap_map_key_long(b, got[i], 0) ||
			      strcmp(ctap_map_key_string(a, out[i], 1), ctap_map_key_string(b, got[i], 1));
		bad |= n != k;
		rounds += !bad;
	}
	CHECK_INT(rounds, 200, "the in-place walk visits ctap_map_sorted()'s order, 200 random rounds");
	/* the order left behind: an unsorted walk after the last sort */
	{
		struct ctap_map_sort none = { 0, 0, 0 };
		int n = ctap_map_sorted(a, &none, out, out + N, -1), k = walk(b, &none, got), same = n == k;

		for (int i = 0; i < n && same; i++)
			same = ctap_map_key_long(a, out[i], 0) == ctap_map_key_long(b, got[i], 0);
		CHECK(same, "and leaves the map in the same order");
	}
	free(a);
	free(b);
}

/* delete of a whole map takes as many steps as it has entries, and
 * leaves it as good as new: every slot usable, nothing found. */
static void test_clear_reuses_everything(void)
{
	struct ctap_map *m = new_map((struct ctap_map_spec){
		.nkeys = 1, .keys = { CTAP_LONG }, .value = CTAP_LONG,
		.max_entries = 64, .string_len = STRLEN });
	int ok = 1;

	for (int round = 0; round < 3; round++) {
		struct ctap_key k;

		for (int i = 0; i < 64; i++) {
			k = lkey(round * 1000 + i);
			ok &= ctap_map_find(m, &k, true) >= 0;
		}
		k = lkey(-1);
		ok &= ctap_map_find(m, &k, true) == -E2BIG;
		ctap_map_clear(m);
		k = lkey(round * 1000 + 5);
		ok &= ctap_map_count(m) == 0 && ctap_map_find(m, &k, false) == -ENOENT;
	}
	CHECK(ok, "a cleared map takes 64 new keys again, three times, and finds no old one");
	free(m);
}

int main(void)
{
	struct ctap_map_spec bad = { .nkeys = 0 };

	CHECK_INT((long long)ctap_map_bytes(&bad), 0, "a map needs keys");
	test_long_values();
	test_nine_keys_and_strings();
	test_wrap();
	test_order();
	test_stats_values();
	test_print_entry();
	test_systemtap_order();
	test_many();
	test_string_lengths();
	test_walk_matches_sorted();
	test_clear_reuses_everything();
	return unit_done();
}
