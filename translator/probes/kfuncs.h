/*
 * kfuncs.h - what kernel.function and kprobe.function share: resolving a
 * function-name pattern against the target's BTF.
 */
#ifndef KFUNCS_H
#define KFUNCS_H

#include "provider.h"

/*
 * Add one probe per kernel function matching m's first argument, named
 * "<family>(\"<function>\")<suffix>".  With vars, the probes get the
 * function's parameters (and $return for return probes) as context
 * variables.  Returns how many, or -1 after an error.
 */
int kfuncs_resolve(struct elab *e, const struct pp_match *m, const char *family,
		   bool is_return, bool vars);

/* Pass 3: a table of kprobes/kretprobes for d[0..n), prefix names it. */
void kfuncs_emit(struct xlate *x, const struct derived_probe *const *d, int n,
		 const char *prefix);

#endif /* KFUNCS_H */
