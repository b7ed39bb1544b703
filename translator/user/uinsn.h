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

#endif /* UINSN_H */
