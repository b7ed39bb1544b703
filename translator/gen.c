/*
 * gen.c - pass 3: statements and expressions to C.
 *
 * Every expression becomes one C expression: an int64_t for a long, a
 * const char * for a string (pointing at a variable or at a temporary
 * buffer of the enclosing handler or function).  Anything that can fail
 * (a division, a map insert, a call) is a GCC statement expression that
 * sets the context's error and jumps to x->err: "out" at the end of the
 * function, or the catch block of the innermost try.  Variables live in
 * the locals struct `l` of the handler or of the function's frame;
 * globals in `G`.  See docs/translator.md for the conventions.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
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

/* SystemTap's escapes (as C's, with \ooo and \xhh) to bytes. */
static size_t unescape(const char *raw, char *out)
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

const char *gen_c_string(struct xlate *x, const char *raw)
{
	size_t len = strlen(raw);
	char *bytes = arena_alloc(x->a, len + 1), *out = arena_alloc(x->a, len * 4 + 3), *o = out;
	size_t n = unescape(raw, bytes);

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
	*c = arena_printf(x->a, "G.g_%s", name);
	return v;
}

/* A new field of the scope's locals struct: decl is a printf format for
 * the declaration with %s for its name ("char %s[MAXSTRINGLEN]"). */
static const char *temp(struct xlate *x, const char *decl)
{
	char name[16];

	snprintf(name, sizeof(name), "t%d", x->sc->ntemps++);
	fputc('\t', x->sc->temps);
	fprintf(x->sc->temps, decl, name);
	fputs(";\n", x->sc->temps);
	return arena_printf(x->a, "l->%s", name);
}

static const char *str_temp(struct xlate *x)
{
	return temp(x, "char %s[MAXSTRINGLEN]");
}

static bool is_string(const struct expr *e)
{
	if (e->kind == E_STRING)
		return true;
	if (e->kind == E_NUMBER)
		return false;
	return e->vtype == T_STRING;
}

static const char *goto_err(struct xlate *x)
{
	return arena_printf(x->a, "goto %s", x->err);
}

/* ---- array keys ---- */

/*
 * Fill a key temporary from keys: "l->t3.n[0] = (a); l->t3.s[1] = (b); ".
 * Wildcards leave their bit out of *mask.  Returns the fill code; *key is
 * the temporary.
 */
static const char *key_fill(struct xlate *x, const struct var *arr, const struct expr *keys,
			    const char **key, unsigned *mask)
{
	char *fill = "";
	int i = 0;

	*key = temp(x, "struct ctap_key %s");
	*mask = 0;
	for (const struct expr *k = keys; k; k = k->next, i++) {
		if (k->kind == E_WILDCARD)
			continue;
		*mask |= 1u << i;
		fill = arena_printf(x->a, "%s%s.%c[%d] = %s; ", fill, *key,
				    arr->keys[i] == T_STRING ? 's' : 'n', i, expr_c(x, k));
	}
	return fill;
}

/* The entry of arr[keys], created if absent: "_e" in the code returned. */
static const char *slot(struct xlate *x, const struct expr *at, const struct var *arr)
{
	const char *key, *fill;
	unsigned mask;

	fill = key_fill(x, arr, at->args, &key, &mask);
	const char *overflow = arr->global && arr->global->size ?
		arena_printf(x->a, "\"Array overflow, check size limit (%lld)\"",
			     (long long)arr->global->size) :
		"\"Array overflow, check MAXMAPENTRIES\"";

	return arena_printf(x->a, "int _e; %s_e = ctap_map_slot(c, G.g_%s, &%s, %s, %s); "
			    "if (unlikely(_e < 0)) %s; ", fill, arr->name, key, overflow,
			    gen_where(x, &at->a->loc, arena_printf(x->a, "identifier '%s'", arr->name)),
			    goto_err(x));
}

static struct var *array_of(struct xlate *x, const struct expr *base)
{
	struct var *v = gen_find_global(x, base->name);

