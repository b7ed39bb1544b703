/*
 * kprobe.c - kprobe.function("PATTERN")[.return]: kernel functions by
 * name, with no context variables (SystemTap's debuginfo-less probes).
 */
#include <string.h>

#include "kfuncs.h"

static const char *const patterns[] = {
	"kprobe.function(string)",
	"kprobe.function(string).return",
	"kprobe.function(string).return.maxactive(number)",
	NULL
};

static int kprobe_resolve(struct elab *e, const struct pp_match *m)
{
	return kfuncs_resolve(e, m, "kprobe.function",
			      strstr(m->pattern_text, ".return") != NULL, false);
}

static void kprobe_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	kfuncs_emit(x, d, n, "kprobes");
}

const struct provider kprobe_provider = {
	.name = "kprobe.function",
	.patterns = patterns,
	.resolve = kprobe_resolve,
	.emit = kprobe_emit,
};
