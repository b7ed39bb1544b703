// SPDX-License-Identifier: GPL-2.0
/*
 * ctap_smoke.c - hand-written stand-in for a generated ctap module.
 *
 * It proves the guest harness, staprun and the transport before the
 * translator exists.  It behaves like the script
 *
 *	global hits
 *	probe begin { printf("smoke: begin, %s\n", target() ? "with a target" : "no target") }
 *	probe kprobe.function("__x64_sys_getpid") { if (pid() == target()) hits++ }
 *	probe end { printf("smoke: getpid hits=%d\n", hits) }
 *
 * With exit_after=N the module calls exit() itself after N target hits;
 * with print_each=1 it prints a line on every target hit (an output flood,
 * with subbufs=N small relay buffers to fill).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/atomic.h>

#include "transport.h"

static char *symbol = "__x64_sys_getpid";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "function to probe");
static int exit_after;
module_param(exit_after, int, 0444);
MODULE_PARM_DESC(exit_after, "request exit after this many target hits (0: never)");

static int print_each;
module_param(print_each, int, 0444);
MODULE_PARM_DESC(print_each, "print a line on every target hit");
static int subbufs = 8;
module_param(subbufs, int, 0444);
MODULE_PARM_DESC(subbufs, "relay sub-buffers (of 64 KiB)");

static s32 target_pid;
static atomic_t hits;

static int smoke_pre(struct kprobe *p, struct pt_regs *regs)
{
	int n;

	if (task_tgid_nr(current) != target_pid)
		return 0;
	n = atomic_inc_return(&hits);
	if (print_each)
		ctap_print("smoke: hit %d from pid %d\n", n, task_tgid_nr(current));
	if (exit_after && n == exit_after) {
		ctap_print("smoke: exit after %d hits\n", n);
		ctap_request_exit();
	}
	return 0;
}

static struct kprobe smoke_kp = { .pre_handler = smoke_pre };

static int smoke_start(s32 target, s32 ns_pid)
{
	int ret;

	target_pid = target;
	smoke_kp.symbol_name = symbol;
	ret = register_kprobe(&smoke_kp);
	if (ret) {
		ctap_oob("ERROR: kprobe.function(\"%s\") failed to register: %d\n",
			 symbol, ret);
		return ret;
	}
	ctap_print("smoke: begin, %s\n", target ? "with a target" : "no target");
	return 0;
}

static void smoke_stop(void)
{
	unregister_kprobe(&smoke_kp);
	ctap_print("smoke: %s hits=%d\n", symbol, atomic_read(&hits));
}

static const struct ctap_transport_ops smoke_ops = {
	.start = smoke_start,
	.stop = smoke_stop,
};

static int __init smoke_init(void)
{
	return ctap_transport_init(KBUILD_MODNAME, &smoke_ops, false, 65536, subbufs);
}

static void __exit smoke_exit(void)
{
	ctap_transport_exit();
}

module_init(smoke_init);
module_exit(smoke_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ctap smoke module: kprobe + relay through the ctap transport");
