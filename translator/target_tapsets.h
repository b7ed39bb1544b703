/*
 * target_tapsets.h - tapsets generated from the target kernel (its system
 * call table), in the user's cache.
 */
#ifndef TARGET_TAPSETS_H
#define TARGET_TAPSETS_H

#include "arena.h"

/*
 * The directory of the tapsets generated for kernel release from its
 * build tree build (arch: "x86_64"), written or refreshed now; NULL if
 * the build tree lacks what they come from or the cache is unusable.
 */
const char *target_tapsets_dir(struct arena *a, const char *release, const char *build,
			       const char *arch);

#endif /* TARGET_TAPSETS_H */
