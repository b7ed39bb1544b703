// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - strings of kernel and user memory, read without faulting.
 *
 * The kernel's strncpy_from_{kernel,user}_nofault() are not exported to
 * modules; copy_from_{kernel,user}_nofault() are.  A copy never crosses a
 * page boundary in one call, so a string that ends just before an
 * unmapped page is read whole.
 */
#include "target.h"

long ctap_copy_string(char *dst, unsigned long src, size_t size, bool user)
{
	size_t n = 0;

	while (n < size - 1) {
		unsigned long at = src + n;
		size_t chunk = min_t(size_t, size - 1 - n, PAGE_SIZE - offset_in_page(at));
		long fault = user ? copy_from_user_nofault(dst + n, (const void __user *)at, chunk) :
				    copy_from_kernel_nofault(dst + n, (const void *)at, chunk);
		char *nul;

		if (fault) {
			dst[n] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + n, '\0', chunk);
		if (nul)
			return nul - dst;
		n += chunk;
	}
	dst[n] = '\0';
	return n;
}
