/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symoff.h - the address a kprobe was asked for, found from where the
 * kernel placed it.  Portable: the host unit tests run it (test_symoff).
 *
 * On a kernel built with IBT (Debian's 6.12) a function starts with
 * endbr64, and a kprobe asked for at FUNC+0 is placed 4 bytes later: the
 * kernel moves it past the endbr (arch_adjust_kprobe_addr()).  A DWARF
 * statement's PC-relative locations (a static's DW_OP_addr, @var) are
 * distances from FUNC+OFFSET, the address the translator asked for, so
 * they must count from there, not from the moved address.
 */
#ifndef CTAP_SYMOFF_H
#define CTAP_SYMOFF_H

#include "portable.h"

/**
 * ctap_asked_address - FUNC+OFFSET, from the address the kernel probes
 * @probed: the kprobe's address after registration
 * @symoff: the kernel's name of @probed, "FUNC+0xOFF/0xSIZE" with perhaps
 *	" [MOD]" after it (sprint_symbol())
 * @offset: the OFFSET into FUNC that was asked for
 * @asked: where FUNC+OFFSET is
 *
 * Returns 0, or -EINVAL if @symoff has no "+0xOFF/" or OFF is past @probed.
 */
static inline int ctap_asked_address(unsigned long probed, const char *symoff,
				     unsigned long offset, unsigned long *asked)
{
	const char *slash = strchr(symoff, '/'), *p;
	unsigned long off = 0;

	if (!slash)
		return -EINVAL;
	for (p = slash; p > symoff && p[-1] != '+'; p--)
		;
	if (p == symoff || slash - p < 3 || p[0] != '0' || p[1] != 'x')
		return -EINVAL;
	for (p += 2; p < slash; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0 || off >> (8 * sizeof(off) - 4))
			return -EINVAL;
		off = off << 4 | d;
	}
	if (off > probed)
		return -EINVAL;
	*asked = probed - off + offset;
	return 0;
}

#endif /* CTAP_SYMOFF_H */
