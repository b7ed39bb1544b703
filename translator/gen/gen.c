// SPDX-License-Identifier: GPL-2.0
/*
 * gen.c - pass 3: statements and expressions to C.
 *
 * As in Lua's lcode.c, an expression is "discharged": whatever it must
 * do first (a call, a map insert, a check that can fail) is written as
 * statements of their own, one per line, into the body at x->depth, and
 * what remains is a small C expression for its value: an int64_t for a
 * long, a const char * for a string.  Results that need storage go to
 * named temporaries, fields of the locals struct `l` of the handler or
 * function ("l->t3_execname"); variables are l->v_NAME, globals G.g_NAME.
 * A failure sets the context's error and jumps to x->err: "out" at the
 * end of the function, or the catch block of the innermost try.  What
 * runs only on a condition (the right of &&, a branch of ?:) is generated
 * aside first and placed under its if.  Statements are gen_stmt.c's.
 * See docs/translator.md.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "regex_compile.h"
#include "gen_internal.h"
#include "kbtf.h"
#include "monitor.h"
#include "tvar.h"

void gen_error(struct xlate *x, const struct loc *loc, const char *fmt, ...)
{
	va_list ap;

	x->errors++;
	va_start(ap, fmt);
	diag_verror("translate", loc, NULL, fmt, ap);
	va_end(ap);
}

/* ---- strings ---- */

const char *gen_c_comment(struct arena *a, const char *raw)
{
	char *out, *o;

	if (!raw || (!strstr(raw, "*/") && !strstr(raw, "/*")))
		return raw;
	out = o = arena_alloc(a, 2 * strlen(raw) + 1);
	for (const char *p = raw; *p; p++) {
		*o++ = *p;
		if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
			*o++ = ' ';
	}
	*o = '\0';
	return out;
}

