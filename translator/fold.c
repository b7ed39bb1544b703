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
static bool fold_binary(const char *op, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = a, ub = b;

	switch (op[0]) {
	case '+': *r = (int64_t)(ua + ub); return true;
	case '-': *r = (int64_t)(ua - ub); return true;
	case '*': *r = (int64_t)(ua * ub); return true;
	case '/':
	case '%':
		if (b == 0 || (a == INT64_MIN && b == -1))
			return false;
		*r = op[0] == '/' ? a / b : a % b;
		return true;
	case '^': *r = a ^ b; return true;
	case '&': *r = op[1] == '&' ? (a && b) : (a & b); return true;
	case '|': *r = op[1] == '|' ? (a || b) : (a | b); return true;
	case '=': *r = a == b; return op[1] == '=';
	case '!': *r = a != b; return op[1] == '=';
	case '<':
		if (op[1] == '<')
			*r = (b < 0 || b > 63) ? 0 : (int64_t)(ua << b);
		else
			*r = op[1] == '=' ? a <= b : a < b;
		return op[1] != '<' || op[2] == '\0';
	case '>':
		if (op[1] == '>' && op[2] == '\0')
			*r = (b < 0 || b > 63) ? (a < 0 ? -1 : 0) : a >> b;
		else if (op[1] == '>')
			return false;	/* >>> */
		else
			*r = op[1] == '=' ? a >= b : a > b;
		return true;
	}
	return false;
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
		    fold_binary(e->op, e->a->num, e->b->num, &v))
			become_number(e, v);
		else if (!strcmp(e->op, ".") && e->a->kind == E_STRING && e->b->kind == E_STRING) {
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
		if (!strcmp(e->op, "-"))
			become_number(e, (int64_t)(0 - (uint64_t)e->a->num));
		else if (!strcmp(e->op, "!"))
			become_number(e, !e->a->num);
		else if (!strcmp(e->op, "~"))
			become_number(e, ~e->a->num);
		else if (!strcmp(e->op, "+"))
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
