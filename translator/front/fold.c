// SPDX-License-Identifier: GPL-2.0
/*
 * fold.c - constant folding (pass 2, after types; off with stap -u).
 *
 * Arithmetic, comparisons and logic on literal numbers, joining literal
 * strings, and ?: with a literal condition are replaced by their value, so
 * pass 3 emits "x = 42" for "x = 6 * 7".  Division or remainder by a
 * literal 0 is left for run time, where it is a soft error as SystemTap
 * reports it.
 */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

/* The value of a op b, or false if it cannot be folded. */
static bool fold_binary(unsigned op, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = a, ub = b;

	switch (op) {
	case OP_ADD: *r = (int64_t)(ua + ub); return true;
	case OP_SUB: *r = (int64_t)(ua - ub); return true;
	case OP_MUL: *r = (int64_t)(ua * ub); return true;
	case OP_DIV:
	case OP_MOD:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = op == OP_DIV ? a / b : a % b;
		return true;
	case OP_XOR: *r = a ^ b; return true;
	case OP_AND: *r = a && b; return true;
	case OP_BITAND: *r = a & b; return true;
	case OP_OR: *r = a || b; return true;
	case OP_BITOR: *r = a | b; return true;
	case OP_EQ: *r = a == b; return true;
	case OP_NE: *r = a != b; return true;
	case OP_LSHIFT: *r = (b < 0 || b > 63) ? 0 : (int64_t)(ua << b); return true;
	case OP_LE: *r = a <= b; return true;
	case OP_LT: *r = a < b; return true;
	case OP_RSHIFT: *r = (b < 0 || b > 63) ? (a < 0 ? -1 : 0) : a >> b; return true;
	case OP_GE: *r = a >= b; return true;
	case OP_GT: *r = a > b; return true;
	default: return false;	/* >>>, =~, !~, <<<: left for pass 3 */
	}
}

static void become_number(struct expr *e, int64_t v)
{
	struct loc loc = e->loc;
	struct expr *next = e->next;

	memset(e, 0, sizeof(*e));
	e->kind = E_NUMBER;
	e->num = v;
	e->loc = loc;
	e->next = next;
}

/* Called children first: e's operands are already folded. */
static void fold_expr(struct expr *e, void *ctx)
{
	struct arena *a = ctx;
	int64_t v;

	switch (e->kind) {
	case E_BINARY:
		if (e->a->kind == E_NUMBER && e->b->kind == E_NUMBER &&
		    fold_binary(e->opid, e->a->num, e->b->num, &v))
			become_number(e, v);
		else if (e->opid == OP_CONCAT && e->a->kind == E_STRING && e->b->kind == E_STRING) {
			const char *s = arena_printf(a, "%s%s", e->a->str, e->b->str);
			struct expr *next = e->next;
			struct loc loc = e->loc;

			memset(e, 0, sizeof(*e));
			e->kind = E_STRING;
			e->str = s;
			e->loc = loc;
			e->next = next;
		}
		break;
	case E_UNARY:
		if (e->a->kind != E_NUMBER)
			break;
		if (e->opid == OP_SUB)
			become_number(e, (int64_t)(0 - (uint64_t)e->a->num));
		else if (e->opid == OP_NOT)
			become_number(e, !e->a->num);
		else if (e->opid == OP_BITNOT)
			become_number(e, ~e->a->num);
		else if (e->opid == OP_ADD)
			become_number(e, e->a->num);
		break;
	case E_TERNARY:
		if (e->a->kind == E_NUMBER) {
			struct expr *pick = e->a->num ? e->b : e->c, *next = e->next;

			*e = *pick;
			e->next = next;
		}
		break;
	default:
		break;
	}
}

void fold_script(struct arena *a, struct script *s)
{
	ast_walk_script(s, fold_expr, a);
}
