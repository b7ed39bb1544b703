/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lex.h - the script lexer: source text to an array of tokens.
 *
 * Identifiers may start with '$' or '@' ($var, $$parms, @count, @define);
 * '$' may also continue one ($var$, $var$$).  Strings keep their escapes as
 * written (they are checked here, and emitted into C as they are).  Script
 * arguments are substituted here: $N by the argument's text, lexed in
 * place; @N by a string holding it; $# and @# by their count.
 */
#ifndef LEX_H
#define LEX_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "diag.h"

enum tok_kind {
	TOK_EOF,
	TOK_IDENT,
	TOK_NUMBER,
	TOK_STRING,	/* text: the contents between the quotes, escapes raw */
	TOK_OP,
	TOK_EMBEDDED,	/* text: the C between %{ and %} */
	TOK_ERROR,	/* text: an error to report only if the token is used
			   (SystemTap's junk token: "%( $# >= 1 %? @1 %)") */
};

/* 24 bytes: a 1 MB script is ~270,000 of them, a third of the memory pass
 * 1 touches; so the source is an index (tok_loc() makes the location).  op
 * and keyword let the parser classify a token with a table lookup instead
 * of string compares. */
struct token {
	const char *text;	/* NUL-terminated: arena, or the operator table */
	int line, col;
	unsigned short src;	/* lex_sources[] index */
	unsigned char kind;	/* enum tok_kind */
	unsigned char op;	/* TOK_OP: lex_op_id(text); else 0 */
	bool keyword;		/* TOK_IDENT: a reserved word (if, probe, ...) */
	bool space_before;	/* whitespace or a comment precedes it */
	bool comment_before;	/* a comment does (stops string gluing before 2.0) */
	bool versioned;		/* made by a systemtap_v conditional (preproc.c) */
};

_Static_assert(sizeof(struct token) <= 24, "struct token grew: pass 1 memory");

/* Every source lexed so far, by the index tokens hold. */
extern const struct source **lex_sources;

/* Forget them: call when the sources (their arena) are freed. */
void lex_free_sources(void);

static inline struct loc tok_loc(const struct token *t)
{
	return (struct loc){ lex_sources[t->src], t->line, t->col };
}

/* Operator ids are 1..LEX_N_OPS; 0 is no operator. */
#define LEX_N_OPS	64

/* Every operator, grouped by first character and longest first within a
 * group (the lexer matches the first that fits), with its id's name: the
 * parser stores the id in the AST, so later passes switch on it instead of
 * comparing text.  Unary - and + are OP_SUB and OP_ADD on an E_UNARY. */
#define LEX_OPERATORS(X) \
	X(OP_AGG, "<<<") \
	X(OP_ASSIGN_LSHIFT, "<<=") \
	X(OP_LSHIFT, "<<") \
	X(OP_LE, "<=") \
	X(OP_LT, "<") \
	X(OP_URSHIFT, ">>>") \
	X(OP_ASSIGN_RSHIFT, ">>=") \
	X(OP_RSHIFT, ">>") \
	X(OP_GE, ">=") \
	X(OP_GT, ">") \
	X(OP_EQ, "==") \
	X(OP_MATCH, "=~") \
	X(OP_ASSIGN, "=") \
	X(OP_NE, "!=") \
	X(OP_NOMATCH, "!~") \
	X(OP_NOT, "!") \
	X(OP_AND, "&&") \
	X(OP_ASSIGN_BITAND, "&=") \
	X(OP_BITAND, "&") \
	X(OP_OR, "||") \
	X(OP_ASSIGN_BITOR, "|=") \
	X(OP_BITOR, "|") \
	X(OP_INCR, "++") \
	X(OP_ASSIGN_ADD, "+=") \
	X(OP_ADD, "+") \
	X(OP_DECR, "--") \
	X(OP_ASSIGN_SUB, "-=") \
	X(OP_ARROW, "->") \
	X(OP_SUB, "-") \
	X(OP_ASSIGN_MUL, "*=") \
	X(OP_MUL, "*") \
	X(OP_ASSIGN_DIV, "/=") \
	X(OP_DIV, "/") \
	X(OP_ASSIGN_XOR, "^=") \
	X(OP_XOR, "^") \
	X(OP_ASSIGN_CONCAT, ".=") \
	X(OP_CONCAT, ".") \
	X(OP_ASSIGN_MOD, "%=") \
	X(OP_COND_OPEN, "%(") \
	X(OP_COND_THEN, "%?") \
	X(OP_COND_ELSE, "%:") \
	X(OP_COND_CLOSE, "%)") \
	X(OP_MOD, "%") \
	X(OP_BITNOT, "~") \
	X(OP_QUESTION, "?") \
	X(OP_COLON, ":") \
	X(OP_SEMICOLON, ";") \
	X(OP_COMMA, ",") \
	X(OP_LPAREN, "(") \
	X(OP_RPAREN, ")") \
	X(OP_LBRACKET, "[") \
	X(OP_RBRACKET, "]") \
	X(OP_LBRACE, "{") \
	X(OP_RBRACE, "}")

