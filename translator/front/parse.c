// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - hand-written recursive-descent parser for the SystemTap language:
 * statements, probe points and declarations, and the entry points
 * (parse_script, source_from_file).  Expressions are parse_expr.c's; what
 * the two share is parse_internal.h.
 *
 * Each grammar rule is a small function with the rule as its comment.
 * A syntax error is reported once and unwinds (longjmp) to the top level,
 * which skips to the next declaration and goes on, so one run reports the
 * errors of every declaration.  All memory is in the arena, so unwinding
 * leaks nothing.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse_internal.h"
#include "xalloc.h"

#define MAX_SOURCE	(256 << 20)	/* bytes of one script or tapset file */
#define MAX_DEPTH	1000	/* nesting of statements and expressions; each
				   level costs at most ~15 stack frames */

/* ---- token access ---- */

_Noreturn void error_at(struct parser *p, const struct token *t,
			const char *fmt, ...)
{
	struct loc loc = tok_loc(t);
	va_list ap;

	va_start(ap, fmt);
	diag_verror("parse", &loc, token_describe(p->arena, t), fmt, ap);
	va_end(ap);
	longjmp(p->recover, 1);
}

/* An identifier that may name a variable or function (not a keyword). */
struct token *expect_name(struct parser *p, const char *what)
{
	struct token *t = peek(p);

	if (t->kind != TOK_IDENT || t->keyword || t->text[0] == '$' ||
	    t->text[0] == '@')
		error_at(p, t, "expected %s", what);
	return next(p);
}

void enter(struct parser *p)
{
	if (++p->depth > MAX_DEPTH)
		error_at(p, peek(p), "nesting too deep (more than %d levels)", MAX_DEPTH);
}

/* Embedded C in a user script needs -g (SystemTap's parser says so). */
void check_embedded(struct parser *p, const struct token *t)
{
	if (!p->embedded_ok)
		error_at(p, t, "embedded code in unprivileged script; need stap -g");
}

void leave(struct parser *p)
{
	p->depth--;
}

void note_use(struct parser *p, const char *name, char kind)
{
	struct script *s = p->script;

	if (s->n_uses == p->cap_uses) {
		p->cap_uses = p->cap_uses ? 2 * p->cap_uses : 64;
		s->uses = xrealloc(s->uses, p->cap_uses * sizeof(*s->uses));
	}
	s->uses[s->n_uses++] = (struct name_use){ name, kind };
}

/* A parameter hides a global of its name: no tapset is needed for it. */
static bool is_param(const struct parser *p, const char *name)
{
	for (const struct param *q = p->params; q; q = q->next)
		if (!strcmp(q->name, name))
			return true;
	return false;
}

struct expr *new_expr(struct parser *p, enum expr_kind kind, const struct token *t)
{
	struct expr *e = arena_new(p->arena, struct expr);

	e->kind = kind;
	e->loc = tok_loc(t);
	if (kind == E_CALL || (kind == E_SYMBOL && !is_param(p, t->text)))
		note_use(p, t->text, kind == E_CALL ? 'f' : 'g');	/* named t */
	return e;
}

static struct stmt *new_stmt(struct parser *p, enum stmt_kind kind, const struct token *t)
{
	struct stmt *s = arena_new(p->arena, struct stmt);

	s->kind = kind;
	s->loc = tok_loc(t);
	return s;
}

static struct stmt *parse_statement(struct parser *p);
static struct stmt *parse_block(struct parser *p);

/* ---- statements ---- */

/* ';' after a simple statement is optional, and belongs to it. */
static void end_simple(struct parser *p)
{
	accept_op(p, ";");
}

/* foreach -> 'foreach' '(' [name '='] keys [sort] 'in' indexable [pattern]
 *            [sort | @agg sort] ['limit' expr] ')' statement */
static struct stmt *parse_foreach(struct parser *p, struct token *kw)
{
	struct stmt *s = new_stmt(p, S_FOREACH, kw);
	struct foreach_info *fe = arena_new(p->arena, struct foreach_info);
	struct expr **tail = &fe->keys;
	bool bracket;
	int column = 0;

