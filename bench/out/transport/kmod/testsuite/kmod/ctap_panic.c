// SPDX-License-Identifier: GPL-2.0
/*
 * ctap_panic.c - oopses on load.  Only for the harness's own tests: it must
 * report the test that loads this module as failed, by name.
 */
#include <linux/module.h>
#include <linux/kernel.h>

static int __init ctap_panic_init(void)
{
	volatile int *p = NULL;

	pr_emerg("ctap_panic: dereferencing NULL on purpose\n");
	return *p;
}

module_init(ctap_panic_init);
MODULE_LICENSE("GPL");
