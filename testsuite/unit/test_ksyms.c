/*
 * test_ksyms.c - decoding the kallsyms tables of a kernel image: a
 * synthetic image laid out the way scripts/kallsyms.c lays it out, in
 * 6.2's order (offsets and base first, then num_syms, names, markers,
 * seqs_of_names, token table and index), in 6.1's (no seqs_of_names) and
 * in 6.3's (offsets and base after the token index), must decode to
 * exactly the symbols it was made from.  And a symbol table read as
 * functions keeps the linker's marks and assembler labels out: with
 * padding (6.2 on) every function has a __pfx_ twin and a label has
 * none; without, a label on a trampoline is no function either.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ksyms.h"
#include "unit.h"

#define NSYMS 700	/* three markers */
#define BASE 0xffffffff81000000ull

enum layout { L61, L62, L63 };

static char img[1 << 20];
static size_t at;

static void put(const void *p, size_t n)
{
	memcpy(img + at, p, n);
	at += n;
}

static void put_u(uint64_t v, int size)
{
	put(&v, size);	/* x86_64: little-endian */
}

static void align8(void)
{
	at = (at + 7) & ~(size_t)7;
}

/* Symbol i: two per-CPU absolutes, then text every 16 bytes. */
static void sym(int i, uint64_t *addr, char *name)
{
	if (i < 2) {
		*addr = i * 0x1000;
		sprintf(name, "Aper_cpu_%d", i);
	} else {
		*addr = BASE + (uint64_t)i * 16;
		sprintf(name, "%cfunc_%d", i % 3 ? 'T' : 't', i);
	}
}

static void offsets(void)
{
	align8();
	for (int i = 0; i < NSYMS; i++) {
		uint64_t addr;
		char name[64];

		sym(i, &addr, name);
		/* absolute: as is; relative: below the base, negated */
		put_u(addr < BASE ? addr : (uint64_t)(uint32_t)(int32_t)(BASE - addr - 1), 4);
	}
	align8();
	put_u(BASE, 8);
}

/* Each character is its own token: token c is the one-letter string c
 * (0 and the unprintable ones get "~", unused). */
static void build(enum layout l)
{
	uint32_t markers[(NSYMS + 255) / 256];
	size_t names_start;

	memset(img, 0, sizeof(img));
	at = 8192;	/* some other data first */
	if (l != L63)
		offsets();
	align8();
	put_u(NSYMS, 4);
	align8();
	names_start = at;
	for (int i = 0; i < NSYMS; i++) {
		uint64_t addr;
		char name[64];

		if (i % 256 == 0)
			markers[i / 256] = at - names_start;
		sym(i, &addr, name);
		put_u(strlen(name), 1);
		put(name, strlen(name));
	}
	align8();
	put(markers, sizeof(markers));
	align8();
	if (l == L62) {
		for (int i = 0; i < NSYMS; i++)
			put_u(0x010203, 3);
		align8();
	}
	uint16_t index[256];
	size_t table = at;

	for (int c = 0; c < 256; c++) {
		index[c] = at - table;
		put_u(c > 32 && c < 127 ? c : '~', 1);
		put_u(0, 1);
	}
	align8();
	put(index, sizeof(index));
	if (l == L63)
		offsets();
}

static void check_layout(enum layout l, const char *what)
{
	char *map = NULL, line[128], want[128];
	int ok = 0;

	build(l);
	CHECK_INT(ksyms_decode_image(img, at + 64, &map), 0, what);
	if (!map)
		return;
	const char *p = map;

	for (int i = 0; i < NSYMS; i++) {
		uint64_t addr;
		char name[64];
		size_t len = strcspn(p, "\n");

		sym(i, &addr, name);
		snprintf(want, sizeof(want), "%016llx %c %s", (unsigned long long)addr, name[0],
			 name + 1);
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (strcmp(line, want)) {
			CHECK_STR(line, want, "symbol decodes");
			break;
		}
		ok++;
		p += len + (p[len] == '\n');
	}
	CHECK_INT(ok, NSYMS, "every symbol, its address and its type");
	CHECK(*p == '\0', "nothing more");
	free(map);
}

