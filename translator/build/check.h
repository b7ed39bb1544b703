/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - stap --check: the pre-flight check (check.c).
 */
#ifndef CHECK_H
#define CHECK_H

#include "session.h"

/* Prints the report on stdout; 0 when a script can run (here, or in the
 * guest with --vm), 1 otherwise. */
int check_run(struct session *s);

#endif /* CHECK_H */
