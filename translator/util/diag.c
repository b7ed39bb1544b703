// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - error and warning messages with file:line:column and a caret.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "strset.h"

#define MAX_SHOWN	50	/* errors printed; the rest are only counted */

static int n_errors, n_warnings;
static bool demoted;		/* errors are warnings (a tapset's, say) */
/* The warnings shown, whole: one the code of many probes repeats (an
 * alias body's, a wildcard's handler) is shown once, as SystemTap's. */
static struct strset warned;

/* Where the last shown source line started (see show_source). */
static const struct source *last_src;
static const char *last_p;
static int last_line;

void diag_reset(void)
{
	for (size_t i = 0; i < warned.cap; i++)
		free((char *)warned.slots[i]);
	strset_free(&warned);
	n_errors = n_warnings = 0;
	demoted = false;
	last_src = NULL;
}

bool diag_demote(bool on)
{
	bool was = demoted;

	demoted = on;
	return was;
}

int diag_errors(void)
{
	return n_errors;
}

int diag_warnings(void)
{
	return n_warnings;
}

/* The source line of loc and a caret under its column; tabs kept for alignment. */
static void show_source(FILE *f, const struct loc *loc)
{
	/* From the last shown line on: messages mostly come in source order,
	 * and a scan from the top for each of 20,000 was quadratic. */
	const char *p = loc->src->text, *end = p + loc->src->len, *eol;
	int line = 1;

	if (loc->src == last_src && loc->line >= last_line) {
		p = last_p;
		line = last_line;
	}
	for (; line < loc->line && p < end; p++)
		if (*p == '\n')
			line++;
	last_src = loc->src;
	last_p = p;
	last_line = line;
	eol = memchr(p, '\n', end - p);
	if (!eol)
		eol = end;
	if (eol - p > 200)	/* a 100 MB line is not worth showing whole */
		return;
	fprintf(f, "     source: %.*s\n             ", (int)(eol - p), p);
	for (int i = 0; i < loc->col - 1 && p + i < eol; i++)
		fputc(p[i] == '\t' ? '\t' : ' ', f);
	fputs("^\n", f);
}

static void vreport_to(FILE *f, const char *kind, const struct loc *loc, const char *what,
		       const char *fmt, va_list ap)
{
	fprintf(f, "%s: ", kind);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	if (!loc || !loc->src)
		return;
	fprintf(f, "        at: %s%s%s:%d:%d\n", what ? what : "", what ? " at " : "",
		loc->src->name, loc->line, loc->col);
	show_source(f, loc);
	fputc('\n', f);
}

/* The whole message, malloc'd, its length in *len; NULL (ap untouched)
 * if there is no memory for it. */
static char *report_text(const char *kind, const struct loc *loc, const char *what,
			 const char *fmt, va_list ap, size_t *len)
{
	char *msg = NULL;
	FILE *f = open_memstream(&msg, len);

	if (!f)
		return NULL;
	vreport_to(f, kind, loc, what, fmt, ap);
	fclose(f);
	return msg;
}

/*
 * One message is one write to stderr (unbuffered, it made a system call
 * per caret space): whole even when other processes share the terminal.
 */
static void vreport(const char *kind, const struct loc *loc, const char *what,
		    const char *fmt, va_list ap)
{
	size_t len;
	char *msg = report_text(kind, loc, what, fmt, ap, &len);

	if (!msg) {
		vreport_to(stderr, kind, loc, what, fmt, ap);
		return;
	}
	fwrite(msg, 1, len, stderr);
	free(msg);
}

void diag_verror(const char *pass, const struct loc *loc, const char *what,
		 const char *fmt, va_list ap)
{
	char kind[48];

	if (demoted) {
		n_warnings++;
		snprintf(kind, sizeof(kind), "WARNING: %s error", pass);
		vreport(kind, loc, what, fmt, ap);
		return;
	}
	if (++n_errors > MAX_SHOWN) {
		if (n_errors == MAX_SHOWN + 1)
			fprintf(stderr, "(more than %d errors: the rest are not shown)\n", MAX_SHOWN);
		return;
	}
	snprintf(kind, sizeof(kind), "%s error", pass);
	vreport(kind, loc, what, fmt, ap);
}

void diag_error(const char *pass, const struct loc *loc, const char *what,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_verror(pass, loc, what, fmt, ap);
	va_end(ap);
}

void diag_warning(const struct loc *loc, const char *fmt, ...)
{
	size_t len;
	char *msg;
	va_list ap;

	n_warnings++;
	va_start(ap, fmt);
	msg = report_text("WARNING", loc, NULL, fmt, ap, &len);
	if (!msg)
		vreport_to(stderr, "WARNING", loc, NULL, fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	if (!strset_add(&warned, msg)) {
		free(msg);
		return;
	}
	fwrite(msg, 1, len, stderr);
}