#define LEX_OP_ENUM(id, text)	id,
enum op_id { OP_NONE, LEX_OPERATORS(LEX_OP_ENUM) OP_END };
#undef LEX_OP_ENUM

unsigned lex_op_id(const char *text);

/* < > <= >= == !=: compare two longs or two strings. */
static inline bool lex_op_is_comparison(unsigned op)
{
	return op == OP_LT || op == OP_GT || op == OP_LE || op == OP_GE ||
	       op == OP_EQ || op == OP_NE;
}
/* The text of operator id (1..OP_END-1). */
const char *lex_op_text(unsigned id);

struct tokens {
	struct token *v;
	size_t n, cap;
};

struct script_args {
	char **argv;
	int argc;
};

/*
 * A lexer over one source, run a chunk at a time, so that pass 1 holds a
 * thousand-odd tokens at once rather than a whole file's (a 1 MB script is
 * 270,000 tokens, 6.5 MB to write and fault in).  1024 tokens (24 KiB) and
 * the preprocessor's copy fit the L1 data cache: with 4096 the
 * preprocessor missed it on every other token.  A chunk ends, once it has
 * LEX_CHUNK tokens, where nothing can be open: after a '}' that closes
 * every '{', '(', '[' and '%(' before it, and before a token that starts a
 * declaration ('probe', 'global', 'function', 'private', '%{').  There the
 * parser is between declarations and the preprocessor has no conditional
 * or macro call open, so each chunk is preprocessed and parsed on its own.
 * A script without such points is one chunk.
 */
#define LEX_CHUNK	1024
enum { NEST_BRACE, NEST_PAREN, NEST_BRACKET, NEST_COND };

struct lexer {
	/* private: */
	struct arena *arena;
	const struct source *src;
	const struct script_args *args;
	const char *p, *end;
	const char *line_start;	/* the column is p - line_start + 1 */
	int line;
	struct tokens *out;
	struct loc sub_loc;	/* when lexing a $N argument: where $N was */
	unsigned short src_index;	/* of the tokens' locations: src, or sub_loc's */
	bool in_sub;
	int tok_line, tok_col;	/* where the token being lexed starts */
	bool tok_space;		/* and whether space precedes it */
	bool tok_comment;	/* or a comment */
	bool comment_seen;	/* since the last token */
	size_t junk;		/* TOK_ERROR tokens made in this chunk */
	size_t chunk_start;	/* out->n when this chunk began */
	int open[4];		/* '{' '(' '[' '%(' open (NEST_BRACE...) */
	bool unbalanced;	/* a closer without its opener: no more chunk ends */
	bool defining;		/* after @define, before its body's '%(' */
	bool may_end;		/* a '}' closed everything: the chunk may end */
	bool stopped;		/* at a chunk's end, the rest to come */
	bool space_carried;	/* whitespace before the next chunk's first token */
};

void lex_open(struct lexer *lx, struct arena *a, const struct source *src,
	      const struct script_args *args);

/* Appends the next chunk's tokens and a TOK_EOF to out; true if more
 * chunks follow.  Errors go to diag; lx->junk is how many TOK_ERROR tokens
 * the chunk holds (see tokens_report()). */
bool lex_chunk(struct lexer *lx, struct tokens *out);

/* Reports the TOK_ERROR tokens of t (those preprocessing kept) and turns
 * them into the number 0, so that parsing goes on. */
void tokens_report(struct tokens *t);

void tokens_reserve(struct tokens *t, size_t cap);

/* Inline: called for every token of every file. */
static inline void tokens_push(struct tokens *t, const struct token *tok)
{
	if (t->n == t->cap)
		tokens_reserve(t, t->cap ? t->cap * 2 : 256);
	t->v[t->n++] = *tok;
}
void tokens_free(struct tokens *t);

/* "identifier 'x'", "operator ';'", ... for error messages. */
const char *token_describe(struct arena *a, const struct token *t);

/* Inline, and the parser asks this several times per token: with text a
 * literal, the compiler folds its bytes, and one- and two-byte texts (most
 * operators) never call strcmp. */
static inline bool tok_is(const struct token *t, enum tok_kind kind, const char *text)
{
	if (t->kind != kind || t->text[0] != text[0])
		return false;
	if (!text[0])
		return true;
	if (t->text[1] != text[1])
		return false;
	return !text[1] || !strcmp(t->text + 2, text + 2);
}
/* The value of a TOK_NUMBER (which the lexer has checked). */
int64_t tok_number(const struct token *t);

/* A string token's text (its escapes as the lexer kept them: "\\n") as
 * bytes, into out (strlen(raw) + 1 fit); returns their count. */
size_t lex_unescape(const char *raw, char *out);
#define tok_op(t, s)	tok_is((t), TOK_OP, (s))
#define tok_ident(t, s)	tok_is((t), TOK_IDENT, (s))

#endif /* LEX_H */
