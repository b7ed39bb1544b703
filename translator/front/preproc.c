// SPDX-License-Identifier: GPL-2.0
/*
 * preproc.c - conditionals and macros over the token array.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preproc.h"
#include "xalloc.h"

#define MAX_EXPANSION_DEPTH	64
#define MAX_MACRO_PARAMS	64	/* also in a message below */
/* Tokens all expansions of a file may produce: depth alone does not stop
 * "@define a %( @a @a %)" from doubling 64 times. */
#define MAX_EXPANSION_TOKENS	(1 << 20)	/* unless pp_env.max_expansion says */

struct macro {
	const char *name;		/* without the '@' */
	const char **params;
	int nparams;
	struct token *body;
	size_t nbody;
	struct loc loc;
};

struct pp {
	struct arena *arena;
	struct pp_env *env;
	struct macro_table local;	/* this file's @defines */
	struct tokens *out;
	bool in_place;			/* out->v is the input array: see pp_chunk() */
	int depth;			/* macro expansion nesting */
	size_t expanded;		/* tokens produced by expansions so far */
	bool gave_up;			/* budget exceeded: expand no more */
	/* --check-version: tokens a systemtap_v condition chose are marked
	 * (token.versioned), and the first token after one that chose
	 * nothing, so that the declaration holding them is known. */
	bool cond_versioned;		/* the condition being read names systemtap_v */
	int versioned;			/* open conditionals on systemtap_v */
	bool versioned_pending;		/* one closed: mark the next token */
};

/* A cursor over a token range that ends in TOK_EOF or at `end`. */
struct range {
	const struct token *t;
	size_t i, end;
};

static const struct token *cur(struct range *r)
{
	static const struct token eof = { .kind = TOK_EOF, .text = "" };

	return r->i < r->end ? &r->t[r->i] : (r->end ? &r->t[r->end - 1] : &eof);
}

static bool at_end(struct range *r)
{
	return r->i >= r->end || r->t[r->i].kind == TOK_EOF;
}

static void pp_error(struct pp *pp, const struct token *t, const char *msg)
{
	struct loc loc = tok_loc(t);

	diag_error("parse", &loc, token_describe(pp->arena, t), "%s", msg);
}

/* ---- conditions ---- */

/* Reads the .config once into a set of names: tapsets ask hundreds of times. */
static void kconfig_load(struct pp_env *env)
{
	FILE *f = env->kconfig_path ? fopen(env->kconfig_path, "r") : NULL;
	size_t cap = 1 << 16, len = 0, got;

	env->kconfig_read = true;
	if (!f)
		return;
	env->kconfig = xmalloc(cap);
	while ((got = fread(env->kconfig + len, 1, cap - len - 1, f)) > 0)
		if ((len += got) == cap - 1)
			env->kconfig = xrealloc(env->kconfig, cap *= 2);
	fclose(f);
	env->kconfig[len] = '\0';
	for (char *l = env->kconfig, *e; l && *l; l = e ? e + 1 : NULL) {
		char *eq;

		e = strchr(l, '\n');
		if (e)
			*e = '\0';
		eq = strchr(l, '=');
		if (*l != '#' && eq) {
			*eq = '\0';	/* the name ends, its value follows */
			strset_add(&env->kconfig_names, l);
		}
	}
}

void pp_env_free(struct pp_env *env)
{
	free(env->kconfig);
	strset_free(&env->kconfig_names);
}

static const char *kconfig_value(struct pp *pp, const char *name)
{
	struct pp_env *env = pp->env;
	const char *found;

	if (!env->kconfig_read)
		kconfig_load(env);
	found = strset_get(&env->kconfig_names, name);
	if (found) {
		const char *v = found + strlen(found) + 1;
		size_t len = strlen(v);

		if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
			return arena_strndup(pp->arena, v + 1, len - 2);
		return v;
	}
	return "";
}

