/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unprobeable.h - kernel functions a probe must never be put on (see
 * unprobeable.c).
 */
#ifndef UNPROBEABLE_H
#define UNPROBEABLE_H

#include <stdbool.h>

#include "strset.h"

struct unprobeable {
	struct strset callees;	/* what the runtime calls, from callees.txt */
	char *text;		/* the file, which callees points into */
};

/* Reads RUNTIME_DIR/callees.txt.  0 or -errno. */
int unprobeable_load(struct unprobeable *u, const char *runtime_dir);
void unprobeable_free(struct unprobeable *u);

/* Why a probe on function name (a .return probe if is_return) is refused,
 * or NULL if it may be probed. */
const char *unprobeable_why(const struct unprobeable *u, const char *name, bool is_return);

/* Why no code of source file (a CU's name, or a declaration's path) may
 * be probed, or NULL. */
const char *unprobeable_file_why(const char *file);

#endif /* UNPROBEABLE_H */
