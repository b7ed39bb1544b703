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
