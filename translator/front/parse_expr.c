// SPDX-License-Identifier: GPL-2.0
/*
 * parse_expr.c - pass 1's expression grammar: literals, values and their
 * member/index chains, the @ operators and calls (with printf's format
 * checked here), unary and ++/--, binary operators by precedence climbing,
 * the ternary and assignment.
 *
 * Each grammar rule is a small function with the rule as its comment; the
 * parser's state, token access and errors are parse.c's (parse_internal.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parse_internal.h"
#include "printf_format.h"

#define MAX_CHAIN	10000	/* terms of one left-associative chain: later
				   passes recurse that deep (a frame or two each) */

/* string -> STRING+ : adjacent literals concatenate (SystemTap's PR14360;
 * before 2.0 a comment between them kept them apart, PR11208) */
static const char *parse_string(struct parser *p)
{
	const char *str;

	if (peek(p)->kind != TOK_STRING)
		error_at(p, peek(p), "expected literal string");
	str = next(p)->text;
	while (peek(p)->kind == TOK_STRING && (p->comments_glue || !peek(p)->comment_before))
		str = arena_printf(p->arena, "%s%s", str, next(p)->text);
	return str;
}

/* literal -> number | '-' number | string+ (adjacent strings concatenate) */
struct expr *parse_literal(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (tok_op(t, "-") && peek_at(p, 1)->kind == TOK_NUMBER) {
		next(p);
		e = new_expr(p, E_NUMBER, t);
		e->num = (int64_t)(0 - (uint64_t)tok_number(next(p)));
		return e;
	}
	if (t->kind == TOK_NUMBER) {
		e = new_expr(p, E_NUMBER, t);
		e->num = tok_number(next(p));
		return e;
	}
	if (t->kind == TOK_STRING) {
		e = new_expr(p, E_STRING, t);
		e->str = parse_string(p);
		return e;
	}
	error_at(p, t, "expected literal string or number");
}

/* exprlist -> expr (',' expr)*, where a lone '*' is a wildcard if allowed */
struct expr *parse_expr_list(struct parser *p, const char *close, bool wildcards)
{
	struct expr *head = NULL, **tail = &head;

	if (tok_op(peek(p), close))
		return NULL;
	do {
		struct token *t = peek(p);

		if (wildcards && tok_op(t, "*") &&
		    (tok_op(peek_at(p, 1), ",") || tok_op(peek_at(p, 1), close))) {
			next(p);
			*tail = new_expr(p, E_WILDCARD, t);
		} else {
			*tail = parse_expression(p);
		}
		tail = &(*tail)->next;
	} while (accept_op(p, ","));
	return head;
}

/* A bare '$' or '$$' token: the pretty-printer after a value. */
static bool is_pretty_suffix(const struct token *t)
{
	return t->kind == TOK_IDENT && t->text[0] == '$' && strspn(t->text, "$") == strlen(t->text) &&
	       strlen(t->text) <= 2;
}

/* chain -> ( '->' member | '[' expr ']' )*   then $ / $$ on the last name */
static void parse_chain(struct parser *p, struct expr *e)
{
	struct component **tail = &e->chain;

	for (;;) {
		struct token *t = peek(p);
		struct component *c;

		if (tok_op(t, "->")) {
			next(p);
			t = peek(p);
			if (t->kind != TOK_IDENT || t->text[0] == '$' || t->text[0] == '@')
				error_at(p, t, "expected field name after '->'");
			c = arena_new(p->arena, struct component);
			c->loc = tok_loc(t);
			c->member = next(p)->text;
		} else if (tok_op(t, "[")) {
			next(p);
			c = arena_new(p->arena, struct component);
			c->loc = tok_loc(t);
			c->index = parse_expression(p);
			expect_op(p, "]");
		} else {
			break;
		}
		*tail = c;
		tail = &c->next;
	}
	/* "$var->a[2]$", "@cast(p, \"t\")$", "@var(\"g\")$": a bare $ or $$
	 * after an index, a cast or a @var is the pretty-printer. */
	struct token *t = peek(p);
	if (is_pretty_suffix(t) && (e->kind == E_AUTOCAST ||
				   ((e->chain || e->kind == E_CAST || e->kind == E_ATVAR) && !t->space_before))) {
		e->pretty = strlen(next(p)->text);
		note_use(p, "kernel_or_user_string_quoted", 'f');	/* what pretty.c may call */
		return;
	}
	/* $var$ and $var$$: the lexer keeps trailing '$'s in the last name. */
	const char **last = &e->name;
	for (struct component *c = e->chain; c; c = c->next)
		if (c->member)
			last = &c->member;
	if (*last) {
		size_t len = strlen(*last), n = 0;

		while (n < len && (*last)[len - 1 - n] == '$')
			n++;
		if (n && len - n > 0 && !(last == &e->name && len - n == 1)) {
			e->pretty = n;
			*last = arena_strndup(p->arena, *last, len - n);
			note_use(p, "kernel_or_user_string_quoted", 'f');
		}
	}
}

