/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - $vars of the user-space runtime: kmod-runtime/target.h
 * itself (include_next: dyn-runtime/ comes first on the -I path), over
 * the few kernel primitives it names, given here in user space.  A
 * handler runs in the probed process, so its "user memory" is the
 * process's own: reads of $p->f go through the engine's fault-safe copy
 * (patch.h), and a bad pointer is the handler's soft error, never a
 * crash of the target.
 */
#ifndef CTAP_DYN_TARGET_H
#define CTAP_DYN_TARGET_H

#include "ctap_runtime.h"
#include "patch.h"

/* Argument n of the probed function at its entry (int_arg(), ctap_arg()
 * with no table): target.h's ctap_user_arg(), which it defines later. */
static inline unsigned long ctap_dyn_reg_arg(struct pt_regs *regs, unsigned int n);
#define regs_get_kernel_argument(regs, n)	ctap_dyn_reg_arg((regs), (n))
#define copy_from_user_nofault(dst, src, n)	ctapdyn_read((dst), (const void *)(src), (n))

/* ctap_kwrite() (guru mode) compiles, and every write is a write fault:
 * there is no kernel memory here. */
#define TASK_SIZE_MAX				(~0UL)
#define pagefault_disable()			do { } while (0)
#define pagefault_enable()			do { } while (0)
#define __put_kernel_nofault(dst, src, type, label)	do { } while (0)

#include_next "target.h"

static inline unsigned long ctap_dyn_reg_arg(struct pt_regs *regs, unsigned int n)
{
	return ctap_user_arg(regs, n);
}

#endif /* CTAP_DYN_TARGET_H */
