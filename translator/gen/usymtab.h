/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usymtab.h - user modules' symbols and unwind rows for the runtime's
 * usymname(), usymdata(), umodname() and user backtraces
 * (kmod-runtime/usyms.h has the tables' layout).
 */
#ifndef USYMTAB_H
#define USYMTAB_H

struct session;
struct xlate;

#define USYMS_MAX_MODULES	64

/* A user module the tables should cover: path as the target names it,
 * file where it is read here (under --sysroot).  Duplicates are one. */
void usyms_add(struct session *s, const char *path, const char *file);

/* -d ARG: a file (absolute, or relative to the current directory) is a
 * user module; a kernel module's name or "kernel" needs nothing here. */
void usyms_add_option(struct session *s, const char *arg);

/* The i-th user module's path, as the target names it (-d files, probed
 * programs and libraries), or NULL past the last. */
const char *usyms_path(struct session *s, int i);

/* The shared libraries the ELF file needs (DT_NEEDED), found as the
 * dynamic loader would in the usual directories (under --sysroot): at most
 * max of them into paths, as the target names them.  Returns how many. */
int usyms_needed(struct session *s, const char *file, const char **paths, int max);

/* Pass 3: when a function the script calls needs them (its embedded C
 * says pragma:vma), every module's tables (with --ldd, also the shared
 * libraries they need) and the family that registers them, first of all
 * families so that it stops last. */
void usyms_emit(struct xlate *x);

#endif /* USYMTAB_H */
