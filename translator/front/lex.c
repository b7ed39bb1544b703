// SPDX-License-Identifier: GPL-2.0
/*
 * lex.c - the script lexer.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "xalloc.h"

/* In enum op_id order (lex.h), so an operator's index + 1 is its id. */
#define OP(id, s)	{ s, sizeof(s) - 1 },
static const struct { const char *text; size_t len; } operators[] = {
	LEX_OPERATORS(OP)
};
#undef OP
#define N_OPERATORS	(sizeof(operators) / sizeof(*operators))
_Static_assert(N_OPERATORS <= LEX_N_OPS, "operator ids must fit LEX_N_OPS");
_Static_assert(N_OPERATORS == OP_END - 1, "one enum op_id per operator");

/* Index + 1 of the first operator starting with each byte; 0 for none. */
static unsigned char op_first[256];

/* By operator id: the nesting it opens (+1 + kind) or closes (-1 - kind),
 * kinds 0 '{}', 1 '()', 2 '[]', 3 '%( %)'; 0 for other operators. */
static signed char op_nest[LEX_N_OPS + 1];

/* Index + 1 in operators[] of the operator at p, or 0.  Operators are at
 * most three bytes and the source ends in a NUL, which no operator holds:
 * the bytes compare one by one, without a length. */
static size_t match_operator(const char *p)
{
	unsigned char c = *p;

	if (!op_first[c])
		return 0;
	for (size_t i = op_first[c] - 1; i < N_OPERATORS && operators[i].text[0] == c; i++) {
		const char *t = operators[i].text;

		if (!t[1] || (t[1] == p[1] && (!t[2] || t[2] == p[2])))
			return i + 1;
	}
	return 0;
}

void tokens_reserve(struct tokens *t, size_t cap)
{
	struct token *v;

	if (cap <= t->cap)
		return;
	v = big_alloc(cap * sizeof(*v));
	if (t->n)
		memcpy(v, t->v, t->n * sizeof(*v));
	free(t->v);
	t->v = v;
	t->cap = cap;
}


