// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - the AST as canonical script text.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

/* Precedence levels, as parse.c climbs them (higher binds tighter). */
enum {
	P_ASSIGN = 1, P_TERNARY, P_OR, P_AND, P_BITOR, P_XOR, P_BITAND, P_IN,
	P_CMP, P_SHIFT, P_CONCAT, P_ADD, P_MUL, P_UNARY, P_CREMENT, P_VALUE,
};

static int binary_prec(unsigned op)
{
	switch (op) {
	case OP_OR:		return P_OR;
	case OP_AND:		return P_AND;
	case OP_BITOR:		return P_BITOR;
	case OP_XOR:		return P_XOR;
	case OP_BITAND:		return P_BITAND;
	case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE:
	case OP_MATCH: case OP_NOMATCH:
		return P_CMP;
	case OP_LSHIFT: case OP_RSHIFT: case OP_URSHIFT:
		return P_SHIFT;
	case OP_CONCAT:		return P_CONCAT;
	case OP_ADD: case OP_SUB:
		return P_ADD;
	case OP_MUL: case OP_DIV: case OP_MOD:
		return P_MUL;
	default:		return P_VALUE;
	}
}

static int prec(const struct expr *e)
{
	switch (e->kind) {
	case E_ASSIGN:
		return P_ASSIGN;
	case E_TERNARY:
		return P_TERNARY;
	case E_BINARY:
		return binary_prec(e->opid);
	case E_IN:
		return P_IN;
	case E_UNARY:
		return e->opid != OP_INCR && e->opid != OP_DECR ? P_UNARY : P_CREMENT;
	case E_POSTFIX:
		return P_CREMENT;
	case E_NUMBER:
		return e->num < 0 ? P_UNARY : P_VALUE;
	default:
		return e->addressof ? P_UNARY : P_VALUE;
	}
}

static void expr_at(FILE *f, const struct expr *e, int min);

static void expr_list(FILE *f, const struct expr *e)
{
	for (; e; e = e->next) {
		expr_at(f, e, P_ASSIGN);
		if (e->next)
			fputs(", ", f);
	}
}

static void chain(FILE *f, const struct expr *e)
{
	for (const struct component *c = e->chain; c; c = c->next) {
		if (c->member) {
			fprintf(f, "->%s", c->member);
		} else {
			fputc('[', f);
			expr_at(f, c->index, P_ASSIGN);
			fputc(']', f);
		}
	}
	for (int i = 0; i < e->pretty; i++)
		fputc('$', f);
}

static void expr_inner(FILE *f, const struct expr *e)
{
	if (e->addressof)	/* $var, @cast, @var, autocast: the parser's '&' */
		fputc('&', f);
	switch (e->kind) {
	case E_NUMBER:
		fprintf(f, "%" PRId64, e->num);
		break;
	case E_STRING:
		fprintf(f, "\"%s\"", e->str);
		break;
	case E_SYMBOL:
		fputs(e->name, f);
		break;
	case E_WILDCARD:
		fputc('*', f);
		break;
	case E_INDEX:
		expr_at(f, e->a, P_VALUE);
		fputc('[', f);
		expr_list(f, e->args);
		fputc(']', f);
		break;
	case E_CALL:
	case E_AT_CALL:
	case E_HIST:
		fprintf(f, "%s(", e->name);
		expr_list(f, e->args);
		fputc(')', f);
		break;
	case E_UNARY:
		fputs(e->op, f);
		/* Keep "- -x" and "- (-1)" from lexing back as "--". */
		expr_at(f, e->a, prec(e->a) == P_UNARY || prec(e->a) == P_CREMENT ?
			P_VALUE : prec(e));
		break;
	case E_POSTFIX:
		expr_at(f, e->a, P_VALUE);
		fputs(e->op, f);
		break;
	case E_BINARY:
		expr_at(f, e->a, prec(e));
		fprintf(f, " %s ", e->op);
		expr_at(f, e->b, prec(e) + 1);
		break;
	case E_ASSIGN:
		expr_at(f, e->a, P_TERNARY);
		fprintf(f, " %s ", e->op);
		expr_at(f, e->b, P_ASSIGN);
		break;
	case E_TERNARY:
		expr_at(f, e->a, P_OR);
		fputs(" ? ", f);
		expr_at(f, e->b, P_ASSIGN);
		fputs(" : ", f);
		expr_at(f, e->c, P_ASSIGN);
		break;
	case E_IN:
		fputc('[', f);
		expr_list(f, e->args);
		fputs("] in ", f);
		expr_at(f, e->a, P_VALUE);
		break;
	case E_TARGET:
		fputs(e->name, f);
		chain(f, e);
		break;
	case E_AUTOCAST:
		/* Bare only where the parser starts an autocast without parens:
		 * after a call, or a name followed by '->'. */
		if (e->a->kind == E_CALL ||
		    (e->a->kind == E_SYMBOL && (!e->chain || e->chain->member))) {
			expr_at(f, e->a, P_VALUE);
		} else {
			fputc('(', f);
			expr_at(f, e->a, P_ASSIGN);
			fputc(')', f);
		}
		chain(f, e);
		break;
	case E_CAST:
		fputs("@cast(", f);
		expr_at(f, e->a, P_ASSIGN);
		fprintf(f, ", \"%s\"", e->str);
		goto module;
	case E_ATVAR:
		fprintf(f, "@var(\"%s\"", e->str);
module:
		if (e->module)
			fprintf(f, ", \"%s\"", e->module);
		fputc(')', f);
		chain(f, e);
		break;
	case E_STAT:
		fprintf(f, "%s(", e->name);
		expr_at(f, e->a, P_ASSIGN);
		if (e->b) {
			fputs(", ", f);
			expr_at(f, e->b, P_ASSIGN);
		}
		fputc(')', f);
		break;
	case E_DEFINED:
	case E_ENTRY:
	case E_PROBEWRITE:
		fprintf(f, "%s(", e->kind == E_DEFINED ? "@defined" :
			e->kind == E_ENTRY ? "@entry" : "@probewrite");
		expr_at(f, e->a, P_ASSIGN);
		fputc(')', f);
		break;
	case E_CONST:
		fprintf(f, "@const(\"%s\")", e->str);
		break;
	case E_ENUM:
		fprintf(f, "@enum(\"%s\")", e->str);
		break;
	case E_ENUMNAME:
		fputs("@enumname(", f);
		expr_at(f, e->a, P_ASSIGN);
		if (e->str)
			fprintf(f, ", \"%s\"", e->str);
		if (e->str && e->module)
			fprintf(f, ", \"%s\"", e->module);
		fputc(')', f);
		break;
	case E_EMBEDDED:
		fprintf(f, "%%{%s%%}", e->str);
		break;
	}
}

