// SPDX-License-Identifier: GPL-2.0
/*
 * printf_format.c - walks a printf format by SystemTap's grammar
 * (printf_format.h).  SystemTap 4.8 takes one flag only ("%-#x" is
 * invalid), one 'l' ("%lld" is), no 'h', and no floating point; a format
 * ending inside a conversion ("%5", "%-") is "trailing incomplete", but one
 * ending just after its 'l' ("%l") is accepted and prints nothing.
 */
#include <string.h>

#include "printf_format.h"

/* Digits, or a '*' (then *star): a width or a precision; whether any. */
static bool count(const char **s, bool *star)
{
	const char *q = *s;

	if (*q == '*') {
		*star = true;
		*s = q + 1;
		return true;
	}
	*s = q + strspn(q, "0123456789");
	return *s != q;
}

int printf_next_conv(const char **p, struct printf_conv *c, const char **err)
{
	const char *s = *p;
	bool any;		/* a flag, width or precision: not droppable */

	for (;;) {
		s = strchr(s, '%');
		if (!s) {
			*p += strlen(*p);
			return 0;
		}
		if (s[1] != '%')
			break;
		s += 2;
	}
	*c = (struct printf_conv){ .at = s };
	*p = s;
	if (!*++s) {		/* a lone '%' ends the format */
		c->end = s;
		*err = "invalid or missing conversion specifier";
		return -1;
	}
	any = *s && strchr("-+ #0", *s);
	s += any;
	any |= count(&s, &c->width_star);
	if (*s == '.') {
		s++;
		any |= count(&s, &c->prec_star);
	}
	if (*s == 'l')
		s++;
	c->end = *s ? s + 1 : s;
	if (!*s && !any) {	/* "%l", "%.": SystemTap keeps nothing of it */
		*p = s;
		return 1;
	}
	if (!*s) {
		*err = "trailing incomplete print format conversion";
		return -1;
	}
	if (!strchr("bcsmMdiuoxXp", *s)) {
		*err = "invalid or missing conversion specifier";
		return -1;
	}
	c->conv = *s;
	*p = c->end;
	return 1;
}