void tokens_free(struct tokens *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int64_t tok_number(const struct token *t)
{
	/* strtoull's base 0 reads 0x.. and 0.. as the lexer does. */
	return (int64_t)strtoull(t->text, NULL, 0);
}



const char *token_describe(struct arena *a, const struct token *t)
{
	static const char *const kinds[] = {
		[TOK_EOF] = "end of input", [TOK_IDENT] = "identifier",
		[TOK_NUMBER] = "number", [TOK_STRING] = "string",
		[TOK_OP] = "operator", [TOK_EMBEDDED] = "embedded-code",
		[TOK_ERROR] = "error",
	};

	if (t->kind == TOK_EOF)
		return kinds[TOK_EOF];
	if (t->kind == TOK_EMBEDDED)
		return kinds[TOK_EMBEDDED];
	return arena_printf(a, "%s '%.60s'", kinds[t->kind], t->text);
}

const struct source **lex_sources;
static size_t n_sources, cap_sources;

/* The index of src in lex_sources, added if new (sources are few: files). */
static unsigned short source_index(const struct source *src)
{
	for (size_t i = n_sources; i-- > 0;)
		if (lex_sources[i] == src)
			return i;
	if (n_sources == 65535) {
		fprintf(stderr, "stap: more than 65535 source files\n");
		exit(1);
	}
	if (n_sources == cap_sources) {
		cap_sources = cap_sources ? 2 * cap_sources : 64;
		lex_sources = xrealloc(lex_sources, cap_sources * sizeof(*lex_sources));
	}
	lex_sources[n_sources] = src;
	return n_sources++;
}

void lex_free_sources(void)
{
	free(lex_sources);
	lex_sources = NULL;
	n_sources = cap_sources = 0;
}

static struct loc here(const struct lexer *lx)
{
	if (lx->in_sub)
		return lx->sub_loc;
	return (struct loc){ lx->src, lx->line, (int)(lx->p - lx->line_start) + 1 };
}

/* The token about to be lexed starts here (push() takes its place). */
static inline void mark_token(struct lexer *lx, bool space)
{
	if (lx->in_sub) {
		lx->tok_line = lx->sub_loc.line;
		lx->tok_col = lx->sub_loc.col;
	} else {
		lx->tok_line = lx->line;
		lx->tok_col = (int)(lx->p - lx->line_start) + 1;
	}
	lx->tok_space = space;
	lx->tok_comment = lx->comment_seen;
	lx->comment_seen = false;
}

/* Where the token being lexed starts, for an error. */
static struct loc tok_start(const struct lexer *lx)
{
	if (lx->in_sub)
		return lx->sub_loc;
	return (struct loc){ lx->src, lx->tok_line, lx->tok_col };
}

static void advance(struct lexer *lx, size_t n)
{
	for (; n && lx->p < lx->end; n--, lx->p++)
		if (*lx->p == '\n') {
			lx->line++;
			lx->line_start = lx->p + 1;
		}
}

/* Advance over n bytes known to hold no newline (names, numbers, operators). */
static void advance_inline(struct lexer *lx, size_t n)
{
	lx->p += n;
}

/* Character classes, one table lookup per byte instead of ctype calls. */
enum {
	CC_SPACE = 1,		/* isspace */
	CC_DIGIT = 2,		/* 0-9 */
	CC_IDSTART = 4,		/* [A-Za-z_$@]: may start an identifier */
	CC_IDCHAR = 8,		/* [A-Za-z0-9_$]: may continue one */
	CC_SKIP = 16,		/* isspace, '#', '/': may start a space or comment */
};
static unsigned char cclass[256];

/* The reserved words: the parser never takes them for names. */
static const char *const keywords[] = {
	"probe", "global", "function", "if", "else", "for", "foreach", "in",
	"limit", "return", "delete", "while", "break", "continue", "next",
	"string", "long", "try", "catch", "private",
};

const char *lex_op_text(unsigned id)
{
	return id && id <= N_OPERATORS ? operators[id - 1].text : "";
}

unsigned lex_op_id(const char *text)
{
	for (size_t i = 0; i < N_OPERATORS; i++)
		if (!strcmp(text, operators[i].text))
			return i + 1;
	return 0;
}

/* The keywords by a hash of length and end letters, open addressing: most
 * identifiers are told apart by one table probe. */
#define KW_SLOTS	64
static const char *kw_slot[KW_SLOTS];
static unsigned char kw_len[KW_SLOTS];

static unsigned kw_hash(const char *s, size_t len)
{
	return ((unsigned char)s[0] * 7u + (unsigned char)s[len - 1] * 3u + len) % KW_SLOTS;
}

static void init_keywords(void)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(*keywords); i++) {
		unsigned h = kw_hash(keywords[i], strlen(keywords[i]));

		while (kw_slot[h])
			h = (h + 1) % KW_SLOTS;
		kw_slot[h] = keywords[i];
		kw_len[h] = strlen(keywords[i]);
	}
}

static bool is_keyword(const char *s, size_t len)
{
	for (unsigned h = kw_hash(s, len); kw_slot[h]; h = (h + 1) % KW_SLOTS)
		if (kw_len[h] == len && !memcmp(kw_slot[h], s, len))
			return true;
	return false;
}

static void init_tables(void)
{
	for (size_t i = N_OPERATORS; i-- > 0;) {
		const char *t = operators[i].text;

		op_first[(unsigned char)t[0]] = i + 1;
		if (!strcmp(t, "%(") || !strcmp(t, "%)"))
			op_nest[i + 1] = t[1] == '(' ? 1 + NEST_COND : -1 - NEST_COND;
		else if (!t[1] && strchr("{([", t[0]))
			op_nest[i + 1] = 1 + (strchr("{([", t[0]) - "{([");
		else if (!t[1] && strchr("})]", t[0]))
			op_nest[i + 1] = -1 - (strchr("})]", t[0]) - "})]");
	}
	for (int c = 0; c < 256; c++) {
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
		bool digit = c >= '0' && c <= '9';

		cclass[c] = (isspace(c) ? CC_SPACE : 0) | (digit ? CC_DIGIT : 0) |
			    (alpha || c == '$' || c == '@' ? CC_IDSTART : 0) |
			    (alpha || digit || c == '$' ? CC_IDCHAR : 0) |
			    (isspace(c) || c == '#' || c == '/' ? CC_SKIP : 0);
	}
	init_keywords();
}