static const char *const stat_ops[] = { "@count", "@sum", "@min", "@max", "@avg", "@variance" };

bool is_stat_op(const char *s)
{
	for (size_t i = 0; i < sizeof(stat_ops) / sizeof(*stat_ops); i++)
		if (!strcmp(s, stat_ops[i]))
			return true;
	return false;
}

/* The register and memory operators of guru mode, and @perf: any other
 * '@' name left after macro expansion is no operator of the language. */
static const char *const at_calls[] = { "@kregister", "@uregister", "@kderef", "@uderef",
					"@perf" };

/* atcall -> ('@kregister' | '@kderef' | ... ) '(' args ')' */
static struct expr *parse_at_call(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(p, E_AT_CALL, t);
	size_t i;

	for (i = 0; i < sizeof(at_calls) / sizeof(at_calls[0]); i++)
		if (!strcmp(t->text, at_calls[i]))
			break;
	if (i == sizeof(at_calls) / sizeof(at_calls[0]))
		error_at(p, t, "unknown operator '%s' (an undefined macro?)", t->text);
	else if (i < 4 && !p->embedded_ok)
		error_at(p, t, "%s needs guru mode (stap -g)", t->text);
	e->name = t->text;
	e->args = parse_expr_list(p, ")", false);
	/* @perf("NAME"): a counter of the probe's perf.*.counter("NAME") */
	if (i == 4 && (!e->args || e->args->next || e->args->kind != E_STRING || !*e->args->str))
		error_at(p, t, "@perf takes the name of a counter, a non-empty literal string");
	expect_op(p, ")");
	return e;
}

/* atop -> '@' name '(' args ')' chain?   (@cast @var @count @hist_log ...) */
static struct expr *parse_at_op(struct parser *p)
{
	struct token *t = next(p);
	const char *name = t->text;
	struct expr *e;

	expect_op(p, "(");
	if (!strcmp(name, "@cast") || !strcmp(name, "@var")) {
		bool cast = name[1] == 'c';

		e = new_expr(p, cast ? E_CAST : E_ATVAR, t);
		if (cast) {
			e->a = parse_expression(p);
			expect_op(p, ",");
		}
		e->str = parse_string(p);
		if (accept_op(p, ","))
			e->module = parse_string(p);
		expect_op(p, ")");
		parse_chain(p, e);
		return e;
	}
	if (!strcmp(name, "@const")) {
		e = new_expr(p, E_CONST, t);
		e->str = parse_string(p);
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(name, "@enum")) {
		/* @enum("NAME"): the value of an enumerator of the kernel's BTF */
		e = new_expr(p, E_ENUM, t);
		e->str = parse_string(p);
		if (!*e->str)
			error_at(p, t, "@enum takes the name of an enumerator, a non-empty literal string");
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(name, "@enumname")) {
		/* @enumname(value[, "enum type"[, "module"]]) */
		e = new_expr(p, E_ENUMNAME, t);
		e->a = parse_expression(p);
		if (accept_op(p, ",")) {
			e->str = parse_string(p);
			if (!*e->str)
				error_at(p, t, "@enumname's type is a non-empty literal string");
			if (accept_op(p, ","))
				e->module = parse_string(p);
		}
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(name, "@defined") || !strcmp(name, "@entry") ||
	    !strcmp(name, "@probewrite")) {
		e = new_expr(p, name[1] == 'd' ? E_DEFINED : name[1] == 'e' ? E_ENTRY
			     : E_PROBEWRITE, t);
		e->a = parse_expression(p);
		expect_op(p, ")");
		return e;
	}
	if (is_stat_op(name)) {
		e = new_expr(p, E_STAT, t);
		e->name = name;
		e->a = parse_expression(p);
		if (!strcmp(name, "@variance") && accept_op(p, ","))
			e->b = parse_literal(p);
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(name, "@hist_log") || !strcmp(name, "@hist_linear")) {
		e = new_expr(p, E_HIST, t);
		e->name = name;
		e->args = parse_expr_list(p, ")", false);
		expect_op(p, ")");
		int n = 0;
		for (struct expr *a = e->args; a; a = a->next)
			n++;
		if (n != (name[6] == 'l' && name[7] == 'o' ? 1 : 4))
			error_at(p, t, "%s takes %s", name,
				 name[7] == 'o' ? "one argument" : "four arguments (value, low, high, step)");
		if (tok_op(peek(p), "[")) {
			struct token *b = next(p);
			struct expr *ix = new_expr(p, E_INDEX, b);

			ix->a = e;
			ix->args = parse_expression(p);
			expect_op(p, "]");
			return ix;
		}
		return e;
	}
	return parse_at_call(p, t);
}

