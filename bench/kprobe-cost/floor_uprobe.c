// SPDX-License-Identifier: GPL-2.0
/*
 * floor_uprobe.c - the physical floor for uprobes: a uprobe whose handler
 * does nothing, at file offset `offset` of the binary `path` (module
 * parameters; bench/kprobe-cost.sh computes the offset of bench_target).
 */
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>

static char *path = "/ctap/bin/ufunc_loop";
module_param(path, charp, 0444);
static unsigned long offset;
module_param(offset, ulong, 0444);

static struct inode *inode;

static int floor_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	return 0;
}

static struct uprobe_consumer floor_uc = {
	.handler = floor_handler,
};

static int __init floor_init(void)
{
	struct path p;
	int err;

	err = kern_path(path, LOOKUP_FOLLOW, &p);
	if (err)
		return err;
	inode = igrab(d_inode(p.dentry));
	path_put(&p);
	err = uprobe_register(inode, offset, &floor_uc);
	if (err)
		iput(inode);
	return err;
}

static void __exit floor_exit(void)
{
	uprobe_unregister(inode, offset, &floor_uc);
	iput(inode);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
