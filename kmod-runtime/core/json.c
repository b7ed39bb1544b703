// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - JSON text for stap --json (docs/json.md).
 */
#include "json.h"

/* The length of the valid UTF-8 sequence at s[0..n), or 0 if it is not one
 * (overlong forms, surrogates and code points past U+10FFFF are not). */
static size_t json_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * The escaped form of the character at s[0..n): into out (7 bytes at
 * most, none for a UTF-8 sequence, which is copied as it is), its length;
 * *used is how many bytes of s it stands for.
 */
static size_t json_escape_one(const unsigned char *s, size_t n, char *out, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char ch = s[0];

	*used = 1;
	switch (ch) {
	case '"':
	case '\\':
		out[0] = '\\';
		out[1] = ch;
		return 2;
	case '\n':
		memcpy(out, "\\n", 2);
		return 2;
	case '\t':
		memcpy(out, "\\t", 2);
		return 2;
	case '\r':
		memcpy(out, "\\r", 2);
		return 2;
	}
	if (ch >= 0x20 && ch < 0x7f) {
		out[0] = ch;
		return 1;
	}
	if (ch >= 0x80) {
		size_t len = json_utf8_len(s, n);

		if (len) {
			*used = len;
			return 0;
		}
	}
	memcpy(out, "\\u00", 4);
	out[4] = hex[ch >> 4];
	out[5] = hex[ch & 15];
	return 6;
}

void ctap_json_string(struct ctap_out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t used, len;

	ctap_out_write(o, "\"", 1);
	while (n) {
		len = json_escape_one(p, n, esc, &used);
		ctap_out_write(o, len ? esc : (const char *)p, len ? len : used);
		p += used;
		n -= used;
	}
	ctap_out_write(o, "\"", 1);
}

/*
 * The raw text moves to the end of the buffer, then is escaped forward
 * into its old place: the writer starts at least as far back as the
 * reader and stops where it would catch up with it, so nothing is
 * overwritten before it is read, and no second buffer is needed.
 */
void ctap_json_escape_tail(struct ctap_out *o, size_t start, size_t reserve)
{
	size_t raw = o->len - start, end, rd, wr = start;
	char esc[8];

	if (o->size < start + reserve) {	/* no room even for the closing */
		o->len = start;
		o->truncated = true;
		return;
	}
	end = o->size - reserve;
	if (raw > end - start) {
		raw = end - start;
		o->truncated = true;
	}
	rd = end - raw;
	memmove(o->buf + rd, o->buf + start, raw);
	while (rd < end) {
		size_t used, len = json_escape_one((const unsigned char *)o->buf + rd, end - rd, esc, &used);
		size_t out_len = len ? len : used;

		if (wr + out_len > rd + used) {
			o->truncated = true;
			break;
		}
		if (len)
			memcpy(o->buf + wr, esc, len);
		else
			memmove(o->buf + wr, o->buf + rd, used);
		wr += out_len;
		rd += used;
	}
	o->len = wr;
}

static void json_field(struct ctap_out *o, const char *name, int64_t v)
{
	ctap_out_write(o, name, strlen(name));
	ctap_out_dec(o, v);
}

void ctap_json_stat(struct ctap_out *o, const struct ctap_stat *agg)
{
	if (!agg->count) {
		ctap_out_write(o, "{\"count\":0}", 11);
		return;
	}
	json_field(o, "{\"count\":", agg->count);
	json_field(o, ",\"min\":", agg->min);
	json_field(o, ",\"max\":", agg->max);
	json_field(o, ",\"sum\":", agg->sum);
	json_field(o, ",\"avg\":", ctap_stat_avg(agg));
	ctap_out_write(o, "}", 1);
}

void ctap_json_hist(struct ctap_out *o, const char *name, const struct ctap_stat_spec *spec,
		    const struct ctap_stat *agg)
{
	bool linear = spec->type == CTAP_HIST_LINEAR, first = true;
	int from = linear ? 1 : 0, to = linear ? spec->buckets - 1 : spec->buckets;

	if (spec->type == CTAP_HIST_NONE)
		return;
	ctap_out_write(o, "{\"type\":\"hist\",\"name\":", 22);
	ctap_json_string(o, name, strlen(name));
	if (linear) {
		json_field(o, ",\"kind\":\"linear\",\"start\":", spec->start);
		json_field(o, ",\"interval\":", spec->interval);
		json_field(o, ",\"underflow\":", agg->count ? agg->hist[0] : 0);
		json_field(o, ",\"overflow\":", agg->count ? agg->hist[spec->buckets - 1] : 0);
	} else {
		ctap_out_write(o, ",\"kind\":\"log\"", 13);
	}
	json_field(o, ",\"count\":", agg->count);
	ctap_out_write(o, ",\"buckets\":[", 12);
	for (int b = from; agg->count && b < to; b++) {
		if (!agg->hist[b])
			continue;
		json_field(o, first ? "{\"value\":" : ",{\"value\":", ctap_hist_bucket_value(spec, b));
		json_field(o, ",\"count\":", agg->hist[b]);
		ctap_out_write(o, "}", 1);
		first = false;
	}
	ctap_out_write(o, "]}\n", 3);
}