	if (!v || !v->nkeys)
		gen_error(x, &base->loc, "'%s' is not a global array", base->name);
	return v;
}

/* ---- statistics ---- */

/* The aggregate of a statistics operand: a scalar or arr[keys]. */
static const char *stat_agg(struct xlate *x, const struct expr *operand)
{
	if (operand->kind == E_INDEX) {
		struct var *arr = array_of(x, operand->a);
		const char *key, *fill;
		unsigned mask;

		if (!arr)
			return "((struct ctap_stat *)NULL)";
		fill = key_fill(x, arr, operand->args, &key, &mask);
		return arena_printf(x->a, "({ %sctap_map_stat_agg(G.g_%s, &%s, &%s); })", fill,
				    arr->name, key, temp(x, "struct ctap_stat %s"));
	}
	return arena_printf(x->a, "ctap_pstat_aggregate(&spec_%s, &G.g_%s)", operand->name,
			    operand->name);
}

static const char *stat_name(const struct expr *operand)
{
	return operand->kind == E_INDEX ? operand->a->name : operand->name;
}

/* An aggregate that must not be empty; the error names the statement. */
static const char *nonempty(struct xlate *x, const char *agg)
{
	return arena_printf(x->a, "struct ctap_stat *_g = %s; if (unlikely(!_g->count)) { "
			    "c->last_error = \"empty aggregate\"; %s; } ", agg, goto_err(x));
}

/* @count and @sum of nothing are 0; the others are an error, as SystemTap's. */
static const char *stat_value(struct xlate *x, const struct expr *e)
{
	const char *agg = stat_agg(x, e->a), *name = stat_name(e->a);

	if (!strcmp(e->name, "@count"))
		return arena_printf(x->a, "(%s)->count", agg);
	if (!strcmp(e->name, "@sum"))
		return arena_printf(x->a, "(%s)->sum", agg);
	if (!strcmp(e->name, "@avg"))
		return arena_printf(x->a, "({ %sctap_stat_avg(_g); })", nonempty(x, agg));
	if (!strcmp(e->name, "@variance"))
		return arena_printf(x->a, "({ %sctap_stat_variance(&spec_%s, _g); })", nonempty(x, agg),
				    name);
	return arena_printf(x->a, "({ %s_g->%s; })", nonempty(x, agg),
			    !strcmp(e->name, "@min") ? "min" : "max");
}

/* ---- printing ---- */

/* Printf arguments into an array: "union ctap_arg _a[n]; _a[0].n = ...; " */
static const char *print_args(struct xlate *x, const struct expr *args, int *n)
{
	char *code = "";

	*n = 0;
	for (const struct expr *a = args; a; a = a->next)
		(*n)++;
	if (!*n)
		return "union ctap_arg *_a = NULL; ";
	code = arena_printf(x->a, "union ctap_arg _a[%d]; ", *n);
	int i = 0;
	for (const struct expr *a = args; a; a = a->next, i++)
		code = arena_printf(x->a, "%s_a[%d].%c = %s; ", code, i, is_string(a) ? 's' : 'n',
				    expr_c(x, a));
	return code;
}

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

