/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbuild_replay.h - pass 4 without make: Kbuild's commands, recorded once
 * per kernel tree and -D options, then replayed (kbuild_replay.c).
 */
#ifndef KBUILD_REPLAY_H
#define KBUILD_REPLAY_H

#include <stdint.h>
#include <sys/types.h>

#include "session.h"

/* The first line of a recording.  A recording made before 5.10's objtool
 * step was recorded has none: it is not replayed, but recorded again; and
 * build.c's cache keys include it, so the modules such a replay made are
 * built again too.  Format 3 lists the runtime's units as a mark. */
#define KBUILD_REPLAY_FORMAT	"# ctap kbuild replay 3"

/* A build's precompiled headers (kbuild_pch.c). */
struct kbuild_pch {
	const uint64_t *keys;	/* build.c's: the script's, the .mod.c's */
	enum {
		PCH_NONE,	/* use one there is, make none */
		PCH_MAKE,	/* make a missing one, and use it */
		PCH_BACKGROUND,	/* make it meanwhile, for the next build */
	} mode;
	const char *gch;	/* the .gch the script's compile reads */
	const char *head;	/* its header's text */
	const char *flags;	/* the options it was made with */
	pid_t pid;		/* the compilers making one, or 0 */
	const char *store;	/* where it goes */
};

/* After Kbuild built module name in dir from script.o and the runtime's
 * units objs (NULL-terminated): its commands into the cache file path
 * (nothing if they are not what this file expects); with CTAP_PREBUILD
 * set (`make prebuilt`), the precompiled headers of pch->keys too. */
void kbuild_record(struct session *s, const char *dir, const char *name, const char *const *objs,
		   const char *path, struct kbuild_pch *pch);

/* Build dir/name.ko (dir has script.c, ctap_defines.h and each of objs with
 * an empty .OBJ.cmd) by the commands recorded at path: 0, or -errno: build
 * with Kbuild then.  The precompiled headers, if missing, are made
 * meanwhile for the next build (done when this returns). */
int kbuild_replay(struct session *s, const char *dir, const char *name, const char *const *objs,
		  const char *path, struct kbuild_pch *pch);

/* A recorded line run in the kernel tree (its marks for dir and name; no
 * units), its output added to log: 0 or -EIO. */
int kbuild_run(struct session *s, const char *dir, const char *name, const char *line,
	       const char *log);
/* The same, started: its pid for spawn_wait() (-1 if it could not be). */
pid_t kbuild_start(struct session *s, const char *dir, const char *name, const char *line,
		   const char *log);

/* key, cmd and the program cmd runs (its file in $PATH: another compiler
 * makes other objects) hashed. */
uint64_t kbuild_tool_key(uint64_t key, const char *cmd);

/* s with every from as to (arena memory). */
char *kbuild_replace(struct arena *a, const char *s, const char *from, const char *to);

/*
 * A recorded line that compiles the script or the .mod.c, rewritten to
 * read the kernel headers precompiled (kbuild_pch.c): found in the cache or
 * prebuilt under a key from pch->keys[0], else made as pch->mode says;
 * any other line, or if there is none, line itself.  The script's line
 * comes first.
 */
const char *kbuild_pch(struct session *s, const char *dir, const char *name, const char *line,
		       struct kbuild_pch *pch, const char *log);

/* The precompiled headers kbuild_pch() started making, made and kept: 0,
 * or -errno (none then). */
int kbuild_pch_finish(struct session *s, const char *dir, struct kbuild_pch *pch);

#endif /* KBUILD_REPLAY_H */
