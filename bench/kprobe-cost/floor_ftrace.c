// SPDX-License-Identifier: GPL-2.0
/*
 * floor_ftrace.c - the floor of the other way into a function's entry: an
 * ftrace_ops filtered to __x64_sys_getpid whose callback does nothing.
 * regs=1 asks ftrace for full registers (FTRACE_OPS_FL_SAVE_REGS, what
 * $vars and backtraces need, and what a kprobe on an ftrace site gets);
 * regs=0 gets the argument registers only.  Beside floor_kprobe, it says
 * what a probe family built on ftrace_ops could save.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static int regs = 1;
module_param(regs, int, 0444);

static void floor_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct ftrace_regs *fregs)
{
}

static struct ftrace_ops floor_ops = {
	.func = floor_func,
};

/* The function's address, as kprobes finds it (kallsyms_lookup_name is
 * not exported; the name ftrace lists for it may be an alias). */
static unsigned long getpid_addr(void)
{
	struct kprobe kp = { .symbol_name = "__x64_sys_getpid" };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static int __init floor_init(void)
{
	unsigned long addr = getpid_addr();
	int ret;

	if (!addr)
		return -ENOENT;
	if (regs)
		floor_ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
	ret = ftrace_set_filter_ip(&floor_ops, addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&floor_ops);
	if (ret)
		ftrace_free_filter(&floor_ops);
	return ret;
}

static void __exit floor_exit(void)
{
	unregister_ftrace_function(&floor_ops);
	ftrace_free_filter(&floor_ops);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
