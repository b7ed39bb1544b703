// SPDX-License-Identifier: GPL-2.0
/*
 * unprobeable.c - kernel functions that a probe must never be put on.
 *
 * A kprobe handler runs inside whatever the probed function was doing.
 * On some functions that is fatal: the lock the handler is about to take
 * is held, interrupts or preemption are half switched, the CPU is in the
 * middle of an exception, NMI or context switch, or the function is part
 * of the probing machinery itself.  SystemTap keeps such a list (its names
 * are the facts of compatibility here: a script that wildcards over them
 * must arm the same set); ctap refuses them in pass 2 with the reason.
 *
 * Three sources, checked in this order:
 *  - the table below, by reason;
 *  - the kernel functions the runtime itself calls from a probe handler,
 *    listed mechanically in the runtime's callees.txt (every undefined
 *    symbol of a built module: testsuite/lib/runtime-callees writes it,
 *    and the script tests fail when a module calls one not in it);
 *  - for .return probes only, functions that never return.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"
#include "unprobeable.h"
#include "xalloc.h"

struct rule {
	const char *glob;
	const char *why;
};

static const char LOCKS[] = "a lock primitive: the handler takes locks itself, "
			    "and a probe there can deadlock";
static const char ATOMIC[] = "an atomic or per-CPU primitive the handler relies on";
static const char IRQ[] = "interrupt, softirq or preemption state is changing there";
static const char TRAP[] = "exception, NMI or int3 handling: a probe there re-enters "
			   "the trap it runs in";
static const char PROBING[] = "part of kprobes, ftrace, RCU or the entry code that "
			      "probes run on";
static const char SWITCH[] = "the CPU is between two tasks or two stacks there";
static const char MM[] = "page-table walking and page-fault handling that a probe's own "
			 "memory reads use";

static const struct rule rules[] = {
	/* locks */
	{ "*raw_*_lock*", LOCKS }, { "*raw_*_unlock*", LOCKS }, { "*raw_*_trylock*", LOCKS },
	{ "*read_lock*", LOCKS }, { "*read_unlock*", LOCKS }, { "*read_trylock*", LOCKS },
	{ "*write_lock*", LOCKS }, { "*write_unlock*", LOCKS }, { "*write_trylock*", LOCKS },
	{ "*write_seqlock*", LOCKS }, { "*write_sequnlock*", LOCKS },
	{ "*spin_lock*", LOCKS }, { "*spin_unlock*", LOCKS }, { "*spin_trylock*", LOCKS },
	{ "*spin_is_locked*", LOCKS }, { "rwsem_*lock*", LOCKS }, { "*mutex_*lock*", LOCKS },
	{ "queued_*", LOCKS }, { "native_queued_*", LOCKS }, { "__pv_queued_*", LOCKS },
	{ "raw_*", LOCKS },
	/* atomics */
	{ "atomic_*", ATOMIC }, { "atomic64_*", ATOMIC }, { "get_current", ATOMIC },
	{ "current_*", ATOMIC }, { "hash_64", ATOMIC }, { "hash_ptr", ATOMIC },
	{ "get_bh", ATOMIC }, { "put_bh", ATOMIC }, { "test_ti_thread_flag*", ATOMIC },
	/* interrupts and preemption */
	{ "*softirq*", IRQ }, { "*IRQ*", IRQ }, { "*_intr*", IRQ }, { "*apic*", IRQ },
	{ "*APIC*", IRQ }, { "*preempt_count*", IRQ }, { "preempt_schedule*", IRQ },
	{ "irq_enter*", IRQ }, { "irq_exit*", IRQ }, { "trace_hardirqs_*", IRQ },
	{ "arch_local_irq_*", IRQ }, { "native_irq_*", IRQ }, { "native_save_fl", IRQ },
	{ "native_restore_fl", IRQ }, { "default_idle*", IRQ }, { "do_idle", IRQ },
	{ "cpu_idle*", IRQ }, { "__delay", IRQ }, { "delay_*", IRQ },
	/* traps, NMIs, oopses */
	{ "do_int3", TRAP }, { "exc_int3", TRAP }, { "do_debug", TRAP }, { "exc_debug*", TRAP },
	{ "do_trap", TRAP }, { "do_general_protection", TRAP }, { "exc_general_protection", TRAP },
	{ "do_page_fault", TRAP }, { "exc_page_fault", TRAP }, { "handle_page_fault", TRAP },
	{ "do_IRQ", TRAP }, { "default_do_nmi", TRAP }, { "exc_nmi", TRAP }, { "do_nmi", TRAP },
	{ "nmi_*", TRAP }, { "*_nmi_*", TRAP }, { "die_nmi", TRAP }, { "__die*", TRAP },
	{ "oops_begin", TRAP }, { "oops_end", TRAP }, { "notify_die", TRAP },
	{ "notifier_call_chain", TRAP }, { "atomic_notifier_call_chain", TRAP },
	{ "io_check_error", TRAP }, { "mem_parity_error", TRAP }, { "unknown_nmi_error", TRAP },
	{ "sync_regs", TRAP }, { "fixup_exception", TRAP }, { "*exception_tables*", TRAP },
	{ "*kernel_text*", TRAP }, { "*setup_rt_frame*", TRAP }, { "inat_get_opcode_attribute", TRAP },
	/* the probing machinery */
	{ "kprobe_*", PROBING }, { "*_kprobe*", PROBING }, { "arch_*kprobe*", PROBING },
	{ "*kretprobe*", PROBING }, { "rethook_*", PROBING }, { "*uprobe*", PROBING },
	{ "ftrace_*", PROBING }, { "__fentry__", PROBING }, { "mcount", PROBING },
	{ "text_poke*", PROBING }, { "rcu_*", PROBING }, { "__rcu_*", PROBING },
	{ "lockdep_*", PROBING }, { "entry_SYSCALL*", PROBING }, { "error_entry", PROBING },
	{ "paranoid_entry", PROBING }, { "*_noinstr", PROBING }, { "__x86_indirect_thunk*", PROBING },
	{ "__x86_return_thunk", PROBING }, { "irq_work_*", PROBING }, { "__irq_work_*", PROBING },
	{ "relay_*", PROBING }, { "vsnprintf", PROBING }, { "vscnprintf", PROBING },
	{ "format_decode", PROBING }, { "copy_from_kernel_nofault*", PROBING },
	{ "copy_from_user_nofault", PROBING }, { "strncpy_from_*_nofault", PROBING },
	{ "get_random_*", PROBING }, { "hrtimer_*", PROBING }, { "__hrtimer_*", PROBING },
	/* rethook's instance pool (6.7 on): a return hook recycles its instance
	 * there after the handler, so a .return probe on it hooked its own
	 * recycling without end (6.12: a double fault, bench/arm-all.sh) */
	{ "objpool_*", PROBING },
	/* context switch and stacks */
	{ "__switch_to*", SWITCH }, { "__schedule", SWITCH }, { "native_*", SWITCH },
	{ "xen_*", SWITCH }, { "HYPERVISOR_*", SWITCH }, { "check_events", SWITCH },
	/* the rest of Debian 6.1's kprobe blacklist (NOKPROBE_SYMBOL) that the
	 * rules above and the symbol table's text sections miss: the kernel
	 * refuses them anyway, pass 2 says why first */
	{ "aggr_*_handler", PROBING }, { "opt_pre_handler", PROBING },
	{ "optimized_callback", PROBING }, { "setup_detour_execution", PROBING },
	{ "setup_singlestep", PROBING }, { "resume_singlestep", PROBING },
	{ "synthesize_rel*", PROBING }, { "kprobes_*", PROBING }, { "*rethook*", PROBING },
	{ "arch_ftrace_*", PROBING }, { "process_fetch_insn", PROBING },
	{ "perf_trace_buf_*", PROBING }, { "__thunk_restore", PROBING }, { "bsearch", PROBING },
	{ "*ct_user_enter", SWITCH }, { "*ct_user_exit", SWITCH },
	{ "user_enter_callable", SWITCH }, { "user_exit_callable", SWITCH },
	{ "*untrain_ret", SWITCH }, { "pci_serr_error", TRAP },
	{ "do_kern_addr_fault", MM }, { "do_user_addr_fault", MM },
	{ "spurious_kernel_fault", MM },
	/* page tables */
	{ "*_pte_*", MM }, { "*_pmd_*", MM }, { "walk_*_range", MM }, { "*mm_*walk*", MM },
	{ "special_mapping_*", MM }, { "flush_icache_range", MM },
	{ NULL, NULL }
};

