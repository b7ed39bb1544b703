/* SPDX-License-Identifier: GPL-2.0 */
/*
 * monitor.h - pass 3 of stap --monitor's builtins (monitor.c).
 */
#ifndef GEN_MONITOR_H
#define GEN_MONITOR_H

#include <stdbool.h>

#include "ast.h"

struct xlate;

/* e calls __monitor_status() or __monitor_control(v). */
bool gen_is_monitor_call(const struct expr *e);
/* Its C, written into the body; its value, "0LL". */
const char *gen_monitor_call(struct xlate *x, const struct expr *e);

#endif /* GEN_MONITOR_H */
