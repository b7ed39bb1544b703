/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - pass 5: run the module, with staprun here or in a QEMU guest
 * (--vm).
 */
#ifndef RUN_H
#define RUN_H

#include "session.h"

/* Returns the exit status for stap. */
int pass5_run(struct session *s, const char *ko);

/* staprun or stapdyn (tool): $var, else beside this stap (installed, or in
 * the build tree), else the install path; always an absolute path. */
const char *run_tool_path(struct session *s, const char *tool, const char *var);

/* stap --check's last part: staprun --check here, or with --vm in a guest
 * of the target kernel; its report on stdout, 0 if modules can run there. */
int run_check_target(struct session *s);

#endif /* RUN_H */
