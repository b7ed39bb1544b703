/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.h - SystemTap's printf, on 64-bit integers and strings.
 *
 * Conversions: %d %i (signed), %u %x %X %o (unsigned 64-bit), %p
 * ("0x" and hex), %c, %s, %b (the value's bytes, binary: %1b..%8b pick the
 * width), %m and %M (bytes of memory at an address, raw or as hex; the
 * precision is the length), %%.  Flags - + space 0 #, width and precision,
 * either may be '*'.  pass 2 checked the format against the arguments, so
 * args[i] is a number or a string exactly where the format says.
 */
#ifndef CTAP_FORMAT_H
#define CTAP_FORMAT_H

#include "outbuf.h"

union ctap_arg {
	int64_t n;
	const char *s;
};

/* Reads len bytes at addr for %m/%M; 0, or -EFAULT to print nothing more. */
typedef int (*ctap_read_fn)(void *dst, int64_t addr, size_t len);

/* Returns the number of arguments used. */
int ctap_format(struct ctap_out *o, const char *fmt, const union ctap_arg *args,
		int nargs, ctap_read_fn read);

#endif /* CTAP_FORMAT_H */