/* A .return probe on these would wait forever for its kretprobe instance. */
static const char NORETURN[] = "it never returns, so a .return probe would never fire "
			       "and its instance would never be freed";
static const struct rule return_rules[] = {
	{ "do_exit", NORETURN }, { "do_group_exit", NORETURN }, { "make_task_dead", NORETURN },
	{ "kthread_exit", NORETURN }, { "__x64_sys_exit", NORETURN },
	{ "__x64_sys_exit_group", NORETURN }, { "__ia32_sys_exit*", NORETURN },
	{ "sys_exit", NORETURN }, { "sys_exit_group", NORETURN }, { "rewind_stack_*", NORETURN },
	{ NULL, NULL }
};

/*
 * Source files none of whose code may be probed, as SystemTap's list has
 * them (a wildcard over a file's functions skips them all): the kprobes
 * core, the trap handlers, and the I/O, bit and paravirt helpers that
 * they and the handler inline.
 */
static const char FILE_WHY[] = "its source file is part of the trap, kprobe or paravirt "
			       "machinery that probes run on";
static const char *const files[] = {
	"kernel/kprobes.c", "arch/*/kernel/traps.c", "arch/*/kernel/paravirt.c",
	"*/include/asm/io.h", "*/include/asm/io_64.h", "*/include/asm/bitops.h",
	"*/include/asm/paravirt.h", "drivers/ide/ide-iops.c", NULL
};

