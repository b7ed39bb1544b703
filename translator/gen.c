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
 * aside first and placed under its if.  See docs/translator.md.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "probes/perf.h"
#include "regex_compile.h"
#include "tvar.h"
#include "xlate.h"

static const char *expr_c(struct xlate *x, const struct expr *e);

void gen_error(struct xlate *x, const struct loc *loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->errors++;
	diag_error("translate", loc, NULL, "%s", msg);
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

const char *gen_c_string(struct xlate *x, const char *raw)
{
	size_t len = strlen(raw);
	char *bytes = arena_alloc(x->a, len + 1), *out = arena_alloc(x->a, len * 4 + 3), *o = out;
	size_t n = lex_unescape(raw, bytes);

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
static void emit(struct xlate *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct xlate *x, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < x->depth; i++)
		fputc('\t', x->code);
	va_start(ap, fmt);
	vfprintf(x->code, fmt, ap);
	va_end(ap);
	fputc('\n', x->code);
}

static void blank(struct xlate *x)
{
	fputc('\n', x->code);
}

/* Where a soft error jumps: "out" (then the function needs the label) or a catch. */
static const char *err_label(struct xlate *x)
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
		emit(x, "if (unlikely(%s))", cond);
		emit(x, "\tgoto %s;", err_label(x));
		return;
	}
	emit(x, "if (unlikely(%s)) {", cond);
	emit(x, "\t%s;", what);
	emit(x, "\tgoto %s;", err_label(x));
	emit(x, "}");
}

/* ---- variables and temporaries ---- */

static struct var *find(struct var *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

struct var *gen_find_global(struct xlate *x, const char *name)
{
	return find(sem_globals(x->s), name);
}

/* A local of the scope, else a global. */
static struct var *lookup(struct xlate *x, const char *name, const char **c)
{
	struct var *v = find(x->sc->locals, name);

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
static struct var *counter_of(struct xlate *x, const struct expr *e)
{
	const char *c;
	struct var *v;

	if (e->kind != E_SYMBOL)
		return NULL;
	v = lookup(x, e->name, &c);
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

static const char *str_temp(struct xlate *x, const char *what)
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
		t = str_temp(x, "str");
		emit(x, "ctap_strcpy(%s, %s);", t, v);
	} else {
		t = gen_temp(x, "int64_t %s", "val");
		emit(x, "%s = %s;", t, v);
	}
	return t;
}

static const char *expr_c(struct xlate *x, const struct expr *e);

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
		v[i] = expr_c(x, a);
		if (effects_after)
			v[i] = keep(x, a, v[i]);
	}
	return v;
}

static void effect(struct xlate *x, const struct expr *e);

/*
 * e's value, with the statements computing it written aside (at depth)
 * into *stmts instead of the body: for what runs only on a condition.
 * With value false, e is evaluated for its effects only (returns NULL).
 */
static const char *aside(struct xlate *x, const struct expr *e, int depth, char **stmts,
			 bool value)
{
	FILE *body = x->code;
	int saved = x->depth;
	size_t len;
	const char *v = NULL;

	x->code = open_memstream(stmts, &len);
	x->depth = depth;
	if (value)
		v = expr_c(x, e);
	else
		effect(x, e);
	fclose(x->code);
	x->code = body;
	x->depth = saved;
	return v;
}

static const char *expr_aside(struct xlate *x, const struct expr *e, int depth, char **stmts)
{
	return aside(x, e, depth, stmts, true);
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
static const char *key_fill(struct xlate *x, const struct var *arr, const struct expr *keys,
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
		emit(x, "%s.%c[%d] = %s;", key, arr->keys[i] == T_STRING ? 's' : 'n', i, v[i]);
	}
	return key;
}

/* The entry of arr[keys], created if absent: an int temporary. */
static const char *slot(struct xlate *x, const struct expr *at, const struct var *arr)
{
	unsigned mask;
	const char *key = key_fill(x, arr, at->args, &mask);
	const char *e = gen_temp(x, "int %s", "slot");
	const char *overflow = arr->global && arr->global->size ?
		arena_printf(x->a, "\"Array overflow, check size limit (%lld)\"",
			     (long long)arr->global->size) :
		"\"Array overflow, check MAXMAPENTRIES\"";

	emit(x, "%s = ctap_map_slot(c, G.g_%s, &%s, %s,", e, arr->name, key, overflow);
	emit(x, "\t\t%s);", gen_where(x, &at->a->loc, arena_printf(x->a, "identifier '%s'",
								    arr->name)));
	fail_if(x, arena_printf(x->a, "%s < 0", e), NULL);
	return e;
}

static struct var *array_of(struct xlate *x, const struct expr *base)
{
	struct var *v = gen_find_global(x, base->name);

	if (!v || !v->nkeys)
		gen_error(x, &base->loc, "'%s' is not a global array", base->name);
	return v;
}

/* ---- statistics ---- */

/* The aggregate of a statistics operand (a scalar or arr[keys]): a temporary. */
static const char *stat_agg(struct xlate *x, const struct expr *operand)
{
	const char *agg;

	if (operand->kind == E_INDEX) {
		struct var *arr = array_of(x, operand->a);
		const char *key;
		unsigned mask;

		if (!arr)
			return "((struct ctap_stat *)NULL)";
		key = key_fill(x, arr, operand->args, &mask);
		agg = gen_temp(x, "struct ctap_stat *%s", "agg");
		emit(x, "%s = ctap_map_stat_agg(G.g_%s, &%s, &%s);", agg, arr->name, key,
		     gen_temp(x, "struct ctap_stat %s", "stat"));
		return agg;
	}
	agg = gen_temp(x, "struct ctap_stat *%s", "agg");
	emit(x, "%s = ctap_pstat_aggregate(&spec_%s, &G.g_%s);", agg, operand->name, operand->name);
	return agg;
}