	s->fe = fe;
	expect_op(p, "(");
	if (peek(p)->kind == TOK_IDENT && tok_op(peek_at(p, 1), "=")) {
		struct token *v = expect_name(p, "value variable");

		fe->value = new_expr(p, E_SYMBOL, v);
		fe->value->name = v->text;
		next(p);
	}
	bracket = accept_op(p, "[");
	do {
		struct token *k = expect_name(p, "loop variable");
		struct token *t = peek(p);

		*tail = new_expr(p, E_SYMBOL, k);
		(*tail)->name = k->text;
		tail = &(*tail)->next;
		column++;
		if (tok_op(t, "+") || tok_op(t, "-")) {
			if (fe->sort_column)
				error_at(p, t, "multiple sort directives");
			fe->sort_column = column;
			fe->sort_dir = t->text[0] == '+' ? 1 : -1;
			next(p);
		}
	} while (bracket && accept_op(p, ","));
	if (bracket)
		expect_op(p, "]");
	if (!accept_ident(p, "in"))
		error_at(p, peek(p), "expected 'in'");
	fe->array = parse_indexable(p);
	if (tok_op(peek(p), "[") && fe->array->kind == E_SYMBOL) {
		struct token *b = next(p);

		fe->pattern = parse_expr_list(p, "]", true);
		if (!fe->pattern)
			error_at(p, b, "an array slice names each index: a value or '*'");
		expect_op(p, "]");
	}
	struct token *t = peek(p);
	if (t->kind == TOK_IDENT && is_stat_op(t->text)) {
		fe->sort_agg = next(p)->text;
		t = peek(p);
		if (!tok_op(t, "+") && !tok_op(t, "-"))
			error_at(p, t, "expected '+' or '-' after %s", fe->sort_agg);
	}
	if (tok_op(t, "+") || tok_op(t, "-")) {
		if (fe->sort_column)
			error_at(p, t, "multiple sort directives");
		fe->sort_column = -1;
		fe->sort_dir = t->text[0] == '+' ? 1 : -1;
		next(p);
	}
	if (accept_ident(p, "limit"))
		fe->limit = parse_expression(p);
	expect_op(p, ")");
	s->body = parse_statement(p);
	return s;
}

/* for -> 'for' '(' [expr] ';' [expr] ';' [expr] ')' statement */
static struct stmt *parse_for(struct parser *p, struct token *kw)
{
	struct stmt *s = new_stmt(p, S_FOR, kw);

	expect_op(p, "(");
	if (!tok_op(peek(p), ";"))
		s->init = parse_expression(p);
	expect_op(p, ";");
	if (!tok_op(peek(p), ";"))
		s->e = parse_expression(p);
	expect_op(p, ";");
	if (!tok_op(peek(p), ")"))
		s->incr = parse_expression(p);
	expect_op(p, ")");
	s->body = parse_statement(p);
	return s;
}

/* try -> 'try' block 'catch' ['(' name ')'] block */
static struct stmt *parse_try(struct parser *p, struct token *kw)
{
	struct stmt *s = new_stmt(p, S_TRY, kw);

	s->body = parse_block(p);
	if (!accept_ident(p, "catch"))
		error_at(p, peek(p), "expected 'catch'");
	if (accept_op(p, "(")) {
		s->catch_var = expect_name(p, "catch variable")->text;
		expect_op(p, ")");
	}
	s->els = parse_block(p);
	return s;
}

static bool starts_statement_end(struct parser *p)
{
	struct token *t = peek(p);

	return tok_op(t, ";") || tok_op(t, "}") || t->kind == TOK_EOF;
}

static struct stmt *parse_statement_inner(struct parser *p)
{
	struct token *t = peek(p);
	struct stmt *s;

