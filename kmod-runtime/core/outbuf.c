// SPDX-License-Identifier: GPL-2.0
/*
 * outbuf.c - bounded text output.
 */
#include "outbuf.h"

/* How much of n bytes fits; marks the output truncated if not all. */
static size_t fit(struct ctap_out *o, size_t n)
{
	size_t room = o->size - o->len;

	if (n <= room)
		return n;
	o->truncated = true;
	return room;
}

void ctap_out_write(struct ctap_out *o, const char *s, size_t n)
{
	n = fit(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void ctap_out_fill(struct ctap_out *o, char c, size_t n)
{
	n = fit(o, n);
	memset(o->buf + o->len, c, n);
	o->len += n;
}

void ctap_out_dec(struct ctap_out *o, int64_t v)
{
	char digits[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int i = sizeof(digits);

	do {
		digits[--i] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		digits[--i] = '-';
	ctap_out_write(o, digits + i, sizeof(digits) - i);
}

void ctap_out_str(struct ctap_out *o, const char *s)
{
	if (s)
		ctap_out_write(o, s, strlen(s));
}
