/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobes.h - what the kprobes family's two halves share: kprobes.c
 * (points by name: BTF and the symbol table; the providers and pass 3)
 * and kprobes_dwarf.c (points by source file, line, label and callee, and
 * @var: the kernel's DWARF).
 */
#ifndef PROBES_KPROBES_H
#define PROBES_KPROBES_H

#include <stdbool.h>
#include <stdint.h>

#include <bpf/btf.h>

#include "provider.h"

struct elab;
struct pp_match;
struct derived_probe;
struct session;
struct global_var;

extern const struct provider kernel_function_provider;
extern const struct provider kernel_statement_provider;

/* A probe's own data (derived_probe.data). */
struct kprobe_point {
	int64_t maxactive;		/* .return.maxactive(N), 0: the kernel's default */
	bool optional;			/* from a wildcard or "?": the kernel refusing it warns */
	uint64_t offset;		/* into the function ("vfs_read+0x4") */
	uint64_t address;		/* .absolute: no symbol */
	const char *module;		/* the function's, or NULL: the kernel's */
	/* A statement's variables, from DWARF: where each is at the probe
	 * (its $var reads argument i, locs[i]). */
	struct sdt_arg locs[SDT_MAX_ARGS];
	bool addr_of[SDT_MAX_ARGS];	/* locs[i] is an address (@var), not read there */
	int nlocs;
	uint64_t link_addr;		/* a DWARF probe's link-time address in the kernel, or 0 */
};

/* kprobes.c */
/* A probe at func (+offset) of family ("kernel.function"), suffix as
 * written (".return"); wild: from a wildcard, so a refusal only warns. */
struct derived_probe *kprobes_add_probe(struct elab *elab, const struct pp_match *m,
					const char *family, const char *func, const char *suffix,
					bool is_return, int64_t maxactive, uint64_t offset, bool wild);
/* The BTF prototype func_id's parameters (and $return) as d's $vars. */
void kprobes_add_vars(struct elab *elab, struct derived_probe *d, const struct btf *btf,
		      __u32 func_id, bool is_return);
/* The components from index from on, as written (".return.maxactive(4)");
 * NULL after an error. */
const char *kprobes_point_suffix(struct elab *elab, const struct pp_match *m, int from,
				 int64_t *maxactive);

/* kprobes_dwarf.c */
/* Whether the written point reached its suffix by a wildcard (".*", ".**"). */
bool kprobes_suffix_wild(const struct pp_match *m);
/* Whether the target kernel's DWARF is there (opened once per session). */
bool kprobes_have_dwarf(struct elab *elab);
/* kernel.function("F@FILE") and kernel.statement("F@FILE:LINE"), .label:
 * probes added, or a negative errno after an error (0: none, said by the
 * caller). */
int kprobes_resolve_dwarf(struct elab *elab, const struct pp_match *m, bool statement,
			  const char *suffix, int64_t maxactive);
/* kernel.function("F").callee("G"), .callees(N) */
int kprobes_resolve_callees(struct elab *elab, const struct pp_match *m);
/* A kernel.function entry found by name: its locals from the DWARF too. */
void kprobes_by_name_entry_vars(struct elab *elab, const struct pp_match *m,
				struct derived_probe *d);
/* module("M").function("F@FILE") and module("M").statement("F@FILE:LINE") */
int kprobes_resolve_module_dwarf(struct elab *elab, const struct pp_match *m, bool statement);
/* The session's DWARF closed (provider.release). */
void kprobes_dwarf_release(void *state);
/* @var("NAME@FILE") in a probe the DWARF placed (provider.global_var). */
int kprobes_global_var(struct session *s, const struct derived_probe *d, const char *spec,
		       struct global_var *out);

#endif /* PROBES_KPROBES_H */
