// SPDX-License-Identifier: GPL-2.0
/*
 * providers.c - the table of probe families.  Add a provider here.
 */
#include "provider.h"

extern const struct provider begin_end_provider;
extern const struct provider timer_provider;
extern const struct provider tasks_provider;
extern const struct provider kprobe_provider;
extern const struct provider kernel_function_provider;
extern const struct provider kernel_statement_provider;
extern const struct provider kernel_label_provider;
extern const struct provider process_provider;
extern const struct provider tracepoint_provider;
extern const struct provider syscall_provider;
extern const struct provider procfs_provider;
extern const struct provider perf_provider;
extern const struct provider watchpoint_provider;
extern const struct provider netfilter_provider;

const struct provider *const providers[] = {
	&begin_end_provider,
	&timer_provider,
	&kprobe_provider,
	&kernel_function_provider,
	&kernel_statement_provider,
	&kernel_label_provider,
	&process_provider,
	&tasks_provider,
	&tracepoint_provider,
	&syscall_provider,
	&procfs_provider,
	&perf_provider,
	&watchpoint_provider,
	&netfilter_provider,
	NULL
};

_Static_assert(sizeof(providers) / sizeof(providers[0]) <= MAX_PROVIDERS + 1,
	       "raise MAX_PROVIDERS (provider.h)");

const struct derived_probe *provider_counter(struct session *s, const char *name,
					     const struct derived_probe *site, const char **why)
{
	const char *first_why = NULL;

	for (const struct provider *const *p = providers; *p; p++) {
		const struct derived_probe *d;

		if (!(*p)->counter)
			continue;
		d = (*p)->counter(s, name, site, why);
		if (d)
			return d;
		/* Keep the first family's reason: with one family that has
		 * counters (perf) it is the one the user needs. */
		if (why && !first_why)
			first_why = *why;
	}
	if (why)
		*why = first_why;
	return NULL;
}
