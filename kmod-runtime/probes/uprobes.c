// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes.c - register and run uprobes and uretprobes.
 *
 * A uprobe is an inode and an offset: every process that maps the file,
 * now or later, traps there.  Handlers run in the probed task's context,
 * with its user registers.
 */
#include <linux/fs.h>
#include <linux/namei.h>

#include "uprobes.h"

static int uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ctap_uprobe *u = container_of(uc, struct ctap_uprobe, uc);

	ctap_probe_run(u->probe, regs, NULL, 0);
	return 0;
}

static int uretprobe_hit(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	struct ctap_uprobe *u = container_of(uc, struct ctap_uprobe, uc);

	ctap_probe_run(u->probe, regs, NULL, 0);
	return 0;
}

static int uprobe_register_one(struct ctap_uprobe *u)
{
	struct path path;
	int ret;

	ret = kern_path(u->path, LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	u->inode = igrab(d_inode(path.dentry));
	path_put(&path);
	if (!u->inode)
		return -ENOENT;
	memset(&u->uc, 0, sizeof(u->uc));
	if (u->is_return)
		u->uc.ret_handler = uretprobe_hit;
	else
		u->uc.handler = uprobe_hit;
	ret = uprobe_register(u->inode, u->offset, &u->uc);
	if (ret) {
		iput(u->inode);
		u->inode = NULL;
	}
	return ret;
}

int ctap_uprobes_register(struct ctap_uprobe *ups, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = uprobe_register_one(&ups[i]);
		if (ret) {
			ctap_oob("ERROR: probe %s registration error (rc %d)\n", ups[i].probe->pp, ret);
			ctap_uprobes_unregister(ups, i);
			return ret;
		}
	}
	return 0;
}

void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n)
{
	for (int i = 0; i < n; i++) {
		if (!ups[i].inode)
			continue;
		uprobe_unregister(ups[i].inode, ups[i].offset, &ups[i].uc);
		iput(ups[i].inode);
		ups[i].inode = NULL;
	}
}
