// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - printf and sprintf of generated code, on the format engine.
 */
#include "ctap_runtime.h"

/* %m / %M read kernel memory; a bad address prints nothing more. */
static int read_kernel(void *dst, int64_t addr, size_t len)
{
	return copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr, len) ? -EFAULT : 0;
}

void ctap_printf(struct ctap_context *c, const char *fmt, const union ctap_arg *args, int n)
{
	ctap_format(ctap_out(c), fmt, args, n, read_kernel);
}

char *ctap_sprintf(char *dst, const char *fmt, const union ctap_arg *args, int n)
{
	struct ctap_out o;

	ctap_out_init(&o, dst, MAXSTRINGLEN - 1);
	ctap_format(&o, fmt, args, n, read_kernel);
	dst[o.len] = '\0';
	return dst;
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