const char *unprobeable_file_why(const char *file)
{
	char glob[64];

	if (!file)
		return NULL;
	for (int i = 0; files[i]; i++) {
		/* a CU's name is relative to the tree, a declaration's may be absolute */
		snprintf(glob, sizeof(glob), "%s%s", files[i][0] == '*' ? "" : "*/", files[i]);
		if (!fnmatch(files[i], file, 0) || !fnmatch(glob, file, 0))
			return FILE_WHY;
	}
	return NULL;
}

static const char RUNTIME[] = "ctap's runtime calls it from probe handlers, so a probe "
			      "there would fire inside its own handler";

int unprobeable_load(struct unprobeable *u, const char *runtime_dir)
{
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/callees.txt", runtime_dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(u->text = xmalloc(n + 1)) || fread(u->text, 1, n, f) != (size_t)n) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	u->text[n] = '\0';
	/* One name a line; '#' starts a comment line. */
	for (char *line = strtok(u->text, "\n"); line; line = strtok(NULL, "\n")) {
		line[strcspn(line, " \t\r")] = '\0';
		if (line[0] && line[0] != '#')
			strset_add(&u->callees, line);
	}
	return 0;
}

void unprobeable_free(struct unprobeable *u)
{
	strset_free(&u->callees);
	free(u->text);
	u->text = NULL;
}

/*
 * The shapes the rules have, matched without fnmatch(): a wildcard over
 * 45,000 kernel functions asks ~200 rules each, and fnmatch() made that
 * most of pass 2.  Each rule's shape is worked out once.
 */
enum shape { SH_LITERAL, SH_PREFIX, SH_SUFFIX, SH_INFIX, SH_GLOB };

struct compiled {
	enum shape shape;
	char text[64];		/* the literal part */
	size_t len;
};

static void compile(const char *glob, struct compiled *c)
{
	size_t len = strlen(glob);
	bool lead = glob[0] == '*', trail = len > 1 && glob[len - 1] == '*';
	const char *inner = glob + lead;
	size_t ilen = len - lead - trail;

	c->shape = SH_GLOB;
	if (ilen >= sizeof(c->text) || strpbrk(inner, "?[") || memchr(inner, '*', ilen))
		return;
	memcpy(c->text, inner, ilen);
	c->text[ilen] = '\0';
	c->len = ilen;
	c->shape = lead && trail ? SH_INFIX : lead ? SH_SUFFIX : trail ? SH_PREFIX : SH_LITERAL;
}

static bool compiled_match(const struct compiled *c, const char *glob, const char *name)
{
	size_t n;

	switch (c->shape) {
	case SH_LITERAL:
		return !strcmp(name, c->text);
	case SH_PREFIX:
		return !strncmp(name, c->text, c->len);
	case SH_SUFFIX:
		n = strlen(name);
		return n >= c->len && !memcmp(name + n - c->len, c->text, c->len);
	case SH_INFIX:
		return strstr(name, c->text) != NULL;
	default:
		return !fnmatch(glob, name, 0);
	}
}

#define MAX_RULES	256

static const char *match_rules(const struct rule *r, struct compiled *c, bool *ready,
			       const char *name)
{
	if (!*ready) {
		for (int i = 0; r[i].glob && i < MAX_RULES; i++)
			compile(r[i].glob, &c[i]);
		*ready = true;
	}
	for (int i = 0; r[i].glob; i++)
		if (i < MAX_RULES ? compiled_match(&c[i], r[i].glob, name) : !fnmatch(r[i].glob, name, 0))
			return r[i].why;
	return NULL;
}

const char *unprobeable_why(const struct unprobeable *u, const char *name, bool is_return)
{
	static struct compiled compiled[MAX_RULES], return_compiled[MAX_RULES];
	static bool ready, return_ready;
	const char *why = match_rules(rules, compiled, &ready, name);

	if (!why && strset_has(&u->callees, name))
		why = RUNTIME;
	if (!why && is_return)
		why = match_rules(return_rules, return_compiled, &return_ready, name);
	return why;
}