/* The value of a condition operand: a literal, or one of the names. */
static bool operand(struct pp *pp, const struct token *t, const char **s, long long *n)
{
	struct pp_env *env = pp->env;

	*s = NULL;
	if (t->kind == TOK_NUMBER) {
		*n = tok_number(t);
		return true;
	}
	if (t->kind == TOK_STRING) {
		*s = t->text;
		return true;
	}
	if (t->kind != TOK_IDENT)
		return false;
	if (!strcmp(t->text, "kernel_vr")) {
		*s = env->kernel_release;
	} else if (!strcmp(t->text, "kernel_v")) {
		const char *dash = strchr(env->kernel_release, '-');

		*s = arena_strndup(pp->arena, env->kernel_release,
				   dash ? (size_t)(dash - env->kernel_release) : strlen(env->kernel_release));
	} else if (!strcmp(t->text, "arch")) {
		*s = env->arch;
	} else if (!strcmp(t->text, "runtime")) {
		*s = env->runtime;
	} else if (!strcmp(t->text, "systemtap_v")) {
		*s = env->compat_version;
		pp->cond_versioned = true;
	} else if (!strcmp(t->text, "systemtap_privilege")) {
		*s = env->privilege;
	} else if (!strcmp(t->text, "guru_mode")) {
		*n = env->guru;
	} else if (!strncmp(t->text, "CONFIG_", 7)) {
		*s = kconfig_value(pp, t->text);
	} else {
		return false;
	}
	return true;
}

/* c (<0, 0, >0 as strcmp's) against 0 by comparison operator id op. */
static bool compare(unsigned op, int c)
{
	switch (op) {
	case OP_EQ:	return c == 0;
	case OP_NE:	return c != 0;
	case OP_LT:	return c < 0;
	case OP_LE:	return c <= 0;
	case OP_GT:	return c > 0;
	default:	return c >= 0;	/* OP_GE */
	}
}

static bool is_cmp_op(const struct token *t)
{
	return t->kind == TOK_OP && lex_op_is_comparison(t->op);
}

/* comparison -> operand cmp_op operand */
static bool eval_comparison(struct pp *pp, struct range *r, bool *ok)
{
	const struct token *lt = cur(r), *opt, *rt;
	const char *ls, *rs;
	long long ln = 0, rn = 0;
	bool lhs_names_version;

	if (!operand(pp, lt, &ls, &ln)) {
		pp_error(pp, lt, "expected 'arch', 'kernel_v', 'kernel_vr', 'runtime', "
			 "'systemtap_v', 'systemtap_privilege', 'guru_mode' or 'CONFIG_...'");
		*ok = false;
		return false;
	}
	r->i++;
	opt = cur(r);
	if (!is_cmp_op(opt)) {
		pp_error(pp, opt, "expected comparison operator");
		*ok = false;
		return false;
	}
	r->i++;
	rt = cur(r);
	/* CONFIG_X against a number: its value as a number, 0 when unset */
	if (ls && !strncmp(lt->text, "CONFIG_", 7) && rt->kind == TOK_NUMBER) {
		ln = strtoll(ls, NULL, 0);
		ls = NULL;
	}
	if (!operand(pp, rt, &rs, &rn) || (!ls != !rs)) {
		pp_error(pp, rt, ls ? "expected string literal" : "expected number");
		*ok = false;
		return false;
	}
	r->i++;
	/* arch, runtime and guru_mode are names, not quantities: SystemTap
	 * allows only == and != on them, and guru_mode is 0 or 1. */
	if ((!strcmp(lt->text, "arch") || !strcmp(lt->text, "runtime") ||
	     !strcmp(lt->text, "guru_mode")) && strcmp(opt->text, "==") && strcmp(opt->text, "!=")) {
		pp_error(pp, opt, arena_printf(pp->arena, "'%s' is compared with == or != only",
					       lt->text));
		*ok = false;
		return false;
	}
	if (!strcmp(lt->text, "guru_mode") && rn != 0 && rn != 1) {
		pp_error(pp, rt, "guru_mode is 0 or 1");
		*ok = false;
		return false;
	}
	if (!ls)
		return compare(opt->op, ln < rn ? -1 : ln > rn);
	lhs_names_version = !strncmp(lt->text, "kernel_v", 8) || !strcmp(lt->text, "systemtap_v");
	if ((!strcmp(opt->text, "==") || !strcmp(opt->text, "!=")) && strpbrk(rs, "*?[")) {
		bool match = fnmatch(rs, ls, 0) == 0;

		return opt->text[0] == '=' ? match : !match;
	}
	return compare(opt->op, lhs_names_version ? strverscmp(ls, rs) : strcmp(ls, rs));
}

