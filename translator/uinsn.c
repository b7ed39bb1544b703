/*
 * uinsn.c - where a user-space program's instructions start (uinsn.h).
 *
 * A uprobe replaces an instruction's first byte with a breakpoint, in
 * the file's pages: every process that maps the file gets it.  Put in
 * the middle of an instruction, it makes each of them run the rest of
 * that instruction as code.  DWARF's line table names some instruction
 * starts; where the program has none (or the address is not a row),
 * the function's code is decoded from its first byte with Capstone
 * (Debian's libcapstone), one instruction after another up to the
 * address.  Compilers put no data inside x86 functions, so that walk
 * meets every instruction the function has.
 */
#include "config.h"

#include <capstone/capstone.h>
#include <errno.h>

#include "sdt.h"
#include "uinsn.h"

/* The Capstone mode of elf's machine, or -EOPNOTSUPP. */
static int machine_mode(Elf *elf, cs_mode *mode)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	switch (eh.e_machine) {
	case EM_X86_64:
		*mode = eh.e_ident[EI_CLASS] == ELFCLASS64 ? CS_MODE_64 : CS_MODE_32;	/* x32 */
		return 0;
	case EM_386:
		*mode = CS_MODE_32;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Decodes code (the function's bytes from address func) up to addr. */
static int walk(csh h, const uint8_t *code, size_t size, uint64_t func, uint64_t addr,
		uint64_t *insn)
{
	cs_insn *in = cs_malloc(h);
	uint64_t at = func;

	if (!in)
		return -ENOMEM;
	*insn = func;
	while (at < addr) {
		*insn = at;
		if (!cs_disasm_iter(h, &code, &size, &at, in))
			break;
	}
	cs_free(in, 1);
	if (at == addr)
		return 0;
	return at > addr ? -ERANGE : -ENOEXEC;
}

int uinsn_starts(Elf *elf, uint64_t func, uint64_t size, uint64_t addr, uint64_t *insn)
{
	uint64_t off;
	Elf_Data *bytes;
	cs_mode mode;
	csh h;
	int ret;

	*insn = func;
	if (addr < func || addr >= func + size || sdt_file_offset(elf, func, true, &off))
		return -EINVAL;
	ret = machine_mode(elf, &mode);
	if (ret)
		return ret;
	bytes = elf_getdata_rawchunk(elf, off, size, ELF_T_BYTE);
	if (!bytes || bytes->d_size < addr - func)
		return -EINVAL;
	if (cs_open(CS_ARCH_X86, mode, &h) != CS_ERR_OK)
		return -ENOMEM;
	ret = walk(h, bytes->d_buf, bytes->d_size, func, addr, insn);
	cs_close(&h);
	return ret;
}
