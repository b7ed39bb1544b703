// SPDX-License-Identifier: GPL-2.0
/*
 * stap_171bf99ef7cda804 - ctap's stap -p3 for scripts/readers.stp, kernel KERNEL.
 * Written against kmod-runtime/ctap_runtime.h; docs/translator.md
 * explains the layout.
 */
#ifndef MAXNESTING
#define MAXNESTING 1
#endif

#include "ctap_runtime.h"
#include "target.h"
#include "probes/kprobes.h"

/* ---- globals ---- */

static struct {
	struct ctap_pstat g_bytes;
	struct ctap_map *g_reads;
} G CTAP_SHARED __maybe_unused;

static DEFINE_RWLOCK(lock_bytes);
static struct ctap_stat_spec spec_bytes CTAP_SHARED = { .type = CTAP_HIST_NONE };
static DEFINE_RWLOCK(lock_reads);
static const struct ctap_map_spec mspec_reads = {
	.nkeys = 1,
	.keys = { CTAP_STRING, },
	.value = CTAP_LONG,
	.max_entries = MAXMAPENTRIES,
	.wrap = false,
	.string_len = MAXSTRINGLEN,
};

/* ---- locals of handlers and functions ---- */

struct f_execname_locals {
	char __retvalue[MAXSTRINGLEN];
};

struct probe_0_locals {
	struct ctap_key t0_key;
	char t1_execname[MAXSTRINGLEN];
	int t2_slot;
};

struct probe_2_locals {
	char v_name[MAXSTRINGLEN];
	struct ctap_key t0_key;
	int64_t t1_reads;
	struct ctap_stat *t2_agg;
};

struct context {
	struct ctap_context c;
	union {
		struct probe_0_locals p0;
		struct probe_2_locals p2;
	} probes;
	union {
		struct f_execname_locals f_execname;
	} frames[MAXNESTING + 1];
};

/* The locals of handler p. */
#define PROBE_LOCALS(c, p) (&((struct context *)(c))->probes.p)
/* The frame of function f that runs, and of the one it calls. */
#define THIS_FRAME(c, f) (&((struct context *)(c))->frames[(c)->nesting].f)
#define NEXT_FRAME(c, f) (&((struct context *)(c))->frames[(c)->nesting + 1].f)

static void __maybe_unused __kprobes f_execname(struct ctap_context *c);

/* function execname (TAPSETS/context.stp:10) */
static void __maybe_unused __kprobes f_execname(struct ctap_context *c)
{
	struct f_execname_locals *l = THIS_FRAME(c, f_execname);

	l->__retvalue[0] = '\0';
#define STAP_RETVALUE (l->__retvalue)
#define STAP_RETURN(v) do { ctap_strcpy(STAP_RETVALUE, (v)); goto out; } while (0)
	{
 /* pure */ /* unprivileged */
	/* The whole array, then its last byte: a fixed copy, not a string
	 * walk (comm always ends in a NUL; a rename racing it is cut). */
	size_t n = min_t(size_t, sizeof(current->comm), MAXSTRINGLEN);

	memcpy(STAP_RETVALUE, current->comm, n);
	STAP_RETVALUE[n - 1] = '\0';

	}
#undef STAP_RETURN
#undef STAP_RETVALUE
}

/* probe kernel.function("vfs_read") (scripts/readers.stp:10) */
static void probe_0(struct ctap_context *c)
{
	struct probe_0_locals *l = PROBE_LOCALS(c, p0);

	c->last_stmt = "identifier 'reads' at scripts/readers.stp:11:2";
	CTAP_ACTIONS(c, 1, out);
	if (unlikely(c->nesting >= MAXNESTING)) {
		ctap_error(c, "MAXNESTING exceeded", "identifier 'execname' at TAPSETS/context.stp:10:10");
		goto out;
	}
	{
		struct f_execname_locals *f = NEXT_FRAME(c, f_execname);

		c->nesting++;
		f_execname(c);
		c->nesting--;
		ctap_strcpy(l->t1_execname, f->__retvalue);
	}
	if (unlikely(c->last_error))
		goto out;
	l->t0_key.s[0] = l->t1_execname;
	l->t2_slot = ctap_map_slot(c, G.g_reads, &l->t0_key, "Array overflow, check MAXMAPENTRIES",
			"identifier 'reads' at scripts/readers.stp:11:2");
	if (unlikely(l->t2_slot < 0))
		goto out;
	(*ctap_map_long(G.g_reads, l->t2_slot))++;
out:
	return;
}
NOKPROBE_SYMBOL(probe_0);

/* probe kernel.function("vfs_read").return (scripts/readers.stp:14) */
static void probe_1(struct ctap_context *c)
{
	c->last_stmt = "identifier 'bytes' at scripts/readers.stp:15:2";
	CTAP_ACTIONS(c, 1, out);
	ctap_pstat_add(&spec_bytes, &G.g_bytes, 1LL);
out:
	return;
}
NOKPROBE_SYMBOL(probe_1);