static const char *stat_name(const struct expr *operand)
{
	return operand->kind == E_INDEX ? operand->a->name : operand->name;
}

/* An aggregate that must not be empty. */
static const char *nonempty(struct xlate *x, const struct expr *operand)
{
	const char *agg = stat_agg(x, operand);

	fail_if(x, arena_printf(x->a, "!%s->count", agg), "c->last_error = \"empty aggregate\"");
	return agg;
}

/* @count and @sum of nothing are 0; the others are an error, as SystemTap's. */
static const char *stat_value(struct xlate *x, const struct expr *e)
{
	const char *name = stat_name(e->a), *agg;

	if (!strcmp(e->name, "@count"))
		return arena_printf(x->a, "%s->count", stat_agg(x, e->a));
	if (!strcmp(e->name, "@sum"))
		return arena_printf(x->a, "%s->sum", stat_agg(x, e->a));
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

	if (x->s->json) {	/* a line of its own; no newline to add */
		emit(x, "ctap_json_hist_print(c, %s, &spec_%s, %s);",
		     gen_c_string(x, stat_name(h->args)), stat_name(h->args), agg);
		return;
	}
	emit(x, "ctap_hist_print(ctap_out(c), &spec_%s, %s);", stat_name(h->args), agg);
	if (newline)
		emit(x, "ctap_out_write(ctap_out(c), \"\\n\", 1);");
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
		dst = str_temp(x, name);
	if (!n) {
		if (to_string)
			emit(x, "ctap_sprintf(%s, %s, NULL, 0);", dst, gen_c_string(x, fmt));
		else
			emit(x, "ctap_printf(c, %s, NULL, 0);", gen_c_string(x, fmt));
		return to_string ? dst : "0LL";
	}
	emit(x, "{");
	x->depth++;
	emit(x, "union ctap_arg args[] = {");
	for (const struct expr *a = args; a; a = a->next, i++)
		emit(x, "\t{ .%c = %s },", is_string(a) ? 's' : 'n', v[i]);
	emit(x, "};");
	blank(x);
	if (to_string)
		emit(x, "ctap_sprintf(%s, %s, args, ARRAY_SIZE(args));", dst, gen_c_string(x, fmt));
	else
		emit(x, "ctap_printf(c, %s, args, ARRAY_SIZE(args));", gen_c_string(x, fmt));
	x->depth--;
	emit(x, "}");
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
		emit(x, "{");
		x->depth++;
		emit(x, "struct f_%s_locals *f = NEXT_FRAME(c, f_%s);", f->cname, f->cname);
		blank(x);
	}
	for (p = f->locals; i < n && p; p = p->next, i++) {
		if (p->type == T_STRING)
			emit(x, "ctap_strcpy(f->v_%s, %s);", p->name, v[i]);
		else
			emit(x, "f->v_%s = %s;", p->name, v[i]);
	}
	emit(x, "c->nesting++;");
	emit(x, "f_%s(c);", f->cname);
	emit(x, "c->nesting--;");
	if (want && f->ret == T_STRING) {
		result = str_temp(x, f->cname);
		emit(x, "ctap_strcpy(%s, f->__retvalue);", result);
	} else if (want && f->ret == T_LONG) {
		result = gen_temp(x, "int64_t %s", f->cname);
		emit(x, "%s = f->__retvalue;", result);
	}
	if (frame) {
		x->depth--;
		emit(x, "}");
	}
	fail_if(x, "c->last_error", NULL);
	return result;
}

/* ---- operators ---- */

/* The C operator of a compound assignment: "+=" -> "+". */
static const char *arith_of(struct xlate *x, const char *op)
{
	return arena_printf(x->a, "%.*s", (int)strlen(op) - 1, op);
}

static const char *binop_long(struct xlate *x, const char *op, const char *a, const char *b,
			      const struct loc *loc)
{
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		/* x / 0 is a soft error; INT64_MIN / -1 would trap (ctap_sdiv wraps). */
		if (!simple(b)) {
			const char *t = gen_temp(x, "int64_t %s", "divisor");

			emit(x, "%s = %s;", t, b);
			b = t;
		}
		fail_if(x, arena_printf(x->a, "!%s", b),
			arena_printf(x->a, "ctap_error(c, \"division by 0\", %s)",
				     gen_where(x, loc, arena_printf(x->a, "operator '%s'", op))));
		return arena_printf(x->a, "ctap_%s(%s, %s)", op[0] == '/' ? "sdiv" : "smod", a, b);
	}
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		return arena_printf(x->a, "(%s %s (%s & 63))", a, op, b);
	if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*"))
		/* Wrapping, as SystemTap's longs do. */
		return arena_printf(x->a, "(int64_t)((uint64_t)(%s) %s (uint64_t)(%s))", a, op, b);
	return arena_printf(x->a, "(int64_t)(%s %s %s)", a, op, b);
}

