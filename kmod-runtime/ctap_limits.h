/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_limits.h - limits the translator and the runtime must agree on.
 *
 * Included by both (translator/sem.h, xlate.h; ctap_runtime.h, map.h,
 * target.h here), so it includes nothing: plain constants only.
 */
#ifndef CTAP_LIMITS_H
#define CTAP_LIMITS_H

/* Keys of an array: arr[k1, ..., k9]. */
#define CTAP_MAX_KEYS	9

/* Arguments a kretprobe saves at entry for its .return handler's $vars. */
#define CTAP_ENTRY_ARGS	6

/* MAXACTION when -D does not set it: the translator leaves out the count
 * in handlers that cannot run out (translator/gen.c, gen_unbudgeted()). */
#define CTAP_MAXACTION_DEFAULT	1000

#endif /* CTAP_LIMITS_H */
