/*
 * preproc.h - the script preprocessor, a pass over the token array.
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

struct macro;

struct pp_env {
	const char *kernel_release;	/* kernel_vr, e.g. "6.1.0-56-amd64" */
	const char *arch;		/* "x86_64" */
	const char *runtime;		/* "kernel" */
	const char *compat_version;	/* systemtap_v */
	const char *privilege;		/* "stapdev" */
	bool guru;
	const char *kconfig_path;	/* the target kernel's .config, or NULL */
	struct macro *library;		/* macros from .stpm files */
	bool defining_library;		/* preprocessing a .stpm file */
	/* private: */
	char *kconfig;			/* .config contents, read when first needed */
	char **kconfig_lines;		/* its NAME=value lines, sorted by NAME */
	size_t kconfig_n;
	bool kconfig_read;
};

/*
 * Preprocess in into out.  out may take over in's array (in is then left
 * empty); the caller frees both.
 */
void preprocess(struct arena *a, struct pp_env *env, struct tokens *in,
		struct tokens *out);

#endif /* PREPROC_H */
