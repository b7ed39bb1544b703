/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmroot.h - the files of this machine a --vm guest needs, at their paths.
 */
#ifndef VMROOT_H
#define VMROOT_H

#include "session.h"

/*
 * Copies into root (an empty directory, merged at the guest's /) the -c
 * command's program when a path names it, every file a probe names
 * (s->target_files, the user modules), each with its dynamic loader and
 * shared libraries, and makes the current directory there too: *cwd, or
 * NULL if it has no name.  Says on stderr which file is not here.  0, or
 * -1 when a file could not be copied or the -c program is not here.
 */
int vmroot_build(struct session *s, const char *root, const char **cwd);

#endif /* VMROOT_H */
