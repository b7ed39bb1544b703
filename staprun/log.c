// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - what staprun tells the user: -v's debug lines and its errors,
 * both on stderr (stdout is the script's output).
 */
#include <stdarg.h>
#include <stdio.h>

#include "staprun.h"

int verbose;

void dbug(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("staprun: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void errmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ERROR: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
