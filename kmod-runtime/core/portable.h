/* SPDX-License-Identifier: GPL-2.0 */
/*
 * portable.h - the little the runtime core needs, in the kernel or in libc.
 *
 * The core (outbuf.c, stat.c, format.c, map.c, regex_match.c) includes only
 * this header, so the very same files build into a module and into host
 * unit tests run under ASan and UBSan (testsuite/unit/).
 */
#ifndef CTAP_PORTABLE_H
#define CTAP_PORTABLE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/errno.h>

#ifndef INT64_MIN
#define INT64_MIN	S64_MIN
#define INT64_MAX	S64_MAX
#endif

/* C's division: truncates toward zero; b != 0. */
static inline int64_t ctap_div64(int64_t a, int64_t b)
{
	return div64_s64(a, b);
}

static inline uint64_t ctap_udiv64(uint64_t a, uint64_t b)
{
	return div64_u64(a, b);
}

#include <asm/word-at-a-time.h>

/*
 * The 8 bytes of memory at p, for a string that ends (NUL) somewhere in
 * them or after: bytes past the string's end may be anything, and are 0
 * past the end of mapped memory (the dcache hashes names this way).
 */
static inline uint64_t ctap_load_word(const char *p)
{
	return load_unaligned_zeropad(p);
}
#else
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline int64_t ctap_div64(int64_t a, int64_t b)
{
	return a / b;
}

static inline uint64_t ctap_udiv64(uint64_t a, uint64_t b)
{
	return a / b;
}

/* As the kernel's, but never reading past the NUL (for ASan). */
static inline uint64_t ctap_load_word(const char *p)
{
	uint64_t w = 0;

	for (int i = 0; i < 8 && p[i]; i++)
		w |= (uint64_t)(unsigned char)p[i] << (8 * i);
	return w;
}
#endif

#endif /* CTAP_PORTABLE_H */
