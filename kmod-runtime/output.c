// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - a context's output: the per-CPU print buffer handed to the
 * transport in one write, and stap --json's framing of it; a handler's
 * soft error; the line of a family's refused registration.  Compiled in
 * both runtimes.
 *
 * The one unit both the session (a handler's output when it ends, an
 * error's) and print.c (a printf that would not fit) call down into, so
 * that neither calls the other: the framing must know when the buffer is
 * flushed, and the flush must close an open JSON statement.
 */
#include "ctap_runtime.h"

/* Each context's output is its printbuf from load on; a flush empties it. */
void ctap_flush(struct ctap_context *c)
{
	if (!c->out.len && !c->out.truncated)
		return;
	if (c->out.len)
		ctap_write(c->out.buf, c->out.len);
	if (unlikely(c->out.truncated))
		ctap_write_cut();
	c->out.len = 0;
	c->out.truncated = false;
}

/*
 * What a handler printed, to the transport; under --json a statement an
 * error ended is closed first (it always wrote something, so this runs).
 */
noinline void ctap_handler_output(struct ctap_context *c)
{
	if (c->json_depth)
		ctap_json_abandon(c);
	ctap_flush(c);
}

/* A handler's error, as its message; the caller says where. */
__printf(2, 3) void ctap_soft_error(struct ctap_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
	c->last_stmt = NULL;
}

/* ctap_runtime.h has its contract; the families' one line, both runtimes'. */
void ctap_probe_refused(const struct ctap_probe *p, bool optional, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ctap_oob("%s: probe %s registration error %s\n", optional ? "WARNING" : "ERROR",
		 p->pp, why);
}

/* ---- stap --json: a statement's text as one JSON line ---- */

static const char json_open[] = "{\"type\":\"printf\",\"data\":\"";
static const char json_close[] = "\"}\n";

static void json_text_open(struct ctap_context *c)
{
	if (c->out.len > CTAP_PRINTBUF / 2)
		ctap_flush(c);
	ctap_out_write(&c->out, json_open, sizeof(json_open) - 1);
	c->json_start = c->out.len;
}

static void json_text_close(struct ctap_context *c)
{
	if (c->out.len == c->json_start) {	/* nothing printed: no line */
		c->out.len -= sizeof(json_open) - 1;
		return;
	}
	ctap_json_escape_tail(&c->out, c->json_start, sizeof(json_close) - 1);
	ctap_out_write(&c->out, json_close, sizeof(json_close) - 1);
}

void ctap_json_begin(struct ctap_context *c)
{
	if (!c->json_depth)
		json_text_open(c);
	c->json_depth++;
}

void ctap_json_end(struct ctap_context *c)
{
	if (c->json_depth && !--c->json_depth)
		json_text_close(c);
}

void ctap_json_abandon(struct ctap_context *c)
{
	c->json_depth = 0;
	json_text_close(c);
}

void ctap_json_unwind(struct ctap_context *c, int depth)
{
	if (c->json_depth > depth) {
		c->json_depth = depth + 1;
		ctap_json_end(c);
	}
}

void ctap_json_hist_print(struct ctap_context *c, const char *name,
			  const struct ctap_stat_spec *spec, const struct ctap_stat *agg)
{
	if (c->json_depth)
		json_text_close(c);
	ctap_json_hist(ctap_out(c), name, spec, agg);
	if (c->json_depth)
		json_text_open(c);
}