static void error_at(struct loc loc, const char *msg)
{
	diag_error("parse", &loc, NULL, "%s", msg);
}

/* An error in the token being lexed, reported at its start. */
static void token_error(struct lexer *lx, const char *msg)
{
	error_at(tok_start(lx), msg);
}

/* Appends a token whose text is kept as it is (NUL-terminated already).
 * Field by field into the array: a token built on the stack and copied
 * costs a store-forwarding stall per token, a tenth of pass 1. */
static inline struct token *push(struct lexer *lx, enum tok_kind kind, const char *text)
{
	struct tokens *out = lx->out;
	struct token *t;

	if (out->n == out->cap)
		tokens_reserve(out, out->cap ? out->cap * 2 : 256);
	t = &out->v[out->n++];
	t->text = text;
	t->line = lx->tok_line;
	t->col = lx->tok_col;
	t->src = lx->src_index;
	t->kind = kind;
	t->op = 0;
	t->keyword = false;
	t->space_before = lx->tok_space;
	t->comment_before = lx->tok_comment;
	t->versioned = false;
	return t;
}

/* Appends a token whose text is a copy of len bytes at text. */
static inline struct token *emit(struct lexer *lx, enum tok_kind kind, const char *text,
				 size_t len)
{
	return push(lx, kind, arena_strndup(lx->arena, text, len));
}

/* Skips whitespace and comments; true if there were any. */
static bool skip_space(struct lexer *lx)
{
	const char *start = lx->p, *p = lx->p, *end = lx->end;

	while (p < end) {
		char c = *p;

		if (c == '\n') {
			p++;
			lx->line++;
			lx->line_start = p;
		} else if (cclass[(unsigned char)c] & CC_SPACE) {
			p++;
		} else if (c == '#' || (c == '/' && p + 1 < end && p[1] == '/')) {
			p = memchr(p, '\n', end - p);
			if (!p)
				p = end;
			lx->comment_seen = true;
		} else if (c == '/' && p + 1 < end && p[1] == '*') {
			const char *close = NULL;

			lx->p = p;
			for (const char *q = p + 2; q + 1 < end; q++)
				if (q[0] == '*' && q[1] == '/') {
					close = q;
					break;
				}
			if (!close) {
				error_at(here(lx), "unterminated comment");
				close = end - 2;
			}
			advance(lx, close + 2 - p);
			p = lx->p;
			lx->comment_seen = true;
		} else {
			break;
		}
	}
	lx->p = p;
	return p != start;
}

