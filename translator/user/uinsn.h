/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uinsn.h - where a user-space program's instructions start, for uprobes
 * at an address or an offset the script gives.
 */
#ifndef UINSN_H
#define UINSN_H

#include <gelf.h>
#include <stdint.h>

/*
 * Whether an instruction of elf starts at link-time address addr of the
 * function at func (size bytes): decoded from func on (x86 and x86-64).
 * Returns 0 if one does; -ERANGE if addr is inside the instruction at
 * *insn; -ENOEXEC if the bytes from *insn on do not decode; -EOPNOTSUPP
 * for another machine; -EINVAL if addr is not in the function or its
 * bytes are in no executable segment; -ENOMEM.
 */
int uinsn_starts(Elf *elf, uint64_t func, uint64_t size, uint64_t addr, uint64_t *insn);

/*
 * The alignment padding after a function that ends at link-time address
 * end: how many bytes from end to the next 16-byte boundary, if they all
 * decode as nop or int3 instructions (the compiler's fill, which nothing
 * runs or jumps to), else 0.  The user-space runtime's jump may cover it
 * where the function itself is shorter than the jump.
 */
uint64_t uinsn_padding(Elf *elf, uint64_t end);

#endif /* UINSN_H */
