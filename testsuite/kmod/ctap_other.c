// SPDX-License-Identifier: GPL-2.0
/*
 * ctap_other.c - a module that is not a ctap session: it links no ctap
 * transport and so carries no ctap modinfo tag and makes no control file.
 * The privilege tests (guest/staprun-setuid-*, staprun-foreign) check that
 * staprun refuses to load it for a user, and to stop, attach to or unload
 * it for anyone, as it would a driver of the system's.
 */
#include <linux/module.h>
#include <linux/kernel.h>

static int __init ctap_other_init(void)
{
	pr_info("ctap_other: loaded\n");
	return 0;
}

static void __exit ctap_other_exit(void)
{
}

module_init(ctap_other_init);
module_exit(ctap_other_exit);
MODULE_LICENSE("GPL");
