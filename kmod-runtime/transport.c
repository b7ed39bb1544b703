// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - the files of a ctap module: /sys/kernel/debug/ctap/<module>/
 * with the relay output (relay.c), and /proc/ctap-<module>/.cmd, the
 * control file (ctl.c), made when the module loads and removed when it goes.
 *
 * What the three files share (the re-entry guards of their locks) is in
 * transport_internal.h; docs/runtime.md and docs/safety.md describe the
 * transport as a whole.
 */
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/module.h>

#include "ctap_msgs.h"
#include "transport_internal.h"

/* staprun -b sets it: one output file per CPU, no ordering lock. */
static bool ctap_bulk;
module_param(ctap_bulk, bool, 0444);
MODULE_PARM_DESC(ctap_bulk, "bulk mode: per-CPU output files (staprun -b)");
static int ctap_buffer_mb;
module_param(ctap_buffer_mb, int, 0444);
MODULE_PARM_DESC(ctap_buffer_mb, "output buffer size in MB, per CPU in bulk mode (staprun -s)");
/* What a setuid staprun looks for before it loads a module for a user. */
MODULE_INFO(ctap_protocol, CTAP_PROTOCOL);

DEFINE_PER_CPU(unsigned int, ctap_transport_held);

static struct {
	struct dentry *top;		/* /sys/kernel/debug/ctap, shared */
	struct dentry *dir;		/* .../ctap/<module> */
} tp;

int ctap_transport_init(const char *name, const struct ctap_transport_ops *ops,
			bool bulk, size_t subbuf_size, size_t n_subbufs)
{
	int ret;

	if (ctap_buffer_mb > 0 && ctap_buffer_mb < 4096)
		n_subbufs = max_t(size_t, 2, ((size_t)ctap_buffer_mb << 20) / subbuf_size);
	ret = ctap_ctl_init(ops);
	if (ret)
		goto out;

	/* The shared parent stays: another ctap module may be using it. */
	tp.top = debugfs_lookup(CTAP_DEBUGFS_DIR, NULL);
	if (!tp.top)
		tp.top = debugfs_create_dir(CTAP_DEBUGFS_DIR, NULL);
	else
		dput(tp.top);
	if (IS_ERR(tp.top)) {
		ret = PTR_ERR(tp.top);
		goto out_ctl;
	}
	tp.dir = debugfs_create_dir(name, tp.top);
	if (IS_ERR(tp.dir)) {
		ret = PTR_ERR(tp.dir);	/* -EEXIST: a stale directory */
		goto out_ctl;
	}
	ret = ctap_relay_open(tp.dir, bulk || ctap_bulk, subbuf_size, n_subbufs);
	if (ret)
		goto out_dir;
	ret = ctap_ctl_create_file(name);
	if (ret)
		goto out_relay;
	return 0;

out_relay:
	ctap_relay_close();
out_dir:
	debugfs_remove(tp.dir);
out_ctl:
	ctap_ctl_free();
out:
	pr_err("%s: transport init failed: %d\n", THIS_MODULE->name, ret);
	return ret;
}

void ctap_transport_exit(void)
{
	ctap_ctl_stop();
	ctap_ctl_remove_file();	/* its release touches the relay's state */
	ctap_relay_close();
	debugfs_remove(tp.dir);
	ctap_ctl_free();	/* after the files: no reader of the ring left */
}
