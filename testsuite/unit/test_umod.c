/*
 * test_umod.c - a user module's tables as both runtimes read them
 * (kmod-runtime/core/umod.c): placing a file offset in a segment,
 * the symbol, line and unwind row of an address at the edges of their
 * ranges, every form usymname() and its kin print (the guest tests and
 * transok/dyninst_usyms check the same text end to end), and unwinding
 * a hand-made stack.
 */
#include "umod.h"
#include "unit.h"

/* A module as translator/gen/usymtab.c writes one: text at vaddr
 * 0x401000 (file offset 0x1000), base 0x400000. */
static const struct ctap_useg segs[] = {
	{ .offset = 0, .vaddr = 0x400000, .filesz = 0x1000 },
	{ .offset = 0x1000, .vaddr = 0x401000, .filesz = 0x2000 },
};
static const char names[] = "main\0greet\0";
static const struct ctap_usym syms[] = {
	{ .addr = 0x1000, .size = 0x40, .name = 0 },	/* main */
	{ .addr = 0x1040, .size = 0x30, .name = 5 },	/* greet */
};
static const struct ctap_urow rows[] = {
	{ .pc = 0x1000, .cfa_reg = CTAP_UCFA_SP, .cfa_off = 8, .bp_rule = CTAP_UBP_SAME },
	{ .pc = 0x1001, .cfa_reg = CTAP_UCFA_SP, .cfa_off = 16, .bp_off = -16,
	  .bp_rule = CTAP_UBP_SAVED },
	{ .pc = 0x1004, .cfa_reg = CTAP_UCFA_BP, .cfa_off = 16, .bp_off = -16,
	  .bp_rule = CTAP_UBP_SAVED },
	{ .pc = 0x1070, .cfa_reg = CTAP_UCFA_UNKNOWN },
};
static const char *const files[] = { "prog.c" };
static const struct ctap_uline lines[] = {
	{ .addr = 0x1000, .line = 10, .file = 0 },
	{ .addr = 0x1040, .line = 20, .file = 0 },
	{ .addr = 0x1050, .line = 0, .file = 0 },
};
static const struct ctap_umod mod = {
	.path = "/bin/prog", .name = "prog", .base = 0x400000,
	.segs = segs, .nsegs = 2, .syms = syms, .nsyms = 2, .names = names,
	.rows = rows, .nrows = 4, .lines = lines, .nlines = 3, .files = files,
};

/* The file is mapped at 0x10000 (offset 0 there). */
static struct ctap_uloc place(unsigned long addr)
{
	struct ctap_uloc l = { .start = 0x10000, .size = 0x3000, .path = mod.path };

	if (ctap_umod_place(&mod, addr - l.start, &l.rel))
		l.mod = &mod;
	return l;
}

static const char *fmt(unsigned long addr, enum ctap_usym_form form)
{
	static char buf[128];
	struct ctap_uloc l = place(addr);

	ctap_uloc_format(buf, sizeof(buf), addr, &l, form);
	return buf;
}

static void test_lookups(void)
{
	uint64_t rel = 0;

	CHECK(ctap_umod_place(&mod, 0x1044, &rel) && rel == 0x1044, "offset 0x1044 is vaddr 0x401044");
	CHECK(!ctap_umod_place(&mod, 0x3000, &rel), "past the last segment: nowhere");
	CHECK(!ctap_umod_sym(&mod, 0xfff), "before the first symbol: none");
	CHECK_STR(names + ctap_umod_sym(&mod, 0x1000)->name, "main", "a symbol's first byte");
	CHECK_STR(names + ctap_umod_sym(&mod, 0x103f)->name, "main", "a symbol's last byte");
	CHECK_STR(names + ctap_umod_sym(&mod, 0x1040)->name, "greet", "the next symbol's first");
	CHECK(!ctap_umod_sym(&mod, 0x1070), "past the last symbol's size: none");
	CHECK_INT(ctap_umod_row(&mod, 0x1003)->pc, 0x1001, "the row that covers an address");
	CHECK(!ctap_umod_row(&mod, 0x10), "before the first row: none");
	CHECK_INT(ctap_umod_line(&mod, 0x104f)->line, 20, "the line that covers an address");
	CHECK(!ctap_umod_line(&mod, 0x1050), "a range of no line: none");
}

