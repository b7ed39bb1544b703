/*
 * test_json.c - stap --json's escaping (kmod-runtime/core/json.c): every
 * line it makes must parse, whatever bytes the script printed and
 * however little room is left.  python3 -m json.tool would do for one
 * line; here the escapes are checked byte for byte, and the in-place
 * escaping at every buffer size against a plain escape into a fresh one.
 */
#include <stdlib.h>

#include "json.h"
#include "unit.h"

/* Escape text as the runtime does a statement's output: after a prefix,
 * in a buffer of size bytes, leaving 3 for the closing. */
static const char *escaped(const char *text, size_t n, size_t size, bool *cut)
{
	static char buf[4096], out[4096];
	struct ctap_out o;

	ctap_out_init(&o, buf, size);
	ctap_out_write(&o, "P:", 2);
	ctap_out_write(&o, text, n);
	ctap_json_escape_tail(&o, 2, 3);
	*cut = o.truncated;
	memcpy(out, buf, o.len);
	out[o.len] = '\0';
	return out;
}

static const char *quoted(const char *text, size_t n)
{
	static char buf[4096];
	struct ctap_out o;

	ctap_out_init(&o, buf, sizeof(buf) - 1);
	ctap_json_string(&o, text, n);
	buf[o.len] = '\0';
	return buf;
}

int main(void)
{
	static const char mixed[] = "a\"b\\c\nd\te\r\x01\x7f h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xff\xc3";
	static const char want[] = "P:a\\\"b\\\\c\\nd\\te\\r\\u0001\\u007f h\xc3\xa9 \xe2\x82\xac "
				   "\xf0\x9f\x98\x80 \\u00ff\\u00c3";
	bool cut;
	char big[2000];

	CHECK_STR(escaped(mixed, sizeof(mixed) - 1, 4096, &cut), want, "every kind of byte");
	CHECK(!cut, "nothing cut with room");
	CHECK_STR(quoted("\xed\xa0\x80", 3), "\"\\u00ed\\u00a0\\u0080\"", "a surrogate is not UTF-8");
	CHECK_STR(quoted("\xc0\xaf", 2), "\"\\u00c0\\u00af\"", "an overlong form is not UTF-8");
	CHECK_STR(quoted("\xf4\x90\x80\x80", 4), "\"\\u00f4\\u0090\\u0080\\u0080\"", "past U+10FFFF");
	CHECK_STR(quoted("", 0), "\"\"", "empty");

	/* With less room, the escaped text is the escaped form of a prefix of
	 * the raw text: cut at a whole escape, never in the middle of one. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = "x\"\n\x01\xc3\xa9"[i % 6];
	for (size_t size = 5; size < 4096; size += 7) {
		const char *got = escaped(big, sizeof(big), size, &cut);
		size_t len = strlen(got) - 2, raw;
		bool prefix = false;

		for (raw = 0; raw <= sizeof(big) && !prefix; raw++) {
			const char *q = quoted(big, raw);

			prefix = strlen(q) - 2 == len && !memcmp(q + 1, got + 2, len);
		}
		if (!prefix || len + 2 + 3 > size || cut != (raw - 1 < sizeof(big))) {
			CHECK(false, "size %zu: a cut escape or an overrun (%zu bytes)", size, len);
			return unit_done();
		}
	}
	CHECK(true, "every buffer size from 5 to 4096: a whole prefix, within the room");
	return unit_done();
}
