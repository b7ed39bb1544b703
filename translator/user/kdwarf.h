/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdwarf.h - the target kernel's DWARF, when its debuginfo is installed
 * (Debian's linux-image-RELEASE-dbg): what BTF does not know, source
 * files and lines, locals, inlined instances.  BTF stays the default;
 * this is read only for probe points that name a file or a line.
 *
 * The DWARF is read through translator/user/udwarf.c (the same location
 * expressions and variables as user space), one CU at a time.  The list
 * of CUs (a vmlinux has about 2,400) is indexed once per build id into
 * the cache: kdwarf-BUILDID.cus.
 */
#ifndef KDWARF_H
#define KDWARF_H

#include <stdbool.h>
#include <stdint.h>

#include "udwarf.h"

struct kdwarf;

/*
 * The DWARF of kernel release: under dir (--kernel-debuginfo: there only)
 * else under /usr/lib/debug, by the running kernel's build id when it is
 * the target, else by the paths the -dbg package installs
 * (usr/lib/debug/boot/vmlinux-RELEASE, usr/lib/debug/lib/modules/RELEASE/vmlinux),
 * else build_dir/vmlinux if it has DWARF.  NULL if none: *path is then
 * NULL, else the file that has no usable DWARF.
 */
struct kdwarf *kdwarf_open(const char *release, const char *build_dir, const char *dir,
			   const char **path);
void kdwarf_close(struct kdwarf *k);

/*
 * The DWARF of the module installed at ko (under moddir, of kernel
 * release): the -dbg package's copy at the same path under
 * /usr/lib/debug/lib/modules/RELEASE (under dir, or dir/PATH, with
 * --kernel-debuginfo), checked against ko's build id (ko decompressed
 * when it is a .ko.xz or .ko.zst).  NULL if none: *path is then NULL,
 * else the file that is not ko's DWARF (or cannot be checked: no build
 * id in one of them), and *why says which, to read "PATH WHY KO".
 */
struct kdwarf *kdwarf_open_module(const char *release, const char *moddir, const char *ko,
				  const char *dir, const char **path, const char **why);

/* The size of function name by the DWARF file's symbol table (its first
 * symbol of the name), or 0; *copies is how many functions have the name. */
uint64_t kdwarf_func_size(struct kdwarf *k, const char *name, int *copies);
/* Whether a function called name is global (or weak) in that symbol table:
 * what SystemTap's .exported calls exported. */
bool kdwarf_func_global(struct kdwarf *k, const char *name);
/* Why addr (a vmlinux's DW_OP_addr) is not a static at a fixed distance
 * from the kernel's code: per-CPU, outside [_stext, _end); NULL if it is. */
const char *kdwarf_static_why(struct kdwarf *k, uint64_t addr);

/*
 * Where a kernel.function probe at entry (a function's link-time address)
 * reads the DWARF's variables: past its endbr64 and its call to
 * __fentry__ (SystemTap 4.8 reads them 5 bytes in, after that call), where
 * the registers and the stack are what they are at the probe; entry
 * itself for a function without the call (notrace).
 */
uint64_t kdwarf_entry_pc(struct kdwarf *k, uint64_t entry);

struct udwarf *kdwarf_dwarf(struct kdwarf *k);
const char *kdwarf_path(const struct kdwarf *k);

/* Each CU whose name the file glob matches (as "func@file" matches):
 * fn(arg, its DIE, its name); stops when fn returns nonzero, returns that. */
int kdwarf_each_cu(struct kdwarf *k, const char *glob,
		   int (*fn)(void *arg, uint64_t die, const char *name), void *arg);

/* Each CU that defines a function glob names, by the vmlinux's symbol
 * table: fn(arg, its DIE, its name), as kdwarf_each_cu. */
int kdwarf_func_cus(struct kdwarf *k, const char *glob,
		    int (*fn)(void *arg, uint64_t die, const char *name), void *arg);

/* What to install for the DWARF of release, for an error message. */
const char *kdwarf_install_hint(void);

#endif /* KDWARF_H */
