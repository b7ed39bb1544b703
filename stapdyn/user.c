// SPDX-License-Identifier: GPL-2.0
/*
 * user.c - staprun's output files (staprun/output.c) and their rotation
 * (staprun/relay.c) are stapdyn's too.  staprun may run setuid and makes
 * them as the real user between as_user() and as_root(); stapdyn runs as
 * that user already, with nothing to drop or take back.
 */
#include "config.h"

#include "../staprun/relay.h"

int as_user(void)
{
	return 0;
}

void as_root(void)
{
}
