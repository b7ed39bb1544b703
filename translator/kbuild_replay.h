/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbuild_replay.h - pass 4 without make: Kbuild's commands, recorded once
 * per kernel tree and -D options, then replayed (kbuild_replay.c).
 */
#ifndef KBUILD_REPLAY_H
#define KBUILD_REPLAY_H

#include "session.h"

/* After Kbuild built module name in dir: its commands into the cache
 * file path (nothing if they are not what this file expects). */
void kbuild_record(struct session *s, const char *dir, const char *name, const char *path);

/* Build dir/name.ko (dir has script.c, runtime.o and .runtime.o.cmd) by
 * the commands recorded at path: 0, or -errno: build with Kbuild then. */
int kbuild_replay(struct session *s, const char *dir, const char *name, const char *path);

#endif /* KBUILD_REPLAY_H */
