// SPDX-License-Identifier: GPL-2.0
/*
 * floor_uprobe.c - the physical floor for uprobes: a uprobe whose handler
 * does nothing, at file offset `offset` of the binary `path` (module
 * parameters; bench/kprobe-cost.sh computes the offset of bench_target).
 * FLOOR_UPROBE_HANDLE (from Kbuild, by the kernel's uprobes.h): the
 * kernel's uprobe_register() returns a handle that unregistering takes
 * (6.12), not an int that names nothing (6.1, 5.10).
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>

static char *path = "/ctap/bin/ufunc_loop";
module_param(path, charp, 0444);
static unsigned long offset;
module_param(offset, ulong, 0444);

static struct inode *inode;
#ifdef FLOOR_UPROBE_HANDLE
static struct uprobe *uprobe;
#endif

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
#ifdef FLOOR_UPROBE_HANDLE
	uprobe = uprobe_register(inode, offset, 0, &floor_uc);
	err = IS_ERR(uprobe) ? PTR_ERR(uprobe) : 0;
#else
	err = uprobe_register(inode, offset, &floor_uc);
#endif
	if (err)
		iput(inode);
	return err;
}

static void __exit floor_exit(void)
{
#ifdef FLOOR_UPROBE_HANDLE
	uprobe_unregister_nosync(uprobe, &floor_uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(inode, offset, &floor_uc);
#endif
	iput(inode);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
