/*
 * test_fold.c - constant folding: what folds, and what must be left alone.
 */
#include <stdlib.h>

#include "fold.h"
#include "parse.h"
#include "print.h"
#include "unit.h"

/* Fold "probe begin { x = EXPR }" and return EXPR as printed. */
static const char *folded(const char *expr_text)
{
	static char out[256];
	struct arena a = { 0 };
	struct pp_env env = { .kernel_release = "6.1.0", .arch = "x86_64", .runtime = "kernel",
			      .compat_version = "4.8", .privilege = "stapdev" };
	char text[256];
	struct script *s;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	snprintf(text, sizeof(text), "probe begin { x = %s }", expr_text);
	s = parse_script(&a, source_from_string(&a, "t.stp", text), NULL, &env, false);
	fold_script(&a, s);
	f = open_memstream(&buf, &size);
	print_expr(f, s->probes->body->body->e->b);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	arena_free(&a);
	return out;
}

int main(void)
{
	CHECK_STR(folded("6 * 7"), "42", "multiplication");
	CHECK_STR(folded("1 + 2 * 3 - 4"), "3", "precedence respected");
	CHECK_STR(folded("-(2 - 5)"), "3", "unary minus of a folded value");
	CHECK_STR(folded("1 << 4 | 1"), "17", "shift and or");
	CHECK_STR(folded("7 / 2 + 7 % 2"), "4", "division and remainder");
	CHECK_STR(folded("1 / 0"), "1 / 0", "division by zero is left for run time");
	CHECK_STR(folded("5 % 0"), "5 % 0", "remainder by zero is left for run time");
	CHECK_STR(folded("-9223372036854775807 - 1"), "-9223372036854775808", "INT64_MIN");
	CHECK_STR(folded("9223372036854775807 + 1"), "-9223372036854775808", "wraps like the kernel's 64-bit math");
	CHECK_STR(folded("3 < 4 && 4 >= 5"), "0", "comparisons and logic");
	CHECK_STR(folded("!0 + ~0"), "0", "not and complement");
	CHECK_STR(folded("\"ab\" . \"cd\""), "\"abcd\"", "literal strings join");
	CHECK_STR(folded("1 ? \"yes\" : \"no\""), "\"yes\"", "?: with a literal condition");
	CHECK_STR(folded("y + 2 * 3"), "y + 6", "a variable stays, its constant operand folds");
	CHECK_STR(folded("y * 0"), "y * 0", "no algebra on variables (y may have side effects)");
	return unit_done();
}
