// SPDX-License-Identifier: GPL-2.0
/*
 * uinsn.c - where a user-space program's instructions start (uinsn.h).
 *
 * A uprobe replaces an instruction's first byte with a breakpoint, in
 * the file's pages: every process that maps the file gets it.  Put in
 * the middle of an instruction, it makes each of them run the rest of
 * that instruction as code.  DWARF's line table names some instruction
 * starts; where the program has none (or the address is not a row),
 * the function's code is decoded from its first byte with Zydis
 * (Debian's libzydis), one instruction after another up to the address.
 * Compilers put no data inside x86 functions, so that walk meets every
 * instruction the function has.  (Zydis decodes the AVX-512 and CET
 * instructions of glibc's string functions and libgcc's unwinder, where
 * Capstone 4 stopped in 26 of the 1,286 functions of the static test
 * program ustructs; in all of them every start Zydis finds is one
 * objdump -d shows, and it finds every one inside a function.)
 */
#include "config.h"

#include <errno.h>
#include <Zydis/Zydis.h>

#include "sdt.h"
#include "uinsn.h"

/* A decoder for elf's machine: 0, or -EOPNOTSUPP. */
static int decoder_for(Elf *elf, ZydisDecoder *dec)
{
	GElf_Ehdr eh;
	ZyanStatus st;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (eh.e_machine == EM_X86_64)	/* x32 too: long mode, 32-bit pointers */
		st = ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	else if (eh.e_machine == EM_386)
		st = ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	else
		return -EOPNOTSUPP;
	return ZYAN_SUCCESS(st) ? 0 : -EINVAL;
}

int uinsn_starts(Elf *elf, uint64_t func, uint64_t size, uint64_t addr, uint64_t *insn)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	const uint8_t *code;
	Elf_Data *bytes;
	uint64_t off, at = 0;
	int ret;

	*insn = func;
	if (addr < func || addr >= func + size || sdt_file_offset(elf, func, true, &off))
		return -EINVAL;
	ret = decoder_for(elf, &dec);
	if (ret)
		return ret;
	bytes = elf_getdata_rawchunk(elf, off, size, ELF_T_BYTE);
	if (!bytes || bytes->d_size < size)
		return -EINVAL;
	code = bytes->d_buf;
	while (func + at < addr) {
		*insn = func + at;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, code + at, size - at, &in)))
			return -ENOEXEC;
		at += in.length;
	}
	return func + at == addr ? 0 : -ERANGE;
}

uint64_t uinsn_padding(Elf *elf, uint64_t end)
{
	uint64_t limit = (end + 15) & ~(uint64_t)15, off, at = 0;
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	Elf_Data *bytes;

	if (limit == end || decoder_for(elf, &dec) || sdt_file_offset(elf, end, true, &off))
		return 0;
	bytes = elf_getdata_rawchunk(elf, off, limit - end, ELF_T_BYTE);
	if (!bytes || bytes->d_size < limit - end)
		return 0;
	while (end + at < limit) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL,
								(const uint8_t *)bytes->d_buf + at,
								limit - end - at, &in)) ||
		    (in.mnemonic != ZYDIS_MNEMONIC_NOP && in.mnemonic != ZYDIS_MNEMONIC_INT3))
			return 0;
		at += in.length;
	}
	return at;
}