static void lex_number(struct lexer *lx)
{
	const char *s = lx->p;
	uint64_t v = 0;
	int base = 10;
	bool bad = false;
	size_t n = 0;

	if (s[0] == '0' && s + 1 < lx->end && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		n = 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	size_t digits_at = n;
	while (s + n < lx->end && isalnum((unsigned char)s[n])) {
		int d = isdigit((unsigned char)s[n]) ? s[n] - '0'
			: tolower((unsigned char)s[n]) - 'a' + 10;

		if (d >= base || v > (UINT64_MAX - d) / base)
			bad = true;
		else
			v = v * base + d;
		n++;
	}
	if (base == 16 && n == digits_at)
		bad = true;
	emit(lx, TOK_NUMBER, s, n);
	if (bad)
		token_error(lx, "number invalid or out of range");
	advance_inline(lx, n);
}

/* A known escape at q (just past a backslash): C's, octal, hex. */
static bool known_escape(const char *q, const char *end)
{
	return strchr("ntrabfv\\\"'?\n", *q) || (*q >= '0' && *q <= '7') ||
	       (*q == 'x' && q + 1 < end && isxdigit((unsigned char)q[1]));
}

/*
 * Scans a string body; returns its length, or -1 if open.  *unknown counts
 * escapes C does not know ("\{", "\."): SystemTap drops their backslash.
 */
static long scan_string(struct lexer *lx, size_t *unknown)
{
	const char *q = lx->p + 1;

	while (q < lx->end && *q != '"' && *q != '\n') {
		if (*q != '\\') {
			q++;
			continue;
		}
		if (++q >= lx->end)
			break;
		if (strchr("ntrabfv\\\"'?\n", *q)) {
			q++;
		} else if (*q >= '0' && *q <= '7') {
			for (int i = 0; i < 3 && q < lx->end && *q >= '0' && *q <= '7'; i++)
				q++;
		} else if (*q == 'x' && q + 1 < lx->end && isxdigit((unsigned char)q[1])) {
			for (q++; q < lx->end && isxdigit((unsigned char)*q); q++)
				;
		} else {
			(*unknown)++;
			q++;
		}
	}
	if (q >= lx->end || *q != '"')
		return -1;
	return q - (lx->p + 1);
}

static void lex_string(struct lexer *lx)
{
	size_t unknown = 0;
	long len = scan_string(lx, &unknown);

	if (len < 0) {
		token_error(lx, "unterminated string");
		while (lx->p < lx->end && *lx->p != '\n')
			advance(lx, 1);
		return;
	}
	if (unknown) {
		char *s = arena_alloc(lx->arena, len + 1);
		size_t o = 0;

		for (const char *q = lx->p + 1, *end = q + len; q < end; q++) {
			if (*q == '\\' && q + 1 < end && !known_escape(q + 1, end))
				continue;
			s[o++] = *q;
			if (*q == '\\' && q + 1 < end)
				s[o++] = *++q;
		}
		emit(lx, TOK_STRING, s, o);
	} else {
		emit(lx, TOK_STRING, lx->p + 1, len);
	}
	advance(lx, len + 2);
}

static void lex_embedded(struct lexer *lx)
{
	const char *body = lx->p + 2;

	for (const char *q = body; q + 1 < lx->end; q++)
		if (q[0] == '%' && q[1] == '}') {
			emit(lx, TOK_EMBEDDED, body, q - body);
			advance(lx, q + 2 - lx->p);
			return;
		}
	token_error(lx, "unterminated embedded C code ('%{' without '%}')");
	advance(lx, lx->end - lx->p);
}

static void lex_run(struct lexer *lx);

/* $N, @N, $#, @#: the sigil and digits or '#' are at lx->p. */
static bool lex_script_arg(struct lexer *lx)
{
	struct loc loc = tok_start(lx);
	bool space = lx->tok_space;
	char sigil = lx->p[0];
	const char *q = lx->p + 1;
	long idx = 0;
	size_t n;

	if (q < lx->end && *q == '#') {
		char *count = arena_printf(lx->arena, "%d", lx->args ? lx->args->argc : 0);

		emit(lx, sigil == '$' ? TOK_NUMBER : TOK_STRING, count, strlen(count));
		advance(lx, 2);
		return true;
	}
	for (n = 0; q + n < lx->end && isdigit((unsigned char)q[n]) && n < 9; n++)
		idx = idx * 10 + (q[n] - '0');
	if (n == 0)
		return false;
	/* "$12A3": no argument reference, and no name either (it starts with
	 * a digit) */
	if (q + n < lx->end && (isalnum((unsigned char)q[n]) || q[n] == '_')) {
		size_t len = n;
		char *msg;

		while (q + len < lx->end && (isalnum((unsigned char)q[len]) || q[len] == '_'))
			len++;
		msg = arena_printf(lx->arena, "bad command line argument reference '%c%.*s'",
				   sigil, (int)len, q);
		emit(lx, TOK_ERROR, msg, strlen(msg));
		lx->junk++;
		advance(lx, 1 + len);
		return true;
	}
	advance(lx, 1 + n);
	if (!lx->args || idx < 1 || idx > lx->args->argc) {
		char *msg = arena_printf(lx->arena, "command line argument index %ld out of range [1-%d]",
					 idx, lx->args ? lx->args->argc : 0);

		emit(lx, TOK_ERROR, msg, strlen(msg));
		lx->junk++;
		return true;
	}
	const char *arg = lx->args->argv[idx - 1];
	if (sigil == '@') {
		/* The argument becomes a string literal: escape what needs it. */
		size_t len = strlen(arg), o = 0;
		char *s = arena_alloc(lx->arena, 2 * len + 1);

		for (size_t i = 0; i < len; i++) {
			if (arg[i] == '"' || arg[i] == '\\')
				s[o++] = '\\';
			s[o++] = arg[i];
		}
		emit(lx, TOK_STRING, s, o);
		return true;
	}
	/* $N: lex the argument's text in place, located at the $N. */
	struct source *sub = arena_new(lx->arena, struct source);
	struct lexer inner = *lx;

	sub->name = lx->src->name;
	sub->text = arg;
	sub->len = strlen(arg);
	inner.src = sub;
	inner.p = arg;
	inner.end = arg + sub->len;
	inner.in_sub = true;
	inner.sub_loc = loc;
	inner.args = NULL;	/* no recursive substitution */
	size_t first = lx->out->n;
	lex_run(&inner);
	lx->junk = inner.junk;
	memcpy(lx->open, inner.open, sizeof(lx->open));	/* "$1" may be "}" */
	lx->unbalanced = inner.unbalanced;
	lx->defining = inner.defining;
	if (first < lx->out->n)
		lx->out->v[first].space_before = space;
	return true;
}

/* Does a declaration start at lx->p ('probe', 'global', 'function',
 * 'private' or '%{')? */
static bool at_declaration(const struct lexer *lx)
{
	static const char *const starts[] = { "probe", "global", "function", "private" };
	size_t n = 0;

	if (lx->p + 1 < lx->end && lx->p[0] == '%' && lx->p[1] == '{')
		return true;
	while (lx->p + n < lx->end && (cclass[(unsigned char)lx->p[n]] & CC_IDCHAR))
		n++;
	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++)
		if (!strncmp(lx->p, starts[i], n) && !starts[i][n])
			return true;
	return false;
}

