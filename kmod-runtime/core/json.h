/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - stap --json: the script's output as one JSON object per line.
 *
 * The schema is in docs/json.md.  What a statement prints becomes one
 * {"type":"printf","data":"..."} object: the text is written as usual
 * and escaped in place when the statement ends (ctap_json_end() in
 * ctap_runtime.h).  Values (histograms, the globals printed at the end)
 * are written as JSON directly.
 */
#ifndef CTAP_JSON_H
#define CTAP_JSON_H

#include "outbuf.h"
#include "stat.h"

/* s[0..n) as a JSON string, quotes included. */
void ctap_json_string(struct ctap_out *o, const char *s, size_t n);

/*
 * Escape o->buf[start..len) in place, leaving reserve bytes free after
 * it.  Text that would not fit escaped is cut at a character's end and
 * the output marked truncated.  Valid UTF-8 is kept as it is; a byte
 * that is not part of any is written as \u00XX.
 */
void ctap_json_escape_tail(struct ctap_out *o, size_t start, size_t reserve);

/* {"count":N,"min":N,"max":N,"sum":N,"avg":N}, or {"count":0}. */
void ctap_json_stat(struct ctap_out *o, const struct ctap_stat *agg);

/* A whole {"type":"hist",...} line for print(@hist_log(name)) and
 * print(@hist_linear(name, ...)): the non-empty buckets only. */
void ctap_json_hist(struct ctap_out *o, const char *name, const struct ctap_stat_spec *spec,
		    const struct ctap_stat *agg);

#endif /* CTAP_JSON_H */