	if (tok_op(t, ";")) {
		next(p);
		return new_stmt(p, S_NULL, t);
	}
	if (tok_op(t, "{"))
		return parse_block(p);
	if (t->kind == TOK_EMBEDDED) {
		check_embedded(p, t);
		s = new_stmt(p, S_EMBEDDED, t);
		s->code = next(p)->text;
		return s;
	}
	if (t->keyword) {
		const char *kw = next(p)->text;

		if (!strcmp(kw, "if")) {
			s = new_stmt(p, S_IF, t);
			expect_op(p, "(");
			s->e = parse_expression(p);
			expect_op(p, ")");
			s->body = parse_statement(p);
			if (accept_ident(p, "else"))
				s->els = parse_statement(p);
			return s;
		}
		if (!strcmp(kw, "while")) {
			s = new_stmt(p, S_WHILE, t);
			expect_op(p, "(");
			s->e = parse_expression(p);
			expect_op(p, ")");
			s->body = parse_statement(p);
			return s;
		}
		if (!strcmp(kw, "for"))
			return parse_for(p, t);
		if (!strcmp(kw, "foreach"))
			return parse_foreach(p, t);
		if (!strcmp(kw, "try"))
			return parse_try(p, t);
		if (!strcmp(kw, "break") || !strcmp(kw, "continue") || !strcmp(kw, "next")) {
			s = new_stmt(p, kw[0] == 'b' ? S_BREAK : kw[0] == 'c' ? S_CONTINUE : S_NEXT, t);
			end_simple(p);
			return s;
		}
		if (!strcmp(kw, "return")) {
			if (!p->in_function)
				error_at(p, t, "return outside a function (use next to leave a probe)");
			s = new_stmt(p, S_RETURN, t);
			if (!starts_statement_end(p))
				s->e = parse_expression(p);
			end_simple(p);
			return s;
		}
		if (!strcmp(kw, "delete")) {
			s = new_stmt(p, S_DELETE, t);
			s->e = parse_expression(p);
			end_simple(p);
			return s;
		}
		error_at(p, t, "expected statement");
	}
	s = new_stmt(p, S_EXPR, t);
	s->e = parse_expression(p);
	end_simple(p);
	return s;
}

static struct stmt *parse_statement(struct parser *p)
{
	struct stmt *s;

	enter(p);
	s = parse_statement_inner(p);
	leave(p);
	return s;
}

/* block -> '{' statement* '}' */
static struct stmt *parse_block(struct parser *p)
{
	struct token *t = expect_op(p, "{");
	struct stmt *b = new_stmt(p, S_BLOCK, t), **tail = &b->body;

	enter(p);
	while (!tok_op(peek(p), "}")) {
		if (peek(p)->kind == TOK_EOF)
			error_at(p, peek(p), "expected '}' to close the block at %s:%d:%d",
				 lex_sources[t->src]->name, t->line, t->col);
		*tail = parse_statement(p);
		tail = &(*tail)->next;
	}
	next(p);
	leave(p);
	return b;
}

/* ---- probe points ---- */

/*
 * Is the '{' at the cursor a brace expansion glued to a component name
 * ("syscall.{open,close}") rather than a probe body ("probe begin{...}")?
 * Yes when it holds only names, '*' and ',' with no spaces, with a ',' at
 * its top level, up to its matching '}'.
 */
static bool brace_expansion_ahead(struct parser *p)
{
	int depth = 0;
	bool comma = false;

	/* A walk over the tokens, not peek_at(p, i): that is O(i) each. */
	for (const struct token *t = peek(p);; t++) {
		if (t->kind == TOK_EOF || (t != peek(p) && t->space_before))
			return false;
		if (tok_op(t, "{")) {
			depth++;
		} else if (tok_op(t, "}")) {
			if (--depth == 0)
				return comma;
		} else if (tok_op(t, ",")) {
			comma |= depth == 1;
		} else if (t->kind != TOK_IDENT && t->kind != TOK_NUMBER && !tok_op(t, "*")) {
			return false;
		}
	}
}

/* component_name -> (name | '*' | number | brace_expansion)+ with no spaces */
static const char *parse_component_name(struct parser *p)
{
	size_t start = p->pos, len = 0;
	int depth = 0;
	char *name;

	for (;;) {
		struct token *t = peek(p);

		if (p->pos > start && t->space_before && depth == 0)
			break;
		if (tok_op(t, "{")) {
			if (depth == 0 && !brace_expansion_ahead(p))
				break;
			depth++;
		} else if (tok_op(t, "}")) {
			if (depth == 0)
				break;
			depth--;
		} else if (tok_op(t, ",")) {
			if (depth == 0)
				break;
		} else if (!(t->kind == TOK_IDENT && t->text[0] != '$' && t->text[0] != '@') &&
			   !tok_op(t, "*") && !(t->kind == TOK_NUMBER && p->pos > start)) {
			break;
		}
		len += strlen(next(p)->text);
	}
	if (p->pos == start)
		error_at(p, peek(p), "expected probe point component");
	if (p->pos == start + 1)
		return p->tok[start].text;	/* most are one token */
	name = arena_alloc(p->arena, len + 1);
	for (size_t i = start, o = 0; i < p->pos; i++) {
		size_t n = strlen(p->tok[i].text);

		memcpy(name + o, p->tok[i].text, n);
		o += n;
	}
	return name;
}