/* probe end (scripts/readers.stp:18) */
static void probe_2(struct ctap_context *c)
{
	struct probe_2_locals *l = PROBE_LOCALS(c, p2);

	l->v_name[0] = '\0';
	c->last_stmt = "identifier 'printf' at scripts/readers.stp:19:2";
	CTAP_ACTIONS(c, 1, out);
	{
		union ctap_arg args[] = {
			{ .s = "COMMAND" },
			{ .s = "READS" },
		};

		ctap_printf(c, "%-16s %8s\n", args, ARRAY_SIZE(args));
	}
	{ /* foreach, scripts/readers.stp:20 */
		struct ctap_map_sort sort0 = { .column = 0, .dir = -1, .agg = 'c' };
		int64_t lim0 = 10LL;

		c->last_stmt = "keyword 'foreach' at scripts/readers.stp:20:2";
		CTAP_ACTIONS(c, ctap_sort_actions(c, G.g_reads), out);
		for (int e0 = ctap_map_walk_first(G.g_reads, &sort0); e0 >= 0;
		     e0 = ctap_map_walk_next(G.g_reads, &sort0, e0)) {
			if (lim0 >= 0 && lim0-- == 0)
				break;
			ctap_strcpy(l->v_name, ctap_map_key_string(G.g_reads, e0, 0));
			CTAP_ACTIONS(c, 1, out);
			c->last_stmt = "identifier 'printf' at scripts/readers.stp:21:3";
			CTAP_ACTIONS(c, 1, out);
			l->t0_key.s[0] = l->v_name;
			l->t1_reads = ctap_map_get_long(G.g_reads, &l->t0_key);
			{
				union ctap_arg args[] = {
					{ .s = l->v_name },
					{ .n = l->t1_reads },
				};

				ctap_printf(c, "%-16s %8d\n", args, ARRAY_SIZE(args));
			}
		}
	}
	c->last_stmt = "identifier 'printf' at scripts/readers.stp:22:2";
	CTAP_ACTIONS(c, 1, out);
	l->t2_agg = ctap_pstat_aggregate(&spec_bytes, &G.g_bytes);
	{
		union ctap_arg args[] = {
			{ .n = l->t2_agg->count },
		};

		struct ctap_out *o = ctap_out(c);

		ctap_out_dec(o, args[0].n);
		ctap_out_write(o, " vfs_read calls returned\n", 25);
	}
out:
	return;
}
NOKPROBE_SYMBOL(probe_2);

static const struct ctap_lock locks_0[] = {
	{ .lock = &lock_reads, .write = true },
	{ .lock = NULL }
};
static const struct ctap_lock locks_1[] = {
	{ .lock = &lock_bytes, .write = false },
	{ .lock = NULL }
};
static const struct ctap_lock locks_2[] = {
	{ .lock = &lock_bytes, .write = true },
	{ .lock = &lock_reads, .write = true },
	{ .lock = NULL }
};

static const struct ctap_probe ctap_probes[3] = {
	[0] = {
		.pp = "kernel.function(\"vfs_read\")",
		.function = "vfs_read",
		.kind = CTAP_PROBE_EVENT,
		.family = CTAP_FAMILY_KPROBE,
		.handler = probe_0,
		.locks = locks_0,
		.nlocks = ARRAY_SIZE(locks_0) - 1,
	},
	[1] = {
		.pp = "kernel.function(\"vfs_read\").return",
		.function = "vfs_read",
		.kind = CTAP_PROBE_EVENT,
		.family = CTAP_FAMILY_KPROBE,
		.type = CTAP_PROBE_RETURN,
		.handler = probe_1,
		.locks = locks_1,
		.nlocks = ARRAY_SIZE(locks_1) - 1,
	},
	[2] = {
		.pp = "end",
		.kind = CTAP_PROBE_END,
		.family = CTAP_FAMILY_BEGIN_END,
		.handler = probe_2,
		.locks = locks_2,
		.nlocks = ARRAY_SIZE(locks_2) - 1,
	},
};

CTAP_FTRACE_ONE(kfuncs_ftrace_one, &ctap_probes[0]);

static struct ctap_kprobe kfuncs_table[] = {
	{
		.probe = &ctap_probes[0],
		.symbol = "vfs_read",
		.delta = DELTA,
		.has_delta = true,
		.args_only = true,
		.ftrace_one = kfuncs_ftrace_one,
	},
	{
		.probe = &ctap_probes[1],
		.symbol = "vfs_read",
		.delta = DELTA,
		.has_delta = true,
		.is_return = true,
	},
};

static int kfuncs_table_register(void)
{
	return ctap_kprobes_register(kfuncs_table, ARRAY_SIZE(kfuncs_table));
}

static void kfuncs_table_unregister(void)
{
	ctap_kprobes_unregister(kfuncs_table, ARRAY_SIZE(kfuncs_table));
}

static const struct ctap_probe *const session_probes[] = {
	&ctap_probes[2],
};
#define N_SESSION_PROBES 1

static const struct ctap_family families[] = {
	{ .start = kfuncs_table_register, .stop = kfuncs_table_unregister },
	{ .start = NULL }
};

static void free_globals(void)
{
	ctap_pstat_free(&G.g_bytes);
	ctap_free(G.g_reads);
}

static int init_globals(void)
{
	void *mem;

	if (ctap_reserve(ctap_map_bytes(&mspec_reads)))
		return -ENOMEM;
	if (ctap_stat_spec_init(&spec_bytes))
		goto fail;
	if (ctap_pstat_init(&G.g_bytes))
		goto fail;
	mem = ctap_alloc(ctap_map_bytes(&mspec_reads));
	if (!mem)
		goto fail;
	G.g_reads = ctap_map_init(mem, &mspec_reads);
	return 0;
fail:
	free_globals();
	return -ENOMEM;
}

static const struct ctap_module ctap_module_desc = {
	.name = "stap_171bf99ef7cda804",
	.probes = session_probes,
	.nprobes = N_SESSION_PROBES,
	.families = families,
	.nfamilies = ARRAY_SIZE(families) - 1,
	.context_size = sizeof(struct context),
	.init_globals = init_globals,
	.free_globals = free_globals,
};

static int __init ctap_init(void)
{
	return ctap_module_init(&ctap_module_desc);
}

static void __exit ctap_cleanup(void)
{
	ctap_module_exit();
}

module_init(ctap_init);
module_exit(ctap_cleanup);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ctap script scripts/readers.stp");
