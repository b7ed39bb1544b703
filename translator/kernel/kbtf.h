/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbtf.h - the target kernel's types and functions, from BTF.
 *
 * ctap needs no kernel debuginfo: BTF (CONFIG_DEBUG_INFO_BTF) names every
 * kernel function with its prototype and describes every type.  Where it
 * comes from, first found wins:
 *   1. /sys/kernel/btf/vmlinux, when the target is the running kernel;
 *   2. <build tree>/vmlinux, for a kernel built from source;
 *   3. the cache, $CTAP_CACHE_DIR (default $XDG_CACHE_HOME/ctap or
 *      ~/.cache/ctap), file vmlinux-<release>.btf;
 *   4. the .BTF section of the boot image (/boot/vmlinuz-<release>, or an
 *      unpacked kernel's, session.h), decompressed (XZ or zstd), which is then written to the cache (a second run reads
 *      4 MB instead of decompressing 66).
 */
#ifndef KBTF_H
#define KBTF_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "arena.h"

/*
 * The BTF of kernel release: the running kernel's, the build tree's
 * vmlinux, the user's cache, or the .BTF section of its boot image
 * (then cached).  Returns 0 and sets *btf, or -ENOENT (none of those
 * exists), -ENODATA (the image has no .BTF), -EINVAL (it does not parse).
 */
int kbtf_load(const char *release, const char *build_dir, const char *image, struct btf **btf);

/* The .BTF section of the ELF file image (a copy in *btf, malloc'd): 0,
 * -ENOENT (none), or -ENOMEM. */
int kbtf_elf_section(char *image, size_t size, char **btf, size_t *btf_size);

/* A type as SystemTap's -L prints it: "struct file*", "char*", "size_t". */
const char *kbtf_type_name(struct arena *a, const struct btf *btf, __u32 id);

/* A type found by kbtf_names(). */
struct kbtf_name {
	const char *name;
	__u32 id;
};

/*
 * The types of one kind whose names match glob (fnmatch), sorted by name,
 * each name once (its first id).  Returns how many, and *out (free() it),
 * or -ENOMEM.
 */
int kbtf_names(const struct btf *btf, int kind, const char *glob, struct kbtf_name **out);
/* kbtf_names() of the functions (BTF_KIND_FUNC). */
int kbtf_funcs(const struct btf *btf, const char *glob, struct kbtf_name **out);
/* btf__find_by_name_kind(), by a name index kept for btf: the first id
 * of that name and kind, or -ENOENT. */
__s32 kbtf_find(const struct btf *btf, const char *name, int kind);
/* Drops what kbtf_funcs() and kbtf_find() keep about btf, before
 * btf__free(btf). */
void kbtf_forget(const struct btf *btf);

/*
 * Up to max function names close to name (edit distance), closest first,
 * for "did you mean" hints.  Returns how many.
 */
int kbtf_similar_funcs(const struct btf *btf, const char *name, const char **out, int max);

/* id without typedefs, const, volatile, restrict and type tags. */
__u32 kbtf_strip(const struct btf *btf, __u32 id);

/* Kinds a script sees: a number (ints, enums, pointers, arrays decay to
 * their address), an aggregate (struct, union: no value), or void. */
enum kbtf_class { KBTF_NUMBER, KBTF_AGGREGATE, KBTF_VOID };
enum kbtf_class kbtf_classify(const struct btf *btf, __u32 id);

/* A member of a struct or union: its type and where it is. */
struct kbtf_field {
	__u32 type;
	__u32 bit_offset;	/* from the start of the struct or union */
	__u32 bit_size;		/* a bitfield's width; 0 for other members */
};

/*
 * Member name of the struct or union id points to or is (through
 * typedefs and one pointer, and into anonymous members).  Returns 0 and
 * fills *f, or -ENOENT (no such member) or -EINVAL (id is not a struct,
 * union or pointer to one).
 */
int kbtf_member(const struct btf *btf, __u32 id, const char *name, struct kbtf_field *f);

/*
 * A number a probe can read whole: an int, enum or pointer of 1, 2, 4 or
 * 8 bytes.  Returns 0 with its *size and *is_signed, or -EINVAL (an
 * aggregate, array, float, void or function).
 */
int kbtf_scalar(const struct btf *btf, __u32 id, int *size, bool *is_signed);

/* The element type of an array or pointer id; -EINVAL for other types. */
int kbtf_element(const struct btf *btf, __u32 id, __u32 *elem);

/* A type by name: "task_struct", "struct task_struct", "union x", a typedef. */
int kbtf_find_type(const struct btf *btf, const char *name, __u32 *id);

/*
 * For each type id, the id of a pointer type to it, or 0 if BTF has none
 * (an array of btf__type_cnt() entries in a): what kbtf_find_ctype()
 * looks pointers up in.  NULL if out of memory.
 */
__u32 *kbtf_pointer_index(struct arena *a, const struct btf *btf);

/*
 * A C type as a declaration spells it, qualifiers removed ("unsigned
 * long", "char *", "struct iovec *"): 0 and its *id, or -ENOENT.
 */
int kbtf_find_ctype(const struct btf *btf, const __u32 *pointers, const char *ctype, __u32 *id);

/* An enumerator: its name, its value as a read of its type gives it (sign
 * extended if the type is signed, BTF's kflag), and its enum type. */
struct kbtf_enumerator {
	const char *name;
	int64_t value;
	__u32 type;
};

/*
 * The enumerators named name in btf (a module's: its own types, then its
 * base's), up to max of them in out, in type order.  Returns how many
 * there are (maybe more than max).
 */
int kbtf_find_enumerator(const struct btf *btf, const char *name, struct kbtf_enumerator *out,
			 int max);

/* Up to max enumerator names close to name, for "did you mean" hints. */
int kbtf_similar_enumerators(const struct btf *btf, const char *name, const char **out, int max);

/*
 * Enumerator i of the enum type id points to (through typedefs and
 * qualifiers): 0 and *e, or -ENOENT past the last, -EINVAL if id is no
 * enum.
 */
int kbtf_enumerator_at(const struct btf *btf, __u32 id, int i, struct kbtf_enumerator *e);

/* An enum type by name: "enum foo", "foo", or a typedef of an enum: 0 and
 * its *id, or -ENOENT. */
int kbtf_find_enum(const struct btf *btf, const char *name, __u32 *id);

#endif /* KBTF_H */