static const char *print_call(struct xlate *x, const struct expr *e)
{
	const char *name = e->name, *fmt, *args_code;
	const struct expr *args = e->args;
	bool to_string = name[0] == 's';
	int n;

	if (!strcmp(name, "print") || !strcmp(name, "println")) {
		if (args && args->kind == E_HIST && !args->next) {
			const struct expr *h = args;

			return arena_printf(x->a, "({ %sctap_hist_print(ctap_out(c), &spec_%s, _g); %s0; })",
					    nonempty(x, stat_agg(x, h->args)), stat_name(h->args),
					    name[5] ? "ctap_out_write(&c->out, \"\\n\", 1); " : "");
		}
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
	args_code = print_args(x, args, &n);
	if (to_string)
		return arena_printf(x->a, "({ %sctap_sprintf(%s, %s, _a, %d); })", args_code,
				    str_temp(x), gen_c_string(x, fmt), n);
	return arena_printf(x->a, "({ %sctap_printf(c, %s, _a, %d); 0; })", args_code,
			    gen_c_string(x, fmt), n);
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
 * Arguments are evaluated into C locals first (a call among them uses
 * the same frame slot), then copied into the callee's frame.
 */
static const char *call(struct xlate *x, const struct expr *e)
{
	const struct sem_function *f = sem_function_of(x->s, e);
	const char *where;
	char *code = "", *copy = "";
	const struct var *p;
	const struct expr *a;
	int i = 0;

	if (!f) {
		gen_error(x, &e->loc, "unresolved function '%s'", e->name);
		return "0";
	}
	/* SystemTap checks the depth in the callee: the message names it. */
	where = gen_where(x, &f->fn->loc, arena_printf(x->a, "identifier '%s'", e->name));
	for (a = e->args, p = f->locals; a && p; a = a->next, p = p->next, i++) {
		if (p->type == T_STRING) {
			code = arena_printf(x->a, "%sconst char *_a%d = %s; ", code, i, expr_c(x, a));
			copy = arena_printf(x->a, "%sctap_strcpy(_f->v_%s, _a%d); ", copy, p->name, i);
		} else {
			code = arena_printf(x->a, "%sint64_t _a%d = %s; ", code, i, expr_c(x, a));
			copy = arena_printf(x->a, "%s_f->v_%s = _a%d; ", copy, p->name, i);
		}
	}
	code = arena_printf(x->a,
		"({ %sstruct f_%s_locals *_f; "
		"if (unlikely(c->nesting >= MAXNESTING)) { ctap_error(c, \"MAXNESTING exceeded\", %s); %s; } "
		"_f = &((struct context *)c)->frames[c->nesting + 1].f_%s; %s"
		"c->nesting++; f_%s(c); c->nesting--; "
		"if (unlikely(c->last_error)) %s; ",
		code, f->cname, where, goto_err(x), f->cname, copy, f->cname, goto_err(x));
	if (f->ret == T_STRING)
		return arena_printf(x->a, "%sctap_strcpy(%s, _f->__retvalue); })", code, str_temp(x));
	if (f->ret == T_LONG)
		return arena_printf(x->a, "%s_f->__retvalue; })", code);
	return arena_printf(x->a, "%s0; })", code);
}

/* ---- assignments ---- */

/* The C operator of a compound assignment: "+=" -> "+". */
static const char *arith_of(const char *op)
{
	static char buf[4];

	snprintf(buf, sizeof(buf), "%.*s", (int)strlen(op) - 1, op);
	return buf;
}

static const char *binop_long(struct xlate *x, const char *op, const char *a, const char *b,
			      const struct loc *loc);

static const char *assign_element(struct xlate *x, const struct expr *e)
{
	const struct expr *target = e->a;
	struct var *arr = array_of(x, target->a);
	const char *val, *s;

	if (!arr)
		return "0";
	if (!strcmp(e->op, "<<<")) {
		val = expr_c(x, e->b);
		return arena_printf(x->a, "({ int64_t _v = %s; %sctap_stat_add(&spec_%s, ctap_map_stat(G.g_%s, _e), _v); 0; })",
				    val, slot(x, target, arr), arr->name, arr->name);
	}
	if (arr->type == T_STRING) {
		val = expr_c(x, e->b);
		s = slot(x, target, arr);
		if (!strcmp(e->op, ".="))
			return arena_printf(x->a, "({ const char *_v = %s; %sstrlcat(ctap_map_string(G.g_%s, _e), _v, MAXSTRINGLEN); ctap_map_string(G.g_%s, _e); })",
					    val, s, arr->name, arr->name);
		return arena_printf(x->a, "({ const char *_v = %s; %sctap_strcpy(ctap_map_string(G.g_%s, _e), _v); })",
				    val, s, arr->name);
	}
	val = expr_c(x, e->b);
	s = slot(x, target, arr);
	if (!strcmp(e->op, "="))
		return arena_printf(x->a, "({ int64_t _v = %s; %s*ctap_map_long(G.g_%s, _e) = _v; })",
				    val, s, arr->name);
	return arena_printf(x->a, "({ int64_t _v = %s; %sint64_t *_p = ctap_map_long(G.g_%s, _e); *_p = %s; })",
			    val, s, arr->name, binop_long(x, arith_of(e->op), "*_p", "_v", &e->loc));
}

static const char *assignment(struct xlate *x, const struct expr *e)
{
	const struct expr *target = e->a;
	const char *lv, *val;
	struct var *v;

	if (target->kind == E_INDEX)
		return assign_element(x, e);
	if (target->kind != E_SYMBOL) {
		gen_error(x, &e->loc, "assigning to %s is not supported yet", expr_text(x->a, target));
		return "0";
	}
	v = lookup(x, target->name, &lv);
	if (!v)
		return "0";
	if (!strcmp(e->op, "<<<"))
		return arena_printf(x->a, "({ ctap_pstat_add(&spec_%s, &G.g_%s, %s); 0; })",
				    v->name, v->name, expr_c(x, e->b));
	val = expr_c(x, e->b);
	if (v->type == T_STRING) {
		if (!strcmp(e->op, ".="))
			return arena_printf(x->a, "ctap_strcat(%s, %s, %s)", lv, lv, val);
		return arena_printf(x->a, "({ const char *_v = %s; ctap_strcpy(%s, _v); })", val, lv);
	}
	if (!strcmp(e->op, "="))
		return arena_printf(x->a, "(%s = %s)", lv, val);
	return arena_printf(x->a, "({ int64_t _v = %s; %s = %s; })", val, lv,
			    binop_long(x, arith_of(e->op), lv, "_v", &e->loc));
}

/* ++x, x--, ... on a variable or an array element. */
static const char *incdec(struct xlate *x, const struct expr *e, bool postfix)
{
	const struct expr *target = e->a;
	const char *lv;

	if (target->kind == E_INDEX) {
		struct var *arr = array_of(x, target->a);

		if (!arr)
			return "0";
		return arena_printf(x->a, "({ %sint64_t *_p = ctap_map_long(G.g_%s, _e); %s%s; })",
				    slot(x, target, arr), arr->name, postfix ? "(*_p)" : e->op,
				    postfix ? e->op : "(*_p)");
	}
	if (target->kind != E_SYMBOL || !lookup(x, target->name, &lv)) {
		gen_error(x, &e->loc, "'%s' needs a variable", e->op);
		return "0";
	}
	return postfix ? arena_printf(x->a, "(%s%s)", lv, e->op) :
		arena_printf(x->a, "(%s%s)", e->op, lv);
}

/* ---- operators ---- */

static const char *binop_long(struct xlate *x, const char *op, const char *a, const char *b,
			      const struct loc *loc)
{
	if (!strcmp(op, "/") || !strcmp(op, "%"))
		/* x / 0 is a soft error; INT64_MIN / -1 would trap. */
		return arena_printf(x->a, "({ int64_t _l = %s, _r = %s; if (unlikely(!_r)) { "
				    "ctap_error(c, \"division by 0\", %s); %s; } "
				    "_r == -1 ? %s : _l %s _r; })", a, b,
				    gen_where(x, loc, arena_printf(x->a, "operator '%s'", op)),
				    goto_err(x), op[0] == '/' ? "(int64_t)(0 - (uint64_t)_l)" : "0", op);
	if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		return arena_printf(x->a, "(%s %s (%s & 63))", a, op, b);
	if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*"))
		/* Wrapping, as SystemTap's longs do. */
		return arena_printf(x->a, "(int64_t)((uint64_t)(%s) %s (uint64_t)(%s))", a, op, b);
	return arena_printf(x->a, "(int64_t)(%s %s %s)", a, op, b);
}

static const char *binary(struct xlate *x, const struct expr *e)
{
	const char *a = expr_c(x, e->a), *b;

	if (!strcmp(e->op, "."))
		return arena_printf(x->a, "({ const char *_s = %s; ctap_strcat(%s, _s, %s); })", a,
				    str_temp(x), expr_c(x, e->b));
	if (!strcmp(e->op, "=~") || !strcmp(e->op, "!~"))
		return arena_printf(x->a, "(%sctap_regex_match(%s, %s))", e->op[0] == '!' ? "!" : "",
				    a, gen_c_string(x, e->b->str));
	b = expr_c(x, e->b);
	if (!strcmp(e->op, "&&") || !strcmp(e->op, "||"))
		return arena_printf(x->a, "(int64_t)(%s %s %s)", a, e->op, b);
	if (is_string(e->a) && strchr("<>=!", e->op[0]))
		return arena_printf(x->a, "(int64_t)(strcmp(%s, %s) %s 0)", a, b, e->op);
	return binop_long(x, e->op, a, b, &e->loc);
}

static const char *unary(struct xlate *x, const struct expr *e)
{
	const char *a;

	if (!strcmp(e->op, "++") || !strcmp(e->op, "--"))
		return incdec(x, e, false);
	a = expr_c(x, e->a);
	if (!strcmp(e->op, "-"))
		return arena_printf(x->a, "(int64_t)(0 - (uint64_t)(%s))", a);
	if (!strcmp(e->op, "!"))
		return arena_printf(x->a, "(int64_t)!(%s)", a);
	if (!strcmp(e->op, "~"))
		return arena_printf(x->a, "(~(%s))", a);
	return arena_printf(x->a, "(%s)", a);
}

static const char *number(struct xlate *x, int64_t n)
{
	if (n == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	return arena_printf(x->a, "%lldLL", (long long)n);
}

static const char *index_read(struct xlate *x, const struct expr *e)
{
	struct var *arr;
	const char *key, *fill;
	unsigned mask;

	if (e->a->kind == E_HIST) {
		const struct expr *h = e->a;

		/* @hist_linear(s, 0, 100, 10)[i]: bucket i's count, as SystemTap
		 * numbers them (0 underflow, then the data, last overflow). */
		return arena_printf(x->a, "({ %sint64_t _b = %s; if (unlikely(_b < 0 || _b >= spec_%s.buckets)) "
				    "{ c->last_error = \"histogram index out of range\"; %s; } _g->hist[_b]; })",
				    nonempty(x, stat_agg(x, h->args)), expr_c(x, e->args),
				    stat_name(h->args), goto_err(x));
	}
	arr = array_of(x, e->a);
	if (!arr)
		return "0";
	fill = key_fill(x, arr, e->args, &key, &mask);
	return arena_printf(x->a, "({ %sctap_map_get_%s(G.g_%s, &%s); })", fill,
			    arr->type == T_STRING ? "string" : "long", arr->name, key);
}

static const char *in_test(struct xlate *x, const struct expr *e)
{
	struct var *arr = array_of(x, e->a);
	const char *key, *fill;
	unsigned mask;
	int nkeys = 0;

	if (!arr)
		return "0";
	for (const struct expr *k = e->args; k; k = k->next)
		nkeys++;
	fill = key_fill(x, arr, e->args, &key, &mask);
	if (mask == (1u << nkeys) - 1)
		return arena_printf(x->a, "({ %s(int64_t)(ctap_map_find(G.g_%s, &%s, false) >= 0); })",
				    fill, arr->name, key);
	return arena_printf(x->a, "({ %s(int64_t)ctap_map_exists(G.g_%s, &%s, %#x); })", fill,
			    arr->name, key, mask);
}

const char *gen_expr(struct xlate *x, const struct expr *e)
{
	return expr_c(x, e);
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
			return "0";
		}
		return c;
	case E_INDEX:
		return index_read(x, e);
	case E_CALL:
		return is_print_builtin(e->name) ? print_call(x, e) : call(x, e);
	case E_UNARY:
		return unary(x, e);
	case E_POSTFIX:
		return incdec(x, e, true);
	case E_BINARY:
		return binary(x, e);
	case E_ASSIGN:
		return assignment(x, e);
	case E_TERNARY:
		return arena_printf(x->a, "(%s ? %s : %s)", expr_c(x, e->a), expr_c(x, e->b),
				    expr_c(x, e->c));
	case E_IN:
		return in_test(x, e);
	case E_STAT:
		return stat_value(x, e);
	case E_DEFINED:
		return e->a->vtype != T_UNKNOWN ? "1LL" : "0LL";
	case E_TARGET:
	case E_CAST:
		return gen_target(x, e);
	case E_EMBEDDED:
		return arena_printf(x->a, "((int64_t)(%s))", e->str);
	default:
		gen_error(x, &e->loc, "%s is not supported by pass 3 yet", expr_text(x->a, e));
		return "0";
	}
}

/* ---- statements ---- */

static void line(struct xlate *x, int depth, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void line(struct xlate *x, int depth, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < depth; i++)
		fputc('\t', x->code);
	va_start(ap, fmt);
	vfprintf(x->code, fmt, ap);
	va_end(ap);
	fputc('\n', x->code);
}

/* A statement begins: it is the one errors are "near", and it costs an action. */
static void actions(struct xlate *x, int depth, int n, const struct loc *loc, const char *what)
{
	line(x, depth, "c->last_stmt = %s;", gen_where(x, loc, what));
	line(x, depth, "CTAP_ACTIONS(c, %d, %s);", n, x->err);
}

/* Side-effect free: no calls, assignments, ++ or -- (a division may still
 * fail, but SystemTap elides it all the same). */
static bool pure(const struct expr *e)
{
	if (!e)
		return true;
	if (e->kind == E_CALL || e->kind == E_ASSIGN || e->kind == E_EMBEDDED ||
	    e->kind == E_AT_CALL ||
	    ((e->kind == E_UNARY || e->kind == E_POSTFIX) &&
	     (!strcmp(e->op, "++") || !strcmp(e->op, "--"))))
		return false;
	for (const struct expr *a = e->args; a; a = a->next)
		if (!pure(a))
			return false;
	return pure(e->a) && pure(e->b) && pure(e->c);
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
	return pure(e->b) ? NULL : e->b;
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

static void delete_stmt(struct xlate *x, const struct stmt *s, int depth)
{
	const struct expr *e = s->e;
	const char *lv;

	if (e->kind == E_INDEX) {
		struct var *arr = array_of(x, e->a);
		const char *key, *fill;
		unsigned mask;
		int nkeys = 0;

		if (!arr)
			return;
		for (const struct expr *k = e->args; k; k = k->next)
			nkeys++;
		fill = key_fill(x, arr, e->args, &key, &mask);
		if (mask == (1u << nkeys) - 1)
			line(x, depth, "{ %sctap_map_delete(G.g_%s, &%s); }", fill, arr->name, key);
		else
			line(x, depth, "{ %sctap_map_delete_matching(G.g_%s, &%s, %#x); }", fill,
			     arr->name, key, mask);
		return;
	}
	struct var *v = lookup(x, e->name, &lv);

	if (!v)
		return;
	if (v->nkeys)
		line(x, depth, "ctap_map_clear(G.g_%s);", v->name);
	else if (v->type == T_STATS)
		line(x, depth, "ctap_pstat_clear(&G.g_%s);", v->name);
	else if (v->type == T_STRING)
		line(x, depth, "%s[0] = '\\0';", lv);
	else
		line(x, depth, "%s = 0;", lv);
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

static void assign_from_entry(struct xlate *x, int depth, const struct expr *target,
			      const char *value, bool string)
{
	const char *lv;

	if (!lookup(x, target->name, &lv))
		return;
	if (string)
		line(x, depth, "ctap_strcpy(%s, %s);", lv, value);
	else
		line(x, depth, "%s = %s;", lv, value);
}

/*
 * foreach ([v =] b in @hist_log(s) [limit n]): every bucket index in
 * order, empty ones too, and v its count; SystemTap ignores a sort there.
 */
static void foreach_bucket(struct xlate *x, const struct stmt *s, int depth)
{
	const struct foreach_info *fe = s->fe;
	const struct expr *operand = fe->array->args;
	int n = x->labels++;

	line(x, depth, "{ /* foreach bucket, %s:%d */", s->loc.src->name, s->loc.line);
	line(x, depth + 1, "struct ctap_stat *_h%d __maybe_unused = %s;", n, stat_agg(x, operand));
	line(x, depth + 1, "int64_t _lim%d = %s;", n, fe->limit ? expr_c(x, fe->limit) : "-1");
	line(x, depth + 1, "for (int _b%d = 0; _b%d < spec_%s.buckets; _b%d++) {", n, n,
	     stat_name(operand), n);
	line(x, depth + 2, "if (_lim%d >= 0 && _lim%d-- == 0) break;", n, n);
	assign_from_entry(x, depth + 2, fe->keys, arena_printf(x->a, "_b%d", n), false);
	if (fe->value)
		assign_from_entry(x, depth + 2, fe->value, arena_printf(x->a, "_h%d->hist[_b%d]", n, n),
				  false);
	line(x, depth + 2, "CTAP_ACTIONS(c, 1, %s);", x->err);
	gen_stmt(x, s->body, depth + 2);
	line(x, depth + 1, "}");
	line(x, depth, "}");
}

static void foreach_stmt(struct xlate *x, const struct stmt *s, int depth)
{
	const struct foreach_info *fe = s->fe;
	struct var *arr;
	const char *idx, *key = NULL, *fill = "";
	unsigned mask = 0;
	int n = x->labels++, i = 0;

	if (fe->array->kind == E_HIST) {
		foreach_bucket(x, s, depth);
		return;
	}
	arr = array_of(x, fe->array);
	if (!arr)
		return;
	idx = temp(x, arena_printf(x->a, "int %%s[2 * %s]",
				   arr->global && arr->global->size ?
				   arena_printf(x->a, "%lld", (long long)arr->global->size) :
				   "MAXMAPENTRIES"));
	if (fe->pattern)
		fill = key_fill(x, arr, fe->pattern, &key, &mask);
	line(x, depth, "{ /* foreach, %s:%d */", s->loc.src->name, s->loc.line);
	line(x, depth + 1, "struct ctap_map_sort _s%d = { %d, %d, '%c' };", n,
	     fe->sort_column == -1 ? 0 : fe->sort_column, fe->sort_column ? fe->sort_dir : 0,
	     sort_agg(fe->sort_agg));
	line(x, depth + 1, "int _n%d = ctap_map_sorted(G.g_%s, &_s%d, %s, %s + (sizeof(%s) / sizeof(int) / 2), -1);",
	     n, arr->name, n, idx, idx, idx);
	line(x, depth + 1, "int64_t _lim%d = %s;", n, fe->limit ? expr_c(x, fe->limit) : "-1");
	if (*fill)
		line(x, depth + 1, "%s", fill);
	line(x, depth + 1, "for (int _i%d = 0; _i%d < _n%d; _i%d++) {", n, n, n, n);
	line(x, depth + 2, "int _e = %s[_i%d];", idx, n);
	if (key)
		line(x, depth + 2, "if (!ctap_map_matches(G.g_%s, _e, &%s, %#x)) continue;", arr->name,
		     key, mask);
	line(x, depth + 2, "if (_lim%d >= 0 && _lim%d-- == 0) break;", n, n);
	for (const struct expr *k = fe->keys; k; k = k->next, i++)
		assign_from_entry(x, depth + 2, k,
				  arena_printf(x->a, "ctap_map_key_%s(G.g_%s, _e, %d)",
					       arr->keys[i] == T_STRING ? "string" : "long", arr->name, i),
				  arr->keys[i] == T_STRING);
	if (fe->value)
		assign_from_entry(x, depth + 2, fe->value,
				  arena_printf(x->a, arr->type == T_STRING ? "ctap_map_string(G.g_%s, _e)" :
					       "*ctap_map_long(G.g_%s, _e)", arr->name),
				  arr->type == T_STRING);
	line(x, depth + 2, "CTAP_ACTIONS(c, 1, %s);", x->err);
	gen_stmt(x, s->body, depth + 2);
	line(x, depth + 1, "}");
	line(x, depth, "}");
}

static void try_stmt(struct xlate *x, const struct stmt *s, int depth)
{
	const char *outer = x->err, *label = arena_printf(x->a, "catch_%d", x->labels++);
	const char *lv;

	line(x, depth, "{ /* try, %s:%d */", s->loc.src->name, s->loc.line);
	x->err = label;
	gen_stmt(x, s->body, depth + 1);
	x->err = outer;
	line(x, depth + 1, "goto %s_end;", label);
	line(x, depth, "%s:", label);
	if (s->catch_var && lookup(x, s->catch_var, &lv))
		line(x, depth + 1, "ctap_strcpy(%s, c->last_error);", lv);
	line(x, depth + 1, "c->last_error = NULL;");
	line(x, depth + 1, "c->last_stmt = NULL;");
	if (s->els)
		gen_stmt(x, s->els, depth + 1);
	line(x, depth, "%s_end: ;", label);
	line(x, depth, "}");
}

void gen_stmt(struct xlate *x, const struct stmt *s, int depth)
{
	switch (s->kind) {
	case S_NULL:
		break;
	case S_EXPR: {
		const struct expr *e = elide(x, s->e);

		actions(x, depth, 1, &s->loc, stmt_token(x, s));
		if (e)
			line(x, depth, "(void)%s;", expr_c(x, e));
		break;
	}
	case S_BLOCK:
		for (const struct stmt *c = s->body; c; c = c->next)
			gen_stmt(x, c, depth);
		break;
	case S_IF:
		actions(x, depth, 1, &s->loc, "keyword 'if'");
		line(x, depth, "if (%s) {", expr_c(x, s->e));
		gen_stmt(x, s->body, depth + 1);
		if (s->els) {
			line(x, depth, "} else {");
			gen_stmt(x, s->els, depth + 1);
		}
		line(x, depth, "}");
		break;
	case S_WHILE:
	case S_FOR:
		if (s->init)
			line(x, depth, "(void)%s;", expr_c(x, s->init));
		/* C's for: continue runs the increment. */
		line(x, depth, "for (;; %s) {", s->incr ? arena_printf(x->a, "(void)%s", expr_c(x, s->incr)) : "");
		line(x, depth + 1, "CTAP_ACTIONS(c, 1, %s);", x->err);
		if (s->e)
			line(x, depth + 1, "if (!(%s)) break;", expr_c(x, s->e));
		gen_stmt(x, s->body, depth + 1);
		line(x, depth, "}");
		break;
	case S_FOREACH:
		foreach_stmt(x, s, depth);
		break;
	case S_BREAK:
	case S_CONTINUE:
		line(x, depth, "%s;", s->kind == S_BREAK ? "break" : "continue");
		break;
	case S_NEXT:
		if (x->sc->fn)
			gen_error(x, &s->loc, "'next' in a function (overloads) is not supported yet");
		line(x, depth, "goto out;");
		break;
	case S_RETURN:
		if (s->e && x->sc->fn && x->sc->fn->ret == T_STRING)
			line(x, depth, "ctap_strcpy(l->__retvalue, %s);", expr_c(x, s->e));
		else if (s->e)
			line(x, depth, "l->__retvalue = %s;", expr_c(x, s->e));
		line(x, depth, "goto out;");
		break;
	case S_DELETE:
		actions(x, depth, 1, &s->loc, "keyword 'delete'");
		delete_stmt(x, s, depth);
		break;
	case S_TRY:
		try_stmt(x, s, depth);
		break;
	case S_EMBEDDED:
		line(x, depth, "{\n%s\n}", s->code);
		break;
	}
}
