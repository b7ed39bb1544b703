/* SPDX-License-Identifier: GPL-2.0 */
/*
 * printf_format.h - the grammar of printf/sprintf formats, SystemTap's:
 *
 *	'%' flag? width? ('.' precision?)? 'l'? conversion
 *
 * with at most one flag of "-+ #0", a width and a precision of digits or
 * '*', and a conversion of "bcsmMdiuoxXp"; "%%" is a '%'.  Pass 1 rejects
 * a format outside it (as SystemTap's parser does), pass 2 types the
 * arguments by its conversions.
 */
#ifndef PRINTF_FORMAT_H
#define PRINTF_FORMAT_H

#include <stdbool.h>

struct printf_conv {
	const char *at;		/* its '%' */
	const char *end;	/* past its last character (when invalid: past the
				 * one not allowed there, or the format's end) */
	bool width_star;	/* '*': the width is an argument */
	bool prec_star;		/* ".*": so is the precision */
	char conv;		/* 's', 'd', ...; 0: a "%l" or "%." that ends the
				 * format, which SystemTap accepts and drops */
};

/*
 * The conversion at or after *p: 1 and *p past it, 0 at the end of the
 * format, -1 with *err (SystemTap's wording) and *p at the '%' of a
 * conversion that is invalid or cut by the end of the format.  The
 * format is a literal as the lexer keeps it, escapes unexpanded.
 */
int printf_next_conv(const char **p, struct printf_conv *c, const char **err);

#endif /* PRINTF_FORMAT_H */
