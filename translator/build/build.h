/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.h - pass 4: the module's C to a .ko, through the target kernel's
 * Kbuild, or straight from the module cache.
 */
#ifndef BUILD_H
#define BUILD_H

#include <stddef.h>

#include "session.h"

/*
 * Build the C (text, len bytes) against the target kernel's build tree,
 * or find it in the module cache.  Sets *ko to the module's path.
 * Returns 0, or -errno after printing why (a pass reports to the user
 * itself; the libraries under it do not print).
 */
int pass4_build(struct session *s, const char *c_text, size_t len, const char **ko);

#endif /* BUILD_H */