/* value -> '(' expr ')' | literal | embedded | atop | $target chain
 *        | name '(' args ')' | name '[' keys ']' | name */
/* printd/printdln/sprintd/sprintdln(DELIMITER, a, b, ...): a literal
 * delimiter and at least two values to join, as SystemTap's parser wants. */
static void check_printd(struct parser *p, const struct token *t, const struct expr *call)
{
	int n = 0;

	if (strcmp(t->text, "printd") && strcmp(t->text, "printdln") &&
	    strcmp(t->text, "sprintd") && strcmp(t->text, "sprintdln"))
		return;
	for (const struct expr *a = call->args; a; a = a->next)
		n++;
	if (!call->args || call->args->kind != E_STRING)
		error_at(p, t, "%s needs a literal string delimiter first", t->text);
	if (n < 3)
		error_at(p, t, "%s joins at least two values after its delimiter", t->text);
}

/*
 * printf/sprintf's format against SystemTap's grammar (printf_format.h),
 * as its parser checks it.  The error is at the offending '%' in the
 * source: the literal's first token is at index first, and the format is
 * its glued tokens' texts one after the other.
 */
static void check_printf_format(struct parser *p, const struct token *t, size_t first,
				const struct expr *call)
{
	const char *fmt, *at, *err = NULL;
	struct printf_conv c;
	struct token *s = &p->tok[first];
	struct loc loc;
	size_t off;
	int r;

	if (strcmp(t->text, "printf") && strcmp(t->text, "sprintf"))
		return;
	if (!call->args || call->args->kind != E_STRING || s->kind != TOK_STRING)
		return;
	fmt = at = call->args->str;
	while ((r = printf_next_conv(&at, &c, &err)) > 0)
		;
	if (!r)
		return;
	for (off = c.at - fmt; s[1].kind == TOK_STRING && off >= strlen(s->text); s++)
		off -= strlen(s->text);
	loc = tok_loc(s);
	loc.col += 1 + off;		/* past the opening quote */
	diag_error("parse", &loc, arena_printf(p->arena, "conversion '%.*s'", (int)(c.end - c.at), c.at),
		   "%s", err);
	longjmp(p->recover, 1);
}

/* autocast -> value ( '->' member | '[' expr ']' )* ('$' | '$$')?
 * Members, elements and the pretty-printer of any value whose type pass 2
 * infers (SystemTap's autocast, from 2.6: "f()->m", "(p)[1]", "x $").
 * An array name's own '[' is its index, parsed before this. */
static struct expr *autocast(struct parser *p, struct expr *e)
{
	struct token *t = peek(p);
	struct expr *ac;

	if (!tok_op(t, "->") && !tok_op(t, "[") && !is_pretty_suffix(t))
		return e;
	if (!p->autocast_ok)
		error_at(p, t, "'%s' after this value is an autocast, which needs --compatible=2.6 or later",
			 t->text);
	ac = new_expr(p, E_AUTOCAST, t);
	ac->a = e;
	parse_chain(p, ac);
	return ac;
}

