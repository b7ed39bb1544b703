/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe_table.h - the table of process("PATH") probes that the generated
 * module declares, and the run of a hit, written once for both runtimes:
 * included by kmod-runtime/probes/uprobes.h (uprobes in the kernel) and
 * dyn-runtime/probes/uprobes.h (the engine in the target process), each
 * after it defined struct ctap_uprobe_rt, what its arming keeps of an
 * entry, as the kernel's struct uprobe embeds its struct arch_uprobe.
 */
#ifndef CTAP_UPROBE_TABLE_H
#define CTAP_UPROBE_TABLE_H

/* Where a <sys/sdt.h> marker's argument is (the translator read the
 * marker's note): a register, a constant, memory at base + index *
 * scale + disp, or at disp from the marker (a global, symbol(%rip)). */
enum ctap_sdt_kind { CTAP_SDT_REG, CTAP_SDT_IMM, CTAP_SDT_MEM, CTAP_SDT_RIP };

struct ctap_sdt_arg {
	enum ctap_sdt_kind kind;
	u8 size;			/* 1, 2, 4, 8 */
	bool is_signed;
	u8 shift;			/* of a register's value (%ah: 8) */
	u8 reg_width;			/* bytes the register's name covers (%dl: 1) */
	u8 scale;
	s16 base;			/* offset in struct pt_regs, -1: none */
	s16 index;
	s64 disp;
};

#define CTAP_SDT_MAX_ARGS	12
/* The probe's arguments: the marker's, then its name and provider, then
 * the load bias of the probe's file (ctap_uprobe.vaddr). */
#define CTAP_SDT_BIAS_ARG	(CTAP_SDT_MAX_ARGS + 2)
#define CTAP_SDT_ARGS		(CTAP_SDT_MAX_ARGS + 3)

struct ctap_sdt {
	const char *provider;
	const char *name;
	const struct ctap_sdt_arg *args;
	int nargs;
	int nentry;			/* of a .return probe: the first nentry
					   (parameters) are read at the entry */
};

struct ctap_uprobe {
	const struct ctap_probe *probe;
	const char *path;
	loff_t offset;
	/* Its link-time address: at the hit, ip - vaddr is where the file
	 * is loaded (argument CTAP_SDT_BIAS_ARG), for @var in a PIE. */
	unsigned long vaddr;
	/* The arguments read at the hit: a marker's, or a function's
	 * variables from DWARF; NULL: none (int_arg() reads registers). */
	const struct ctap_sdt *sdt;
	loff_t ref_ctr_offset;		/* its semaphore in the file, 0: none */
	pid_t pid;			/* process(PID): that process's hits only */
	/* process(PID).statement(ADDR).absolute: path and offset are those
	 * of the file process pid maps at abs_addr when the probe is armed */
	unsigned long abs_addr;
	bool is_return;
	bool bias_at_entry;		/* a .return's load bias, taken at the entry */
	/* A .return probe's @entry values: computed by entry_probe when the
	 * function is entered, kept until that call returns (uprobes.c). */
	const struct ctap_probe *entry_probe;
	size_t saved_size;
	/* Unoptimized code: that entry part (parameters, @entry) runs after
	 * the prologue, which stored the parameters, as a uprobe of its own
	 * at entry_offset (0: none, it runs at offset); the stack pointer at
	 * the entry, which keys the call, is the CFA there less the return
	 * address: the register at entry_cfa_reg in pt_regs, plus
	 * entry_cfa_off, minus 8. */
	loff_t entry_offset;
	s16 entry_cfa_reg;
	s32 entry_cfa_off;
	/* The translator's own entry handler, which reads the variables
	 * straight from the registers (ctap_uprobe_run()), or NULL: the
	 * table of sdt is read (uprobes.c). */
	int (*handler)(struct uprobe_consumer *uc, struct pt_regs *regs);
	/* The function around the probe (link-time address and size, from
	 * the symbol table), for --runtime=dyninst only: the engine's jump
	 * needs its bounds; 0: none known (a breakpoint, unless the dynamic
	 * symbols have it). */
	unsigned long func_vaddr;
	unsigned long func_size;
	struct ctap_uprobe_rt rt;	/* the runtime's, while armed */
};

/*
 * ctap_uprobe_run - run u's probe on the arguments read at the hit
 * @u: the uprobe that hit
 * @regs: the task's user registers
 * @args: CTAP_SDT_ARGS slots, the first u->sdt->nargs read
 *
 * Fills in the marker's names and the load bias of the file, then runs
 * the handler.
 */
static __always_inline void ctap_uprobe_run(const struct ctap_uprobe *u, struct pt_regs *regs,
					    unsigned long *args)
{
	args[CTAP_SDT_MAX_ARGS] = (unsigned long)u->sdt->name;
	args[CTAP_SDT_MAX_ARGS + 1] = (unsigned long)u->sdt->provider;
	args[CTAP_SDT_BIAS_ARG] = instruction_pointer(regs) - u->vaddr;
	ctap_probe_run(u->probe, regs, args, CTAP_SDT_ARGS);
}

/* ctap_uprobe_run() of a probe with no $$name or $$provider to read (all
 * but a .mark): their two slots are left as they are. */
static __always_inline void ctap_uprobe_run_unnamed(const struct ctap_uprobe *u,
						    struct pt_regs *regs, unsigned long *args)
{
	args[CTAP_SDT_BIAS_ARG] = instruction_pointer(regs) - u->vaddr;
	ctap_probe_run(u->probe, regs, args, CTAP_SDT_ARGS);
}

/**
 * ctap_uprobes_register - register a table of uprobes
 * @ups: the table
 * @n: its length
 *
 * Process context.  Returns 0, or the first failure's -errno after
 * unregistering the others and sending an error that names the probe
 * point (a missing file, say).  In stapdyn it checks each file is there,
 * nothing more: the table is armed in each target (dyn-runtime/uprobes.c).
 */
int ctap_uprobes_register(struct ctap_uprobe *ups, int n);
void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n);

#endif /* CTAP_UPROBE_TABLE_H */