/* A probe point's component lists while it is parsed: more than one when
 * braces group whole components ("kernel.{function("a"),trace("b")}"). */
#define MAX_PP_ALTERNATIVES	1024

struct pp_alts {
	struct pp_component **v;	/* each alternative's first component */
	unsigned char *flags;		/* PP_OPTIONAL | PP_SUFFICIENT: "{a!, b}" */
	int n;
};

enum { PP_OPTIONAL = 1, PP_SUFFICIENT = 2 };

/* ['?' | '!']*: the markers after a point or a braced alternative. */
static unsigned char parse_markers(struct parser *p)
{
	unsigned char f = 0;

	for (;;) {
		if (accept_op(p, "?"))
			f |= PP_OPTIONAL;
		else if (accept_op(p, "!"))
			f |= PP_OPTIONAL | PP_SUFFICIENT;
		else
			return f;
	}
}

static struct pp_component *copy_components(struct parser *p, const struct pp_component *c)
{
	struct pp_component *head = NULL, **tail = &head;

	for (; c; c = c->next) {
		*tail = arena_new(p->arena, struct pp_component);
		**tail = *c;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	return head;
}

/* a := each of a followed by each of b (copies: the lists are linked). */
static void cross(struct parser *p, struct pp_alts *a, const struct pp_alts *b)
{
	struct pp_alts r = { 0 };

	if ((long)a->n * b->n > MAX_PP_ALTERNATIVES)
		error_at(p, peek(p), "probe point has more than %d alternatives",
			 MAX_PP_ALTERNATIVES);
	r.v = arena_alloc(p->arena, (a->n * b->n + 1) * sizeof(*r.v));
	r.flags = arena_alloc(p->arena, a->n * b->n + 1);
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			struct pp_component *head = copy_components(p, a->v[i]), **tail = &head;

			while (*tail)
				tail = &(*tail)->next;
			*tail = copy_components(p, b->v[j]);
			r.flags[r.n] = a->flags[i] | b->flags[j];
			r.v[r.n++] = head;
		}
	*a = r;
}

/* component -> component_name ['(' literal ')'] */
static struct pp_component *parse_component(struct parser *p)
{
	struct pp_component *c = arena_new(p->arena, struct pp_component);

	c->loc = tok_loc(peek(p));
	c->name = parse_component_name(p);
	if (tok_op(peek(p), "(")) {
		next(p);
		c->arg = parse_literal(p);
		expect_op(p, ")");
	}
	return c;
}

/* components -> element ('.' element)*
 * element -> component | '{' components markers (',' components markers)* '}' */
static struct pp_alts parse_components(struct parser *p)
{
	struct pp_alts alts = { arena_alloc(p->arena, sizeof(*alts.v)), arena_alloc(p->arena, 1), 1 };

	alts.v[0] = NULL;
	alts.flags[0] = 0;
	do {
		struct pp_alts group = { 0 };

		if (tok_op(peek(p), "{") && !brace_expansion_ahead(p)) {
			enter(p);
			next(p);
			do {
				struct pp_alts one = parse_components(p);
				unsigned char f = parse_markers(p), *flags;
				struct pp_component **v;

				if (group.n + one.n > MAX_PP_ALTERNATIVES)
					error_at(p, peek(p), "probe point has more than %d "
						 "alternatives", MAX_PP_ALTERNATIVES);
				v = arena_alloc(p->arena, (group.n + one.n + 1) * sizeof(*v));
				flags = arena_alloc(p->arena, group.n + one.n + 1);
				if (group.n) {
					memcpy(v, group.v, group.n * sizeof(*v));
					memcpy(flags, group.flags, group.n);
				}
				memcpy(v + group.n, one.v, one.n * sizeof(*v));
				for (int i = 0; i < one.n; i++)
					flags[group.n + i] = one.flags[i] | f;
				group.v = v;
				group.flags = flags;
				group.n += one.n;
			} while (accept_op(p, ","));
			expect_op(p, "}");
			leave(p);
		} else {
			group.v = arena_alloc(p->arena, sizeof(*group.v));
			group.flags = arena_alloc(p->arena, 1);
			group.v[0] = parse_component(p);
			group.flags[0] = 0;
			group.n = 1;
		}
		cross(p, &alts, &group);
	} while (accept_op(p, "."));
	return alts;
}