static struct expr *parse_value(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (tok_op(t, "(")) {
		next(p);
		e = parse_expression(p);
		expect_op(p, ")");
		return autocast(p, e);
	}
	if (t->kind == TOK_NUMBER || t->kind == TOK_STRING)
		return autocast(p, parse_literal(p));
	if (t->kind == TOK_EMBEDDED) {
		check_embedded(p, t);
		e = new_expr(p, E_EMBEDDED, t);
		e->str = next(p)->text;
		return autocast(p, e);
	}
	if (t->kind == TOK_ERROR)	/* from a macro body lexed elsewhere */
		error_at(p, t, "%s", t->text);
	if (t->kind != TOK_IDENT)
		error_at(p, t, "expected value");
	if (t->text[0] == '@') {
		if (!tok_op(peek_at(p, 1), "("))
			error_at(p, t, "expected '(' after %s", t->text);
		e = parse_at_op(p);
		/* @cast and @var took their own chain */
		return e->kind == E_CAST || e->kind == E_ATVAR ? e : autocast(p, e);
	}
	if (t->text[0] == '$') {
		if (t->text[1] == '\0')
			error_at(p, t, "expected name after '$'");
		e = new_expr(p, E_TARGET, t);
		e->name = next(p)->text;
		parse_chain(p, e);
		return e;
	}
	if (t->keyword)
		error_at(p, t, "expected value");
	next(p);
	if (tok_op(peek(p), "(")) {
		e = new_expr(p, E_CALL, t);
		e->name = t->text;
		next(p);
		size_t first = p->pos;

		e->args = parse_expr_list(p, ")", false);
		expect_op(p, ")");
		check_printd(p, t, e);
		check_printf_format(p, t, first, e);
		return autocast(p, e);
	}
	e = new_expr(p, E_SYMBOL, t);
	e->name = t->text;
	if (tok_op(peek(p), "[")) {
		struct expr *ix = new_expr(p, E_INDEX, peek(p));

		next(p);
		ix->a = e;
		ix->args = parse_expr_list(p, "]", true);
		if (!ix->args)
			error_at(p, peek(p), "expected index expression");
		expect_op(p, "]");
		return autocast(p, ix);
	}
	return autocast(p, e);
}

/* crement -> ('++' | '--') crement | value ('++' | '--')? */
static struct expr *parse_crement(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (tok_op(t, "++") || tok_op(t, "--")) {
		next(p);
		enter(p);
		e = new_expr(p, E_UNARY, t);
		e->op = t->text;
		e->opid = t->op;
		e->a = parse_crement(p);
		leave(p);
		return e;
	}
	e = parse_value(p);
	t = peek(p);
	if (tok_op(t, "++") || tok_op(t, "--")) {
		struct expr *post = new_expr(p, E_POSTFIX, t);

		next(p);
		post->op = t->text;
		post->opid = t->op;
		post->a = e;
		return post;
	}
	return e;
}

/* unary -> ('+' | '-' | '!' | '~') unary | '&' value | crement   (- number folds) */
static struct expr *parse_unary(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (tok_op(t, "-") && peek_at(p, 1)->kind == TOK_NUMBER)
		return parse_literal(p);
	if (tok_op(t, "&")) {
		/* &$var->m, &@cast(p, "t")->m[i]: a member's address. */
		next(p);
		e = parse_value(p);
		if (e->kind != E_TARGET && e->kind != E_CAST && e->kind != E_ATVAR &&
		    e->kind != E_AUTOCAST) {
			if (!p->autocast_ok)
				error_at(p, t, "'&' of a value other than a $target or @cast is an autocast, which needs --compatible=2.6 or later");
			/* &(value): an address SystemTap would infer; pass 2 refuses it. */
			struct expr *ac = new_expr(p, E_AUTOCAST, t);

			ac->a = e;
			e = ac;
		}
		e->addressof = true;
		return e;
	}
	if (tok_op(t, "+") || tok_op(t, "-") || tok_op(t, "!") || tok_op(t, "~")) {
		next(p);
		enter(p);
		e = new_expr(p, E_UNARY, t);
		e->op = t->text;
		e->opid = t->op;
		e->a = parse_unary(p);
		leave(p);
		return e;
	}
	return parse_crement(p);
}

/*
 * Binary operators by precedence climbing (as Lua's subexpr): every
 * operator has a priority, higher binds tighter, all are left-associative:
 *   || && | ^ & (in) (< > <= >= == != =~ !~) (<< >> >>>) . (+ -) (* / %)
 * "in" takes an array, not an expression, on its right.
 */
#define PRIO_IN		6

/* Priority by operator id (lex_op_id), 0 for none: filled once. */
static unsigned char op_priority[LEX_N_OPS + 1];

