// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - the user-space side of kmod-runtime/target.h's functions:
 * a string at an address the handler's process may not have mapped
 * (user_string()), copied by the engine's fault-safe read (patch.h).
 */
#include <target.h>	/* by -I, so that its include_next finds kmod-runtime's */

long ctap_copy_string(char *dst, unsigned long src, size_t size, bool user)
{
	(void)user;	/* one address space: the probed process's */
	return ctapdyn_read_string(dst, (const char *)src, size);
}
