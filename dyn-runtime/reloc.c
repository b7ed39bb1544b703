// SPDX-License-Identifier: GPL-2.0
/*
 * reloc.c - which original instructions a probe moves out, and their
 * moved form.
 *
 * A jump probe writes 5 bytes (e9 rel32) over the instructions at the
 * probed address; those it covers run later from the trampoline.  That
 * is safe only if nothing else jumps into the covered bytes: the
 * function is decoded with Zydis from its first byte (as
 * translator/uinsn.c does for uprobes), every direct branch target is
 * checked, and a function that jumps through a table (its targets
 * unknown) is patched only at its first instruction.  Moved
 * instructions are rewritten for their new address: rip-relative
 * operands get a new displacement, jmp and jcc become rel32 forms, a
 * call becomes "push the old return address; jmp" so the callee
 * returns to the original code.  loop, jrcxz and xbegin have no rel32
 * form: refused.
 */
#include <errno.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "patch_int.h"

static ZydisDecoder decoder;
static bool decoder_ready;

static int decode(const uint8_t *code, size_t len, ZydisDecodedInstruction *in,
		  ZydisDecodedOperand *ops)
{
	if (!decoder_ready) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		decoder_ready = true;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, code, len, in, ops)))
		return -EINVAL;
	return 0;
}

bool ctapdyn__is_endbr64(const uint8_t *code)
{
	return code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa;
}

/* A direct branch's (jmp, jcc, call, loop) target: true and *target. */
static bool branch_target(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			  uintptr_t at, uintptr_t *target)
{
	ZyanU64 abs;

	if (!(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE))
		return false;
	for (int i = 0; i < in->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &ops[i], at, &abs))) {
			*target = abs;
			return true;
		}
	return false;
}

static bool is_indirect_jmp(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	return in->mnemonic == ZYDIS_MNEMONIC_JMP && in->operand_count_visible > 0 &&
	       ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

/*
 * Scan the whole function: a direct branch into (addr, addr + len), or
 * an indirect jump when addr is not the first instruction.
 */
static enum ctapdyn_reason scan_targets(const uint8_t *code, const struct ctapdyn_func *f,
					uintptr_t first, uintptr_t addr, unsigned int len)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	size_t at = 0;
	uintptr_t t;

	while (at < f->size) {
		if (decode(code + at, f->size - at, &in, ops))
			return CTAPDYN_R_UNRELOCATABLE;
		if (branch_target(&in, ops, f->start + at, &t) && t > addr && t < addr + len)
			return CTAPDYN_R_BRANCH_TARGET;
		if (addr != first && is_indirect_jmp(&in, ops))
			return CTAPDYN_R_INDIRECT_JMP;
		at += in.length;
	}
	return CTAPDYN_R_NONE;
}

/*
 * How many bytes from addr a probe moves out: one instruction for a
 * breakpoint, whole instructions covering 5 bytes for a jump.  code
 * holds the function's original bytes (from f->start), or, without
 * f, at least 15 bytes from addr.  *reason says why a jump cannot be
 * used; -EINVAL when addr is not an instruction boundary.
 */
int ctapdyn__plan(uintptr_t addr, const struct ctapdyn_func *f, bool jmp,
		  const uint8_t *code, unsigned int *displaced, enum ctapdyn_reason *reason)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	uintptr_t first = addr;
	size_t at = 0, end = f ? f->size : 15;
	const uint8_t *here = code;
	unsigned int len = 0;

	*reason = CTAPDYN_R_NONE;
	if (f) {
		first = f->start + (f->size >= 4 && ctapdyn__is_endbr64(code) ? 4 : 0);
		while (f->start + at < addr) {
			if (decode(code + at, f->size - at, &in, ops))
				return -EINVAL;
			at += in.length;
		}
		if (f->start + at != addr)
			return -EINVAL;
		here = code + at;
		end = f->size - at;
	}
	do {
		if (decode(here + len, end - len, &in, ops))
			return len ? (*reason = CTAPDYN_R_TOO_SHORT, 0) : -EINVAL;
		if (!len)
			*displaced = in.length;
		len += in.length;
	} while (jmp && len < CTAPDYN_JMP_LEN && len < end);
	if (!jmp)
		return 0;
	if (len < CTAPDYN_JMP_LEN) {
		*reason = f ? CTAPDYN_R_TOO_SHORT : CTAPDYN_R_NO_FUNC;
		return 0;
	}
	if (len > CTAPDYN_MAX_DISPLACED) {
		*reason = CTAPDYN_R_UNRELOCATABLE;
		return 0;
	}
	if (!f && len > *displaced) {
		*reason = CTAPDYN_R_NO_FUNC;	/* a second instruction: a target? */
		return 0;
	}
	*displaced = len;
	if (f)
		*reason = scan_targets(code, f, first, addr, len);
	return 0;
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