/* condition -> comparison (('&&' | '||') comparison)*, && binding tighter */
static bool eval_condition(struct pp *pp, struct range *r, bool *ok)
{
	bool any = false;

	do {
		bool all = true;

		do
			all &= eval_comparison(pp, r, ok);
		while (*ok && tok_op(cur(r), "&&") && (r->i++, true));
		any |= all;
	} while (*ok && tok_op(cur(r), "||") && (r->i++, true));
	return any;
}

/* ---- macros ---- */

/* The slot holding name, or the empty one where it would go. */
static struct macro **table_slot(const struct macro_table *t, const char *name)
{
	size_t i = strset_hash(name) & (t->cap - 1);

	while (t->slots[i] && strcmp(t->slots[i]->name, name))
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static struct macro *table_find(const struct macro_table *t, const char *name)
{
	return t->cap ? *table_slot(t, name) : NULL;
}

static void table_add(struct arena *a, struct macro_table *t, struct macro *m)
{
	if (2 * (t->n + 1) > t->cap) {
		/* The old slots stay in the arena: tables are small and few. */
		struct macro_table bigger = { .cap = t->cap ? 2 * t->cap : 64, .n = t->n };

		bigger.slots = arena_alloc(a, bigger.cap * sizeof(*bigger.slots));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i])
				*table_slot(&bigger, t->slots[i]->name) = t->slots[i];
		*t = bigger;
	}
	struct macro **slot = table_slot(t, m->name);

	if (!*slot)
		t->n++;
	*slot = m;
}

/* A file's own macros shadow the library's. */
static struct macro *find_macro(struct pp *pp, const char *name)
{
	struct macro *m = table_find(&pp->local, name);

	return m ? m : table_find(&pp->env->library, name);
}

/* Index just past the %) that closes the %( at r->i - 1, or 0 if none. */
static size_t matching_close(struct range *r, size_t from)
{
	int depth = 1;

	for (size_t i = from; i < r->end && r->t[i].kind != TOK_EOF; i++) {
		if (tok_op(&r->t[i], "%("))
			depth++;
		else if (tok_op(&r->t[i], "%)") && --depth == 0)
			return i + 1;
	}
	return 0;
}

/* define -> '@define' name ['(' name (',' name)* ')'] '%(' body '%)' */
static void define_macro(struct pp *pp, struct range *r)
{
	const struct token *kw = cur(r), *t;
	struct macro *m = arena_new(pp->arena, struct macro);
	const char *params[MAX_MACRO_PARAMS];
	size_t close;

	r->i++;
	t = cur(r);
	if (t->kind != TOK_IDENT || t->text[0] == '@' || t->text[0] == '$') {
		pp_error(pp, t, "expected macro name after @define");
		goto skip;
	}
	if (!strcmp(t->text, "define")) {
		pp_error(pp, t, "'@define' cannot be redefined");
		goto skip;
	}
	m->name = t->text;
	m->loc = tok_loc(kw);
	r->i++;
	if (tok_op(cur(r), "(")) {
		r->i++;
		while (!tok_op(cur(r), ")")) {
			t = cur(r);
			if (t->kind != TOK_IDENT || m->nparams == MAX_MACRO_PARAMS) {
				pp_error(pp, t, "expected macro parameter name");
				goto skip;
			}
			params[m->nparams++] = t->text;
			r->i++;
			if (tok_op(cur(r), ","))
				r->i++;
			else if (!tok_op(cur(r), ")")) {
				pp_error(pp, cur(r), "expected ',' or ')'");
				goto skip;
			}
		}
		r->i++;
	}
	if (!tok_op(cur(r), "%(")) {
		pp_error(pp, cur(r), "expected '%(' to start the macro body");
		goto skip;
	}
	close = matching_close(r, r->i + 1);
	if (!close) {
		pp_error(pp, cur(r), "unterminated macro body: no matching '%)'");
		r->i = r->end;
		return;
	}
	/* Copied: library macros outlive the token array of their file. */
	m->nbody = close - 1 - (r->i + 1);
	m->body = arena_alloc(pp->arena, sizeof(*m->body) * (m->nbody + 1));
	memcpy(m->body, &r->t[r->i + 1], sizeof(*m->body) * m->nbody);
	m->params = arena_alloc(pp->arena, sizeof(*m->params) * (m->nparams + 1));
	memcpy(m->params, params, sizeof(*params) * m->nparams);
	r->i = close;
	table_add(pp->arena, pp->env->defining_library ? &pp->env->library : &pp->local, m);
	return;
skip:
	/* A bad definition ends with its body (the lexer agrees: lex.h), or at
	 * a '%)' before any body. */
	while (!at_end(r) && !tok_op(cur(r), "%)") && !tok_op(cur(r), "%("))
		r->i++;
	if (tok_op(cur(r), "%)"))
		r->i++;
	else if (tok_op(cur(r), "%("))
		r->i = (close = matching_close(r, r->i + 1)) ? close : r->end;
}

