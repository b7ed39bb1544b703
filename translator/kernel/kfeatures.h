/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfeatures.h - what differs between the kernels ctap targets, read from
 * the target kernel's own BTF and its build tree's Module.symvers: each difference the runtime must know of
 * is one CTAP_HAVE_* macro, named for the interface, never for a version.
 *
 * pass 4 writes them into runtime/ctap_kernel.h of the module's build
 * directory, which ctap_runtime.h includes (docs/runtime.md lists them
 * with the kernels each separates).  A kernel without BTF gets none: the
 * newest interfaces are assumed.
 */
#ifndef KFEATURES_H
#define KFEATURES_H

#include <bpf/btf.h>

#include "arena.h"

/* The text of ctap_kernel.h for the kernel of btf (NULL: no BTF) and
 * build_dir (its build tree: Module.symvers says what is exported), in
 * arena memory. */
const char *kfeatures_header(struct arena *a, const struct btf *btf, const char *build_dir);

/* The features the kernel has, as "FTRACE_REGS UPROBE_HANDLE ...", for
 * stap --check. */
const char *kfeatures_names(struct arena *a, const struct btf *btf, const char *build_dir);

#endif /* KFEATURES_H */
