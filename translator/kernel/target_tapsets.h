/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target_tapsets.h - tapsets generated from the target kernel (its system
 * call table and declarations), in the user's cache.
 */
#ifndef TARGET_TAPSETS_H
#define TARGET_TAPSETS_H

#include <stdbool.h>

#include "arena.h"

/*
 * The directory of the tapsets generated for kernel release from its
 * build tree build (arch: "x86_64"), written or refreshed now; NULL if
 * the build tree lacks what they come from or the cache is unusable.
 */
const char *target_tapsets_dir(struct arena *a, const char *release, const char *build,
			       const char *arch);

/*
 * The target's 64-bit system calls by number, from its unistd_64.h:
 * (*names)[nr], NULL in the gaps; returns the highest number + 1, 0 if
 * the build tree does not have the header.
 */
int target_syscall_names(struct arena *a, const char *build, const char *arch,
			 const char *const **names);

/*
 * The target's 32-bit (ia32, compat) system calls by number, from its
 * unistd_32.h, each one its syscalls_32.h gives an entry point (none for
 * a number left to sys_ni_syscall): as target_syscall_names().  x86_64.
 */
int target_compat_syscall_names(struct arena *a, const char *build, const char *const **names);

/*
 * The function each system call enters, by number, from the build tree's
 * syscalls_64.h or (ia32) syscalls_32.h: (*entries)[nr] "sys_read",
 * "compat_sys_lseek" (an ia32 call's on a 64-bit kernel), NULL for a gap
 * or sys_ni_syscall.  Returns the table's size.  x86_64.
 */
int target_syscall_entries(struct arena *a, const char *build, bool ia32,
			   const char *const **entries);

/*
 * Where the kernel's headers are: the build tree itself, or the source
 * tree its Makefile includes (Debian's linux-headers-*-common).
 */
const char *target_headers_dir(struct arena *a, const char *build);

/*
 * syscalls.stp's text: an alias pair for each x86_64 system call of
 * names[0..n) (by number), from headers/include/linux/syscalls.h and
 * build's syscalls_64.h; NULL without them.  target_syscalls.c.
 */
char *target_syscalls(struct arena *a, const char *headers, const char *build,
		      const char *const *names, int n, size_t *len);

/* A system call's C parameters, from its declaration in syscalls.h. */
struct target_syscall_decl {
	struct {
		const char *name;	/* "fd"; NULL if the declaration has none */
		const char *type;	/* without qualifiers: "unsigned int", "char *" */
	} p[6];
	int n;
	bool known;		/* declared: n is its count */
};

/*
 * The declarations of system calls 0..n by number (headers, build as for
 * target_syscalls()): an array of n, .known false where there is none.
 */
struct target_syscall_decl *target_syscall_decls(struct arena *a, const char *headers,
						 const char *build, int n);

#endif /* TARGET_TAPSETS_H */