/*
 * A System.map in a build tree of its own: 1,000 functions every 32
 * bytes (with their __pfx_ padding when padded; the odd ones static, as
 * 't' says), then two static-call
 * trampolines, the linker's marks around them, a mark at the first
 * function's padding, and a label before a 1 MiB gap.
 */
static struct ksyms *load_map(bool padded)
{
	char dir[] = "/tmp/test_ksyms.XXXXXX", path[64];
	struct ksyms *ks = NULL;
	uint64_t a = BASE, end;
	FILE *f;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof(path), "%s/System.map", dir);
	f = fopen(path, "w");
	fprintf(f, "%016llx T _stext\n", (unsigned long long)a);
	if (padded)
		fprintf(f, "%016llx T __sched_text_start\n", (unsigned long long)a);
	for (int i = 0; i < 1000; i++, a += 32) {
		if (padded)
			fprintf(f, "%016llx T __pfx_func_%d\n", (unsigned long long)a, i);
		fprintf(f, "%016llx %c func_%d\n", (unsigned long long)a + 16, i % 2 ? 't' : 'T', i);
	}
	fprintf(f, "%016llx T __static_call_text_start\n", (unsigned long long)a);
	fprintf(f, "%016llx T __SCT__tp_func_a\n", (unsigned long long)a);
	fprintf(f, "%016llx T __SCT__tp_func_b\n", (unsigned long long)a + 8);
	end = a + 16;
	fprintf(f, "%016llx T __static_call_text_end\n", (unsigned long long)end);
	fprintf(f, "%016llx T gap_label\n", (unsigned long long)end + 0x40);
	fprintf(f, "%016llx T _etext\n", (unsigned long long)end + 0x40 + 0x100000);
	fclose(f);
	ksyms_load("test-ksyms-labels", dir, NULL, &ks);
	unlink(path);
	rmdir(dir);
	return ks;
}

static const char *why(const struct ksyms *ks, const char *name)
{
	const struct ksym *f = ksyms_find(ks, name);

	return f ? f->why : "(not in the table)";
}

static void check_labels(void)
{
	struct ksyms *ks = load_map(true);

	CHECK(ks != NULL, "a padded System.map loads");
	if (ks) {
		CHECK(why(ks, "func_0") == NULL && why(ks, "func_999") == NULL,
		      "padded: functions with their __pfx_ may be probed");
		CHECK(why(ks, "__static_call_text_end") != NULL,
		      "padded: the mark after the trampolines is no function");
		CHECK(why(ks, "__sched_text_start") != NULL,
		      "padded: a mark on a function's padding is no function");
		ksyms_free(ks);
	}
	ks = load_map(false);
	CHECK(ks != NULL, "an unpadded System.map loads");
	if (ks) {
		CHECK(why(ks, "func_0") == NULL, "unpadded: functions may be probed");
		CHECK(ksyms_find(ks, "func_0")->global && !ksyms_find(ks, "func_1")->global,
		      "T is a global function (.exported's), t a static one");
		CHECK(why(ks, "__static_call_text_start") != NULL,
		      "unpadded: a mark on a trampoline is no function");
		CHECK(why(ks, "gap_label") != NULL,
		      "unpadded: a label before a gap no function spans is none");
		ksyms_free(ks);
	}
}

int main(void)
{
	char *map;

	check_layout(L61, "6.1's layout decodes");
	check_layout(L62, "6.2's layout (seqs_of_names) decodes");
	check_layout(L63, "6.3's layout (offsets last) decodes");
	memset(img, 0, sizeof(img));
	CHECK_INT(ksyms_decode_image(img, sizeof(img), &map), -2, "no tables: -ENOENT");
	build(L61);
	img[at - 512 + 2 * 'f'] ^= 1;	/* a token index entry out of order */
	CHECK_INT(ksyms_decode_image(img, at, &map), -2, "a damaged token index is not taken");
	check_labels();
	return unit_done();
}
