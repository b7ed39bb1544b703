/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_kheaders.h - the kernel headers every unit of a module includes
 * (through ctap_runtime.h).
 *
 * They are most of what compiling a script costs, so stap -p4
 * precompiles them once per kernel
 * (translator/build/kbuild_pch.c): keep here only kernel headers, and
 * nothing that depends on what a script defines.
 */
#ifndef CTAP_KHEADERS_H
#define CTAP_KHEADERS_H

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/percpu.h>
#include <asm/local.h>
#include <linux/delay.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/cred.h>
#include <linux/timekeeping.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/ctype.h>
#include <linux/random.h>
#include <linux/kprobes.h>	/* NOKPROBE_SYMBOL, __kprobes on generated code */
/* What the probe families' headers include, parsed here once rather than
 * in each script's unit (15 ms of its compile on 6.1): scope.h's (every
 * probe's), timers', kprobes', tracepoints' (also syscalls and tasks). */
#include <linux/cgroup.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>
#include <linux/hrtimer.h>
#include <linux/ftrace.h>
#include <linux/tracepoint.h>

#endif /* CTAP_KHEADERS_H */
