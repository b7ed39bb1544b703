/*
 * providers.c - the table of probe families.  Add a provider here.
 */
#include "provider.h"

extern const struct provider begin_end_provider;
extern const struct provider timer_provider;
extern const struct provider kprobe_provider;
extern const struct provider kernel_function_provider;
extern const struct provider process_provider;

const struct provider *const providers[] = {
	&begin_end_provider,
	&timer_provider,
	&kprobe_provider,
	&kernel_function_provider,
	&process_provider,
	NULL
};