/* probe_point -> components ['?' | '!']* ['if' '(' expr ')']: one point for
 * each alternative of its components, sharing the rest. */
static struct probe_point *parse_probe_point(struct parser *p, bool alias_name)
{
	struct loc loc = tok_loc(peek(p));
	struct pp_alts alts = parse_components(p);
	struct probe_point *head = NULL, **tail = &head, tmpl = { .loc = loc };
	unsigned char f = alias_name ? 0 : parse_markers(p);

	if (!alias_name) {
		if (accept_ident(p, "if")) {
			expect_op(p, "(");
			tmpl.condition = parse_expression(p);
			expect_op(p, ")");
		}
	}
	for (int i = 0; i < alts.n; i++) {
		*tail = arena_new(p->arena, struct probe_point);
		**tail = tmpl;
		(*tail)->components = alts.v[i];
		(*tail)->optional = (f | alts.flags[i]) & PP_OPTIONAL;
		(*tail)->sufficient = (f | alts.flags[i]) & PP_SUFFICIENT;
		tail = &(*tail)->next;
	}
	return head;
}

static struct probe_point *parse_probe_points(struct parser *p, bool alias_names)
{
	struct probe_point *head = NULL, **tail = &head;

	do {
		*tail = parse_probe_point(p, alias_names);
		while (*tail)
			tail = &(*tail)->next;
	} while (accept_op(p, ","));
	return head;
}

/* parse.h; pass 1's tapset search takes probe points as globs (note_use). */
const char *probe_point_name(struct arena *a, const struct probe_point *pp, bool glob)
{
	size_t len = 0, o = 0;
	char *name;

	for (const struct pp_component *c = pp->components; c; c = c->next)
		len += strlen(c->name) + 1;
	name = arena_bump(a, len + 1, 1);
	for (const struct pp_component *c = pp->components; c; c = c->next) {
		const char *s = glob && (strchr(c->name, '{') || !strcmp(c->name, "**")) ? "*"
										  : c->name;
		size_t n = strlen(s);

		if (o)
			name[o++] = '.';
		memcpy(name + o, s, n);
		o += n;
	}
	name[o] = '\0';
	return name;
}

static void link_probe(struct parser *p, struct probe *pr);

/* probe -> 'probe' points block
 *        | 'probe' names '=' points block [',' block]   (alias: prologue, epilogue)
 *        | 'probe' names '+=' points block              (alias: epilogue) */
static void parse_probe(struct parser *p, struct token *kw)
{
	struct probe *pr = arena_new(p->arena, struct probe);
	size_t start = p->pos;

	pr->loc = tok_loc(kw);
	pr->privileged = p->script->is_tapset;
	/* An alias's names look like probe points; try them as names first. */
	struct probe_point *names = parse_probe_points(p, true);
	struct token *t = peek(p);
	bool epilogue = false;

	if (tok_op(t, "=") || tok_op(t, "+=")) {
		next(p);
		pr->is_alias = true;
		epilogue = t->text[0] == '+';
		pr->alias_names = names;
	} else {
		p->pos = start;
	}
	pr->points = parse_probe_points(p, false);
	for (struct probe_point *pp = pr->points; pp; pp = pp->next)
		note_use(p, probe_point_name(p->arena, pp, true), 'a');
	if (epilogue) {
		pr->epilogue = parse_block(p);
		link_probe(p, pr);
		return;
	}
	pr->body = parse_block(p);
	/* "= points { prologue }, { epilogue }" */
	if (pr->is_alias && tok_op(peek(p), ",") && tok_op(peek_at(p, 1), "{")) {
		next(p);
		pr->epilogue = parse_block(p);
	}
	link_probe(p, pr);
}

static void link_probe(struct parser *p, struct probe *pr)
{
	*p->probes_tail = pr;
	p->probes_tail = &pr->next;
}

/* ---- declarations ---- */

/* global -> 'global' gvar (',' gvar)*
 * gvar -> name ['%'] ['[' number ']'] ['%'] ['=' literal] */