static void expr_at(FILE *f, const struct expr *e, int min)
{
	bool paren = prec(e) < min;

	if (paren)
		fputc('(', f);
	expr_inner(f, e);
	if (paren)
		fputc(')', f);
}

void print_expr(FILE *f, const struct expr *e)
{
	expr_at(f, e, P_ASSIGN);
}

static void indent(FILE *f, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
}

static void stmt(FILE *f, const struct stmt *s, int depth);

/* A statement as the body of if/while/for: blocks stay on the same line. */
static void body(FILE *f, const struct stmt *s, int depth)
{
	if (s->kind == S_BLOCK) {
		fputc(' ', f);
		stmt(f, s, depth);
	} else {
		fputc('\n', f);
		indent(f, depth + 1);
		stmt(f, s, depth + 1);
	}
}

static void foreach_head(FILE *f, const struct foreach_info *fe)
{
	int col = 1;

	fputs("foreach (", f);
	if (fe->value)
		fprintf(f, "%s = ", fe->value->name);
	fputc('[', f);
	for (const struct expr *k = fe->keys; k; k = k->next, col++) {
		fputs(k->name, f);
		if (fe->sort_column == col)
			fputc(fe->sort_dir > 0 ? '+' : '-', f);
		if (k->next)
			fputs(", ", f);
	}
	fputs("] in ", f);
	expr_at(f, fe->array, P_VALUE);
	if (fe->pattern) {
		fputc('[', f);
		expr_list(f, fe->pattern);
		fputc(']', f);
	}
	if (fe->sort_column < 0)
		fprintf(f, "%s%s%c", fe->sort_agg ? " " : "", fe->sort_agg ? fe->sort_agg : "",
			fe->sort_dir > 0 ? '+' : '-');
	if (fe->limit) {
		fputs(" limit ", f);
		expr_at(f, fe->limit, P_ASSIGN);
	}
	fputc(')', f);
}

static void stmt(FILE *f, const struct stmt *s, int depth)
{
	switch (s->kind) {
	case S_NULL:
		fputc(';', f);
		break;
	case S_EXPR:
		print_expr(f, s->e);
		fputc(';', f);
		break;
	case S_BLOCK:
		fputs("{\n", f);
		for (const struct stmt *c = s->body; c; c = c->next) {
			indent(f, depth + 1);
			stmt(f, c, depth + 1);
			fputc('\n', f);
		}
		indent(f, depth);
		fputc('}', f);
		break;
	case S_IF:
		fputs("if (", f);
		print_expr(f, s->e);
		fputc(')', f);
		body(f, s->body, depth);
		if (s->els) {
			fputc('\n', f);
			indent(f, depth);
			fputs("else", f);
			body(f, s->els, depth);
		}
		break;
	case S_WHILE:
		fputs("while (", f);
		print_expr(f, s->e);
		fputc(')', f);
		body(f, s->body, depth);
		break;
	case S_FOR:
		fputs("for (", f);
		if (s->init)
			print_expr(f, s->init);
		fputs("; ", f);
		if (s->e)
			print_expr(f, s->e);
		fputs("; ", f);
		if (s->incr)
			print_expr(f, s->incr);
		fputc(')', f);
		body(f, s->body, depth);
		break;
	case S_FOREACH:
		foreach_head(f, s->fe);
		body(f, s->body, depth);
		break;
	case S_BREAK:
		fputs("break;", f);
		break;
	case S_CONTINUE:
		fputs("continue;", f);
		break;
	case S_NEXT:
		fputs("next;", f);
		break;
	case S_RETURN:
		fputs("return", f);
		if (s->e) {
			fputc(' ', f);
			print_expr(f, s->e);
		}
		fputc(';', f);
		break;
	case S_DELETE:
		fputs("delete ", f);
		print_expr(f, s->e);
		fputc(';', f);
		break;
	case S_TRY:
		fputs("try ", f);
		stmt(f, s->body, depth);
		fputs(" catch", f);
		if (s->catch_var)
			fprintf(f, " (%s)", s->catch_var);
		fputc(' ', f);
		stmt(f, s->els, depth);
		break;
	case S_EMBEDDED:
		fprintf(f, "%%{%s%%}", s->code);
		break;
	}
}

