/* SPDX-License-Identifier: GPL-2.0 */
/*
 * provider.h - probe families ("providers"), one file each in probes/.
 *
 * A provider names the probe point patterns it answers, such as
 * "timer.ms(number)" or "kernel.function(string).return", and resolves a
 * probe point matched to one of them into concrete probes: one for
 * "begin", one per matching kernel function for kernel.function("vfs_*").
 * Matching (wildcards, **, brace expansion, ?, !, aliases) is common to
 * all and lives in elaborate.c.  Each provider also emits the C that
 * registers its probes (pass 3), against its runtime side: a family is
 * translator/probes/NAME.c here and kmod-runtime/probes/NAME.[ch] there
 * (docs/translator.md, "Adding a probe family").
 */
#ifndef PROVIDER_H
#define PROVIDER_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "ast.h"

#define MAX_PP_COMPONENTS	16
#define MAX_ALIAS_DEPTH		8	/* aliases of aliases of ... */
#define MAX_PROVIDERS		32	/* entries of providers[] */

struct elab;
struct xlate;
struct session;
struct global_var;

/* A probe point matched to one of a provider's patterns. */
struct pp_match {
	const struct probe_point *pp;		/* as written, for messages */
	const struct provider *provider;
	int pattern;				/* index in provider->patterns */
	const char *pattern_text;
	/* The written point's components, expanded, one per pattern component. */
	const struct pp_component *comps[MAX_PP_COMPONENTS];
	int ncomps;
};

/* A context variable of a probe: $count, $return. */
struct probe_var {
	struct probe_var *next;
	const char *name;			/* with the '$' */
	const char *type;			/* as -L prints it */
	__u32 btf_id;
	int arg;				/* argument number from 0; -1: $return;
						   PROBE_VAR_VALUE: procfs's $value */
	bool writable;				/* the handler may assign it (no -g) */
	bool is_string;				/* argument arg is a C string of the
						   module's ($$name of a marker) */
	const char *parms_name;			/* in $$parms, if not name without '$' */
	/* Where a guru-mode write of the value goes: a member of struct
	 * pt_regs ("di") of the handler's registers (regs_arg < 0) or of the
	 * pt_regs whose address is argument regs_arg; NULL: it cannot be written. */
	const char *reg;
	int regs_arg;
	bool is_local;				/* in $$locals, not $$parms */
	bool arg_is_address;			/* argument arg is where the object
						   (a structure on the stack) is */
	bool in_args;				/* a guru write goes to argument arg
						   itself, which the family reads back
						   (netfilter's $verdict) */
	const char *unavailable;		/* why it cannot be read here, or NULL */
	bool unlisted;				/* unavailable, and not for -L either */
	const struct btf *btf;			/* btf_id's (a module's), NULL: the kernel's */
};

#define PROBE_VAR_VALUE		(-2)	/* a string the family hands the handler */

/* One concrete probe. */
struct derived_probe {
	struct derived_probe *next;
	const struct provider *provider;
	const char *name;			/* canonical: kernel.function("vfs_read") */
	const char *pp;				/* pp() at run time, if not name */
	const char *pn;				/* pn(): the alias name it matched, or NULL */
	const struct pp_match *match;
	const struct probe_point *written;	/* the user's point it came from */
	const struct probe *probe;		/* ... and the user's probe */
	/* The aliases it came through, outermost first: their bodies wrap
	 * the user's (prologue aliases before it, epilogue ones after). */
	const struct probe *aliases[MAX_ALIAS_DEPTH];
	int naliases;
	struct probe_var *vars;
	int seq;				/* its place in program order, from 0 */
	const char *symbol;			/* the function probed (probefunc()), or NULL */
	const char *process;			/* process("PATH") probes: PATH, or NULL */
	bool is_return;				/* a .return probe */
	const char *family;			/* its ctap_probe.family: the
						   provider's, unless resolve chose */
	bool acts;				/* does its job with no handler (a perf
						   counter): never elided as empty */
	const char *where;			/* -p2's note of its address
						   ("pc=.dynamic+0x11e0"), or NULL */
	void *data;				/* the provider's own */
};