/* a && b, a || b: b's statements run only when they must. */
static const char *logical(struct xlate *x, const struct expr *e)
{
	const char *a = expr_c(x, e->a), *b, *t;
	bool and = !strcmp(e->op, "&&");
	char *stmts;

	b = expr_aside(x, e->b, x->depth + 1, &stmts);
	if (!*stmts) {
		free(stmts);
		return arena_printf(x->a, "(int64_t)(%s %s %s)", a, e->op, b);
	}
	t = gen_temp(x, "int64_t %s", and ? "and" : "or");
	emit(x, "%s = %d;", t, !and);
	emit(x, and ? "if (%s) {" : "if (!(%s)) {", a);
	put_aside(x, stmts);
	emit(x, "\t%s = %s != 0;", t, b);
	emit(x, "}");
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
	cond = expr_c(x, e->a);

	a = expr_aside(x, e->b, x->depth + 1, &sa);
	b = expr_aside(x, e->c, x->depth + 1, &sb);
	if (!*sa && !*sb) {
		free(sa);
		free(sb);
		return arena_printf(x->a, "(%s ? %s : %s)", cond, a, b);
	}
	t = is_string(e->b) ? gen_temp(x, "const char *%s", "choice") :
		gen_temp(x, "int64_t %s", "choice");
	emit(x, "if (%s) {", cond);
	put_aside(x, sa);
	emit(x, "\t%s = %s;", t, a);
	emit(x, "} else {");
	put_aside(x, sb);
	emit(x, "\t%s = %s;", t, b);
	emit(x, "}");
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
	if (sem_regex_compile(pattern->str, &re, &why)) {	/* pass 2 checked it */
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

	if (!strcmp(e->op, "&&") || !strcmp(e->op, "||"))
		return logical(x, e);
	a = expr_c(x, e->a);
	if (!strcmp(e->op, "=~") || !strcmp(e->op, "!~"))
		return arena_printf(x->a, "(int64_t)%sctap_regex_match(&%s, %s)",
				    e->op[0] == '!' ? "!" : "", regex_program(x, e->b), a);
	if (!ast_pure(e->b))
		a = keep(x, e->a, a);
	b = expr_c(x, e->b);
	if (!strcmp(e->op, ".")) {
		const char *t = str_temp(x, "cat");

		emit(x, "ctap_strcat(%s, %s, %s);", t, a, b);
		return t;
	}
	if (is_string(e->a) && strchr("<>=!", e->op[0]))
		return arena_printf(x->a, "(int64_t)(strcmp(%s, %s) %s 0)", a, b, e->op);
	return binop_long(x, e->op, a, b, &e->loc);
}

static const char *unary(struct xlate *x, const struct expr *e)
{
	const char *a = expr_c(x, e->a);

	if (!strcmp(e->op, "-"))
		return arena_printf(x->a, "(int64_t)(0 - (uint64_t)(%s))", a);
	if (!strcmp(e->op, "!"))
		return arena_printf(x->a, "(int64_t)!(%s)", a);
	if (!strcmp(e->op, "~"))
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
		struct var *arr = array_of(x, target->a);

		return arr ? arena_printf(x->a, "*ctap_map_long(G.g_%s, %s)", arr->name,
					  slot(x, target, arr)) : NULL;
	}
	if (target->kind != E_SYMBOL || !lookup(x, target->name, &lv)) {
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
static const char *counter_update(struct xlate *x, const struct var *v, const char *op,
				  const char *val, bool want, const struct loc *loc)
{
	const char *t;

	if (!want && (!strcmp(op, "+=") || !strcmp(op, "-="))) {
		emit(x, op[0] == '-' ? "ctap_counter_add(&G.g_%s, -(%s));" :
		     "ctap_counter_add(&G.g_%s, %s);", v->name, val);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "val");
	if (!strcmp(op, "="))
		emit(x, "%s = %s;", t, val);
	else
		emit(x, "%s = %s;", t, binop_long(x, arith_of(x, op),
			arena_printf(x->a, "ctap_counter_read(&G.g_%s)", v->name), val, loc));
	emit(x, "ctap_counter_set(&G.g_%s, %s);", v->name, t);
	return want ? t : "0LL";
}

/* ++x, x--, ...; want: the value is used. */
static const char *incdec(struct xlate *x, const struct expr *e, bool postfix, bool want)
{
	const char *lv, *t;
	struct var *k = counter_of(x, e->a);

	if (k) {
		const char *op = e->op[0] == '+' ? "+=" : "-=";

		if (!want || !postfix)
			return counter_update(x, k, op, "1", want, &e->loc);
		t = gen_temp(x, "int64_t %s", "old");
		emit(x, "%s = ctap_counter_read(&G.g_%s);", t, k->name);
		counter_update(x, k, op, "1", false, &e->loc);
		return t;
	}
	lv = long_lvalue(x, e->a, e->op);
	if (!lv)
		return "0LL";
	if (e->a->kind == E_INDEX)
		lv = arena_printf(x->a, "(%s)", lv);
	if (!want) {
		emit(x, "%s%s;", lv, e->op);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "val");
	emit(x, "%s = %s%s;", t, postfix ? lv : e->op, postfix ? e->op : lv);
	return t;
}

static const char *assign_element(struct xlate *x, const struct expr *e)
{
	const struct expr *target = e->a;
	struct var *arr = array_of(x, target->a);
	const char *val, *s;

	if (!arr)
		return "0LL";
	val = expr_c(x, e->b);
	if (!ast_pure(target))
		val = keep(x, e->b, val);
	s = slot(x, target, arr);
	if (!strcmp(e->op, "<<<")) {
		emit(x, "ctap_stat_add(&spec_%s, ctap_map_stat(G.g_%s, %s), %s);", arr->name,
		     arr->name, s, val);
		return "0LL";
	}
	if (arr->type == T_STRING) {
		const char *dst = arena_printf(x->a, "ctap_map_string(G.g_%s, %s)", arr->name, s);

		if (!strcmp(e->op, ".="))
			emit(x, "strlcat(%s, %s, MAXSTRINGLEN);", dst, val);
		else
			emit(x, "ctap_strcpy(%s, %s);", dst, val);
		return dst;
	}
	if (!strcmp(e->op, "=")) {
		emit(x, "*ctap_map_long(G.g_%s, %s) = %s;", arr->name, s, val);
	} else {
		const char *p = gen_temp(x, "int64_t *%s", "elem");

		emit(x, "%s = ctap_map_long(G.g_%s, %s);", p, arr->name, s);
		emit(x, "*%s = %s;", p, binop_long(x, arith_of(x, e->op),
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
		emit(x, "ctap_procfs_set(c, %s, %s);", expr_c(x, e->b),
		     strcmp(e->op, ".=") ? "false" : "true");
		return "ctap_procfs_get(c)";
	}
	if (target->kind == E_TARGET || target->kind == E_CAST || target->kind == E_AUTOCAST)
		return gen_assign_target(x, e);
	if (target->kind != E_SYMBOL) {
		gen_error(x, &e->loc, "assigning to %s is not supported yet", expr_text(x->a, target));
		return "0LL";
	}
	v = lookup(x, target->name, &lv);
	if (!v)
		return "0LL";
	val = expr_c(x, e->b);
	if (counter_of(x, target))
		return counter_update(x, v, e->op, val, want, &e->loc);
	if (!strcmp(e->op, "<<<")) {
		emit(x, "ctap_pstat_add(&spec_%s, &G.g_%s, %s);", v->name, v->name, val);
		return "0LL";
	}
	if (v->type == T_STRING) {
		if (!strcmp(e->op, ".="))
			emit(x, "ctap_strcat(%s, %s, %s);", lv, lv, val);
		else
			emit(x, "ctap_strcpy(%s, %s);", lv, val);
	} else if (!strcmp(e->op, "=")) {
		emit(x, "%s = %s;", lv, val);
	} else {
		emit(x, "%s = %s;", lv, binop_long(x, arith_of(x, e->op), lv, val, &e->loc));
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
		emit(x, "%s = %s;", b, expr_c(x, e->args));
		fail_if(x, arena_printf(x->a, "%s < 0 || %s >= spec_%s.buckets", b, b,
					stat_name(h->args)),
			"c->last_error = \"histogram index out of range\"");
		return arena_printf(x->a, "%s->hist[%s]", agg, b);
	}
	arr = array_of(x, e->a);
	if (!arr)
		return "0LL";
	key = key_fill(x, arr, e->args, &mask);
	if (arr->type == T_STRING) {
		t = gen_temp(x, "const char *%s", arr->name);
		emit(x, "%s = ctap_map_get_string(G.g_%s, &%s);", t, arr->name, key);
	} else {
		t = gen_temp(x, "int64_t %s", arr->name);
		emit(x, "%s = ctap_map_get_long(G.g_%s, &%s);", t, arr->name, key);
	}
	return t;
}

static const char *in_test(struct xlate *x, const struct expr *e)
{
	struct var *arr = array_of(x, e->a);
	const char *key, *t;
	unsigned mask;
	int nkeys = 0;

	if (!arr)
		return "0LL";
	for (const struct expr *k = e->args; k; k = k->next)
		nkeys++;
	key = key_fill(x, arr, e->args, &mask);
	t = gen_temp(x, "int64_t %s", "in");
	if (mask == (1u << nkeys) - 1)
		emit(x, "%s = ctap_map_find(G.g_%s, &%s, false) >= 0;", t, arr->name, key);
	else
		emit(x, "%s = ctap_map_exists(G.g_%s, &%s, %#x);", t, arr->name, key, mask);
	return t;
}

/* ---- expressions ---- */

const char *gen_expr(struct xlate *x, const struct expr *e)
{
	return expr_c(x, e);
}

void gen_line(struct xlate *x, const char *text)
{
	emit(x, "%s", text);
}

void gen_fail_if(struct xlate *x, const char *cond)
{
	fail_if(x, cond, NULL);
}

/* @perf("NAME"): the count of the current thread's counter (pass 2
 * found it). */
static const char *perf_read(struct xlate *x, const struct expr *e)
{
	const struct derived_probe *d = perf_counter(x->s, e->args->str, NULL, NULL);
	const char *t;

	if (!d) {
		gen_error(x, &e->loc, "no perf counter \"%s\"", e->args->str);
		return "0LL";
	}
	t = gen_temp(x, "int64_t %s", "perf");
	emit(x, "%s = (int64_t)ctap_perf_read(%d);", t, emit_family_index(x, d));
	return t;
}

static const char *expr_c(struct xlate *x, const struct expr *e)
{
	const char *c;

	switch (e->kind) {
	case E_NUMBER:
		return number(x, e->num);
	case E_STRING:
		return gen_c_string(x, e->str);
	case E_SYMBOL:
		if (!lookup(x, e->name, &c)) {
			gen_error(x, &e->loc, "unresolved symbol '%s'", e->name);
			return "0LL";
		}
		return c;
	case E_INDEX:
		return index_read(x, e);
	case E_CALL:
		return is_print_builtin(e->name) ? print_call(x, e) : call(x, e, true);
	case E_UNARY:
		if (!strcmp(e->op, "++") || !strcmp(e->op, "--"))
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
static void effect(struct xlate *x, const struct expr *e)
{
	if (e->kind == E_CALL && !is_print_builtin(e->name))
		call(x, e, false);
	else if (e->kind == E_POSTFIX || (e->kind == E_UNARY &&
		 (!strcmp(e->op, "++") || !strcmp(e->op, "--"))))
		incdec(x, e, e->kind == E_POSTFIX, false);
	else if (e->kind == E_ASSIGN)
		assignment(x, e, false);
	else
		expr_c(x, e);	/* what it computes is in the statements */
}

/* ---- statements ---- */

/* A statement begins: it is the one errors are "near", and it costs an action. */
static void actions(struct xlate *x, const struct loc *loc, const char *what)
{
	emit(x, "c->last_stmt = %s;", gen_where(x, loc, what));
	emit(x, "CTAP_ACTIONS(c, 1, %s);", err_label(x));
}

/*
 * An expression no soft error can come from: numbers, long scalars and
 * $vars read without following a pointer, with arithmetic that does not
 * divide.  A statement of only that needs
 * neither c->last_stmt (errors are "near" the statement that failed) nor,
 * in a handler that cannot run out, an action.
 */
static bool cannot_fail(struct xlate *x, const struct expr *e)
{
	const struct tvar *t;
	const char *c;
	struct var *v;

	switch (e->kind) {
	case E_NUMBER:
		return true;
	case E_SYMBOL:	/* pass 2 types the variable, not every use */
		v = lookup(x, e->name, &c);
		return v && v->type == T_LONG && !v->nkeys;
	case E_UNARY:
	case E_POSTFIX:
		return cannot_fail(x, e->a);
	case E_BINARY:
		return e->vtype == T_LONG && strcmp(e->op, "/") && strcmp(e->op, "%") &&
			cannot_fail(x, e->a) && cannot_fail(x, e->b);
	case E_ASSIGN:
		return e->a->kind == E_SYMBOL && strcmp(e->op, "/=") && strcmp(e->op, "%=") &&
			strcmp(e->op, "<<<") && strcmp(e->op, ".=") && cannot_fail(x, e->a) &&
			cannot_fail(x, e->b);
	case E_TERNARY:
		return cannot_fail(x, e->a) && cannot_fail(x, e->b) && cannot_fail(x, e->c);
	case E_TARGET:	/* an argument's or return value's value, no memory read */
		t = sem_tvar(x->s, e);
		return t && !t->expansion && !t->nsteps && !t->is_string && !e->pretty &&
			(t->base == TVAR_ARG || t->base == TVAR_RETURN);
	default:
		return false;
	}
}

/* The statement's action and where errors are near, if it needs them. */
static void statement_actions(struct xlate *x, const struct stmt *s, const struct expr *e,
			      const char *what)
{
	if (x->sc->unbudgeted && (!e || cannot_fail(x, e)))
		return;
	actions(x, &s->loc, what);
}

struct budget_walk {
	struct xlate *x;
	int statements;
	bool unbounded;			/* a loop, or a call of a script function */
};

static void budget_call(struct expr *e, void *ctx)
{
	struct budget_walk *w = ctx;
	const struct sem_function *f;

	if (e->kind == E_CALL && (f = sem_function_of(w->x->s, e)) && !f->fn->embedded)
		w->unbounded = true;
}

static void budget_stmts(struct budget_walk *w, const struct stmt *s)
{
	for (; s; s = s->next) {
		if (s->kind == S_WHILE || s->kind == S_FOR || s->kind == S_FOREACH)
			w->unbounded = true;
		w->statements++;
		budget_stmts(w, s->body);
		budget_stmts(w, s->els);
	}
}

/* MAXACTION: the runtime's default unless -D sets it. */
static long max_actions(struct session *s)
{
	long n = CTAP_MAXACTION_DEFAULT;

	for (int i = 0; i < s->n_defines; i++)
		if (!strncmp(s->defines[i], "MAXACTION=", 10))
			n = strtol(s->defines[i] + 10, NULL, 0);
	return n;
}

/*
 * Only a loop or a call can make a handler run more statements than it
 * has (a function counts its own against the same budget, so a handler
 * calling one counts too); one with neither and fewer statements than
 * MAXACTION can never run out, and needs no count.
 */
bool gen_unbudgeted(struct xlate *x, const struct sem_handler *h)
{
	struct budget_walk w = { .x = x };
	struct stmt *bodies[SEM_MAX_BODIES];
	int n = sem_handler_bodies(h, bodies, NULL);

	for (int i = 0; i < n; i++) {
		budget_stmts(&w, bodies[i]);
		ast_walk_stmt(bodies[i], budget_call, &w);
	}
	return !w.unbounded && w.statements < max_actions(x->s);
}

/*
 * "y = expr" where the local y is never read: as SystemTap (pass 2 warned
 * "Eliding assignments to 'y'"), the assignment goes, and expr too if it
 * has no side effects.  Returns the expression to evaluate, or NULL.
 */
static const struct expr *elide(struct xlate *x, const struct expr *e)
{
	const struct var *v;

	if (x->s->unoptimized || e->kind != E_ASSIGN || e->a->kind != E_SYMBOL)
		return e;
	v = find(x->sc->locals, e->a->name);
	if (!v || v->read || v->kind == V_PARAM || !strcmp(e->op, "<<<"))
		return e;
	return sem_pure(x->s->sem, e->b) ? NULL : e->b;
}

/* What SystemTap names a statement by in messages: its first token. */
static const char *stmt_token(struct xlate *x, const struct stmt *s)
{
	static const char *const keywords[] = {
		[S_IF] = "if", [S_WHILE] = "while", [S_FOR] = "for", [S_FOREACH] = "foreach",
		[S_BREAK] = "break", [S_CONTINUE] = "continue", [S_NEXT] = "next",
		[S_RETURN] = "return", [S_DELETE] = "delete", [S_TRY] = "try",
	};

	if (s->kind < sizeof(keywords) / sizeof(*keywords) && keywords[s->kind])
		return arena_printf(x->a, "keyword '%s'", keywords[s->kind]);
	if (s->kind == S_EXPR) {
		const struct expr *e = s->e;

		while (e->kind == E_ASSIGN || e->kind == E_POSTFIX || e->kind == E_BINARY ||
		       e->kind == E_INDEX)
			e = e->a;
		if (e->kind == E_SYMBOL || e->kind == E_CALL)
			return arena_printf(x->a, "identifier '%s'", e->name);
		if (e->kind == E_UNARY)
			return arena_printf(x->a, "operator '%s'", e->op);
	}
	return "statement";
}

static void delete_stmt(struct xlate *x, const struct stmt *s)
{
	const struct expr *e = s->e;
	const char *lv;
	struct var *v;

	if (e->kind == E_INDEX) {
		struct var *arr = array_of(x, e->a);
		const char *key;
		unsigned mask;
		int nkeys = 0;

		if (!arr)
			return;
		for (const struct expr *k = e->args; k; k = k->next)
			nkeys++;
		key = key_fill(x, arr, e->args, &mask);
		if (mask == (1u << nkeys) - 1)
			emit(x, "ctap_map_delete(G.g_%s, &%s);", arr->name, key);
		else
			emit(x, "ctap_map_delete_matching(G.g_%s, &%s, %#x);", arr->name, key, mask);
		return;
	}
	v = lookup(x, e->name, &lv);
	if (!v)
		return;
	if (v->nkeys)
		emit(x, "ctap_map_clear(G.g_%s);", v->name);
	else if (v->type == T_STATS)
		emit(x, "ctap_pstat_clear(&G.g_%s);", v->name);
	else if (v->type == T_STRING)
		emit(x, "%s[0] = '\\0';", lv);
	else if (counter_of(x, e))
		emit(x, "ctap_counter_set(&G.g_%s, 0);", v->name);
	else
		emit(x, "%s = 0;", lv);
}

static char sort_agg(const char *agg)
{
	if (!agg)
		return 'c';
	if (!strcmp(agg, "@sum"))
		return 's';
	if (!strcmp(agg, "@min"))
		return 'm';
	if (!strcmp(agg, "@max"))
		return 'M';
	if (!strcmp(agg, "@avg"))
		return 'a';
	return 'c';
}

static void assign_from_entry(struct xlate *x, const struct expr *target, const char *value,
			      bool string)
{
	const char *lv;

	if (!lookup(x, target->name, &lv))
		return;
	if (string)
		emit(x, "ctap_strcpy(%s, %s);", lv, value);
	else
		emit(x, "%s = %s;", lv, value);
}

/* The body of a loop: continue goes to cont (NULL: C's continue). */
static void loop_body(struct xlate *x, const struct stmt *body, const char *cont)
{
	const char *saved = x->cont;

	x->cont = cont;
	gen_stmt(x, body, x->depth);
	x->cont = saved;
}

/* A foreach turn's end: the action it costs, the body; then the loop and
 * its block close. */
static void foreach_body(struct xlate *x, const struct stmt *s)
{
	emit(x, "CTAP_ACTIONS(c, 1, %s);", err_label(x));
	loop_body(x, s->body, NULL);
	x->depth--;
	emit(x, "}");
	x->depth--;
	emit(x, "}");
}

/*
 * foreach ([v =] b in @hist_log(s) [limit n]): every bucket index in
 * order, empty ones too, and v its count; SystemTap ignores a sort there.
 */
static void foreach_bucket(struct xlate *x, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	const struct expr *operand = fe->array->args;
	const char *h, *lim = fe->limit ? expr_c(x, fe->limit) : "-1";
	int n = x->labels++;

	emit(x, "{ /* foreach bucket, %s:%d */", gen_c_comment(x->a, s->loc.src->name), s->loc.line);
	x->depth++;
	h = stat_agg(x, operand);
	emit(x, "int64_t lim%d = %s;", n, lim);
	blank(x);
	emit(x, "for (int b%d = 0; b%d < spec_%s.buckets; b%d++) {", n, n, stat_name(operand), n);
	x->depth++;
	emit(x, "if (lim%d >= 0 && lim%d-- == 0)", n, n);
	emit(x, "\tbreak;");
	assign_from_entry(x, fe->keys, arena_printf(x->a, "b%d", n), false);
	if (fe->value)
		assign_from_entry(x, fe->value, arena_printf(x->a, "%s->hist[b%d]", h, n), false);
	foreach_body(x, s);
}

static void foreach_stmt(struct xlate *x, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	struct var *arr;
	const char *idx, *key = NULL, *lim;
	unsigned mask = 0;
	int n, i = 0;

	if (fe->array->kind == E_HIST) {
		foreach_bucket(x, s);
		return;
	}
	arr = array_of(x, fe->array);
	if (!arr)
		return;
	n = x->labels++;
	idx = gen_temp(x, arena_printf(x->a, "int %%s[2 * %s]",
				       arr->global && arr->global->size ?
				       arena_printf(x->a, "%lld", (long long)arr->global->size) :
				       "MAXMAPENTRIES"), "order");
	lim = fe->limit ? expr_c(x, fe->limit) : "-1";
	if (fe->pattern)
		key = key_fill(x, arr, fe->pattern, &mask);
	emit(x, "{ /* foreach, %s:%d */", gen_c_comment(x->a, s->loc.src->name), s->loc.line);
	x->depth++;
	emit(x, "struct ctap_map_sort sort%d = { %d, %d, '%c' };", n,
	     fe->sort_column == -1 ? 0 : fe->sort_column, fe->sort_column ? fe->sort_dir : 0,
	     sort_agg(fe->sort_agg));
	emit(x, "int n%d = ctap_map_sorted(G.g_%s, &sort%d, %s,", n, arr->name, n, idx);
	emit(x, "\t\t%s + ARRAY_SIZE(%s) / 2, -1);", idx, idx);
	emit(x, "int64_t lim%d = %s;", n, lim);
	blank(x);
	emit(x, "for (int i%d = 0; i%d < n%d; i%d++) {", n, n, n, n);
	x->depth++;
	emit(x, "int e%d = %s[i%d];", n, idx, n);
	blank(x);
	if (key) {
		emit(x, "if (!ctap_map_matches(G.g_%s, e%d, &%s, %#x))", arr->name, n, key, mask);
		emit(x, "\tcontinue;");
	}
	emit(x, "if (lim%d >= 0 && lim%d-- == 0)", n, n);
	emit(x, "\tbreak;");
	for (const struct expr *k = fe->keys; k; k = k->next, i++)
		assign_from_entry(x, k, arena_printf(x->a, "ctap_map_key_%s(G.g_%s, e%d, %d)",
						     arr->keys[i] == T_STRING ? "string" : "long",
						     arr->name, n, i),
				  arr->keys[i] == T_STRING);
	if (fe->value)
		assign_from_entry(x, fe->value,
				  arena_printf(x->a, arr->type == T_STRING ?
					       "ctap_map_string(G.g_%s, e%d)" :
					       "*ctap_map_long(G.g_%s, e%d)", arr->name, n),
				  arr->type == T_STRING);
	foreach_body(x, s);
}

/*
 * while (cond) body, for (init; cond; incr) body: the condition's
 * statements run at every turn; an increment with statements of its own
 * runs at a label that continue jumps to.
 */
static void loop_stmt(struct xlate *x, const struct stmt *s)
{
	const char *incr = NULL, *cont = NULL;
	char *incr_stmts = NULL;

	if (s->init)
		effect(x, s->init);
	if (s->incr) {
		/* One statement fits C's for (;; incr); more run at a label. */
		size_t len;

		aside(x, s->incr, x->depth + 1, &incr_stmts, false);
		len = strlen(incr_stmts);
		if (len > 2 && !strchr(incr_stmts, '\n')[1] && incr_stmts[len - 2] == ';' &&
		    !strchr(incr_stmts, '{')) {
			const char *text = incr_stmts + strspn(incr_stmts, "\t");

			incr = arena_printf(x->a, "%.*s", (int)strlen(text) - 2, text);
		} else if (len) {
			cont = arena_printf(x->a, "next_%d", x->labels++);
		}
	}
	emit(x, "for (;; %s) {", incr ? incr : "");
	x->depth++;
	emit(x, "CTAP_ACTIONS(c, 1, %s);", err_label(x));
	if (s->e) {
		const char *cond = expr_c(x, s->e);

		emit(x, "if (!(%s))", cond);
		emit(x, "\tbreak;");
	}
	loop_body(x, s->body, cont);
	x->depth--;
	if (cont) {
		/* unused when the body has no continue */
		emit(x, "%s: __attribute__((unused));", cont);
		fputs(incr_stmts, x->code);
	}
	free(incr_stmts);
	emit(x, "}");
}

/*
 * try/catch in C, for the try statement and for an expression whose fault
 * reads as a value (gen_caught): the soft errors of what is generated
 * between catch_begin() and catch_handler() jump to the handler.
 */
struct xcatch {
	const char *outer, *label;
	int jumps;		/* x->err_jumps when the try part began */
};

static void catch_begin(struct xlate *x, struct xcatch *k, const char *comment)
{
	comment = gen_c_comment(x->a, comment);	/* it names the script's file */
	k->outer = x->err;
	k->label = arena_printf(x->a, "catch_%d", x->labels++);
	k->jumps = x->err_jumps;
	emit(x, "{ /* %s */", comment);
	x->depth++;
	x->err = k->label;
	if (x->s->json)	/* how deep in printing statements the try starts */
		emit(x, "const int %s_json = c->json_depth;", k->label);
}

/*
 * Ends the try part.  If nothing in it can fail, closes the block and
 * returns false: a catch part would be dead code (and its label unused).
 * Else opens the catch part, which starts with the error (copied to
 * error_to, if not NULL) cleared, and returns true: catch_end() closes it.
 */
static bool catch_handler(struct xlate *x, struct xcatch *k, const char *error_to)
{
	x->err = k->outer;
	if (x->err_jumps == k->jumps) {
		x->depth--;
		emit(x, "}");
		return false;
	}
	emit(x, "goto %s_end;", k->label);
	x->depth--;
	emit(x, "%s:", k->label);
	x->depth++;
	if (error_to)
		emit(x, "ctap_strcpy(%s, c->last_error);", error_to);
	emit(x, "c->last_error = NULL;");
	emit(x, "c->last_stmt = NULL;");
	if (x->s->json)
		emit(x, "ctap_json_unwind(c, %s_json);", k->label);
	return true;
}

static void catch_end(struct xlate *x, const struct xcatch *k)
{
	x->depth--;
	emit(x, "%s_end:", k->label);
	emit(x, "\t;");
	emit(x, "}");
}

const char *gen_caught(struct xlate *x, const struct expr *e, const char *on_error)
{
	const char *t = str_temp(x, "caught"), *fallback = gen_c_string(x, on_error);
	struct xcatch k;

	catch_begin(x, &k, arena_printf(x->a, "%s:%d: a fault here reads %s", e->loc.src->name,
					e->loc.line, fallback));
	emit(x, "ctap_strcpy(%s, %s);", t, gen_expr(x, e));
	if (catch_handler(x, &k, NULL)) {
		emit(x, "ctap_strcpy(%s, %s);", t, fallback);
		catch_end(x, &k);
	}
	return t;
}

static void try_stmt(struct xlate *x, const struct stmt *s)
{
	const char *lv = NULL;
	struct xcatch k;

	catch_begin(x, &k, arena_printf(x->a, "try, %s:%d", s->loc.src->name, s->loc.line));
	gen_stmt(x, s->body, x->depth);
	if (s->catch_var && !lookup(x, s->catch_var, &lv))
		lv = NULL;
	if (!catch_handler(x, &k, lv))
		return;
	if (s->els)
		gen_stmt(x, s->els, x->depth);
	catch_end(x, &k);
}

static void find_call(struct expr *e, void *found)
{
	if (e->kind == E_CALL)
		*(bool *)found = true;
}

/* Only a call prints: print(), printf()..., or a function that does. */
static bool calls_something(const struct expr *e)
{
	bool found = false;

	if (e)
		ast_walk_expr((struct expr *)e, find_call, &found);
	return found;
}

void gen_stmt(struct xlate *x, const struct stmt *s, int depth)
{
	int saved = x->depth;

	x->depth = depth;
	switch (s->kind) {
	case S_NULL:
		break;
	case S_EXPR: {
		const struct expr *e = elide(x, s->e);
		bool json = x->s->json && calls_something(e);

		if (!e)
			break;	/* gone, as SystemTap's: no action, no statement */
		statement_actions(x, s, e, stmt_token(x, s));
		if (json)	/* what it prints is one JSON line */
			emit(x, "ctap_json_begin(c);");
		effect(x, e);
		if (json)
			emit(x, "ctap_json_end(c);");
		break;
	}
	case S_BLOCK:
		for (const struct stmt *c = s->body; c; c = c->next)
			gen_stmt(x, c, depth);
		break;
	case S_IF:
		statement_actions(x, s, s->e, "keyword 'if'");
		if (sem_static_condition(s->e) >= 0) {	/* @defined: one branch */
			const struct stmt *taken = sem_static_condition(s->e) ? s->body : s->els;

			if (taken)
				gen_stmt(x, taken, depth);
			break;
		}
		emit(x, "if (%s) {", expr_c(x, s->e));
		gen_stmt(x, s->body, depth + 1);
		if (s->els) {
			emit(x, "} else {");
			gen_stmt(x, s->els, depth + 1);
		}
		emit(x, "}");
		break;
	case S_WHILE:
	case S_FOR:
		loop_stmt(x, s);
		break;
	case S_FOREACH:
		foreach_stmt(x, s);
		break;
	case S_BREAK:
		emit(x, "break;");
		break;
	case S_CONTINUE:
		if (x->cont)
			emit(x, "goto %s;", x->cont);
		else
			emit(x, "continue;");
		break;
	case S_NEXT:
		if (x->sc->fn)
			gen_error(x, &s->loc, "'next' in a function (overloads) is not supported yet");
		x->sc->uses_out = true;
		emit(x, "goto out;");
		break;
	case S_RETURN:
		if (s->e) {
			const char *v = expr_c(x, s->e);

			if (x->sc->fn && x->sc->fn->ret == T_STRING)
				emit(x, "ctap_strcpy(l->__retvalue, %s);", v);
			else
				emit(x, "l->__retvalue = %s;", v);
		}
		x->sc->uses_out = true;
		emit(x, "goto out;");
		break;
	case S_DELETE:
		actions(x, &s->loc, "keyword 'delete'");
		delete_stmt(x, s);
		break;
	case S_TRY:
		try_stmt(x, s);
		break;
	case S_EMBEDDED:
		emit(x, "{\n%s\n}", s->code);
		break;
	}
	x->depth = saved;
}
