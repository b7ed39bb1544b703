/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udwarf_btf.h - DWARF types of a user program as BTF (udwarf_btf.c).
 */
#ifndef UDWARF_BTF_H
#define UDWARF_BTF_H

#include <elfutils/libdw.h>
#include <linux/types.h>

struct btf;
struct dwarf_btf;

/* A converter writing into btf (the session's types of user space). */
struct dwarf_btf *dwarf_btf_new(struct btf *btf);
void dwarf_btf_free(struct dwarf_btf *c);

/* The type of die (its DW_AT_type) in the BTF: its id, 0 for void or
 * what BTF cannot describe. */
__u32 dwarf_btf_type(struct dwarf_btf *c, Dwarf_Die *die);

/* The type die itself in the BTF (0 if BTF cannot describe it). */
__u32 dwarf_btf_die(struct dwarf_btf *c, Dwarf_Die *type);

#endif /* UDWARF_BTF_H */
