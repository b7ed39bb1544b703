// SPDX-License-Identifier: GPL-2.0
/*
 * regex_compile.c - =~ patterns, from POSIX extended regular expression
 * syntax to the runtime's NFA program (kmod-runtime/core/regex_match.c runs it).
 *
 * Pass 2 compiles each pattern once to check it (an error points at the
 * literal); pass 3 compiles it again and writes the program into the
 * module as constant data, so the kernel never parses a pattern.
 *
 * Two steps: a recursive-descent parser builds a small tree (a sequence
 * or an alternation keeps its parts in a list, so only parentheses and
 * repetitions nest, and both are bounded), then gen() lays the tree out
 * as instructions, Thompson's construction with Pike's SPLIT and JMP.
 *
 * Supported: literals, '.', bracket expressions with ranges and
 * [:classes:], groups, '|', '*' '+' '?' and {m}, {m,}, {m,n} (m, n up to
 * 255), '^' and '$' anywhere, '\' quoting punctuation.  Refused:
 * back-references ("\1"), GNU's escapes ("\w", "\b", "\<"), collating
 * elements ("[.ch.]", "[=e=]").
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "regex_compile.h"

#define MAX_NESTING	100	/* parentheses and stacked repetitions */
#define MAX_COUNT	255	/* m and n of {m,n}: POSIX's RE_DUP_MAX */
/* Nodes laid out, copies of repetitions counted: a repeated part that
 * compiles to nothing ("(){0}{255}{255}...") never reaches the
 * instruction limit, and its copies multiply at each level. */
#define MAX_STEPS	100000

enum node_kind { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_SEQ, N_ALT, N_REPEAT, N_GROUP };

struct node {
	enum node_kind kind;
	unsigned char ch;		/* N_CHAR */
	int cls;			/* N_CLASS: index into classes */
	int min, max;			/* N_REPEAT; max -1: no bound */
	int group;			/* N_GROUP: its number, from 1 */
	struct node *kids;		/* N_SEQ, N_ALT: the parts; N_REPEAT, N_GROUP: the one */
	struct node *next;		/* the next part of the parent */
};

struct compiler {
	const char *p;			/* the next character of the pattern */
	struct node *nodes;
	int nnodes, maxnodes;
	int depth;
	struct ctap_regex_inst *inst;
	int ninst;
	long steps;			/* gen() calls: at most MAX_STEPS */
	struct ctap_regex_class *classes;
	int nclasses, maxclasses;
	int ngroups;			/* '(' read so far */
	bool captures;			/* SAVE instructions for matched() */
	const char *why;		/* set: the pattern is refused */
};

static struct node *new_node(struct compiler *c, enum node_kind kind)
{
	struct node *n;

	if (c->nnodes == c->maxnodes) {	/* sized from the pattern: not reached */
		c->why = "too complex";
		return NULL;
	}
	n = &c->nodes[c->nnodes++];
	n->kind = kind;
	return n;
}

