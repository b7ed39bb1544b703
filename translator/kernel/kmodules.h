/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmodules.h - the target kernel's loadable modules: their names (from
 * modules.dep) and each one's BTF, split on the kernel's own.
 */
#ifndef KMODULES_H
#define KMODULES_H

#include <stdbool.h>

#include <bpf/btf.h>

#include "arena.h"

/*
 * The names of the modules in moddir (/lib/modules/RELEASE) matching glob
 * (fnmatch; '-' and '_' are the same in a module name), sorted, in *names
 * (arena memory).  Returns how many, or -errno when moddir/modules.dep
 * cannot be read.
 */
int kmod_names(struct arena *a, const char *moddir, const char *glob, const char ***names);

/* The file of module name under moddir (by modules.dep): 0 and *path
 * (arena memory), -ENOENT, or -errno. */
int kmod_path(struct arena *a, const char *moddir, const char *name, const char **path);

/*
 * Module name's BTF on top of the kernel's (base): /sys/kernel/btf/NAME
 * when release is the running kernel, else the .BTF section of its .ko
 * (plain or compressed) under moddir.  0, -ENOENT (no such module),
 * -ENODATA (no BTF: a module built without it), or -errno.
 */
int kmod_btf(struct arena *a, const char *release, const char *moddir, const char *name,
	     struct btf *base, struct btf **btf);

/*
 * The functions module name defines that are global (or weak) in its
 * symbol table, what SystemTap's .exported calls exported, sorted in
 * *globals (arena memory).  How many, -ENOENT (no such module), -ENODATA
 * (no symbol table), or -errno.
 */
int kmod_globals(struct arena *a, const char *moddir, const char *name, const char ***globals);

/* Whether name is among the n sorted globals kmod_globals() gave. */
bool kmod_is_global(const char *const *globals, int n, const char *name);

#endif /* KMODULES_H */
