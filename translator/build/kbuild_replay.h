/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbuild_replay.h - pass 4 without make: Kbuild's commands, recorded once
 * per kernel tree and -D options, then replayed (kbuild_replay.c).
 */
#ifndef KBUILD_REPLAY_H
#define KBUILD_REPLAY_H

#include <stdint.h>

#include "session.h"

/* The first line of a recording.  A recording made before 5.10's objtool
 * step was recorded has none: it is not replayed, but recorded again; and
 * build.c's cache keys include it, so the modules such a replay made are
 * built again too.  Format 3 lists the runtime's units as a mark. */
#define KBUILD_REPLAY_FORMAT	"# ctap kbuild replay 3"

/* After Kbuild built module name in dir from script.o and the runtime's
 * units objs (NULL-terminated): its commands into the cache file path
 * (nothing if they are not what this file expects), then the precompiled
 * headers of keys pch (kbuild_pch()) if there are none yet. */
void kbuild_record(struct session *s, const char *dir, const char *name, const char *const *objs,
		   const char *path, const uint64_t *pch);

/* Build dir/name.ko (dir has script.c, ctap_defines.h and each of objs with
 * an empty .OBJ.cmd) by the commands recorded at path: 0, or -errno: build
 * with Kbuild then. */
int kbuild_replay(struct session *s, const char *dir, const char *name, const char *const *objs,
		  const char *path, const uint64_t *pch);

/* A recorded line run in the kernel tree (its marks for dir and name; no
 * units), its output added to log: 0 or -EIO. */
int kbuild_run(struct session *s, const char *dir, const char *name, const char *line,
	       const char *log);

/* key, cmd and the program cmd runs (its file in $PATH: another compiler
 * makes other objects) hashed. */
uint64_t kbuild_tool_key(uint64_t key, const char *cmd);

/* s with every from as to (arena memory). */
char *kbuild_replace(struct arena *a, const char *s, const char *from, const char *to);

/*
 * A recorded line that compiles the script or the .mod.c, rewritten to
 * read the kernel headers precompiled (kbuild_pch.c): found in the cache or
 * prebuilt under a key from keys[0] (script) or keys[1] (.mod.c), else
 * made and kept; any other line, or if that fails, line itself.
 */
const char *kbuild_pch(struct session *s, const char *dir, const char *name, const char *line,
		       const uint64_t *keys, const char *log);

#endif /* KBUILD_REPLAY_H */
