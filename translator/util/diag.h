/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diag.h - source files, locations and error messages.
 *
 * Messages follow SystemTap's layout, so that people and tools used to it
 * can read them:
 *
 *	parse error: expected ';'
 *	        at: identifier 'foo' at x.stp:2:3
 *	     source:     foo bar
 *	                 ^
 */
#ifndef DIAG_H
#define DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct source {
	const char *name;	/* file name as given, or "<input>" for -e */
	const char *text;	/* whole contents, NUL-terminated */
	size_t len;
};

struct loc {
	const struct source *src;
	int line, col;		/* 1-based; col counts bytes */
};

/*
 * Report an error of a pass ("parse", "semantic", ...) at loc.  what names
 * the offending token ("identifier 'foo'"), or is NULL.
 */
void diag_error(const char *pass, const struct loc *loc, const char *what,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same for a pass's own printf-like error function. */
void diag_verror(const char *pass, const struct loc *loc, const char *what,
		 const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
void diag_warning(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Errors and warnings reported so far, of any pass. */
int diag_errors(void);
/* Forget every count and source: a new translation in the same process
 * (the pass-2 fuzz target); sources shown so far must not be used again. */
void diag_reset(void);
/* From now on (on) errors are reported and counted as warnings, until
 * called again; returns the previous setting.  Tapsets that do not parse
 * are warned about, as in SystemTap (an error with -W). */
bool diag_demote(bool on);
int diag_warnings(void);

#endif /* DIAG_H */
