/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kimage.h - the kernel ELF inside a compressed boot image
 * (/boot/vmlinuz-RELEASE), for what a kernel without debuginfo still
 * carries: its BTF (kbtf.c) and its kallsyms tables (ksyms.c).
 */
#ifndef KIMAGE_H
#define KIMAGE_H

#include <stddef.h>

/*
 * The whole of the file at path in *data (malloc'd, NUL-terminated, the
 * NUL not counted in *size), /proc files included.  0 or -errno.
 */
int kimage_read_file(const char *path, char **data, size_t *size);

/*
 * The first XZ or zstd stream in the boot image at path that decompresses to an
 * ELF file, in *elf (malloc'd).  0, -ENOENT (no such stream), or -errno
 * reading the file.  Decompressing a distribution kernel takes about a
 * second: callers cache what they extract.
 */
int kimage_elf(const char *path, char **elf, size_t *size);

/*
 * The file at path in *data (malloc'd), decompressed when it is one XZ or
 * zstd stream (a kernel module as Debian ships them from 6.12 on: .ko.xz).
 * 0 or -errno (-EINVAL: a stream that does not decompress).
 */
int kimage_read_unpacked(const char *path, char **data, size_t *size);

#endif /* KIMAGE_H */
