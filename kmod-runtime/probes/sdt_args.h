/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdt_args.h - reading a probe's arguments as the translator located
 * them (a marker's note, a function's DWARF): a register, a constant or
 * memory.  One copy for both runtimes: kmod-runtime/probes/uprobes.c and
 * dyn-runtime/uprobes.c, each with its own copy_from_user_nofault() (the
 * kernel's; the engine's fault-safe read in the probed process) and
 * struct pt_regs (the same layout in both).
 */
#ifndef CTAP_SDT_ARGS_H
#define CTAP_SDT_ARGS_H

/* After the runtime's probes/uprobes.h: struct ctap_sdt_arg. */

static u64 sdt_reg(struct pt_regs *regs, s16 offset)
{
	return offset < 0 ? 0 : *(unsigned long *)((char *)regs + offset);
}

/* v cut to its low size bytes, extended by its sign if is_signed. */
static u64 sdt_extend(u64 v, unsigned int size, bool is_signed)
{
	unsigned int bits = 64 - 8 * size;

	if (size >= 8)
		return v;
	return is_signed ? (u64)((s64)(v << bits) >> bits) : (v << bits) >> bits;
}

/*
 * One marker argument.  Memory is read at the argument's size and sign;
 * a register as SystemTap 4.8 reads it, whose results scripts compare
 * against: cut to the argument's size, then to the width of the
 * register named, extended by the sign only from 2 or 4 bytes (a
 * "-1@%dl" of -1 is 255).  The handler runs in the task that hit the
 * marker, so its memory is the current user memory; a read that would
 * fault fails instead.
 */
static __always_inline int sdt_arg_read(const struct ctap_sdt_arg *a, struct pt_regs *regs,
					u64 *out)
{
	unsigned long addr;
	u64 v = 0;

	switch (a->kind) {
	case CTAP_SDT_REG:
		v = sdt_extend(sdt_reg(regs, a->base) >> a->shift, a->size, a->is_signed);
		if (a->reg_width < 8)
			v = sdt_extend(v, a->reg_width, a->is_signed && a->reg_width > 1);
		break;
	case CTAP_SDT_IMM:
		v = a->disp;
		break;
	case CTAP_SDT_MEM:
	case CTAP_SDT_RIP:
		if (a->kind == CTAP_SDT_RIP)
			addr = instruction_pointer(regs) + a->disp;
		else
			addr = sdt_reg(regs, a->base) + sdt_reg(regs, a->index) * a->scale + a->disp;
		/* little-endian: the low bytes of v */
		if (copy_from_user_nofault(&v, (const void __user *)addr, a->size))
			return -EFAULT;
		v = sdt_extend(v, a->size, a->is_signed);
		break;
	}
	*out = v;
	return 0;
}

#endif /* CTAP_SDT_ARGS_H */
