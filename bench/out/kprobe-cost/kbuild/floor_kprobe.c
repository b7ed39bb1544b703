// SPDX-License-Identifier: GPL-2.0
/*
 * floor_kprobe.c - the physical floor: a kprobe on __x64_sys_getpid whose
 * handler does nothing.  What any tracer's handler costs beyond this is
 * its own.
 */
#include <linux/module.h>
#include <linux/kprobes.h>

static int floor_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe floor_kp = {
	.symbol_name = "__x64_sys_getpid",
	.pre_handler = floor_pre,
};

static int __init floor_init(void)
{
	return register_kprobe(&floor_kp);
}

static void __exit floor_exit(void)
{
	unregister_kprobe(&floor_kp);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