/* Tracks the nestings; a '}' that closes the last one open, in a chunk
 * long enough, lets the chunk end before the next token. */
static void nest(struct lexer *lx, unsigned op)
{
	int kind = op_nest[op] > 0 ? op_nest[op] - 1 : -op_nest[op] - 1;

	if (lx->unbalanced)
		return;		/* this file is one chunk from here */
	if (kind == NEST_COND && lx->defining) {
		/* The @define's body begins, or a bad one ends (define_macro). */
		lx->defining = false;
		if (op_nest[op] < 0)
			return;
	}
	if (op_nest[op] > 0) {
		lx->open[kind]++;
		return;
	}
	if (--lx->open[kind] < 0) {
		lx->unbalanced = true;
		return;
	}
	if (kind == NEST_BRACE && !lx->in_sub && !lx->defining &&
	    !lx->open[0] && !lx->open[1] && !lx->open[2] && !lx->open[3] &&
	    lx->out->n - lx->chunk_start >= LEX_CHUNK)
		lx->may_end = true;
}

static void lex_run(struct lexer *lx)
{
	bool carried = lx->space_carried;

	lx->space_carried = false;
	for (;;) {
		/* Most tokens follow another directly: test before the call. */
		bool space = (cclass[(unsigned char)*lx->p] & CC_SKIP && skip_space(lx)) || carried;
		unsigned char cl;
		char c;

		carried = false;
		mark_token(lx, space);
		if (lx->p >= lx->end)
			return;
		if (lx->may_end) {
			lx->may_end = false;
			if (at_declaration(lx)) {
				lx->stopped = true;
				lx->space_carried = space;
				return;
			}
		}
		c = *lx->p;
		cl = cclass[(unsigned char)c];
		/* lx->p[1] is there to read: the source ends in a NUL. */
		if (cl & CC_IDSTART) {
			size_t n = 1;

			if ((c == '$' || c == '@') &&
			    (cclass[(unsigned char)lx->p[1]] & CC_DIGIT || lx->p[1] == '#') &&
			    lex_script_arg(lx))
				continue;
			/* No end test: a NUL, not an IDCHAR, ends every source. */
			while (cclass[(unsigned char)lx->p[n]] & CC_IDCHAR)
				n++;
			emit(lx, TOK_IDENT, lx->p, n)->keyword = is_keyword(lx->p, n);
			if (c == '@' && n == 7 && !memcmp(lx->p, "@define", 7))
				lx->defining = true;	/* no chunk end before its body */
			advance_inline(lx, n);
		} else if (cl & CC_DIGIT) {
			lex_number(lx);
		} else if (c == '"') {
			lex_string(lx);
		} else if (c == '%' && lx->p[1] == '{') {
			lex_embedded(lx);
		} else {
			size_t n = match_operator(lx->p);

			if (n) {
				push(lx, TOK_OP, operators[n - 1].text)->op = n;
				advance_inline(lx, operators[n - 1].len);
				if (op_nest[n])
					nest(lx, n);
			} else {
				struct loc loc = tok_start(lx);

				diag_error("parse", &loc, NULL, "invalid character '%s' (0x%02x)",
					   isprint((unsigned char)c) ? (char[]){ c, 0 } : "?",
					   (unsigned char)c);
				advance(lx, 1);
			}
		}
	}
}

