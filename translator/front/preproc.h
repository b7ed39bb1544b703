/* SPDX-License-Identifier: GPL-2.0 */
/*
 * preproc.h - the script preprocessor, a pass over the tokens of a chunk.
 *
 *   %( COND %? TOKENS [%: TOKENS] %)     conditional, nestable
 *   @define NAME[(a, b)] %( BODY %)       macro; @NAME / @NAME(x, y) expands,
 *                                         @a in BODY stands for an argument
 *
 * COND compares kernel_v, kernel_vr, arch, runtime, systemtap_v,
 * systemtap_privilege, guru_mode or CONFIG_* with a literal (== != < <= >
 * >=; versions by strverscmp, == and != with * wildcards), joined by && and
 * ||.  Macros from .stpm library files are visible in every file; those
 * from a script only in the rest of that script.
 */
#ifndef PREPROC_H
#define PREPROC_H

#include <stdbool.h>

#include "arena.h"
#include "lex.h"
#include "strset.h"

struct macro;
struct pp;

/* Macros by name (preproc.c): a hash table in the arena, the newest
 * definition of a name winning.  Every '@name' (@count, @cast, ...) is
 * looked up, and SystemTap's library defines some 60 macros. */
struct macro_table {
	struct macro **slots;
	size_t cap, n;
};

struct pp_env {
	const char *kernel_release;	/* kernel_vr, e.g. "6.1.0-56-amd64" */
	const char *arch;		/* "x86_64" */
	const char *runtime;		/* "kernel" */
	const char *compat_version;	/* systemtap_v */
	const char *privilege;		/* "stapdev" */
	bool guru;
	const char *kconfig_path;	/* the target kernel's .config, or NULL */
	struct macro_table library;	/* macros from .stpm files */
	bool defining_library;		/* preprocessing a .stpm file */
	/* Tokens all macro expansions of a file may produce (0: a million);
	 * the fuzzers lower it, so that a blowup costs them little time. */
	size_t max_expansion;
	/* private: */
	char *kconfig;			/* .config contents, read when first needed */
	struct strset kconfig_names;	/* the NAMEs of its NAME=value lines,
					   each NUL-terminated, value after */
	bool kconfig_read;
};

/* Frees what preprocessing kept in env (the .config). */
void pp_env_free(struct pp_env *env);

/* One file's preprocessing, a chunk at a time (lex_chunk()): the macros a
 * chunk defines are there for the chunks after it. */
struct pp *pp_open(struct arena *a, struct pp_env *env);

/*
 * Preprocess in (a chunk, ending in TOK_EOF) into out.  The two may trade
 * arrays; either way in is left empty, for the next chunk, and the caller
 * frees both at the end.
 */
void pp_chunk(struct pp *pp, struct tokens *in, struct tokens *out);

#endif /* PREPROC_H */