static void parse_global(struct parser *p, bool private)
{
	do {
		struct token *t = expect_name(p, "identifier");
		struct global *g = arena_new(p->arena, struct global);

		for (const struct global *o = p->script->globals; o; o = o->next)
			if (!strcmp(o->name, t->text))
				error_at(p, t, o->private != private ?
					 "'%s' is declared both global and private" :
					 "duplicate global variable '%s'", t->text);
		g->loc = tok_loc(t);
		g->name = t->text;
		g->private = private;
		if (accept_op(p, "%"))
			g->wrap = g->is_array = true;
		if (accept_op(p, "[")) {
			struct token *n = peek(p);

			if (n->kind != TOK_NUMBER || tok_number(n) <= 0)
				error_at(p, n, "expected positive array size");
			g->size = tok_number(next(p));
			g->is_array = true;
			expect_op(p, "]");
			if (accept_op(p, "%"))
				g->wrap = true;
		}
		if (accept_op(p, "=")) {
			if (g->is_array)
				error_at(p, peek(p), "array cannot be initialized");
			g->init = parse_literal(p);
		}
		*p->globals_tail = g;
		p->globals_tail = &g->next;
	} while (accept_op(p, ","));
	end_simple(p);
}

static const char *parse_opt_type(struct parser *p)
{
	struct token *t;

	if (!accept_op(p, ":"))
		return NULL;
	t = peek(p);
	if (!tok_ident(t, "long") && !tok_ident(t, "string"))
		error_at(p, t, "expected type 'long' or 'string'");
	return next(p)->text;
}

/* function -> 'function' name [':' type] '(' [param (',' param)*] ')'
 *             (block | embedded);  param -> name [':' type] */
static void parse_function(struct parser *p, bool private)
{
	struct token *t = expect_name(p, "function name");
	struct function *f = arena_new(p->arena, struct function);
	struct param **tail = &f->params;

	f->loc = tok_loc(t);
	f->name = t->text;
	f->private = private;
	f->type = parse_opt_type(p);
	expect_op(p, "(");
	if (!tok_op(peek(p), ")")) {
		do {
			struct token *a = expect_name(p, "parameter name");
			struct param *pa = arena_new(p->arena, struct param);

			for (const struct param *q = f->params; q; q = q->next)
				if (!strcmp(q->name, a->text))
					error_at(p, a, "duplicate parameter '%s'", a->text);
			pa->loc = tok_loc(a);
			pa->name = a->text;
			pa->type = parse_opt_type(p);
			*tail = pa;
			tail = &pa->next;
		} while (accept_op(p, ","));
	}
	expect_op(p, ")");
	if (peek(p)->kind == TOK_EMBEDDED) {
		check_embedded(p, peek(p));
		f->embedded = next(p)->text;
	} else {
		p->in_function = true;
		p->params = f->params;
		f->body = parse_block(p);
		p->in_function = false;
		p->params = NULL;
	}
	*p->functions_tail = f;
	p->functions_tail = &f->next;
}

/* The next chunk of tokens, lexed and preprocessed, in place of this one. */
static void read_chunk(struct parser *p)
{
	p->more = lex_chunk(&p->lx, &p->raw);
	pp_chunk(p->pp, &p->raw, &p->toks);
	if (p->lx.junk)
		tokens_report(&p->toks);
	p->tok = p->toks.v;
	p->pos = 0;
}

/*
 * The token after a declaration.  Only here, between declarations, may the
 * chunk move on: the parser holds no token of it (see lex.h).
 */
static struct token *peek_declaration(struct parser *p)
{
	while (peek(p)->kind == TOK_EOF && p->more)
		read_chunk(p);
	return peek(p);
}

/* After an error: skip to the next token that can start a declaration. */
static void skip_to_declaration(struct parser *p)
{
	next(p);
	for (;;) {
		struct token *t = peek_declaration(p);

		if (t->kind == TOK_EOF || t->kind == TOK_EMBEDDED ||
		    tok_ident(t, "probe") || tok_ident(t, "global") ||
		    tok_ident(t, "function") || tok_ident(t, "private"))
			return;
		next(p);
	}
}

/* script -> (probe | global | function | 'private' (global | function | gvars) | embedded)* */
/* Did tokens [from, p->pos) come from a systemtap_v conditional? */
static bool versioned_since(const struct parser *p, size_t from)
{
	for (size_t i = from; i < p->pos; i++)
		if (p->tok[i].versioned)
			return true;
	return false;
}