static void pp_run(struct pp *pp, struct range *r);

/* @name or @name(args): substitute the arguments and preprocess the body. */
static size_t max_expansion(const struct pp *pp)
{
	return pp->env->max_expansion ? pp->env->max_expansion : MAX_EXPANSION_TOKENS;
}

static void expand_macro(struct pp *pp, struct range *r, struct macro *m)
{
	const struct token *at = cur(r);
	size_t arg_start[MAX_MACRO_PARAMS], arg_end[MAX_MACRO_PARAMS];
	int nargs = 0;
	struct tokens body = { 0 };

	r->i++;
	if (m->nparams || tok_op(cur(r), "(")) {
		bool too_many = false;
		int depth = 0;

		if (!tok_op(cur(r), "(")) {
			pp_error(pp, cur(r), "expected '(' and the macro's arguments");
			return;
		}
		r->i++;
		arg_start[0] = r->i;
		for (;; r->i++) {
			const struct token *t = cur(r);

			if (at_end(r)) {
				pp_error(pp, at, "unterminated macro argument list");
				return;
			}
			if (depth == 0 && (tok_op(t, ",") || tok_op(t, ")"))) {
				/* No macro has more parameters: the rest are
				 * skipped (the fuzzer found a write past the
				 * arrays here), the call is an error below. */
				if (nargs == MAX_MACRO_PARAMS) {
					too_many = true;
					if (tok_op(t, ")"))
						break;
					continue;
				}
				arg_end[nargs++] = r->i;
				if (tok_op(t, ")"))
					break;
				if (nargs < MAX_MACRO_PARAMS)
					arg_start[nargs] = r->i + 1;
			} else if (tok_op(t, "(") || tok_op(t, "[") || tok_op(t, "{")) {
				depth++;
			} else if (tok_op(t, ")") || tok_op(t, "]") || tok_op(t, "}")) {
				depth--;
			}
		}
		r->i++;
		if (too_many) {
			pp_error(pp, at, "more than 64 macro arguments");
			return;
		}
		if (nargs == 1 && arg_start[0] == arg_end[0] && m->nparams == 0)
			nargs = 0;	/* @m() */
	}
	if (nargs != m->nparams) {
		char msg[128];

		snprintf(msg, sizeof(msg), "macro @%s takes %d argument%s, not %d",
			 m->name, m->nparams, m->nparams == 1 ? "" : "s", nargs);
		pp_error(pp, at, msg);
		return;
	}
	if (pp->in_place) {
		/* An expansion may outgrow what it replaces: write elsewhere now. */
		struct tokens moved = { 0 };

		tokens_reserve(&moved, pp->out->n + 1024);
		memcpy(moved.v, pp->out->v, pp->out->n * sizeof(*moved.v));
		moved.n = pp->out->n;
		*pp->out = moved;
		pp->in_place = false;
	}
	if (pp->gave_up)
		return;
	if (pp->depth >= MAX_EXPANSION_DEPTH) {
		pp_error(pp, at, "macro expansion too deep (recursive macro?)");
		pp->gave_up = true;
		return;
	}
	for (size_t i = 0; i < m->nbody; i++) {
		const struct token *t = &m->body[i];
		int k = -1;

		/* Counted as produced, arguments included: a parameter used
		 * twice doubles its argument at each level (2^64 tokens for a
		 * chain of 64 such macros: the fuzzer found it). */
		if (pp->expanded + body.n > max_expansion(pp)) {
			char msg[96];

			snprintf(msg, sizeof(msg), "macro expansion produces over %zu tokens "
				 "(recursive macro?)", max_expansion(pp));
			pp_error(pp, at, msg);
			pp->gave_up = true;
			tokens_free(&body);
			return;
		}

		if (t->kind == TOK_IDENT && t->text[0] == '@')
			for (int j = 0; j < m->nparams; j++)
				if (!strcmp(t->text + 1, m->params[j]))
					k = j;
		if (k < 0) {
			struct token copy = *t;

			if (i == 0)
				copy.space_before = at->space_before;
			tokens_push(&body, &copy);
			continue;
		}
		for (size_t j = arg_start[k]; j < arg_end[k]; j++)
			tokens_push(&body, &r->t[j]);
	}
	struct range sub = { .t = body.v, .i = 0, .end = body.n };

	pp->expanded += body.n;
	pp->depth++;
	pp_run(pp, &sub);
	pp->depth--;
	tokens_free(&body);
}

