/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse_internal.h - what parse.c (statements, probe points, declarations)
 * and parse_expr.c (expressions) share: the parser's state, token access,
 * error unwinding and node constructors, and the expression rules the
 * statements start from.  Not for the other passes: they see parse.h.
 */
#ifndef PARSE_INTERNAL_H
#define PARSE_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "parse.h"

struct parser {
	struct arena *arena;
	struct token *tok;	/* the chunk being parsed: toks.v */
	size_t pos;
	struct lexer lx;
	struct pp *pp;
	struct tokens raw, toks;
	bool more;		/* chunks after this one */
	int depth;
	int chain;			/* open left-associative terms, see parse_binary */
	jmp_buf recover;
	struct script *script;
	struct probe **probes_tail;
	struct function **functions_tail;
	struct global **globals_tail;
	struct embedded **embeds_tail;
	size_t cap_uses;	/* of script->uses */
	size_t uses_kept;	/* script->n_uses before this declaration */
	bool embedded_ok;	/* a tapset, or -g: %{ %} allowed */
	bool autocast_ok;	/* a tapset, or --compatible 2.6 on */
	bool comments_glue;	/* strings with a comment between glue: 2.0 on */
	bool in_function;	/* return allowed */
	const struct param *params;	/* of the function being parsed */
};

/* ---- token access (parse.c) ---- */

static inline struct token *peek(struct parser *p)
{
	return &p->tok[p->pos];
}

static inline struct token *peek_at(struct parser *p, size_t ahead)
{
	size_t i = p->pos;

	while (ahead-- && p->tok[i].kind != TOK_EOF)
		i++;
	return &p->tok[i];
}

static inline struct token *next(struct parser *p)
{
	struct token *t = &p->tok[p->pos];

	if (t->kind != TOK_EOF)
		p->pos++;
	return t;
}

/* Reports a syntax error at t and unwinds to the declaration (p->recover). */
_Noreturn void error_at(struct parser *p, const struct token *t,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* accept_op() and friends are inline so that tok_is() sees its literal. */
static inline bool accept_op(struct parser *p, const char *op)
{
	if (!tok_op(peek(p), op))
		return false;
	next(p);
	return true;
}

static inline bool accept_ident(struct parser *p, const char *id)
{
	if (!tok_ident(peek(p), id))
		return false;
	next(p);
	return true;
}

static inline struct token *expect_op(struct parser *p, const char *op)
{
	if (!tok_op(peek(p), op))
		error_at(p, peek(p), "expected '%s'", op);
	return next(p);
}

struct token *expect_name(struct parser *p, const char *what);
void enter(struct parser *p);	/* one level deeper, bounded */
void leave(struct parser *p);
void check_embedded(struct parser *p, const struct token *t);
void note_use(struct parser *p, const char *name, char kind);	/* for pass 1's tapset search */
struct expr *new_expr(struct parser *p, enum expr_kind kind, const struct token *t);

/* ---- expressions (parse_expr.c) ---- */

void init_priorities(void);	/* the operator tables, once */
void init_assign_ops(void);
struct expr *parse_literal(struct parser *p);
struct expr *parse_expr_list(struct parser *p, const char *close, bool wildcards);
bool is_stat_op(const char *s);
struct expr *parse_indexable(struct parser *p);
struct expr *parse_expression(struct parser *p);

#endif /* PARSE_INTERNAL_H */