static bool fits32(int64_t v)
{
	return v == (int32_t)v;
}

/* A jmp or jcc to target, rel32, at out (moved to to): bytes or -ERANGE. */
static int emit_branch(uint8_t *out, uintptr_t to, int cc, uintptr_t target)
{
	int n = cc < 0 ? 5 : 6;
	int64_t rel = (int64_t)(target - (to + n));

	if (!fits32(rel))
		return -ERANGE;
	if (cc < 0) {
		out[0] = 0xe9;
	} else {
		out[0] = 0x0f;
		out[1] = 0x80 | cc;
	}
	put32(out + n - 4, (int32_t)rel);
	return n;
}

/* call target moved: push the original return address, jmp target. */
static int emit_call(uint8_t *out, uintptr_t to, uintptr_t ret, uintptr_t target)
{
	static const uint8_t sub8[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };	/* lea -8(%rsp),%rsp */
	uint8_t *p = out;

	memcpy(p, sub8, sizeof(sub8));
	p += sizeof(sub8);
	*p++ = 0xc7, *p++ = 0x04, *p++ = 0x24;			/* movl $lo,(%rsp) */
	put32(p, (int32_t)(uint32_t)ret), p += 4;
	*p++ = 0xc7, *p++ = 0x44, *p++ = 0x24, *p++ = 0x04;	/* movl $hi,4(%rsp) */
	put32(p, (int32_t)(uint32_t)(ret >> 32)), p += 4;
	int n = emit_branch(p, to + (p - out), -1, target);

	return n < 0 ? n : (int)(p - out) + n;
}

/* The condition code of a jcc (0x7X or 0f 8X), or -1. */
static int jcc_cc(const ZydisDecodedInstruction *in)
{
	if (in->meta.category != ZYDIS_CATEGORY_COND_BR)
		return -1;
	if (in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (in->opcode & 0xf0) == 0x70)
		return in->opcode & 0x0f;
	if (in->opcode_map == ZYDIS_OPCODE_MAP_0F && (in->opcode & 0xf0) == 0x80)
		return in->opcode & 0x0f;
	return -1;	/* jrcxz, loop: no rel32 form */
}

/* One instruction from `from` moved to `to`: its bytes at out, or -errno. */
static int relocate_one(const uint8_t *code, uintptr_t from, const ZydisDecodedInstruction *in,
			const ZydisDecodedOperand *ops, bool last, uint8_t *out, uintptr_t to)
{
	uintptr_t target;
	ZyanU64 abs;
	int cc;

	if (!(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
		memcpy(out, code, in->length);
		return in->length;
	}
	if (branch_target(in, ops, from, &target)) {
		if (in->mnemonic == ZYDIS_MNEMONIC_JMP)
			return emit_branch(out, to, -1, target);
		if (in->mnemonic == ZYDIS_MNEMONIC_CALL)	/* its return must be our exit */
			return last ? emit_call(out, to, from + in->length, target) : -EOPNOTSUPP;
		cc = jcc_cc(in);
		return cc < 0 ? -EOPNOTSUPP : emit_branch(out, to, cc, target);
	}
	for (int i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.base != ZYDIS_REGISTER_RIP)
			continue;
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, op, from, &abs)) ||
		    in->raw.disp.size != 32)
			return -EOPNOTSUPP;
		int64_t disp = (int64_t)(abs - (to + in->length));

		if (!fits32(disp))
			return -ERANGE;
		memcpy(out, code, in->length);
		put32(out + in->raw.disp.offset, (int32_t)disp);
		return in->length;
	}
	return -EOPNOTSUPP;
}

/*
 * The len bytes of instructions at code (from address `from`) rewritten
 * to run at `to`, into out (room bytes): how many bytes, or -EOPNOTSUPP
 * (cannot move), -ERANGE (a target beyond rel32 from `to`), -ENOSPC;
 * *b gets where each instruction starts before and after.
 */
int ctapdyn__relocate(const uint8_t *code, uintptr_t from, unsigned int len,
		      uint8_t *out, uintptr_t to, size_t room, struct ctapdyn_bounds *b)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	unsigned int at = 0;
	size_t n = 0;
	uint8_t buf[32];

	b->n = 0;
	while (at < len) {
		if (decode(code + at, len - at, &in, ops))
			return -EINVAL;
		int k = relocate_one(code + at, from + at, &in, ops, at + in.length >= len,
				     buf, to + n);

		if (k < 0)
			return k;
		if (n + k > room)
			return -ENOSPC;
		b->orig[b->n] = at;
		b->moved[b->n++] = n;
		memcpy(out + n, buf, k);
		n += k;
		at += in.length;
	}
	return (int)n;
}