/* ---- the pass ---- */

struct cond_frame {
	bool taking;		/* emitting the current branch */
	bool parent_taking;
	bool seen_else;
	bool versioned;		/* on systemtap_v */
	struct token open;	/* a copy: in place, the output may overwrite it */
};

/*
 * The value of the condition at r, which may use macros (SystemTap's own
 * tapsets write %( @_IS_SREG_KERNEL %? ...): a condition with an @name is
 * expanded into a scratch array first, then evaluated there.
 */
static bool condition_value(struct pp *pp, struct range *r, bool *ok)
{
	size_t end = r->i;
	bool macros = false, value;
	int depth = 0;

	for (; end < r->end && r->t[end].kind != TOK_EOF; end++) {
		const struct token *t = &r->t[end];

		if (tok_op(t, "%("))
			depth++;
		else if (tok_op(t, "%)") && depth-- == 0)
			break;	/* no %?: skip_condition() */
		else if (depth == 0 && tok_op(t, "%?"))
			break;
		macros |= t->kind == TOK_IDENT && t->text[0] == '@';
	}
	if (!macros || end == r->end || !tok_op(&r->t[end], "%?"))
		return eval_condition(pp, r, ok);

	struct tokens scratch = { 0 }, *out = pp->out;
	struct range sub = { .t = r->t, .i = r->i, .end = end };
	struct token eof = r->t[end];
	bool in_place = pp->in_place;

	pp->out = &scratch;
	pp->in_place = false;
	pp_run(pp, &sub);
	pp->out = out;
	pp->in_place = in_place;
	eof.kind = TOK_EOF;
	eof.op = 0;
	tokens_push(&scratch, &eof);
	sub = (struct range){ .t = scratch.v, .i = 0, .end = scratch.n };
	value = eval_condition(pp, &sub, ok);
	tokens_free(&scratch);
	r->i = end;
	return value;
}

/*
 * To the '%?' of the conditional whose condition is at r (a nested one is
 * skipped whole), or, if it has none, to the '%)' that closes it: recovery
 * stays inside the conditional, as chunks do (lex.h).
 */
static void skip_condition(struct range *r)
{
	int depth = 0;

	for (; !at_end(r); r->i++) {
		const struct token *t = cur(r);

		if (tok_op(t, "%("))
			depth++;
		else if (tok_op(t, "%)") && depth-- == 0)
			return;
		else if (depth == 0 && tok_op(t, "%?"))
			return;
	}
}

/* Append n tokens to the output. */
/* The last n tokens out: inside a systemtap_v conditional all, just
 * after one the first. */
static void mark_versioned(struct pp *pp, size_t n)
{
	size_t from = pp->out->n - n;

	if (!n || (!pp->versioned && !pp->versioned_pending))
		return;
	for (size_t i = from; i < (pp->versioned ? pp->out->n : from + 1); i++)
		pp->out->v[i].versioned = true;
	pp->versioned_pending = false;
}

static void pass_tokens(struct pp *pp, const struct token *t, size_t n)
{
	struct tokens *out = pp->out;

	if (!(pp->in_place && out->v + out->n == t)) {
		if (out->n + n > out->cap)
			tokens_reserve(out, out->n + n > 2 * out->cap ? out->n + n : 2 * out->cap);
		memmove(out->v + out->n, t, n * sizeof(*t));
	}
	out->n += n;
	mark_versioned(pp, n);
}