void init_priorities(void)
{
	static const struct { const char *op; int prio; } ops[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
		{ "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 }, { "==", 7 },
		{ "!=", 7 }, { "=~", 7 }, { "!~", 7 }, { "<<", 8 }, { ">>", 8 },
		{ ">>>", 8 }, { ".", 9 }, { "+", 10 }, { "-", 10 }, { "*", 11 },
		{ "/", 11 }, { "%", 11 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		op_priority[lex_op_id(ops[i].op)] = ops[i].prio;
	op_priority[0] = 0;
}

static int binary_priority(const struct token *t)
{
	if (t->kind == TOK_IDENT)
		return t->keyword && !strcmp(t->text, "in") ? PRIO_IN : 0;
	return op_priority[t->op];
}

/* indexable -> name | @hist_*(...) */
struct expr *parse_indexable(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (t->kind == TOK_IDENT && (!strcmp(t->text, "@hist_log") ||
				     !strcmp(t->text, "@hist_linear"))) {
		e = parse_at_op(p);
		/* "k in @hist_log(s)[k]": a bucket is not something to be in */
		if (e->kind != E_HIST)
			error_at(p, t, "expected a histogram or an array name after 'in'");
		return e;
	}
	t = expect_name(p, "array name");
	e = new_expr(p, E_SYMBOL, t);
	e->name = t->text;
	return e;
}

/* operand -> '[' exprlist ']' 'in' indexable | unary */
static struct expr *parse_operand(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (!tok_op(t, "["))
		return parse_unary(p);
	next(p);
	e = new_expr(p, E_IN, t);
	e->args = parse_expr_list(p, "]", true);
	expect_op(p, "]");
	if (!accept_ident(p, "in"))
		error_at(p, peek(p), "expected 'in'");
	e->a = parse_indexable(p);
	return e;
}

/* binary(limit) -> operand (op binary(prio(op)))*  for ops with prio > limit */
static struct expr *parse_binary(struct parser *p, int limit)
{
	struct expr *e = parse_operand(p);
	int prio, chain = 0;

	while ((prio = binary_priority(peek(p))) > limit) {
		struct token *t = next(p);
		struct expr *b;

		/* A left-associative chain (1+1+...+1) grows the tree one level
		 * a term without recursing here; every later pass recurses, so
		 * it counts too, against a bound of its own (long sums are real). */
		if (++p->chain > MAX_CHAIN)
			error_at(p, t, "expression too deeply nested (more than %d terms)", MAX_CHAIN);
		chain++;

		if (prio == PRIO_IN) {
			b = new_expr(p, E_IN, t);
			b->args = e;
			b->a = parse_indexable(p);
		} else {
			b = new_expr(p, E_BINARY, t);
			b->op = t->text;
			b->opid = t->op;
			b->a = e;
			b->b = parse_binary(p, prio);
			/* The pattern is compiled when the module is built. */
			if ((tok_op(t, "=~") || tok_op(t, "!~")) && b->b->kind != E_STRING)
				error_at(p, t, "the right side of '%s' must be a literal regular "
					 "expression", t->text);
		}
		e = b;
	}
	p->chain -= chain;
	return e;
}

/* ternary -> logical_or ['?' expr ':' expr] */
static struct expr *parse_ternary(struct parser *p)
{
	struct expr *e = parse_binary(p, 0);
	struct token *t = peek(p);

	if (tok_op(t, "?")) {
		struct expr *c = new_expr(p, E_TERNARY, t);

		next(p);
		c->a = e;
		c->b = parse_expression(p);
		expect_op(p, ":");
		c->c = parse_expression(p);
		return c;
	}
	return e;
}

/* Which operator ids assign: filled once. */
static bool op_assigns[LEX_N_OPS + 1];

void init_assign_ops(void)
{
	static const char *const assign_ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", ".=", "<<<",
	};

	for (size_t i = 0; i < sizeof(assign_ops) / sizeof(*assign_ops); i++)
		op_assigns[lex_op_id(assign_ops[i])] = true;
	op_assigns[0] = false;
}

/* expr -> ternary [assign_op expr] */
struct expr *parse_expression(struct parser *p)
{
	struct expr *e;
	struct token *t;

	enter(p);
	e = parse_ternary(p);
	t = peek(p);
	if (op_assigns[t->op]) {
		struct expr *a = new_expr(p, E_ASSIGN, t);

		next(p);
		a->op = t->text;
		a->opid = t->op;
		a->a = e;
		a->b = parse_expression(p);
		e = a;
	}
	leave(p);
	return e;
}
