/*
 * kernel_function.c - kernel.function("PATTERN")[.call|.return].
 *
 * Functions and their parameters come from BTF: $param context variables
 * are typed, $return in .return probes.  PATTERN is a glob over function
 * names; file and line qualifiers (which need DWARF) are refused.
 */
#include <string.h>

#include "kfuncs.h"

static const char *const patterns[] = {
	"kernel.function(string)",
	"kernel.function(string).call",
	"kernel.function(string).return",
	"kernel.function(string).return.maxactive(number)",
	NULL
};

static int kernel_function_resolve(struct elab *e, const struct pp_match *m)
{
	return kfuncs_resolve(e, m, "kernel.function",
			      strstr(m->pattern_text, ".return") != NULL, true);
}

static void kernel_function_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	kfuncs_emit(x, d, n, "kfuncs");
}

const struct provider kernel_function_provider = {
	.name = "kernel.function",
	.patterns = patterns,
	.resolve = kernel_function_resolve,
	.emit = kernel_function_emit,
};