/* A C string literal for n bytes of text (no escapes left in them). */
static const char *c_bytes(struct xlate *x, const char *bytes, size_t n)
{
	char *out = arena_alloc(x->a, n * 4 + 3), *o = out;

	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = bytes[i];

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = c;
		} else if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c < 32 || c >= 127 || c == '?') {
			/* Octal, always 3 digits: no digit after can join it;
			 * '?' too, so no trigraph can form. */
			o += sprintf(o, "\\%03o", c);
		} else {
			*o++ = c;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

const char *gen_c_string(struct xlate *x, const char *raw)
{
	char *bytes = arena_alloc(x->a, strlen(raw) + 1);

	return c_bytes(x, bytes, lex_unescape(raw, bytes));
}

const char *gen_where(struct xlate *x, const struct loc *loc, const char *what)
{
	char *raw = arena_printf(x->a, "%s at %s:%d:%d", what, loc->src ? loc->src->name : "?",
				 loc->line, loc->col);
	size_t len = strlen(raw);
	char *out = arena_alloc(x->a, len * 2 + 3), *o = out;

	*o++ = '"';
	for (const char *p = raw; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '?')
			*o++ = '\\';
		*o++ = *p;
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

/* ---- output ---- */

/* One line of the body at the current depth. */
void gen_emit(struct xlate *x, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < x->depth; i++)
		fputc('\t', x->code);
	va_start(ap, fmt);
	vfprintf(x->code, fmt, ap);
	va_end(ap);
	fputc('\n', x->code);
}

void gen_blank(struct xlate *x)
{
	fputc('\n', x->code);
}

/* Where a soft error jumps: "out" (then the function needs the label) or a catch. */
const char *gen_err_label(struct xlate *x)
{
	x->err_jumps++;
	if (!strcmp(x->err, "out"))
		x->sc->uses_out = true;
	return x->err;
}

/* if (unlikely(cond)) { what; goto err; } -- what may be NULL. */
static void fail_if(struct xlate *x, const char *cond, const char *what)
{
	if (!what) {
		gen_emit(x, "if (unlikely(%s))", cond);
		gen_emit(x, "\tgoto %s;", gen_err_label(x));
		return;
	}
	gen_emit(x, "if (unlikely(%s)) {", cond);
	gen_emit(x, "\t%s;", what);
	gen_emit(x, "\tgoto %s;", gen_err_label(x));
	gen_emit(x, "}");
}

/* ---- variables and temporaries ---- */

struct var *gen_find_global(struct xlate *x, const char *name)
{
	return sem_find_var(sem_globals(x->s), name);
}

/* A local of the scope, else a global. */
struct var *gen_lookup(struct xlate *x, const char *name, const char **c)
{
	struct var *v = sem_find_var(x->sc->locals, name);

	if (v) {
		*c = arena_printf(x->a, "l->v_%s", name);
		return v;
	}
	v = gen_find_global(x, name);
	if (v && v->counter)
		*c = arena_printf(x->a, "ctap_counter_read(&G.g_%s)", name);
	else
		*c = arena_printf(x->a, "G.g_%s", name);
	return v;
}

/* The counter global e names (analyses_find_counters), or NULL. */
struct var *gen_counter_of(struct xlate *x, const struct expr *e)
{
	const char *c;
	struct var *v;

	if (e->kind != E_SYMBOL)
		return NULL;
	v = gen_lookup(x, e->name, &c);
	return v && v->kind == V_GLOBAL && v->counter ? v : NULL;
}

/*
 * A new field of the scope's locals struct (the kernel stack is too
 * small for strings), named for what it holds: "l->t3_execname".  decl
 * is a printf format for the declaration with %s for the name.
 */
const char *gen_temp(struct xlate *x, const char *decl, const char *what)
{
	char name[128];

	snprintf(name, sizeof(name), "t%d_%s", x->sc->ntemps++, what);
	fputc('\t', x->sc->temps);
	fprintf(x->sc->temps, decl, name);
	fputs(";\n", x->sc->temps);
	return arena_printf(x->a, "l->%s", name);
}

const char *gen_str_temp(struct xlate *x, const char *what)
{
	return gen_temp(x, "char %s[MAXSTRINGLEN]", what);
}

static bool is_string(const struct expr *e)
{
	if (e->kind == E_STRING)
		return true;
	if (e->kind == E_NUMBER)
		return false;
	return e->vtype == T_STRING;
}

/* A name or a member: reading it twice costs nothing. */
static bool simple(const char *c)
{
	return strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.->") ==
		strlen(c);
}

/* One of gen_temp()'s: "l->t3_execname", nothing but its expression writes it. */
static bool is_temp(const char *c)
{
	if (strncmp(c, "l->t", 4) || c[4] < '0' || c[4] > '9')
		return false;
	return strspn(c + 4, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
	       strlen(c + 4);
}

/*
 * v, the value of e, into a temporary of its own, where the statements
 * of what is evaluated after it cannot change it (a literal or one of
 * our temporaries is there already: a call's result costs no copy).
 */
static const char *keep(struct xlate *x, const struct expr *e, const char *v)
{
	const char *t;

	if (e->kind == E_NUMBER || e->kind == E_STRING || is_temp(v))
		return v;
	if (is_string(e)) {
		t = gen_str_temp(x, "str");
		gen_emit(x, "ctap_strcpy(%s, %s);", t, v);
	} else {
		t = gen_temp(x, "int64_t %s", "val");
		gen_emit(x, "%s = %s;", t, v);
	}
	return t;
}


/*
 * The values of a list of expressions, left to right: a value with side
 * effects after it is kept in a temporary first.
 */
static const char **expr_list(struct xlate *x, const struct expr *list, int *n)
{
	const char **v;
	int i = 0;

	*n = 0;
	for (const struct expr *a = list; a; a = a->next)
		(*n)++;
	v = arena_alloc(x->a, (*n + 1) * sizeof(*v));
	for (const struct expr *a = list; a; a = a->next, i++) {
		bool effects_after = false;

		if (a->kind == E_WILDCARD) {
			v[i] = NULL;
			continue;
		}
		for (const struct expr *b = a->next; b && !effects_after; b = b->next)
			effects_after = !ast_pure(b);
		v[i] = gen_expr_c(x, a);
		if (effects_after)
			v[i] = keep(x, a, v[i]);
	}
	return v;
}


/*
 * e's value, with the statements computing it written aside (at depth)
 * into *stmts instead of the body: for what runs only on a condition.
 * With value false, e is evaluated for its effects only (returns NULL).
 */
const char *gen_aside(struct xlate *x, const struct expr *e, int depth, char **stmts,
		      bool value)
{
	FILE *body = x->code;
	int saved = x->depth;
	size_t len;
	const char *v = NULL;

	x->code = open_memstream(stmts, &len);
	x->depth = depth;
	if (value)
		v = gen_expr_c(x, e);
	else
		gen_effect(x, e);
	fclose(x->code);
	x->code = body;
	x->depth = saved;
	return v;
}

static const char *expr_aside(struct xlate *x, const struct expr *e, int depth, char **stmts)
{
	return gen_aside(x, e, depth, stmts, true);
}

static void put_aside(struct xlate *x, char *stmts)
{
	fputs(stmts, x->code);
	free(stmts);
}

/* ---- array keys ---- */

/*
 * A key temporary, filled from keys; wildcards leave their bit out of
 * *mask.  Returns the temporary.
 */
const char *gen_key_fill(struct xlate *x, const struct var *arr, const struct expr *keys,
			 unsigned *mask)
{
	const char *key = gen_temp(x, "struct ctap_key %s", "key"), **v;
	int i = 0, n;

	*mask = 0;
	v = expr_list(x, keys, &n);
	for (const struct expr *k = keys; k; k = k->next, i++) {
		if (k->kind == E_WILDCARD)
			continue;
		*mask |= 1u << i;
		gen_emit(x, "%s.%c[%d] = %s;", key, arr->keys[i] == T_STRING ? 's' : 'n', i, v[i]);
	}
	return key;
}

/* The entry of arr[keys], created if absent: an int temporary. */
static const char *slot(struct xlate *x, const struct expr *at, const struct var *arr)
{
	unsigned mask;
	const char *key = gen_key_fill(x, arr, at->args, &mask);
	const char *e = gen_temp(x, "int %s", "slot");
	const char *overflow = arr->global && arr->global->size ?
		arena_printf(x->a, "\"Array overflow, check size limit (%lld)\"",
			     (long long)arr->global->size) :
		"\"Array overflow, check MAXMAPENTRIES\"";

	gen_emit(x, "%s = ctap_map_slot(c, G.g_%s, &%s, %s,", e, arr->name, key, overflow);
	gen_emit(x, "\t\t%s);", gen_where(x, &at->a->loc, arena_printf(x->a, "identifier '%s'",
								    arr->name)));
	fail_if(x, arena_printf(x->a, "%s < 0", e), NULL);
	return e;
}

struct var *gen_array_of(struct xlate *x, const struct expr *base)
{
	struct var *v = gen_find_global(x, base->name);

	if (!v || !v->nkeys)
		gen_error(x, &base->loc, "'%s' is not a global array", base->name);
	return v;
}

/* ---- statistics ---- */

/* The aggregate of a statistics operand (a scalar or arr[keys]): a temporary. */
const char *gen_stat_agg(struct xlate *x, const struct expr *operand)
{
	const char *agg;

	if (operand->kind == E_INDEX) {
		struct var *arr = gen_array_of(x, operand->a);
		const char *key;
		unsigned mask;

		if (!arr)
			return "((struct ctap_stat *)NULL)";
		key = gen_key_fill(x, arr, operand->args, &mask);
		agg = gen_temp(x, "struct ctap_stat *%s", "agg");
		gen_emit(x, "%s = ctap_map_stat_agg(G.g_%s, &%s, &%s);", agg, arr->name, key,
		     gen_temp(x, "struct ctap_stat %s", "stat"));
		return agg;
	}
	agg = gen_temp(x, "struct ctap_stat *%s", "agg");
	gen_emit(x, "%s = ctap_pstat_aggregate(&spec_%s, &G.g_%s);", agg, operand->name, operand->name);
	return agg;
}

const char *gen_stat_name(const struct expr *operand)
{
	return operand->kind == E_INDEX ? operand->a->name : operand->name;
}

/* An aggregate that must not be empty. */
static const char *nonempty(struct xlate *x, const struct expr *operand)
{
	const char *agg = gen_stat_agg(x, operand);

	fail_if(x, arena_printf(x->a, "!%s->count", agg), "c->last_error = \"empty aggregate\"");
	return agg;
}

/* @count and @sum of nothing are 0; the others are an error, as SystemTap's. */
static const char *stat_value(struct xlate *x, const struct expr *e)
{
	const char *name = gen_stat_name(e->a), *agg;

	if (!strcmp(e->name, "@count"))
		return arena_printf(x->a, "%s->count", gen_stat_agg(x, e->a));
	if (!strcmp(e->name, "@sum"))
		return arena_printf(x->a, "%s->sum", gen_stat_agg(x, e->a));
	agg = nonempty(x, e->a);
	if (!strcmp(e->name, "@avg"))
		return arena_printf(x->a, "ctap_stat_avg(%s)", agg);
	if (!strcmp(e->name, "@variance"))
		return arena_printf(x->a, "ctap_stat_variance(&spec_%s, %s)", name, agg);
	return arena_printf(x->a, "%s->%s", agg, !strcmp(e->name, "@min") ? "min" : "max");
}

/* ---- printing ---- */

/* A format for print/println/printd...: each value's %d or %s. */
static const char *value_format(struct xlate *x, const struct expr *args, const char *delim,
				bool newline)
{
	char *fmt = "";

	for (const struct expr *a = args; a; a = a->next)
		fmt = arena_printf(x->a, "%s%s%s", fmt, is_string(a) ? "%s" : "%d",
				   a->next && delim ? delim : "");
	return arena_printf(x->a, "%s%s", fmt, newline ? "\\n" : "");
}

/* A delimiter for a format string: '%' doubled, escapes kept. */
static const char *format_text(struct xlate *x, const char *raw)
{
	size_t n = 0;
	char *out = arena_alloc(x->a, strlen(raw) * 2 + 1);

	for (const char *p = raw; *p; p++) {
		out[n++] = *p;
		if (*p == '%')
			out[n++] = '%';
	}
	out[n] = '\0';
	return out;
}

static void print_hist(struct xlate *x, const struct expr *h, bool newline)
{
	const char *agg = nonempty(x, h->args);

	if (x->s->opt.json) {	/* a line of its own; no newline to add */
		gen_emit(x, "ctap_json_hist_print(c, %s, &spec_%s, %s);",
		     gen_c_string(x, gen_stat_name(h->args)), gen_stat_name(h->args), agg);
		return;
	}
	gen_emit(x, "ctap_hist_print(ctap_out(c), &spec_%s, %s);", gen_stat_name(h->args), agg);
	if (newline)
		gen_emit(x, "ctap_out_write(ctap_out(c), \"\\n\", 1);");
}

/*
 * A printf whose format has only text, %d (%i) and %s without flags, width
 * or precision, each conversion taking an argument of its type, written
 * as direct calls: the text, ctap_out_dec(), ctap_out_str().  The format
 * engine would parse the same format at every hit (bench/kprobe-cost.sh's
 * printf row); the output is the same bytes.  Returns false, emitting
 * nothing, for any other format: ctap_printf() prints that one.
 */
static bool print_direct(struct xlate *x, const char *fmt, const struct expr *args, bool block)
{
	char *bytes = arena_alloc(x->a, strlen(fmt) + 1), *text;
	size_t n = lex_unescape(fmt, bytes), len = 0;
	const char **lines = arena_alloc(x->a, (n + 1) * sizeof(*lines));
	int nlines = 0, i = 0;

	n = strnlen(bytes, n);		/* the engine stops at a NUL */
	text = arena_alloc(x->a, n + 1);
	for (size_t k = 0; k <= n; k++) {
		const char *conv;
		size_t skip = 1;

		if (k < n && bytes[k] != '%') {
			text[len++] = bytes[k];
			continue;
		}
		if (k < n && k + 1 < n && bytes[k + 1] == '%') {
			text[len++] = '%';
			k++;
			continue;
		}
		if (len)
			lines[nlines++] = arena_printf(x->a, "ctap_out_write(o, %s, %zu);",
						      c_bytes(x, text, len), len);
		len = 0;
		if (k == n)
			break;
		while (k + skip < n && strchr("lhLjz", bytes[k + skip]))
			skip++;		/* length modifiers: the engine skips them too */
		switch (k + skip < n ? bytes[k + skip] : '\0') {
		case 'd': case 'i':
			conv = "ctap_out_dec(o, args[%d].n);";
			if (!args || is_string(args))
				return false;
			break;
		case 's':
			conv = "ctap_out_str(o, args[%d].s);";
			if (!args || !is_string(args))
				return false;
			break;
		default:
			return false;	/* flags, a width, a precision, another conversion */
		}
		lines[nlines++] = arena_printf(x->a, conv, i++);
		args = args->next;
		k += skip;
	}
	if (args)
		return false;		/* an argument no conversion takes */
	if (block) {
		gen_emit(x, "{");
		x->depth++;
	}
	gen_emit(x, "struct ctap_out *o = ctap_out(c);");
	gen_blank(x);
	for (int j = 0; j < nlines; j++)
		gen_line(x, lines[j]);
	if (block) {
		x->depth--;
		gen_emit(x, "}");
	}
	return true;
}

/* print, printf, sprintf...: the values into an argument array, then one call. */
static const char *print_call(struct xlate *x, const struct expr *e)
{
	const char *name = e->name, *fmt, **v, *dst = NULL;
	const struct expr *args = e->args;
	bool to_string = name[0] == 's';
	int n, i = 0;

	if ((!strcmp(name, "print") || !strcmp(name, "println")) && args &&
	    args->kind == E_HIST && !args->next) {
		print_hist(x, args, name[5] != '\0');
		return "0LL";
	}
	if (!strcmp(name, "printf") || !strcmp(name, "sprintf")) {
		fmt = args->str;
		args = args->next;
	} else if (!strncmp(name, "printd", 6) || !strncmp(name, "sprintd", 7)) {
		fmt = value_format(x, args->next, format_text(x, args->str), strstr(name, "ln") != NULL);
		args = args->next;
	} else {
		fmt = value_format(x, args, NULL, strstr(name, "ln") != NULL);
	}
	v = expr_list(x, args, &n);
	if (to_string)
		dst = gen_str_temp(x, name);
	if (!n) {
		if (to_string)
			gen_emit(x, "ctap_sprintf(%s, %s, NULL, 0);", dst, gen_c_string(x, fmt));
		else if (!print_direct(x, fmt, NULL, true))
			gen_emit(x, "ctap_printf(c, %s, NULL, 0);", gen_c_string(x, fmt));
		return to_string ? dst : "0LL";
	}
	gen_emit(x, "{");
	x->depth++;
	gen_emit(x, "union ctap_arg args[] = {");
	for (const struct expr *a = args; a; a = a->next, i++)
		gen_emit(x, "\t{ .%c = %s },", is_string(a) ? 's' : 'n', v[i]);
	gen_emit(x, "};");
	gen_blank(x);
	if (to_string)
		gen_emit(x, "ctap_sprintf(%s, %s, args, ARRAY_SIZE(args));", dst, gen_c_string(x, fmt));
	else if (!print_direct(x, fmt, args, false))
		gen_emit(x, "ctap_printf(c, %s, args, ARRAY_SIZE(args));", gen_c_string(x, fmt));
	x->depth--;
	gen_emit(x, "}");
	return to_string ? dst : "0LL";
}

/* ---- function calls ---- */

static bool is_print_builtin(const char *name)
{
	static const char *const names[] = {
		"print", "println", "printf", "sprintf", "printd", "printdln", "sprintd",
		"sprintdln", "sprint", "sprintln", NULL
	};

	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	return false;
}

/*
 * A call of a script function: the arguments are evaluated first (a call
 * among them uses the same frame), then copied into the callee's frame,
 * one level deeper.  want: the result is used (it goes to a temporary).
 */
static const char *call(struct xlate *x, const struct expr *e, bool want)
{
	const struct sem_function *f = sem_function_of(x->s, e);
	const char **v, *where, *result = "0LL";
	const struct var *p;
	bool frame;
	int n, i = 0;

	if (!f) {
		gen_error(x, &e->loc, "unresolved function '%s'", e->name);
		return "0LL";
	}
	v = expr_list(x, e->args, &n);
	/* SystemTap checks the depth in the callee: the message names it. */
	where = gen_where(x, &f->fn->loc, arena_printf(x->a, "identifier '%s'", e->name));
	fail_if(x, "c->nesting >= MAXNESTING",
		arena_printf(x->a, "ctap_error(c, \"MAXNESTING exceeded\", %s)", where));
	/* The frame is touched only for arguments and a result: then the
	 * callee surely has one. */
	frame = (n > 0 && f->locals) || (want && (f->ret == T_LONG || f->ret == T_STRING));
	if (frame) {
		gen_emit(x, "{");
		x->depth++;
		gen_emit(x, "struct f_%s_locals *f = NEXT_FRAME(c, f_%s);", f->cname, f->cname);
		gen_blank(x);
	}
	for (p = f->locals; i < n && p; p = p->next, i++) {
		if (p->type == T_STRING)
			gen_emit(x, "ctap_strcpy(f->v_%s, %s);", p->name, v[i]);
		else
			gen_emit(x, "f->v_%s = %s;", p->name, v[i]);
	}
	gen_emit(x, "c->nesting++;");
	gen_emit(x, "f_%s(c);", f->cname);
	gen_emit(x, "c->nesting--;");
	if (want && f->ret == T_STRING) {
		result = gen_str_temp(x, f->cname);
		gen_emit(x, "ctap_strcpy(%s, f->__retvalue);", result);
	} else if (want && f->ret == T_LONG) {
		result = gen_temp(x, "int64_t %s", f->cname);
		gen_emit(x, "%s = f->__retvalue;", result);
	}
	if (frame) {
		x->depth--;
		gen_emit(x, "}");
	}
	/* An error in a script function: this call site joins the chain the
	 * error reports ("called from"), on the error path only.  An
	 * embedded-C function's error (error() itself) names no frame. */
	if (f->fn->embedded) {
		fail_if(x, "c->last_error", NULL);
		return result;
	}
	fail_if(x, "c->last_error", arena_printf(x->a, "ctap_error_called(c, %s)",
		gen_c_string(x, arena_printf(x->a, "function %s, called from %s:%d:%d", e->name,
					     e->loc.src ? e->loc.src->name : "?",
					     e->loc.line, e->loc.col))));
	return result;
}

/* ---- operators ---- */

/* The operator of a compound assignment: OP_ASSIGN_ADD -> OP_ADD. */
static unsigned arith_of(unsigned op)
{
	switch (op) {
	case OP_ASSIGN_ADD:	return OP_ADD;
	case OP_ASSIGN_SUB:	return OP_SUB;
	case OP_ASSIGN_MUL:	return OP_MUL;
	case OP_ASSIGN_DIV:	return OP_DIV;
	case OP_ASSIGN_MOD:	return OP_MOD;
	case OP_ASSIGN_LSHIFT:	return OP_LSHIFT;
	case OP_ASSIGN_RSHIFT:	return OP_RSHIFT;
	case OP_ASSIGN_BITAND:	return OP_BITAND;
	case OP_ASSIGN_BITOR:	return OP_BITOR;
	case OP_ASSIGN_XOR:	return OP_XOR;
	case OP_ASSIGN_CONCAT:	return OP_CONCAT;
	default:		return op;
	}
}

/* a OP b on longs; OP is an enum op_id, its text the C operator. */
static const char *binop_long(struct xlate *x, unsigned opid, const char *a, const char *b,
			      const struct loc *loc)
{
	const char *op = lex_op_text(opid);

	if (opid == OP_DIV || opid == OP_MOD) {
		/* x / 0 is a soft error; INT64_MIN / -1 would trap (ctap_sdiv wraps). */
		if (!simple(b)) {
			const char *t = gen_temp(x, "int64_t %s", "divisor");

			gen_emit(x, "%s = %s;", t, b);
			b = t;
		}
		fail_if(x, arena_printf(x->a, "!%s", b),
			arena_printf(x->a, "ctap_error(c, \"division by 0\", %s)",
				     gen_where(x, loc, arena_printf(x->a, "operator '%s'", op))));
		return arena_printf(x->a, "ctap_%s(%s, %s)", opid == OP_DIV ? "sdiv" : "smod", a, b);
	}
	if (opid == OP_LSHIFT || opid == OP_RSHIFT)
		return arena_printf(x->a, "(%s %s (%s & 63))", a, op, b);
	if (opid == OP_ADD || opid == OP_SUB || opid == OP_MUL)
		/* Wrapping, as SystemTap's longs do. */
		return arena_printf(x->a, "(int64_t)((uint64_t)(%s) %s (uint64_t)(%s))", a, op, b);
	return arena_printf(x->a, "(int64_t)(%s %s %s)", a, op, b);
}

/* a && b, a || b: b's statements run only when they must. */
static const char *logical(struct xlate *x, const struct expr *e)
{
	const char *a = gen_expr_c(x, e->a), *b, *t;
	bool and = e->opid == OP_AND;
	char *stmts;

	b = expr_aside(x, e->b, x->depth + 1, &stmts);
	if (!*stmts) {
		free(stmts);
		return arena_printf(x->a, "(int64_t)(%s %s %s)", a, e->op, b);
	}
	t = gen_temp(x, "int64_t %s", and ? "and" : "or");
	gen_emit(x, "%s = %d;", t, !and);
	gen_emit(x, and ? "if (%s) {" : "if (!(%s)) {", a);
	put_aside(x, stmts);
	gen_emit(x, "\t%s = %s != 0;", t, b);
	gen_emit(x, "}");
	return t;
}

/* @entry(X) at the return: what the entry part saved (translate.c). */
static const char *entry_value(struct xlate *x, const struct expr *e)
{
	const struct sem_handler *h = x->sc->handler;

	for (int i = 0; h && i < h->nentries; i++)
		if (h->entries[i] == e)
			return arena_printf(x->a, "((struct %s *)ctap_entry_saved(c))->e%d",
					    x->sc->saved_struct, i);
	gen_error(x, &e->loc, "@entry outside a .return probe's handler");
	return "0LL";
}

static const char *ternary(struct xlate *x, const struct expr *e)
{
	const char *cond, *a, *b, *t;
	char *sa, *sb;

	if (sem_static_condition(e->a) >= 0)	/* @defined: one branch */
		return gen_expr(x, sem_static_condition(e->a) ? e->b : e->c);
	cond = gen_expr_c(x, e->a);

	a = expr_aside(x, e->b, x->depth + 1, &sa);
	b = expr_aside(x, e->c, x->depth + 1, &sb);
	if (!*sa && !*sb) {
		free(sa);
		free(sb);
		return arena_printf(x->a, "(%s ? %s : %s)", cond, a, b);
	}
	t = is_string(e->b) ? gen_temp(x, "const char *%s", "choice") :
		gen_temp(x, "int64_t %s", "choice");
	gen_emit(x, "if (%s) {", cond);
	put_aside(x, sa);
	gen_emit(x, "\t%s = %s;", t, a);
	gen_emit(x, "} else {");
	put_aside(x, sb);
	gen_emit(x, "\t%s = %s;", t, b);
	gen_emit(x, "}");
	return t;
}

/* A pattern compiled once per module, whatever the number of its uses. */
struct xregex {
	const char *pattern;
	const char *name;
	struct xregex *next;
};

/* The name of the program for the =~ pattern, written to x->statics. */
static const char *regex_program(struct xlate *x, const struct expr *pattern)
{
	struct xregex *r;
	struct ctap_regex re;
	const char *why;

	for (r = x->regexes; r; r = r->next)
		if (!strcmp(r->pattern, pattern->str))
			return r->name;
	if (sem_regex_compile(pattern->str, x->submatch, &re, &why)) {	/* pass 2 checked it */
		gen_error(x, &pattern->loc, "cannot compile the regular expression");
		return "NULL";
	}
	r = arena_new(x->a, struct xregex);
	r->pattern = pattern->str;
	r->name = arena_printf(x->a, "regex_%d", x->nregexes++);
	r->next = x->regexes;
	x->regexes = r;
	fprintf(x->statics, "/* %s: the =~ pattern at %s:%d:%d */\n", r->name,
		gen_c_comment(x->a, pattern->loc.src->name), pattern->loc.line, pattern->loc.col);
	regex_emit_c(x->statics, r->name, &re);
	regex_free(&re);
	return r->name;
}

static const char *binary(struct xlate *x, const struct expr *e)
{
	const char *a, *b;

	if (e->opid == OP_AND || e->opid == OP_OR)
		return logical(x, e);
	a = gen_expr_c(x, e->a);
	/* The user's =~ record what matched() reads; a tapset's (probe_type())
	 * must not overwrite it. */
	if ((e->opid == OP_MATCH || e->opid == OP_NOMATCH) && x->submatch &&
	    e->loc.src == x->s->user->src)
		return arena_printf(x->a, "(int64_t)%sctap_regex_submatch(&SUBMATCH(c)->last, "
				    "SUBMATCH(c)->str, MAXSTRINGLEN, &%s, %s)",
				    e->opid == OP_NOMATCH ? "!" : "", regex_program(x, e->b), a);
	if (e->opid == OP_MATCH || e->opid == OP_NOMATCH)
		return arena_printf(x->a, "(int64_t)%sctap_regex_match(&%s, %s)",
				    e->opid == OP_NOMATCH ? "!" : "", regex_program(x, e->b), a);
	if (!ast_pure(e->b))
		a = keep(x, e->a, a);
	b = gen_expr_c(x, e->b);
	if (e->opid == OP_CONCAT) {
		const char *t = gen_str_temp(x, "cat");

		gen_emit(x, "ctap_strcat(%s, %s, %s);", t, a, b);
		return t;
	}
	if (is_string(e->a) && lex_op_is_comparison(e->opid))
		return arena_printf(x->a, "(int64_t)(strcmp(%s, %s) %s 0)", a, b, e->op);
	return binop_long(x, e->opid, a, b, &e->loc);
}

static const char *unary(struct xlate *x, const struct expr *e)
{
	const char *a = gen_expr_c(x, e->a);

	if (e->opid == OP_SUB)
		return arena_printf(x->a, "(int64_t)(0 - (uint64_t)(%s))", a);
	if (e->opid == OP_NOT)
		return arena_printf(x->a, "(int64_t)!(%s)", a);
	if (e->opid == OP_BITNOT)
		return arena_printf(x->a, "(~(%s))", a);
	return a;
}

static const char *number(struct xlate *x, int64_t n)
{
	if (n == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	return arena_printf(x->a, "%lldLL", (long long)n);
}

/* ---- assignments, ++ and -- ---- */

/*
 * The C lvalue of a long variable or array element (creating the
 * element); NULL after an error.
 */
static const char *long_lvalue(struct xlate *x, const struct expr *target, const char *op)
{
	const char *lv;

	if (target->kind == E_INDEX) {
		struct var *arr = gen_array_of(x, target->a);

		return arr ? arena_printf(x->a, "*ctap_map_long(G.g_%s, %s)", arr->name,
					  slot(x, target, arr)) : NULL;
	}
	if (target->kind != E_SYMBOL || !gen_lookup(x, target->name, &lv)) {
		gen_error(x, &target->loc, "'%s' needs a variable", op);
		return NULL;
	}
	return lv;
}

/*
 * A counter changes by an add to this CPU's slot, when nobody reads the
 * result (all event probes do: pass 3 made it a counter so); else, in
 * begin, end and error probes, where nothing runs beside, it is read and
 * set.  Returns the new value (want) or "0LL".
 */
static const char *counter_update(struct xlate *x, const struct var *v, unsigned op,
				  const char *val, bool want, const struct loc *loc)
{
	const char *t;

	if (!want && (op == OP_ASSIGN_ADD || op == OP_ASSIGN_SUB)) {
		gen_emit(x, op == OP_ASSIGN_SUB ? "ctap_counter_add(&G.g_%s, -(%s));" :
		     "ctap_counter_add(&G.g_%s, %s);", v->name, val);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "val");
	if (op == OP_ASSIGN)
		gen_emit(x, "%s = %s;", t, val);
	else
		gen_emit(x, "%s = %s;", t, binop_long(x, arith_of(op),
			arena_printf(x->a, "ctap_counter_read(&G.g_%s)", v->name), val, loc));
	gen_emit(x, "ctap_counter_set(&G.g_%s, %s);", v->name, t);
	return want ? t : "0LL";
}

/* ++x, x--, ...; want: the value is used. */
static const char *incdec(struct xlate *x, const struct expr *e, bool postfix, bool want)
{
	const char *lv, *t;
	struct var *k = gen_counter_of(x, e->a);

	if (k) {
		unsigned op = e->opid == OP_INCR ? OP_ASSIGN_ADD : OP_ASSIGN_SUB;

		if (!want || !postfix)
			return counter_update(x, k, op, "1", want, &e->loc);
		t = gen_temp(x, "int64_t %s", "old");
		gen_emit(x, "%s = ctap_counter_read(&G.g_%s);", t, k->name);
		counter_update(x, k, op, "1", false, &e->loc);
		return t;
	}
	lv = long_lvalue(x, e->a, e->op);
	if (!lv)
		return "0LL";
	if (e->a->kind == E_INDEX)
		lv = arena_printf(x->a, "(%s)", lv);
	if (!want) {
		gen_emit(x, "%s%s;", lv, e->op);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "val");
	gen_emit(x, "%s = %s%s;", t, postfix ? lv : e->op, postfix ? e->op : lv);
	return t;
}

static const char *assign_element(struct xlate *x, const struct expr *e)
{
	const struct expr *target = e->a;
	struct var *arr = gen_array_of(x, target->a);
	const char *val, *s;

	if (!arr)
		return "0LL";
	val = gen_expr_c(x, e->b);
	if (!ast_pure(target))
		val = keep(x, e->b, val);
	s = slot(x, target, arr);
	if (e->opid == OP_AGG) {
		gen_emit(x, "ctap_stat_add(&spec_%s, ctap_map_stat(G.g_%s, %s), %s);", arr->name,
		     arr->name, s, val);
		return "0LL";
	}
	if (arr->type == T_STRING) {
		const char *dst = arena_printf(x->a, "ctap_map_string(G.g_%s, %s)", arr->name, s);

		if (e->opid == OP_ASSIGN_CONCAT)
			gen_emit(x, "strlcat(%s, %s, MAXSTRINGLEN);", dst, val);
		else
			gen_emit(x, "ctap_strcpy(%s, %s);", dst, val);
		return dst;
	}
	if (e->opid == OP_ASSIGN) {
		gen_emit(x, "*ctap_map_long(G.g_%s, %s) = %s;", arr->name, s, val);
	} else {
		const char *p = gen_temp(x, "int64_t *%s", "elem");

		gen_emit(x, "%s = ctap_map_long(G.g_%s, %s);", p, arr->name, s);
		gen_emit(x, "*%s = %s;", p, binop_long(x, arith_of(e->opid),
						   arena_printf(x->a, "*%s", p), val, &e->loc));
	}
	return arena_printf(x->a, "(*ctap_map_long(G.g_%s, %s))", arr->name, s);
}

/* target op= value; want: the value is used. */
static const char *assignment(struct xlate *x, const struct expr *e, bool want)
{
	const struct expr *target = e->a;
	const char *lv, *val;
	struct var *v;

	if (target->kind == E_INDEX)
		return assign_element(x, e);
	if (target->kind == E_TARGET && sem_tvar(x->s, target) &&
	    sem_tvar(x->s, target)->base == TVAR_VALUE) {
		/* procfs's $value: pass 2 allowed only '=' and '.=' of a string. */
		gen_emit(x, "ctap_procfs_set(c, %s, %s);", gen_expr_c(x, e->b),
		     e->opid != OP_ASSIGN_CONCAT ? "false" : "true");
		return "ctap_procfs_get(c)";
	}
	if (target->kind == E_TARGET || target->kind == E_CAST || target->kind == E_AUTOCAST)
		return gen_assign_target(x, e);
	if (target->kind != E_SYMBOL) {
		gen_error(x, &e->loc, "assigning to %s is not supported yet", expr_text(x->a, target));
		return "0LL";
	}
	v = gen_lookup(x, target->name, &lv);
	if (!v)
		return "0LL";
	val = gen_expr_c(x, e->b);
	if (gen_counter_of(x, target))
		return counter_update(x, v, e->opid, val, want, &e->loc);
	if (e->opid == OP_AGG) {
		gen_emit(x, "ctap_pstat_add(&spec_%s, &G.g_%s, %s);", v->name, v->name, val);
		return "0LL";
	}
	if (v->type == T_STRING) {
		if (e->opid == OP_ASSIGN_CONCAT)
			gen_emit(x, "ctap_strcat(%s, %s, %s);", lv, lv, val);
		else
			gen_emit(x, "ctap_strcpy(%s, %s);", lv, val);
	} else if (e->opid == OP_ASSIGN) {
		gen_emit(x, "%s = %s;", lv, val);
	} else {
		gen_emit(x, "%s = %s;", lv, binop_long(x, arith_of(e->opid), lv, val, &e->loc));
	}
	return lv;
}

/* ---- reads of arrays and histograms ---- */

static const char *index_read(struct xlate *x, const struct expr *e)
{
	struct var *arr;
	const char *key, *t;
	unsigned mask;

	if (e->a->kind == E_HIST) {
		const struct expr *h = e->a;
		const char *agg = nonempty(x, h->args), *b;

		/* @hist_linear(s, 0, 100, 10)[i]: bucket i's count, as SystemTap
		 * numbers them (0 underflow, then the data, last overflow). */
		b = gen_temp(x, "int64_t %s", "bucket");
		gen_emit(x, "%s = %s;", b, gen_expr_c(x, e->args));
		fail_if(x, arena_printf(x->a, "%s < 0 || %s >= spec_%s.buckets", b, b,
					gen_stat_name(h->args)),
			"c->last_error = \"histogram index out of range\"");
		return arena_printf(x->a, "%s->hist[%s]", agg, b);
	}
	arr = gen_array_of(x, e->a);
	if (!arr)
		return "0LL";
	key = gen_key_fill(x, arr, e->args, &mask);
	if (arr->type == T_STRING) {
		t = gen_temp(x, "const char *%s", arr->name);
		gen_emit(x, "%s = ctap_map_get_string(G.g_%s, &%s);", t, arr->name, key);
	} else {
		t = gen_temp(x, "int64_t %s", arr->name);
		gen_emit(x, "%s = ctap_map_get_long(G.g_%s, &%s);", t, arr->name, key);
	}
	return t;
}

static const char *in_test(struct xlate *x, const struct expr *e)
{
	struct var *arr = gen_array_of(x, e->a);
	const char *key, *t;
	unsigned mask;
	int nkeys = 0;

	if (!arr)
		return "0LL";
	for (const struct expr *k = e->args; k; k = k->next)
		nkeys++;
	key = gen_key_fill(x, arr, e->args, &mask);
	t = gen_temp(x, "int64_t %s", "in");
	if (mask == (1u << nkeys) - 1)
		gen_emit(x, "%s = ctap_map_find(G.g_%s, &%s, false) >= 0;", t, arr->name, key);
	else
		gen_emit(x, "%s = ctap_map_exists(G.g_%s, &%s, %#x);", t, arr->name, key, mask);
	return t;
}

/* ---- expressions ---- */

const char *gen_expr(struct xlate *x, const struct expr *e)
{
	return gen_expr_c(x, e);
}

void gen_line(struct xlate *x, const char *text)
{
	gen_emit(x, "%s", text);
}

void gen_fail_if(struct xlate *x, const char *cond)
{
	fail_if(x, cond, NULL);
}

/*
 * @enumname(v, ...): the name of the enumerator whose value v has (the
 * first of the enum's with that value, as SystemTap), else v in decimal.
 * A literal v is named here; other values go through a switch.
 */
static const char *enum_name(struct xlate *x, const struct expr *e)
{
	const struct tvar *ty = sem_tvar(x->s, e);
	struct kbtf_enumerator en, prior;
	const char *v, *t, *buf;

	if (!ty || !ty->btf) {
		gen_error(x, &e->loc, "@enumname: no enum type (pass 2 reported why)");
		return "\"\"";
	}
	if (e->a->kind == E_NUMBER) {
		for (int i = 0; !kbtf_enumerator_at(ty->btf, ty->value_type, i, &en); i++)
			if (en.value == e->a->num)
				return gen_c_string(x, en.name);
		return gen_c_string(x, arena_printf(x->a, "%lld", (long long)e->a->num));
	}
	v = keep(x, e->a, gen_expr_c(x, e->a));	/* read once: switch and default */
	t = gen_temp(x, "const char *%s", "enumname");
	buf = gen_str_temp(x, "enumnum");
	gen_emit(x, "switch (%s) {", v);
	for (int i = 0; !kbtf_enumerator_at(ty->btf, ty->value_type, i, &en); i++) {
		bool seen = false;

		/* A value two enumerators share is a case once: the first's. */
		for (int j = 0; j < i && !seen; j++)
			seen = !kbtf_enumerator_at(ty->btf, ty->value_type, j, &prior) &&
			       prior.value == en.value;
		if (!seen)
			gen_emit(x, "case %s: %s = %s; break;", number(x, en.value), t,
				 gen_c_string(x, en.name));
	}
	gen_emit(x, "default: {");
	gen_emit(x, "\tunion ctap_arg args[] = { { .n = %s } };", v);
	gen_emit(x, "\t%s = ctap_sprintf(%s, \"%%d\", args, 1);", t, buf);
	gen_emit(x, "}");
	gen_emit(x, "}");
	return t;
}

/* @perf("NAME"): the count of the current thread's counter (pass 2
 * found it). */
static const char *perf_read(struct xlate *x, const struct expr *e)
{
	const struct derived_probe *d = provider_counter(x->s, e->args->str, NULL, NULL);
	const char *t;

	if (!d) {
		gen_error(x, &e->loc, "no perf counter \"%s\"", e->args->str);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "perf");
	gen_emit(x, "%s = (int64_t)ctap_perf_read(%d);", t, emit_family_index(x, d));
	return t;
}

const char *gen_expr_c(struct xlate *x, const struct expr *e)
{
	const char *c;

	switch (e->kind) {
	case E_NUMBER:
		return number(x, e->num);
	case E_STRING:
		return gen_c_string(x, e->str);
	case E_SYMBOL:
		if (!gen_lookup(x, e->name, &c)) {
			gen_error(x, &e->loc, "unresolved symbol '%s'", e->name);
			return "0LL";
		}
		return c;
	case E_INDEX:
		return index_read(x, e);
	case E_CALL:
		if (gen_is_monitor_call(e))
			return gen_monitor_call(x, e);
		return is_print_builtin(e->name) ? print_call(x, e) : call(x, e, true);
	case E_UNARY:
		if (e->opid == OP_INCR || e->opid == OP_DECR)
			return incdec(x, e, false, true);
		return unary(x, e);
	case E_POSTFIX:
		return incdec(x, e, true, true);
	case E_BINARY:
		return binary(x, e);
	case E_ASSIGN:
		return assignment(x, e, true);
	case E_TERNARY:
		return ternary(x, e);
	case E_IN:
		return in_test(x, e);
	case E_STAT:
		return stat_value(x, e);
	case E_DEFINED:
		return e->a->vtype != T_UNKNOWN ? "1LL" : "0LL";
	case E_ENTRY:
		return entry_value(x, e);
	case E_TARGET:
	case E_CAST:
	case E_AUTOCAST:
	case E_ATVAR:
		return gen_target(x, e);
	case E_ENUMNAME:
		return enum_name(x, e);
	case E_EMBEDDED:
		return arena_printf(x->a, "((int64_t)(%s))", e->str);
	case E_AT_CALL:
		if (!strcmp(e->name, "@perf"))
			return perf_read(x, e);
		/* fall through */
	default:
		gen_error(x, &e->loc, "%s is not supported by pass 3 yet", expr_text(x->a, e));
		return "0LL";
	}
}

/* e for its effects only: no temporary for a value nobody reads. */
void gen_effect(struct xlate *x, const struct expr *e)
{
	if (e->kind == E_CALL && !is_print_builtin(e->name) && !gen_is_monitor_call(e))
		call(x, e, false);
	else if (e->kind == E_POSTFIX || (e->kind == E_UNARY &&
		 (e->opid == OP_INCR || e->opid == OP_DECR)))
		incdec(x, e, e->kind == E_POSTFIX, false);
	else if (e->kind == E_ASSIGN)
		assignment(x, e, false);
	else
		gen_expr_c(x, e);	/* what it computes is in the statements */
}

