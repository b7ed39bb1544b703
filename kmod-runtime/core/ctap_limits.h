/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_limits.h - limits the translator and the runtime must agree on.
 *
 * Included by both (translator/sem/sem.h, xlate.h; ctap_runtime.h, map.h,
 * target.h here), so it includes nothing: plain constants only.
 */
#ifndef CTAP_LIMITS_H
#define CTAP_LIMITS_H

/* Keys of an array: arr[k1, ..., k9]. */
#define CTAP_MAX_KEYS	9

/* Arguments a kretprobe saves at entry for its .return handler's $vars. */
#define CTAP_ENTRY_ARGS	6

/* MAXACTION when -D does not set it: the translator leaves out the count
 * in handlers that cannot run out (translator/gen/gen.c, gen_unbudgeted()). */
#define CTAP_MAXACTION_DEFAULT	1000

/* MAXSTRINGLEN and MAXMAPENTRIES when -D does not set them. */
#define CTAP_MAXSTRINGLEN_DEFAULT	512
#define CTAP_MAXMAPENTRIES_DEFAULT	2048

/*
 * The most entries an array may have ("global a[N]", -D MAXMAPENTRIES):
 * a map is allocated whole when the module loads, and its foreach and
 * delete run with interrupts off.  Pass 2 refuses more, pass 4 too.
 */
#define CTAP_MAP_MAX_ENTRIES	(1 << 20)
/* ... and the most bytes all of a script's arrays may take (pass 2; the
 * module checks what it needs against the memory available when it
 * loads, session.c). */
#define CTAP_MAPS_MAX_BYTES	(1ull << 30)

#endif /* CTAP_LIMITS_H */
