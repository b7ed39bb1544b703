/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbuild_replay.h - pass 4 without make: Kbuild's commands, recorded once
 * per kernel tree and -D options, then replayed (kbuild_replay.c).
 */
#ifndef KBUILD_REPLAY_H
#define KBUILD_REPLAY_H

#include "session.h"

/* The first line of a recording.  A recording made before 5.10's objtool
 * step was recorded has none: it is not replayed, but recorded again; and
 * build.c's cache keys include it, so the modules such a replay made are
 * built again too. */
#define KBUILD_REPLAY_FORMAT	"# ctap kbuild replay 2"

/* After Kbuild built module name in dir: its commands into the cache
 * file path (nothing if they are not what this file expects). */
void kbuild_record(struct session *s, const char *dir, const char *name, const char *path);

/* Build dir/name.ko (dir has script.c, runtime.o and .runtime.o.cmd) by
 * the commands recorded at path: 0, or -errno: build with Kbuild then. */
int kbuild_replay(struct session *s, const char *dir, const char *name, const char *path);

#endif /* KBUILD_REPLAY_H */
