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

/* Pass 3: when a function the script calls needs them (its embedded C
 * says pragma:vma), every module's tables (with --ldd, also the shared
 * libraries they need) and the family that registers them, first of all
 * families so that it stops last. */
void usyms_emit(struct xlate *x);

#endif /* USYMTAB_H */
