// SPDX-License-Identifier: GPL-2.0
/*
 * floor_ftrace.c - the floor of the other way into a function's entry: an
 * ftrace_ops filtered to __x64_sys_getpid whose callback does nothing.
 * regs=1 asks ftrace for full registers (FTRACE_OPS_FL_SAVE_REGS, what
 * $vars and backtraces need, and what a kprobe on an ftrace site gets);
 * regs=0 gets the argument registers only.  Beside floor_kprobe, it says
 * what a probe family built on ftrace_ops could save.
 * FLOOR_FTRACE_PT_REGS (from Kbuild, by the kernel's ftrace.h): the
 * callback gets a struct pt_regs, the kernel having no struct
 * ftrace_regs yet (5.10).
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static int regs = 1;
module_param(regs, int, 0444);

#ifdef FLOOR_FTRACE_PT_REGS
#define floor_regs pt_regs
#else
#define floor_regs ftrace_regs
#endif

static void floor_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct floor_regs *fregs)
{
}

static struct ftrace_ops floor_ops = {
	.func = floor_func,
};
static unsigned long floor_ip;

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
	int ret;

	floor_ip = getpid_addr();
	if (!floor_ip)
		return -ENOENT;
	if (regs)
		floor_ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
	ret = ftrace_set_filter_ip(&floor_ops, floor_ip, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&floor_ops);
	if (ret)
		ftrace_set_filter_ip(&floor_ops, floor_ip, 1, 0);
	return ret;
}

static void __exit floor_exit(void)
{
	unregister_ftrace_function(&floor_ops);
	/* The filter's one entry, removed (5.10 does not export ftrace_free_filter). */
	ftrace_set_filter_ip(&floor_ops, floor_ip, 1, 0);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
