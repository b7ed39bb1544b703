/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdt_args.h - reading a probe's arguments as the translator located
 * them (a marker's note, a function's DWARF): a register, a constant or
 * memory, and a .return probe's reads at its entry and its return.  One
 * copy for both runtimes: kmod-runtime/probes/uprobes.c and
 * dyn-runtime/uprobes.c, each with its own copy_from_user_nofault() (the
 * kernel's; the engine's fault-safe read in the probed process) and
 * struct pt_regs (the same layout in both).
 */
#ifndef CTAP_SDT_ARGS_H
#define CTAP_SDT_ARGS_H

/* After the runtime's probes/uprobes.h: the table (uprobe_table.h). */

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

/* Arguments from to to of sdt, read at regs into args; false on a fault. */
static bool sdt_read_range(const struct ctap_sdt *sdt, int from, int to, struct pt_regs *regs,
			   unsigned long *args)
{
	for (int i = from; sdt && i < to && i < sdt->nargs && i < CTAP_SDT_MAX_ARGS; i++)
		if (sdt_arg_read(&sdt->args[i], regs, (u64 *)&args[i]))
			return false;
	return true;
}

/*
 * A .return probe's entry part.  Each runtime keeps a call's args (zeroed
 * CTAP_SDT_ARGS slots, then the @entry values) from the entry to the
 * return in its own way, a slot of a shared table (the kernel) or a
 * thread's stack of frames (user space); what is read into them is this.
 */

/* A .return probe that needs its call's entry: parameters, @entry, or
 * where its file was loaded (@var in a PIE). */
static bool uentry_needed(const struct ctap_uprobe *u)
{
	return u->is_return && (u->entry_probe || (u->sdt && u->sdt->nentry) || u->bias_at_entry);
}

/* At the entry, into args (size bytes): the parameters, the marker's
 * names, the load bias of the file, then the @entry values.  false: a
 * read faulted, nothing ran (a skipped hit; the caller frees args). */
static bool uentry_fill(const struct ctap_uprobe *u, struct pt_regs *regs, unsigned long bias,
			unsigned long *args, size_t size)
{
	const struct ctap_sdt *sdt = u->sdt;

	memset(args, 0, size);
	if (!sdt_read_range(sdt, 0, sdt ? sdt->nentry : 0, regs, args)) {
		ctap_add_skipped(1);
		return false;
	}
	if (sdt) {
		args[CTAP_SDT_MAX_ARGS] = (unsigned long)sdt->name;
		args[CTAP_SDT_MAX_ARGS + 1] = (unsigned long)sdt->provider;
	}
	args[CTAP_SDT_BIAS_ARG] = bias;
	if (u->entry_probe)
		ctap_probe_run(u->entry_probe, regs, args, CTAP_SDT_ARGS);
	return true;
}

/* At the return: the other arguments ($return), then the probe; a read
 * that faults is a skipped hit. */
static void uentry_return_run(const struct ctap_uprobe *u, struct pt_regs *regs,
			      unsigned long *args)
{
	const struct ctap_sdt *sdt = u->sdt;

	if (sdt_read_range(sdt, sdt ? sdt->nentry : 0, sdt ? sdt->nargs : 0, regs, args))
		ctap_probe_run(u->probe, regs, args, CTAP_SDT_ARGS);
	else
		ctap_add_skipped(1);
}

#endif /* CTAP_SDT_ARGS_H */
