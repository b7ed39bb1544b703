// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - the printf engine (see format.h).
 */
#include "format.h"

#define CTAP_FORMAT_MAX_COUNT	1000000	/* widths and precisions */

#define F_LEFT	1
#define F_PLUS	2
#define F_SPACE	4
#define F_ZERO	8
#define F_ALT	16

struct spec {
	int flags;
	int width;		/* -1: none */
	int precision;		/* -1: none */
	char conv;
};

/*
 * %#c: a character a reader can see, as SystemTap's pretty-printer shows
 * char members: C's letter escapes, else three octal digits.  Into out
 * (4 bytes); returns the length.
 */
static size_t escape_char(char c, char *out)
{
	static const char from[] = "\a\b\f\n\r\t\v'\\", to[] = "abfnrtv'\\";
	const char *hit = c ? memchr(from, c, sizeof(from) - 1) : NULL;
	unsigned char u = c;

	if (!hit && u >= ' ' && u < 127) {
		out[0] = c;
		return 1;
	}
	out[0] = '\\';
	if (hit) {
		out[1] = to[hit - from];
		return 2;
	}
	out[1] = '0' + (u >> 6);
	out[2] = '0' + ((u >> 3) & 7);
	out[3] = '0' + (u & 7);
	return 4;
}

/* Pad and write body, with a sign/prefix that zero padding goes after. */
static void emit(struct ctap_out *o, const struct spec *sp, const char *prefix,
		 const char *body, size_t len, size_t zeros)
{
	size_t plen = strlen(prefix), total = plen + zeros + len;
	size_t pad = sp->width > 0 && (size_t)sp->width > total ? sp->width - total : 0;

	if (!(sp->flags & F_LEFT) && !(sp->flags & F_ZERO))
		ctap_out_fill(o, ' ', pad);
	ctap_out_write(o, prefix, plen);
	if (!(sp->flags & F_LEFT) && (sp->flags & F_ZERO))
		ctap_out_fill(o, '0', pad);
	ctap_out_fill(o, '0', zeros);
	ctap_out_write(o, body, len);
	if (sp->flags & F_LEFT)
		ctap_out_fill(o, ' ', pad);
}

static void format_int(struct ctap_out *o, struct spec sp, int64_t v)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	const char *digits = sp.conv == 'X' ? upper : lower;
	unsigned base = sp.conv == 'x' || sp.conv == 'X' || sp.conv == 'p' ? 16 :
		sp.conv == 'o' ? 8 : 10;
	bool is_signed = sp.conv == 'd' || sp.conv == 'i';
	uint64_t u = is_signed && v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char buf[24];
	const char *prefix = "";
	size_t len, zeros = 0;
	int i = sizeof(buf);

	do {
		buf[--i] = digits[u % base];
		u /= base;
	} while (u);
	if (sp.precision == 0 && v == 0 && sp.conv != 'p')
		i = sizeof(buf);	/* C: "%.0d" of 0 prints nothing */
	len = sizeof(buf) - i;
	if (is_signed)
		prefix = v < 0 ? "-" : sp.flags & F_PLUS ? "+" : sp.flags & F_SPACE ? " " : "";
	else if (sp.conv == 'p')
		prefix = "0x";
	else if (sp.flags & F_ALT)	/* SystemTap's, unlike C's, even for 0: "0x0", "00" */
		prefix = sp.conv == 'x' ? "0x" : sp.conv == 'X' ? "0X" : sp.conv == 'o' ? "0" : "";
	if (sp.precision >= 0) {
		sp.flags &= ~F_ZERO;	/* a precision turns zero padding off, as in C */
		if ((size_t)sp.precision > len)
			zeros = sp.precision - len;
	}
	if (sp.flags & F_LEFT)
		sp.flags &= ~F_ZERO;
	emit(o, &sp, prefix, buf + i, len, zeros);
}

static void format_str(struct ctap_out *o, struct spec sp, const char *s)
{
	size_t len = strlen(s);

	if (sp.precision >= 0 && (size_t)sp.precision < len)
		len = sp.precision;
	sp.flags &= ~F_ZERO;
	emit(o, &sp, "", s, len, 0);
}

/* %b: the value as binary, in the machine's byte order; %1b, %2b and %4b
 * narrow it first (as a C cast would), anything else writes all 8 bytes. */