struct provider {
	const char *name;
	const char *const *patterns;		/* NULL-terminated */
	/* Its side of kmod-runtime, "probes/NAME": the module includes
	 * NAME.h and links NAME.o when a script uses the family.  NULL: it
	 * runs from the session (begin, end). */
	const char *runtime;
	/* It works in user space too (--runtime=dyninst, dyn-runtime/): a
	 * family without it is refused in pass 2 there, as SystemTap refuses
	 * the kernel's probes under stapdyn. */
	bool user;
	/* Its probes' ctap_probe.family in the generated C
	 * ("CTAP_FAMILY_KPROBE"): the kind of handler that runs them, which
	 * probe_type() names and some tapset functions ask (probemod()).
	 * Every provider has one (elab_add() asserts it); a resolve whose
	 * probe runs from another kind sets derived_probe.family. */
	const char *family;
	/* Append the concrete probes of m; returns how many, or -EINVAL
	 * after reporting why (elab_error). */
	int (*resolve)(struct elab *elab, const struct pp_match *m);
	/* Pass 3: the C that registers this family's probes d[0..n) (they
	 * run through ctap_probe_run); services in xlate.h.  NULL: the family
	 * cannot be translated yet. */
	void (*emit)(struct xlate *x, const struct derived_probe *const *d, int n);
	/* Pass 2: @var("NAME[@CU]") in a handler of d: the global's address
	 * and type; 0, or -errno with out->why.  NULL: the family has none. */
	int (*global_var)(struct session *s, const struct derived_probe *d, const char *name,
			  struct global_var *out);
	/* Pass 2 and 3: @perf("NAME") in a handler of site (NULL: any): the
	 * counter probe of this family it reads, or NULL with *why (if why)
	 * saying why.  NULL: the family has no counters.  Through here so
	 * that the core names no provider. */
	const struct derived_probe *(*counter)(struct session *s, const char *name,
					       const struct derived_probe *site, const char **why);
	/* At the session's end: free what its elab_provider_state() holds
	 * outside the arena (an open DWARF file).  NULL: nothing. */
	void (*release)(void *state);
};

/* What a provider's global_var gives. */
struct global_var {
	uint64_t addr;
	/* addr is the link-time address of a file loaded elsewhere (a PIE):
	 * argument bias_arg of the probe holds the difference at run time. */
	bool load_biased;
	int bias_arg;
	/* the address itself is argument addr_arg of the probe (a kernel
	 * static: the probe's address at run time plus a distance) */
	bool addr_in_arg;
	int addr_arg;
	const struct btf *btf;		/* of type (a user program's: user memory) */
	__u32 type;
	const char *why;		/* the error, when there is one */
};

/* All providers, NULL-terminated (probes/providers.c). */
extern const struct provider *const providers[];

/* @perf("NAME"): the first provider's counter() that knows NAME answers
 * (provider->counter); NULL, with *why, if none does. */
const struct derived_probe *provider_counter(struct session *s, const char *name,
					     const struct derived_probe *site, const char **why);

/* ---- services of elaborate.c for the providers ---- */

/* The target's BTF (session_btf()); NULL (error reported) if absent. */
struct btf *elab_btf(struct elab *elab);
/* Why a probe on kernel function func may not be put there, or NULL. */
const char *elab_unprobeable(struct elab *elab, const char *func, bool is_return);
struct arena *elab_arena(struct elab *elab);
/* A provider's own state for the whole pass (an index it builds once, in
 * elab_arena()); NULL until it sets it. */
void **elab_provider_state(struct elab *elab, const struct provider *p);
struct session *elab_session(struct elab *elab);
/* A new concrete probe of m, appended to the program; name is copied. */
struct derived_probe *elab_add(struct elab *elab, const struct pp_match *m, const char *name);
struct probe_var *elab_add_var(struct elab *elab, struct derived_probe *d, const char *name,
			       const char *type, __u32 btf_id, int arg);
/* The file process("NAME") names, as the target sees it: NAME if it is
 * absolute (and exists, under --sysroot), else the first in $PATH; NULL
 * after an error (probes/uprobes.c, shared with probes/tasks.c). */
const char *process_target_path(struct elab *elab, const struct pp_match *m, const char *name);
/* process(PID)'s number as a pid, or 0 after the error that it is none
 * (probes/uprobes.c, shared with probes/tasks.c). */
long long process_pid(struct elab *elab, const struct pp_match *m, long long num);
/* Whether m's point was written optional ("?", "!", or reached through
 * one): a failure to resolve it is no error.  -L's own points are not
 * (they are made optional only so that listing nothing is no error). */
bool elab_optional(const struct elab *elab, const struct pp_match *m);
/* A semantic error about m's probe point (none for a "?" point). */
void elab_error(struct elab *elab, const struct pp_match *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A limit of the whole script that m's probes pass (a total over all
 * probes of a family): an error even for a "?" point. */
void elab_limit_error(struct elab *elab, const struct pp_match *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* PROVIDER_H */