static void test_forms(void)
{
	unsigned long greet = 0x10000 + 0x1044;	/* greet+0x4 */
	unsigned long gap = 0x10000 + 0x1080;	/* no symbol */

	CHECK_STR(fmt(greet, CTAP_USYM_NAME), "greet", "usymname");
	CHECK_STR(fmt(greet, CTAP_USYM_DATA), "greet+0x4/0x30 [/bin/prog]", "usymdata");
	CHECK_STR(fmt(greet, CTAP_USYM_SIMPLE), "greet+0x4 [prog]", "sprint_ubacktrace's");
	CHECK_STR(fmt(greet, CTAP_USYM_FRAME), " 0x11044 : greet+0x4/0x30 [/bin/prog]",
		  "print_ubacktrace's");
	CHECK_STR(fmt(greet, CTAP_USYM_MODULE), "/bin/prog", "umodname");
	CHECK_STR(fmt(greet, CTAP_USYM_FILELINE), "prog.c:20", "usymfileline");
	CHECK_STR(fmt(greet, CTAP_USYM_FILE), "prog.c", "usymfile");
	CHECK_STR(fmt(greet, CTAP_USYM_LINE), "20", "usymline");
	CHECK_STR(fmt(gap, CTAP_USYM_NAME), "0x11080", "usymname without a symbol: hex");
	CHECK_STR(fmt(gap, CTAP_USYM_DATA), "0x11080 [/bin/prog+0x1080/0x3000]",
		  "usymdata without a symbol: where in the mappings");
	CHECK_STR(fmt(gap, CTAP_USYM_SIMPLE), "0x11080 [prog+0x1080]",
		  "sprint_ubacktrace's without a symbol: the base name");
	CHECK_STR(fmt(gap, CTAP_USYM_FRAME), " 0x11080 [/bin/prog+0x1080/0x3000]",
		  "print_ubacktrace's without a symbol");
	CHECK_STR(fmt(gap, CTAP_USYM_LINE), "0x11080", "usymline without a line: hex");
}

static void test_no_tables(void)
{
	struct ctap_uloc l = { .start = 0x7f0000, .size = 0x2000, .path = "/lib/libc.so.6" };
	char small[8];
	char buf[64];

	ctap_uloc_format(buf, sizeof(buf), 0x7f0010, &l, CTAP_USYM_DATA);
	CHECK_STR(buf, "0x7f0010 [/lib/libc.so.6+0x10/0x2000]", "a file without tables");
	ctap_uloc_format(buf, sizeof(buf), 0x7f0010, &l, CTAP_USYM_FILELINE);
	CHECK_STR(buf, "0x7f0010", "a file without tables has no lines");
	ctap_uloc_format(small, sizeof(small), 0x7f0010, &l, CTAP_USYM_FRAME);
	CHECK(strlen(small) == sizeof(small) - 1, "cut to the buffer, NUL-terminated");
}

/* A stack of 64 words at 0x20000, read through the callback. */
static unsigned long stack[64];
#define STACK_AT	0x20000UL

static bool read_stack(unsigned long addr, unsigned long *v)
{
	if (addr < STACK_AT || addr + sizeof(*v) > STACK_AT + sizeof(stack) || addr % sizeof(*v))
		return false;
	*v = stack[(addr - STACK_AT) / sizeof(*v)];
	return true;
}

static void test_unwind(void)
{
	unsigned long ip, sp, bp;
	struct ctap_uloc l;

	/* In greet's body (CFA = rbp + 16): the saved rbp at rbp, the
	 * return address above it. */
	sp = STACK_AT + 8 * 8;
	bp = STACK_AT + 16 * 8;
	stack[16] = 0xabcd;			/* the caller's rbp */
	stack[17] = 0x10000 + 0x1010;		/* back into main */
	ip = 0x10000 + 0x1044;
	l = place(ip);
	CHECK(ctap_uloc_unwind(&l, true, read_stack, &ip, &sp, &bp), "one step up from greet");
	CHECK_INT(ip, 0x11010, "the return address");
	CHECK_INT(sp, STACK_AT + 18 * 8, "the CFA is the caller's sp");
	CHECK_INT(bp, 0xabcd, "the caller's rbp, as saved");

	/* At main's first byte (CFA = rsp + 8, rbp unchanged). */
	ip = 0x10000 + 0x1000;
	sp = STACK_AT + 4 * 8;
	bp = 0x1234;
	stack[4] = 0x10000 + 0x1050;
	l = place(ip);
	CHECK(ctap_uloc_unwind(&l, true, read_stack, &ip, &sp, &bp), "one step up from main's entry");
	CHECK_INT(bp, 0x1234, "rbp kept by a same-value rule");

	/* A return address uses the row of the call before it: 0x1001's
	 * row is the one at 0x1000 when the frame is not the first. */
	ip = 0x10000 + 0x1001;
	sp = STACK_AT + 4 * 8;
	l = place(ip);
	CHECK(ctap_uloc_unwind(&l, false, read_stack, &ip, &sp, &bp) && sp == STACK_AT + 5 * 8,
	      "a caller's frame takes the row before its return address");

	ip = 0x10000 + 0x1080;
	l = place(ip);
	CHECK(!ctap_uloc_unwind(&l, true, read_stack, &ip, &sp, &bp), "an unknown row ends the walk");
	ip = 0x10000 + 0x1044;
	sp = STACK_AT + 60 * 8;
	bp = STACK_AT + 64 * 8;
	l = place(ip);
	CHECK(!ctap_uloc_unwind(&l, true, read_stack, &ip, &sp, &bp),
	      "a return address beyond readable memory ends the walk");
	l.mod = NULL;
	CHECK(!ctap_uloc_unwind(&l, true, read_stack, &ip, &sp, &bp), "no tables: no step");
}

int main(void)
{
	test_lookups();
	test_forms();
	test_no_tables();
	test_unwind();
	return unit_done();
}