/* Marks the declarations from *probe, *function and *global on (the new
 * ones of a declaration) as holding systemtap_v-conditional code. */
static void mark_versioned(struct probe *probe, struct function *function, struct global *global)
{
	for (; probe; probe = probe->next)
		probe->versioned = true;
	for (; function; function = function->next)
		function->versioned = true;
	for (; global; global = global->next)
		global->versioned = true;
}

static void parse_declarations(struct parser *p)
{
	while (peek_declaration(p)->kind != TOK_EOF) {
		struct probe **probes = p->probes_tail;
		struct function **functions = p->functions_tail;
		struct global **globals = p->globals_tail;
		size_t start;
		struct token *t;

		if (setjmp(p->recover)) {
			p->depth = 0;
			p->script->n_uses = p->uses_kept;	/* the broken one's */
			skip_to_declaration(p);
			continue;
		}
		p->uses_kept = p->script->n_uses;
		start = p->pos;
		t = next(p);
		if (t->kind == TOK_EMBEDDED) {
			struct embedded *e = arena_new(p->arena, struct embedded);

			check_embedded(p, t);
			e->loc = tok_loc(t);
			e->code = t->text;
			*p->embeds_tail = e;
			p->embeds_tail = &e->next;
		} else if (tok_ident(t, "probe")) {
			parse_probe(p, t);
		} else if (tok_ident(t, "global")) {
			parse_global(p, false);
		} else if (tok_ident(t, "function")) {
			parse_function(p, false);
		} else if (tok_ident(t, "private")) {
			if (accept_ident(p, "function"))
				parse_function(p, true);
			else if (accept_ident(p, "global") || (peek(p)->kind == TOK_IDENT &&
							       !peek(p)->keyword))
				parse_global(p, true);	/* "private x" is a global too */
			else
				error_at(p, peek(p), "expected 'global', 'function' or a name after 'private'");
		} else {
			p->pos--;
			error_at(p, t, "expected 'probe', 'global', 'function', or '%%{'");
		}
		if (versioned_since(p, start))
			mark_versioned(*probes, *functions, *globals);
	}
}

struct script *parse_script(struct arena *a, const struct source *src,
			    const struct script_args *args,
			    struct pp_env *env, bool is_tapset)
{
	struct script *s = arena_new(a, struct script);
	struct parser p = { .arena = a };
	static bool tables_ready;

	if (!tables_ready) {
		init_priorities();
		init_assign_ops();
		tables_ready = true;
	}
	s->src = src;
	s->is_tapset = is_tapset;
	lex_open(&p.lx, a, src, args);
	p.pp = pp_open(a, env);
	p.embedded_ok = is_tapset || env->guru;
	p.autocast_ok = is_tapset || !env->compat_version || strverscmp(env->compat_version, "2.6") >= 0;
	p.comments_glue = is_tapset || !env->compat_version || strverscmp(env->compat_version, "2.0") >= 0;
	read_chunk(&p);
	p.script = s;
	p.probes_tail = &s->probes;
	p.functions_tail = &s->functions;
	p.globals_tail = &s->globals;
	p.embeds_tail = &s->embeds;
	parse_declarations(&p);
	if (s->uses)
		arena_own(a, s->uses);
	tokens_free(&p.raw);
	tokens_free(&p.toks);
	return s;
}

struct source *source_from_string(struct arena *a, const char *name, const char *text)
{
	struct source *src = arena_new(a, struct source);

	src->name = arena_strndup(a, name, strlen(name));
	src->len = strlen(text);
	src->text = arena_strndup(a, text, src->len);
	return src;
}

/* Regular files are read once at their size; stdin and pipes grow a buffer. */
struct source *source_from_file(struct arena *a, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct source *src;
	struct stat st;
	size_t cap, len = 0, n;
	char *buf;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	buf = xmalloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len >= MAX_SOURCE) {	/* /dev/zero, say: stop, not fill memory */
			free(buf);
			buf = NULL;
			break;
		}
		if (len == cap - 1)
			buf = xrealloc(buf, cap *= 2);
	}
	if (f != stdin)
		fclose(f);
	if (!buf) {
		errno = EFBIG;
		return NULL;
	}
	buf[len] = '\0';
	src = arena_new(a, struct source);
	src->name = arena_strndup(a, path, strlen(path));
	src->text = buf;
	src->len = len;
	arena_own(a, buf);
	return src;
}