void tokens_report(struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].kind == TOK_ERROR) {
			struct loc loc = tok_loc(&t->v[i]);

			diag_error("parse", &loc, NULL, "%s", t->v[i].text);
			t->v[i].kind = TOK_NUMBER;
			t->v[i].text = "0";
		}
}

void lex_open(struct lexer *lx, struct arena *a, const struct source *src,
	      const struct script_args *args)
{
	if (!op_first[';'])
		init_tables();
	*lx = (struct lexer){
		.arena = a, .src = src, .args = args,
		.p = src->text, .end = src->text + src->len, .line = 1,
		.line_start = src->text, .src_index = source_index(src),
	};
}

bool lex_chunk(struct lexer *lx, struct tokens *out)
{
	lx->out = out;
	lx->chunk_start = out->n;
	lx->junk = 0;
	lx->stopped = false;
	/* A chunk runs about one token per 3-4 bytes of source, LEX_CHUNK and
	 * a little more unless the source has no place to end it. */
	tokens_reserve(out, out->n + 2 * LEX_CHUNK);
	lex_run(lx);
	mark_token(lx, false);
	push(lx, TOK_EOF, "");
	return lx->stopped;
}

/* SystemTap's escapes (as C's, with \ooo and \xhh) to bytes. */
size_t lex_unescape(const char *raw, char *out)
{
	size_t n = 0;

	for (const char *p = raw; *p; p++) {
		if (*p != '\\' || !p[1]) {
			out[n++] = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'a': out[n++] = '\a'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'v': out[n++] = '\v'; break;
		case 'x': {
			int v = 0, d = 0;

			while (d < 2 && strchr("0123456789abcdefABCDEF", p[1]) && p[1]) {
				char c = *++p;

				v = v * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
				d++;
			}
			out[n++] = (char)v;
			break;
		}
		default:
			if (*p >= '0' && *p <= '7') {
				int v = *p - '0', d = 1;

				while (d < 3 && p[1] >= '0' && p[1] <= '7') {
					v = v * 8 + (*++p - '0');
					d++;
				}
				out[n++] = (char)v;
			} else {
				out[n++] = *p;	/* \\ \" \' and others: the char */
			}
		}
	}
	out[n] = '\0';
	return n;
}