static bool fail(struct compiler *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

/* ---- bracket expressions ---- */

static void set_bit(struct ctap_regex_class *k, unsigned int ch)
{
	k->bits[ch / 8] |= 1 << (ch % 8);
}

/* The ASCII classes of the "C" locale, whatever the translator's locale. */
static bool in_class(const char *name, int ch)
{
	bool upper = ch >= 'A' && ch <= 'Z', lower = ch >= 'a' && ch <= 'z';
	bool digit = ch >= '0' && ch <= '9';
	bool graph = ch > ' ' && ch < 127;

	if (!strcmp(name, "alpha"))
		return upper || lower;
	if (!strcmp(name, "digit"))
		return digit;
	if (!strcmp(name, "alnum"))
		return upper || lower || digit;
	if (!strcmp(name, "upper"))
		return upper;
	if (!strcmp(name, "lower"))
		return lower;
	if (!strcmp(name, "space"))
		return ch == ' ' || (ch >= '\t' && ch <= '\r');
	if (!strcmp(name, "blank"))
		return ch == ' ' || ch == '\t';
	if (!strcmp(name, "punct"))
		return graph && !upper && !lower && !digit;
	if (!strcmp(name, "print"))
		return graph || ch == ' ';
	if (!strcmp(name, "graph"))
		return graph;
	if (!strcmp(name, "cntrl"))
		return ch < ' ' || ch == 127;
	/* xdigit */
	return digit || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static bool known_class(const char *name)
{
	static const char *const names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space", "blank",
		"punct", "print", "graph", "cntrl", "xdigit", NULL
	};

	for (int i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* "[:name:]" at c->p, added to k. */
static bool named_class(struct compiler *c, struct ctap_regex_class *k)
{
	const char *end = strstr(c->p + 2, ":]");
	char name[16];

	if (!end || end - (c->p + 2) >= (long)sizeof(name))
		return fail(c, "unknown character class");
	memcpy(name, c->p + 2, end - (c->p + 2));
	name[end - (c->p + 2)] = '\0';
	if (!known_class(name))
		return fail(c, "unknown character class");
	for (int ch = 1; ch < 256; ch++)
		if (in_class(name, ch))
			set_bit(k, ch);
	c->p = end + 2;
	return true;
}

/*
 * bracket -> '[' [ '^' ] [ ']' ] { item } ']'
 * item -> '[:' name ':]' | char [ '-' char ]
 * A backslash is an ordinary character here, as POSIX says.
 */
static struct node *bracket(struct compiler *c)
{
	struct ctap_regex_class k = { { 0 } };
	bool negate = false, first = true;
	struct node *n;

	c->p++;
	if (*c->p == '^') {
		negate = true;
		c->p++;
	}
	for (;; first = false) {
		unsigned char lo = *c->p, hi;

		if (!lo)
			return fail(c, "unterminated bracket expression"), NULL;
		if (lo == ']' && !first)
			break;
		if (lo == '[' && c->p[1] == ':') {
			if (!named_class(c, &k))
				return NULL;
			continue;
		}
		if (lo == '[' && (c->p[1] == '.' || c->p[1] == '='))
			return fail(c, "collating elements and equivalence classes are not supported"), NULL;
		hi = lo;
		if (c->p[1] == '-' && c->p[2] && c->p[2] != ']') {
			hi = c->p[2];
			if (hi == '[')
				return fail(c, "a range must end in a character"), NULL;
			if (hi < lo)
				return fail(c, "a range that ends before it starts"), NULL;
			c->p += 2;
		}
		c->p++;
		for (unsigned int ch = lo; ch <= hi; ch++)
			set_bit(&k, ch);
	}
	c->p++;
	if (negate)
		for (int i = 0; i < 32; i++)
			k.bits[i] = ~k.bits[i];
	k.bits[0] &= ~1;	/* the string's end is no character */
	if (c->nclasses == c->maxclasses)
		return fail(c, "too complex"), NULL;
	c->classes[c->nclasses] = k;
	n = new_node(c, N_CLASS);
	if (n)
		n->cls = c->nclasses++;
	return n;
}

/* ---- the grammar ---- */

static struct node *alternation(struct compiler *c);

/* atom -> '(' alternation ')' | bracket | '.' | '^' | '$' | '\' char | char */
static struct node *atom(struct compiler *c)
{
	unsigned char ch = *c->p;
	struct node *n;

	switch (ch) {
	case '(':
		if (++c->depth > MAX_NESTING)
			return fail(c, "nested too deeply"), NULL;
		c->p++;
		n = new_node(c, N_GROUP);
		if (!n)
			return NULL;
		n->group = ++c->ngroups;	/* numbered by its '(' */
		n->kids = alternation(c);
		if (!n->kids)
			return NULL;
		if (*c->p != ')')
			return fail(c, "unmatched '('"), NULL;
		c->p++;
		c->depth--;
		return n;
	case ')':
		return fail(c, "unmatched ')'"), NULL;
	case '[':
		return bracket(c);
	case '*': case '+': case '?': case '{':
		return fail(c, "a repetition needs an atom before it"), NULL;
	case '.':
		c->p++;
		return new_node(c, N_ANY);
	case '^':
		c->p++;
		return new_node(c, N_BOL);
	case '$':
		c->p++;
		return new_node(c, N_EOL);
	case '\\':
		ch = *++c->p;
		if (!ch)
			return fail(c, "a trailing backslash"), NULL;
		if (ch >= '1' && ch <= '9')
			return fail(c, "back-references are not supported"), NULL;
		/* GNU gives \w, \b, \< ... meanings that POSIX does not: no guessing. */
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '0' ||
		    ch == '<' || ch == '>' || ch == '`' || ch == '\'')
			return fail(c, "only punctuation may be escaped with '\\'"), NULL;
		break;
	}
	c->p++;
	n = new_node(c, N_CHAR);
	if (n)
		n->ch = ch;
	return n;
}

/* count -> digit { digit }, at most MAX_COUNT */
static int count(struct compiler *c)
{
	int v = 0;

	if (*c->p < '0' || *c->p > '9')
		return -1;
	while (*c->p >= '0' && *c->p <= '9') {
		v = v * 10 + (*c->p++ - '0');
		if (v > MAX_COUNT)
			return -1;
	}
	return v;
}

/* The bounds of a repetition operator at c->p, read; false if it is none. */
static bool repetition(struct compiler *c, int *min, int *max)
{
	switch (*c->p) {
	case '*':
		*min = 0, *max = -1;
		break;
	case '+':
		*min = 1, *max = -1;
		break;
	case '?':
		*min = 0, *max = 1;
		break;
	case '{':
		c->p++;
		*min = *max = count(c);
		if (*c->p == ',') {
			c->p++;
			*max = *c->p == '}' ? -1 : count(c);
			if (*c->p != '}')
				*min = -1;	/* "{2,x": no count where one must be */
		}
		if (*min < 0 || *c->p != '}' || (*max >= 0 && *max < *min))
			return fail(c, "a {m,n} repetition needs 0 <= m <= n <= 255");
		break;
	default:
		return false;
	}
	c->p++;
	return true;
}

/* piece -> atom { '*' | '+' | '?' | '{' m [ ',' [ n ] ] '}' } */
static struct node *piece(struct compiler *c)
{
	struct node *n = atom(c);
	int min, max, depth = c->depth;

	/* Stacked ones ("a**") nest too: they share the parentheses' budget. */
	while (n && repetition(c, &min, &max)) {
		struct node *r = new_node(c, N_REPEAT);

		if (!r)
			return NULL;
		if (n->kind == N_BOL || n->kind == N_EOL)	/* as glibc */
			return fail(c, "a repetition needs an atom before it"), NULL;
		if (++c->depth > MAX_NESTING)
			return fail(c, "nested too deeply"), NULL;
		r->min = min;
		r->max = max;
		r->kids = n;
		n = r;
	}
	c->depth = depth;
	return c->why ? NULL : n;
}

/* A list node of kind (N_SEQ or N_ALT), or its one part alone. */
static struct node *list(struct compiler *c, enum node_kind kind, struct node *first)
{
	struct node *n;

	if (!first->next)
		return first;
	n = new_node(c, kind);
	if (n)
		n->kids = first;
	return n;
}

/* branch -> { piece }, empty matching the empty string */
static struct node *branch(struct compiler *c)
{
	struct node *first = NULL, **tail = &first;

	while (*c->p && *c->p != '|' && *c->p != ')') {
		struct node *n = piece(c);

		if (!n)
			return NULL;
		*tail = n;
		tail = &n->next;
	}
	return first ? list(c, N_SEQ, first) : new_node(c, N_EMPTY);
}

/* alternation -> branch { '|' branch } */
static struct node *alternation(struct compiler *c)
{
	struct node *first = branch(c), *tail = first;

	while (tail && *c->p == '|') {
		c->p++;
		tail->next = branch(c);
		tail = tail->next;
	}
	return tail ? list(c, N_ALT, first) : NULL;
}

/* ---- code ---- */

static int emit(struct compiler *c, enum ctap_regex_op op, int ch, int x, int y)
{
	struct ctap_regex_inst *in;

	/* One slot stays for the final MATCH. */
	if (c->ninst >= CTAP_REGEX_MAX_INST - 1) {
		fail(c, "too long: a pattern compiles to at most 1024 instructions");
		return c->ninst - 1;	/* harmless: the result is thrown away */
	}
	in = &c->inst[c->ninst];
	in->op = op;
	in->ch = ch;
	in->x = x;
	in->y = y;
	return c->ninst++;
}

static void gen(struct compiler *c, const struct node *n);

/*
 * Jumps to a place not laid out yet wait in a chain through the very
 * field they will hold (no list of their own: the compiler recurses).
 */
#define CHAIN_END	0xffff

static void patch(struct compiler *c, int chain, bool split_y, int target)
{
	while (!c->why && chain != CHAIN_END) {
		uint16_t *field = split_y ? &c->inst[chain].y : &c->inst[chain].x;

		chain = *field;
		*field = target;
	}
}

/* e{min,max}: min copies, then either a loop or max - min optional ones. */
static void gen_repeat(struct compiler *c, const struct node *n)
{
	int split, chain = CHAIN_END;

	for (int i = 0; i < n->min; i++) {
		if (i == n->min - 1 && n->max < 0) {
			/* The last one loops back: e+ is  L: e; SPLIT L, next */
			int start = c->ninst;

			gen(c, n->kids);
			emit(c, CTAP_RE_SPLIT, 0, start, c->ninst + 1);
			return;
		}
		gen(c, n->kids);
	}
	if (n->max < 0) {
		/* e* is  L: SPLIT body, next; body: e; JMP L */
		split = emit(c, CTAP_RE_SPLIT, 0, c->ninst + 1, CHAIN_END);
		gen(c, n->kids);
		emit(c, CTAP_RE_JMP, 0, split, 0);
		patch(c, split, true, c->ninst);
		return;
	}
	/* Each optional copy may skip to the end of them all. */
	for (int i = n->min; i < n->max; i++) {
		chain = emit(c, CTAP_RE_SPLIT, 0, c->ninst + 1, chain);
		gen(c, n->kids);
	}
	patch(c, chain, true, c->ninst);
}

/* a|b|c is  SPLIT La, L2; La: a; JMP end; L2: SPLIT Lb, Lc; Lb: b; JMP end; Lc: c */
static void gen_alt(struct compiler *c, const struct node *n)
{
	int chain = CHAIN_END;

	for (const struct node *k = n->kids; k->next; k = k->next) {
		int split = emit(c, CTAP_RE_SPLIT, 0, c->ninst + 1, CHAIN_END);

		gen(c, k);
		chain = emit(c, CTAP_RE_JMP, 0, chain, 0);
		patch(c, split, true, c->ninst);
		if (!k->next->next)
			gen(c, k->next);
	}
	patch(c, chain, false, c->ninst);
}

static void gen(struct compiler *c, const struct node *n)
{
	if (c->why)
		return;
	if (++c->steps > MAX_STEPS) {
		fail(c, "too complex: its repetitions nest too many copies");
		return;
	}
	switch (n->kind) {
	case N_EMPTY:
		break;
	case N_CHAR:
		emit(c, CTAP_RE_CHAR, n->ch, 0, 0);
		break;
	case N_ANY:
		emit(c, CTAP_RE_ANY, 0, 0, 0);
		break;
	case N_CLASS:
		emit(c, CTAP_RE_CLASS, 0, n->cls, 0);
		break;
	case N_BOL:
		emit(c, CTAP_RE_BOL, 0, 0, 0);
		break;
	case N_EOL:
		emit(c, CTAP_RE_EOL, 0, 0, 0);
		break;
	case N_SEQ:
		for (const struct node *k = n->kids; k; k = k->next)
			gen(c, k);
		break;
	case N_ALT:
		gen_alt(c, n);
		break;
	case N_REPEAT:
		gen_repeat(c, n);
		break;
	case N_GROUP:
		/* Group n's bounds in slots 2n and 2n + 1, for matched(). */
		if (c->captures && n->group <= CTAP_REGEX_MAX_GROUPS)
			emit(c, CTAP_RE_SAVE, 0, 2 * n->group, 0);
		gen(c, n->kids);
		if (c->captures && n->group <= CTAP_REGEX_MAX_GROUPS)
			emit(c, CTAP_RE_SAVE, 0, 2 * n->group + 1, 0);
		break;
	}
}

int regex_compile_ex(const char *pattern, bool captures, struct ctap_regex *re,
		     const char **why)
{
	size_t len = strlen(pattern);
	struct compiler c = { .p = pattern, .captures = captures };
	struct node *root;
	int ret = -1;

	memset(re, 0, sizeof(*re));
	/* Each character makes at most one node and one list or repeat node. */
	c.maxnodes = 2 * len + 2;
	c.maxclasses = len / 2 + 1;	/* "[]" at least, per class */
	c.nodes = calloc(c.maxnodes, sizeof(*c.nodes));
	c.inst = calloc(CTAP_REGEX_MAX_INST, sizeof(*c.inst));
	c.classes = calloc(c.maxclasses, sizeof(*c.classes));
	if (!c.nodes || !c.inst || !c.classes) {
		ret = -ENOMEM;
		goto out;
	}
	root = alternation(&c);
	if (root && *c.p == ')')
		fail(&c, "unmatched ')'");
	if (!c.why && captures)		/* the whole match: slots 0 and 1 */
		emit(&c, CTAP_RE_SAVE, 0, 0, 0);
	if (!c.why)
		gen(&c, root);
	if (!c.why && captures)
		emit(&c, CTAP_RE_SAVE, 0, 1, 0);
	if (c.why) {
		*why = c.why;
		goto out;
	}
	c.inst[c.ninst++].op = CTAP_RE_MATCH;
	re->ninst = c.ninst;
	re->ngroups = c.ngroups > 255 ? 255 : c.ngroups;
	re->captures = captures;
	re->inst = c.inst;
	re->classes = c.classes;
	c.inst = NULL;
	c.classes = NULL;
	ret = 0;
out:
	free(c.nodes);
	free(c.inst);
	free(c.classes);
	return ret;
}

int regex_compile(const char *pattern, struct ctap_regex *re, const char **why)
{
	return regex_compile_ex(pattern, false, re, why);
}

void regex_free(struct ctap_regex *re)
{
	free((void *)re->inst);
	free((void *)re->classes);
	memset(re, 0, sizeof(*re));
}

/* ---- the module's copy ---- */

static const char *const op_names[] = {
	[CTAP_RE_CHAR] = "CTAP_RE_CHAR", [CTAP_RE_ANY] = "CTAP_RE_ANY",
	[CTAP_RE_CLASS] = "CTAP_RE_CLASS", [CTAP_RE_SPLIT] = "CTAP_RE_SPLIT",
	[CTAP_RE_JMP] = "CTAP_RE_JMP", [CTAP_RE_BOL] = "CTAP_RE_BOL",
	[CTAP_RE_EOL] = "CTAP_RE_EOL", [CTAP_RE_MATCH] = "CTAP_RE_MATCH",
	[CTAP_RE_SAVE] = "CTAP_RE_SAVE",
};

static void emit_inst(FILE *out, int pc, const struct ctap_regex_inst *in)
{
	fprintf(out, "\t/* %3d */ { %s", pc, op_names[in->op]);
	switch (in->op) {
	case CTAP_RE_CHAR:
		if (in->ch > ' ' && in->ch < 127 && in->ch != '\'' && in->ch != '\\')
			fprintf(out, ", '%c'", in->ch);
		else
			fprintf(out, ", 0x%02x", in->ch);
		break;
	case CTAP_RE_CLASS:
	case CTAP_RE_JMP:
	case CTAP_RE_SAVE:
		fprintf(out, ", 0, %u", in->x);
		break;
	case CTAP_RE_SPLIT:
		fprintf(out, ", 0, %u, %u", in->x, in->y);
		break;
	}
	fputs(" },\n", out);
}

void regex_emit_c(FILE *out, const char *name, const struct ctap_regex *re)
{
	int nclasses = 0;

	for (int pc = 0; pc < re->ninst; pc++)
		if (re->inst[pc].op == CTAP_RE_CLASS && re->inst[pc].x >= nclasses)
			nclasses = re->inst[pc].x + 1;
	if (nclasses) {
		fprintf(out, "static const struct ctap_regex_class %s_classes[] = {\n", name);
		for (int i = 0; i < nclasses; i++) {
			fputs("\t{ {", out);
			for (int b = 0; b < 32; b++)
				fprintf(out, "%s0x%02x,", b % 8 ? " " : "\n\t\t", re->classes[i].bits[b]);
			fputs("\n\t} },\n", out);
		}
		fputs("};\n", out);
	}
	fprintf(out, "static const struct ctap_regex_inst %s_inst[] = {\n", name);
	for (int pc = 0; pc < re->ninst; pc++)
		emit_inst(out, pc, &re->inst[pc]);
	fprintf(out, "};\nstatic const struct ctap_regex %s = {\n\t.ninst = %d,\n", name, re->ninst);
	if (re->captures)
		fprintf(out, "\t.ngroups = %d,\n\t.captures = true,\n", re->ngroups);
	fprintf(out, "\t.inst = %s_inst,\n\t.classes = %s%s,\n};\n\n", name,
		nclasses ? name : "NULL", nclasses ? "_classes" : "");
}
