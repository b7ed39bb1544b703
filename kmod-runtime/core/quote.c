// SPDX-License-Identifier: GPL-2.0
/*
 * quote.c - text made printable the way SystemTap shows it, so that
 * argstr and friends match byte for byte: printable ASCII as is, \n \t
 * \" \\ and the other C escapes, valid UTF-8 as \uXXXX or \UXXXXXXXX (upper-case hex),
 * any other byte as three octal digits (a NUL of a buffer as "\0").
 * Quoted text that does not fit ends with the quote and then "...", and
 * an escape is never cut in half.
 *
 * Callers copy the text in first (user memory with a _nofault copy), so
 * this runs over kernel memory only: a loop bounded by @inlen.
 */
#include "quote.h"

/* One code point of valid, shortest-form UTF-8 at in (n bytes left):
 * its length, 2 to 4, or 1 for a byte taken as it is. */
static int utf8(const unsigned char *in, size_t n, uint32_t *cp)
{
	int len = (in[0] & 0xe0) == 0xc0 ? 2 : (in[0] & 0xf0) == 0xe0 ? 3 :
		  (in[0] & 0xf8) == 0xf0 ? 4 : 1;
	uint32_t c = in[0] & (0x7f >> len);

	if (len == 1 || (size_t)len > n)
		goto byte;
	for (int i = 1; i < len; i++) {
		if ((in[i] & 0xc0) != 0x80)
			goto byte;
		c = c << 6 | (in[i] & 0x3f);
	}
	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c < 0x80 ||
	    (len == 3 && c < 0x800) || (len == 4 && c < 0x10000))
		goto byte;
	*cp = c;
	return len;
byte:
	*cp = in[0];
	return 1;
}

/* The escape for c (NUL-terminated in esc), and the room it takes. */
static int escape(uint32_t c, int len, char esc[12])
{
	static const char hex[] = "0123456789ABCDEF";
	char named;
	int n;

	if (len > 1) {
		n = c <= 0xffff ? 6 : 10;
		esc[0] = '\\';
		esc[1] = c <= 0xffff ? 'u' : 'U';
		for (int i = 2; i < n; i++)
			esc[i] = hex[(c >> (4 * (n - 1 - i))) & 0xf];
		esc[n] = '\0';
		return n;
	}
	if (c < 0x80 && c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
		esc[0] = c;
		esc[1] = '\0';
		return 1;
	}
	switch (c) {
	case '\a': named = 'a'; break;
	case '\b': named = 'b'; break;
	case '\f': named = 'f'; break;
	case '\n': named = 'n'; break;
	case '\r': named = 'r'; break;
	case '\t': named = 't'; break;
	case '\v': named = 'v'; break;
	case '"': named = '"'; break;
	case '\\': named = '\\'; break;
	default: named = 0;
	}
	if (named) {
		esc[0] = '\\';
		esc[1] = named;
		esc[2] = '\0';
		return 2;
	}
	/* SystemTap counts a NUL as four characters but shows it as "\0". */
	esc[0] = '\\';
	if (!c) {
		esc[1] = '0';
		esc[2] = '\0';
		return 4;
	}
	esc[1] = '0' + ((c >> 6) & 3);
	esc[2] = '0' + ((c >> 3) & 7);
	esc[3] = '0' + (c & 7);
	esc[4] = '\0';
	return 4;
}

void ctap_quote(char *out, size_t size, const char *in, size_t inlen, size_t outlen,
		bool quoted, bool buffer)
{
	const unsigned char *s = (const unsigned char *)in;
	char *o = out, *esc_at = NULL;
	size_t esc_len = 0;
	uint32_t c = 0;
	long room;

	if (!outlen || outlen > size - 1)
		outlen = size - 1;
	room = outlen;
	if (quoted) {
		room = (room > 5 ? room : 5) - 2;
		*o++ = '"';
	}
	/* SystemTap's order, for the same cut: a character is consumed
	 * before we know whether its escape fits. */
	while (inlen > 0) {
		int len = utf8(s, inlen, &c), n;
		char esc[12];

		if ((c == 0 && !buffer) || room <= 0)
			break;
		s += len;
		inlen -= len;
		n = escape(c, len, esc);
		if (n > 1 && !esc_at && room - 3 < n) {
			esc_at = o;	/* the first escape "..." could cut into */
			esc_len = n;
		}
		if (room < n)
			break;
		for (const char *e = esc; *e; e++)
			*o++ = *e;
		room -= n;
	}
	if (quoted && c && inlen > 0) {
		char *cut = o - 3 + room;

		o = esc_at && esc_at < cut && cut < esc_at + esc_len ? esc_at : cut;
		if (o < out + 1)
			o = out + 1;
		memcpy(o, "\"...", 4);
		o += 4;
	} else if (quoted) {
		*o++ = '"';
	}
	*o = '\0';
}

int ctap_utf8_put(char *out, size_t size, uint32_t c)
{
	int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;

	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return -1;
	if (size < (size_t)n + 1)
		return 0;
	out[n] = '\0';
	if (n == 1) {
		out[0] = c;
		return 1;
	}
	/* Continuation bytes from the end, six bits each; what is left
	 * goes under the lead byte's n high one-bits. */
	for (int i = n - 1; i > 0; i--, c >>= 6)
		out[i] = 0x80 | (c & 0x3f);
	out[0] = (0xff00 >> n) | c;
	return n;
}
