/*
 * test_sdt.c - the x86_64 operands of <sys/sdt.h> marker arguments: what
 * parses into what, and what is refused rather than misread.
 */
#include <errno.h>

#include "sdt.h"
#include "unit.h"

static struct arena a;

static int parse(const char *text, struct sdt_arg *arg)
{
	return sdt_parse_arg(&a, text, arg);
}

int main(void)
{
	struct sdt_arg g;

	CHECK_INT(parse("-4@%edi", &g), 0, "-4@%edi parses");
	CHECK(g.kind == SDT_ARG_REG && g.size == 4 && g.is_signed && g.reg_width == 4, "a signed 32-bit register");
	CHECK_STR(g.base, "di", "%edi is pt_regs.di");
	CHECK_INT(parse("1@%ah", &g), 0, "1@%ah parses");
	CHECK(g.shift == 8 && g.reg_width == 1 && !g.is_signed, "%%ah is bits 8-15 of ax");
	CHECK_INT(parse("8@%r12", &g), 0, "8@%r12 parses");
	CHECK_STR(g.base, "r12", "%r12");
	CHECK_INT(parse("-2@%r9w", &g), 0, "-2@%r9w parses");
	CHECK(g.reg_width == 2, "%%r9w is 16 bits");
	CHECK_STR(g.base, "r9", "%r9w is pt_regs.r9");
	CHECK_INT(parse("-8@$-5", &g), 0, "an immediate parses");
	CHECK(g.kind == SDT_ARG_IMM && g.disp == -5, "$-5");
	CHECK_INT(parse("-4@-20(%rbp)", &g), 0, "a stack slot parses");
	CHECK(g.kind == SDT_ARG_MEM && g.disp == -20 && !g.index, "-20(%%rbp)");
	CHECK_STR(g.base, "bp", "based on rbp");
	CHECK_INT(parse("8@16(%rax,%rcx,8)", &g), 0, "base, index and scale parse");
	CHECK(g.scale == 8 && g.disp == 16, "scale 8, displacement 16");
	CHECK_STR(g.index, "cx", "indexed by rcx");
	CHECK_INT(parse("4@(,%rdx,4)", &g), 0, "an index without a base parses");
	CHECK(!g.base && g.scale == 4, "no base");
	CHECK_INT(parse("%rsi", &g), 0, "an operand without a size is a signed long");
	CHECK(g.size == 8 && g.is_signed, "8 bytes, signed");
	/* What must not be misread: refused, so the argument is not offered. */
	CHECK_INT(parse("3@%eax", &g), -EINVAL, "a size of 3 is refused");
	CHECK_INT(parse("4@%xmm0", &g), -EINVAL, "a vector register is refused");
	CHECK_INT(parse("4@%r16", &g), -EINVAL, "%r16 is refused");
	CHECK_INT(parse("4@8(%rax,%rcx,3)", &g), -EINVAL, "a scale of 3 is refused");
	CHECK_INT(parse("4@counter(%rip)", &g), -EINVAL, "a symbol needs the file (sdt_markers)");
	CHECK_INT(parse("4@8(%rax", &g), -EINVAL, "an unclosed operand is refused");
	CHECK_INT(parse("0@%eax", &g), -EINVAL, "a size of 0 is refused");
	arena_free(&a);
	return unit_done();
}