static void format_bin(struct ctap_out *o, struct spec sp, int64_t v)
{
	int8_t b1 = (int8_t)v;
	int16_t b2 = (int16_t)v;
	int32_t b4 = (int32_t)v;

	if (sp.width == 1)
		ctap_out_write(o, (const char *)&b1, 1);
	else if (sp.width == 2)
		ctap_out_write(o, (const char *)&b2, 2);
	else if (sp.width == 4)
		ctap_out_write(o, (const char *)&b4, 4);
	else
		ctap_out_write(o, (const char *)&v, 8);
}

static void format_mem(struct ctap_out *o, struct spec sp, int64_t addr, ctap_read_fn read)
{
	char chunk[64];
	size_t left = sp.precision > 0 ? (size_t)sp.precision : 1;
	size_t room = (o->size - o->len) / (sp.conv == 'm' ? 1 : 2);

	/* Never read more than fits: the precision is the script's (%.*m). */
	if (left > room)
		left = room;

	while (left && read) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

		if (read(chunk, addr, n))
			return;
		if (sp.conv == 'm') {
			ctap_out_write(o, chunk, n);
		} else {
			for (size_t i = 0; i < n; i++) {
				static const char hex[] = "0123456789abcdef";
				char h[2] = { hex[(unsigned char)chunk[i] >> 4], hex[chunk[i] & 15] };

				ctap_out_write(o, h, 2);
			}
		}
		addr += n;
		left -= n;
	}
}

/* Parses a number or '*' (taking an argument); -1 when absent. */
static int parse_count(const char **p, const union ctap_arg *args, int nargs, int *used)
{
	int v = -1;

	if (**p == '*') {
		int64_t n = *used < nargs ? args[(*used)++].n : 0;

		(*p)++;
		/* The script's number: clamped as a written one is, before it
		 * is an int (INT_MIN would overflow when negated for '-'). */
		return n > CTAP_FORMAT_MAX_COUNT ? CTAP_FORMAT_MAX_COUNT :
			n < -CTAP_FORMAT_MAX_COUNT ? -CTAP_FORMAT_MAX_COUNT : (int)n;
	}
	while (**p >= '0' && **p <= '9') {
		v = (v < 0 ? 0 : v) * 10 + (**p - '0');
		if (v > CTAP_FORMAT_MAX_COUNT)
			v = CTAP_FORMAT_MAX_COUNT;	/* nobody pads a megabyte */
		(*p)++;
	}
	return v;
}

int ctap_format(struct ctap_out *o, const char *fmt, const union ctap_arg *args,
		int nargs, ctap_read_fn read)
{
	int used = 0;

	for (const char *p = fmt; *p;) {
		const char *lit = p;
		struct spec sp = { .width = -1, .precision = -1 };

		while (*p && *p != '%')
			p++;
		ctap_out_write(o, lit, p - lit);
		if (!*p)
			break;
		p++;
		if (*p == '%') {
			ctap_out_write(o, "%", 1);
			p++;
			continue;
		}
		for (;; p++) {
			if (*p == '-')
				sp.flags |= F_LEFT;
			else if (*p == '+')
				sp.flags |= F_PLUS;
			else if (*p == ' ')
				sp.flags |= F_SPACE;
			else if (*p == '0')
				sp.flags |= F_ZERO;
			else if (*p == '#')
				sp.flags |= F_ALT;
			else
				break;
		}
		sp.width = parse_count(&p, args, nargs, &used);
		if (sp.width < -1) {		/* "*" with a negative value: C's rule */
			sp.flags |= F_LEFT;
			sp.width = -sp.width;
		}
		if (*p == '.') {
			p++;
			sp.precision = parse_count(&p, args, nargs, &used);
			if (sp.precision < 0)
				sp.precision = 0;
		}
		while (*p == 'l' || *p == 'h' || *p == 'L' || *p == 'j' || *p == 'z')
			p++;
		sp.conv = *p ? *p++ : 0;
		if (!sp.conv)
			break;
		if (used >= nargs && sp.conv != '%')
			break;		/* pass 2 made sure this cannot happen */
		switch (sp.conv) {
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'p':
			format_int(o, sp, args[used++].n);
			break;
		case 'c': {
			char c = (char)args[used++].n, esc[4];

			sp.flags &= ~F_ZERO;
			if (sp.flags & F_ALT)
				emit(o, &sp, "", esc, escape_char(c, esc), 0);
			else
				emit(o, &sp, "", &c, 1, 0);
			break;
		}
		case 's':
			format_str(o, sp, args[used].s ? args[used].s : "");
			used++;
			break;
		case 'b':
			format_bin(o, sp, args[used++].n);
			break;
		case 'm':
		case 'M':
			format_mem(o, sp, args[used++].n, read);
			break;
		default:
			break;
		}
	}
	return used;
}
