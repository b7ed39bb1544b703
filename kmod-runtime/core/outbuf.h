/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outbuf.h - bounded text output: what printf and histograms write into.
 *
 * Writes past the end are dropped and remembered (truncated), never
 * overflow: in a probe handler the buffer is a fixed per-CPU area.
 */
#ifndef CTAP_OUTBUF_H
#define CTAP_OUTBUF_H

#include "portable.h"

struct ctap_out {
	char *buf;
	size_t size;		/* capacity */
	size_t len;		/* bytes written */
	bool truncated;
};

static inline void ctap_out_init(struct ctap_out *o, char *buf, size_t size)
{
	o->buf = buf;
	o->size = size;
	o->len = 0;
	o->truncated = false;
}

void ctap_out_write(struct ctap_out *o, const char *s, size_t n);
void ctap_out_fill(struct ctap_out *o, char c, size_t n);
void ctap_out_dec(struct ctap_out *o, int64_t v);
/* A string as printf's %s writes it (NULL as the empty string). */
void ctap_out_str(struct ctap_out *o, const char *s);

#endif /* CTAP_OUTBUF_H */