static void pp_run(struct pp *pp, struct range *r)
{
	struct cond_frame stack[64];
	int top = -1;

	while (!at_end(r)) {
		const struct token *t = cur(r);
		bool taking = top < 0 || stack[top].taking;

		/* Only %( %? %: %) and @names concern us: pass runs of the
		 * rest at once (in place and unshifted, that is no copy). */
		if (t->text[0] != '%' && t->text[0] != '@') {
			size_t from = r->i;

			while (r->i < r->end && r->t[r->i].kind != TOK_EOF &&
			       r->t[r->i].text[0] != '%' && r->t[r->i].text[0] != '@')
				r->i++;
			if (taking)
				pass_tokens(pp, r->t + from, r->i - from);
			continue;
		}

		if (tok_op(t, "%(")) {
			bool ok = true, value = false, parent = taking;

			r->i++;
			if (top == 63) {
				pp_error(pp, t, "conditionals nested too deeply");
				return;
			}
			if (!parent) {
				/* Skipped whole, nesting counted as SystemTap does: a
				 * skipped macro body's %( %) need no %?. */
				size_t close = matching_close(r, r->i);

				if (!close) {
					pp_error(pp, t, "unterminated conditional: no matching '%)'");
					return;
				}
				r->i = close;
				continue;
			}
			pp->cond_versioned = false;
			value = condition_value(pp, r, &ok);
			skip_condition(r);	/* the rest of a bad one */
			if (!tok_op(cur(r), "%?")) {
				pp_error(pp, t, "expected '%?' after the condition");
				if (at_end(r))
					return;
				r->i++;	/* past its %): the conditional is dropped */
				continue;
			}
			r->i++;
			stack[++top] = (struct cond_frame){ parent && ok && value, parent, false,
							   pp->cond_versioned, *t };
			pp->versioned += pp->cond_versioned;
			continue;
		}
		if (tok_op(t, "%:") || tok_op(t, "%)") || tok_op(t, "%?")) {
			r->i++;
			if (top < 0 || tok_op(t, "%?") || (tok_op(t, "%:") && stack[top].seen_else)) {
				pp_error(pp, t, "incomplete conditional: no matching '%('");
				continue;
			}
			if (tok_op(t, "%)")) {
				if (stack[top].versioned) {
					pp->versioned--;
					pp->versioned_pending = true;
				}
				top--;
			} else {
				stack[top].seen_else = true;
				stack[top].taking = stack[top].parent_taking && !stack[top].taking;
			}
			continue;
		}
		if (!taking) {
			r->i++;
			continue;
		}
		if (tok_ident(t, "@define")) {
			define_macro(pp, r);
			continue;
		}
		if (t->kind == TOK_IDENT && t->text[0] == '@' && t->text[1]) {
			struct macro *m = find_macro(pp, t->text + 1);

			if (m) {
				expand_macro(pp, r, m);
				continue;
			}
		}
		tokens_push(pp->out, t);
		mark_versioned(pp, 1);
		r->i++;
	}
	if (top >= 0)
		pp_error(pp, &stack[top].open, "unterminated conditional: no matching '%)'");
}

struct pp *pp_open(struct arena *a, struct pp_env *env)
{
	struct pp *pp = arena_new(a, struct pp);

	pp->arena = a;
	pp->env = env;
	return pp;
}

/*
 * The output starts in place over the input: without macro expansions it
 * never gets ahead of the token being read, so a chunk's tokens need no
 * copy; in and out then trade arrays.  The first expansion moves the
 * output to an array of its own (expand_macro).
 */
void pp_chunk(struct pp *pp, struct tokens *in, struct tokens *out)
{
	struct range r = { .t = in->v, .i = 0, .end = in->n };
	struct token eof = in->v[in->n - 1];
	struct tokens spare = *out;

	*out = (struct tokens){ .v = in->v, .n = 0, .cap = in->cap };
	pp->out = out;
	pp->in_place = true;
	pp_run(pp, &r);
	tokens_push(out, &eof);
	if (pp->in_place)
		*in = spare;
	else
		tokens_free(&spare);
	in->n = 0;
}