static void pp_components(FILE *f, const struct pp_component *c)
{
	for (; c; c = c->next) {
		fputs(c->name, f);
		if (c->arg) {
			fputc('(', f);
			print_expr(f, c->arg);
			fputc(')', f);
		}
		if (c->next)
			fputc('.', f);
	}
}

void print_probe_point(FILE *f, const struct probe_point *pp)
{
	pp_components(f, pp->components);
	if (pp->sufficient)
		fputc('!', f);
	else if (pp->optional)
		fputc('?', f);
	if (pp->condition) {
		fputs(" if (", f);
		print_expr(f, pp->condition);
		fputc(')', f);
	}
}

static void probe(FILE *f, const struct probe *p)
{
	fputs("probe ", f);
	if (p->is_alias) {
		for (const struct probe_point *n = p->alias_names; n; n = n->next) {
			pp_components(f, n->components);
			fputs(n->next ? ", " : "", f);
		}
		fputs(p->body ? " = " : " += ", f);
	}
	for (const struct probe_point *pp = p->points; pp; pp = pp->next) {
		print_probe_point(f, pp);
		fputs(pp->next ? ", " : "", f);
	}
	fputc(' ', f);
	stmt(f, p->body ? p->body : p->epilogue, 0);
	if (p->body && p->epilogue) {
		fputs(", ", f);
		stmt(f, p->epilogue, 0);
	}
	fputc('\n', f);
}

static void global(FILE *f, const struct global *g)
{
	fprintf(f, "%sglobal %s", g->private ? "private " : "", g->name);
	if (g->is_array && !g->size && g->wrap)
		fputc('%', f);
	if (g->size)
		fprintf(f, "[%" PRId64 "]%s", g->size, g->wrap ? "%" : "");
	if (g->init) {
		fputs(" = ", f);
		print_expr(f, g->init);
	}
	fputc('\n', f);
}

static void function(FILE *f, const struct function *fn)
{
	fprintf(f, "%sfunction %s", fn->private ? "private " : "", fn->name);
	if (fn->type)
		fprintf(f, ":%s", fn->type);
	fputc('(', f);
	for (const struct param *p = fn->params; p; p = p->next) {
		fputs(p->name, f);
		if (p->type)
			fprintf(f, ":%s", p->type);
		fputs(p->next ? ", " : "", f);
	}
	fputs(") ", f);
	if (fn->embedded)
		fprintf(f, "%%{%s%%}", fn->embedded);
	else
		stmt(f, fn->body, 0);
	fputc('\n', f);
}

void print_script(FILE *f, const struct script *s)
{
	fprintf(f, "# file %s\n", s->src->name);
	for (const struct embedded *e = s->embeds; e; e = e->next)
		fprintf(f, "%%{%s%%}\n", e->code);
	for (const struct global *g = s->globals; g; g = g->next)
		global(f, g);
	for (const struct function *fn = s->functions; fn; fn = fn->next)
		function(f, fn);
	for (const struct probe *p = s->probes; p; p = p->next)
		probe(f, p);
}

/* Run a printer into a memory stream and keep the text in the arena. */
static const char *to_text(struct arena *a, void (*printer)(FILE *, const void *),
			   const void *node)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	const char *text;

	if (!f)
		return "?";
	printer(f, node);
	fclose(f);
	text = arena_strndup(a, buf, size);
	free(buf);
	return text;
}

static void print_expr_any(FILE *f, const void *e)
{
	print_expr(f, e);
}

static void print_probe_point_any(FILE *f, const void *pp)
{
	print_probe_point(f, pp);
}

const char *expr_text(struct arena *a, const struct expr *e)
{
	return to_text(a, print_expr_any, e);
}

const char *probe_point_text(struct arena *a, const struct probe_point *pp)
{
	return to_text(a, print_probe_point_any, pp);
}
