/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dyn_build.h - pass 4 of --runtime=dyninst: a shared object for stapdyn.
 */
#ifndef DYN_BUILD_H
#define DYN_BUILD_H

#include <stddef.h>

struct session;

/* The user-space runtime's sources: $CTAP_DYN_RUNTIME, else dyn-runtime
 * beside the kernel runtime (build tree or install); NULL if none. */
const char *dyn_runtime_dir(struct session *s);
/* Compile c_text into NAME.so (cached; -m NAME: also ./NAME.so); *so its
 * path.  0 or -errno after saying why. */
int dyn_build(struct session *s, const char *c_text, size_t len, const char **so);

#endif /* DYN_BUILD_H */
