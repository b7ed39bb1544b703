// SPDX-License-Identifier: GPL-2.0
/*
 * gen_stmt.c - pass 3: statements to C (gen.c writes their expressions).
 *
 * Each statement first names itself for errors ("near identifier 'x' at
 * f.stp:3:5") and costs an action, unless it cannot fail in a handler
 * that cannot run out of actions; loops and foreach check the budget per
 * iteration; try/catch jumps to a label of its own; --json brackets each
 * statement that calls something (docs/json.md).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"
#include "tvar.h"

/* ---- statements ---- */

/* A statement begins: it is the one errors are "near", and it costs an action. */
static void gen_actions(struct xlate *x, const struct loc *loc, const char *what)
{
	gen_emit(x, "c->last_stmt = %s;", gen_where(x, loc, what));
	gen_emit(x, "CTAP_ACTIONS(c, 1, %s);", gen_err_label(x));
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
		v = gen_lookup(x, e->name, &c);
		return v && v->type == T_LONG && !v->nkeys;
	case E_UNARY:
	case E_POSTFIX:
		return cannot_fail(x, e->a);
	case E_BINARY:
		return e->vtype == T_LONG && e->opid != OP_DIV && e->opid != OP_MOD &&
			cannot_fail(x, e->a) && cannot_fail(x, e->b);
	case E_ASSIGN:
		return e->a->kind == E_SYMBOL && e->opid != OP_ASSIGN_DIV && e->opid != OP_ASSIGN_MOD &&
			e->opid != OP_AGG && e->opid != OP_ASSIGN_CONCAT && cannot_fail(x, e->a) &&
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
	gen_actions(x, &s->loc, what);
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
	return session_define(s, "MAXACTION", CTAP_MAXACTION_DEFAULT);
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

	if (x->s->opt.unoptimized || e->kind != E_ASSIGN || e->a->kind != E_SYMBOL)
		return e;
	v = sem_find_var(x->sc->locals, e->a->name);
	if (!v || v->read || v->kind == V_PARAM || e->opid == OP_AGG)
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
		struct var *arr = gen_array_of(x, e->a);
		const char *key;
		unsigned mask;
		int nkeys = 0;

		if (!arr)
			return;
		for (const struct expr *k = e->args; k; k = k->next)
			nkeys++;
		key = gen_key_fill(x, arr, e->args, &mask);
		if (mask == (1u << nkeys) - 1)
			gen_emit(x, "ctap_map_delete(G.g_%s, &%s);", arr->name, key);
		else
			gen_emit(x, "ctap_map_delete_matching(G.g_%s, &%s, %#x);", arr->name, key, mask);
		return;
	}
	v = gen_lookup(x, e->name, &lv);
	if (!v)
		return;
	if (v->nkeys)
		gen_emit(x, "ctap_map_clear(G.g_%s);", v->name);
	else if (v->type == T_STATS)
		gen_emit(x, "ctap_pstat_clear(&G.g_%s);", v->name);
	else if (v->type == T_STRING)
		gen_emit(x, "%s[0] = '\\0';", lv);
	else if (gen_counter_of(x, e))
		gen_emit(x, "ctap_counter_set(&G.g_%s, 0);", v->name);
	else
		gen_emit(x, "%s = 0;", lv);
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

	if (!gen_lookup(x, target->name, &lv))
		return;
	if (string)
		gen_emit(x, "ctap_strcpy(%s, %s);", lv, value);
	else
		gen_emit(x, "%s = %s;", lv, value);
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
	gen_emit(x, "CTAP_ACTIONS(c, 1, %s);", gen_err_label(x));
	loop_body(x, s->body, NULL);
	x->depth--;
	gen_emit(x, "}");
	x->depth--;
	gen_emit(x, "}");
}

/*
 * foreach ([v =] b in @hist_log(s) [limit n]): every bucket index in
 * order, empty ones too, and v its count; SystemTap ignores a sort there.
 */
static void foreach_bucket(struct xlate *x, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	const struct expr *operand = fe->array->args;
	const char *h, *lim = fe->limit ? gen_expr_c(x, fe->limit) : "-1";
	int n = x->labels++;

	gen_emit(x, "{ /* foreach bucket, %s:%d */", gen_c_comment(x->a, s->loc.src->name), s->loc.line);
	x->depth++;
	h = gen_stat_agg(x, operand);
	gen_emit(x, "int64_t lim%d = %s;", n, lim);
	gen_blank(x);
	gen_emit(x, "for (int b%d = 0; b%d < spec_%s.buckets; b%d++) {", n, n, gen_stat_name(operand), n);
	x->depth++;
	gen_emit(x, "if (lim%d >= 0 && lim%d-- == 0)", n, n);
	gen_emit(x, "\tbreak;");
	assign_from_entry(x, fe->keys, arena_printf(x->a, "b%d", n), false);
	if (fe->value)
		assign_from_entry(x, fe->value, arena_printf(x->a, "%s->hist[b%d]", h, n), false);
	foreach_body(x, s);
}

/* The keys and value of entry e of arr into foreach's variables. */
static void foreach_assign(struct xlate *x, const struct foreach_info *fe, const struct var *arr,
			   int n)
{
	int i = 0;

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
}

/*
 * foreach over an array: a walk of the map in place, sorted by relinking
 * its entries (the map's write lock is held: analyses.c); or, when a
 * foreach inside sorts the same array again (fe->snapshot), over a copy
 * of the order in the handler's locals (2 ints an entry, in every CPU's
 * context).  A sort in an event probe, interrupts off, costs actions
 * (ctap_sort_actions()).
 */
static void foreach_stmt(struct xlate *x, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	struct var *arr;
	const char *idx = NULL, *key = NULL, *lim;
	unsigned mask = 0;
	int n;

	if (fe->array->kind == E_HIST) {
		foreach_bucket(x, s);
		return;
	}
	arr = gen_array_of(x, fe->array);
	if (!arr)
		return;
	n = x->labels++;
	if (fe->snapshot)
		idx = gen_temp(x, arena_printf(x->a, "int %%s[2 * %s]",
					       arr->global && arr->global->size ?
					       arena_printf(x->a, "%lld", (long long)arr->global->size) :
					       "MAXMAPENTRIES"), "order");
	lim = fe->limit ? gen_expr_c(x, fe->limit) : "-1";
	if (fe->pattern)
		key = gen_key_fill(x, arr, fe->pattern, &mask);
	gen_emit(x, "{ /* foreach, %s:%d */", gen_c_comment(x->a, s->loc.src->name), s->loc.line);
	x->depth++;
	gen_emit(x, "struct ctap_map_sort sort%d = { .column = %d, .dir = %d, .agg = '%c' };", n,
	     fe->sort_column == -1 ? 0 : fe->sort_column, fe->sort_column ? fe->sort_dir : 0,
	     sort_agg(fe->sort_agg));
	gen_emit(x, "int64_t lim%d = %s;", n, lim);
	if (idx)
		gen_emit(x, "int n%d;", n);
	gen_blank(x);
	if (fe->sort_column) {
		gen_emit(x, "c->last_stmt = %s;", gen_where(x, &s->loc, "keyword 'foreach'"));
		gen_emit(x, "CTAP_ACTIONS(c, ctap_sort_actions(c, G.g_%s), %s);", arr->name,
			 gen_err_label(x));
	}
	if (idx) {
		gen_emit(x, "n%d = ctap_map_sorted(G.g_%s, &sort%d, %s,", n, arr->name, n, idx);
		gen_emit(x, "\t\t%s + ARRAY_SIZE(%s) / 2, -1);", idx, idx);
		gen_emit(x, "for (int i%d = 0; i%d < n%d; i%d++) {", n, n, n, n);
		x->depth++;
		gen_emit(x, "int e%d = %s[i%d];", n, idx, n);
		gen_blank(x);
	} else {
		gen_emit(x, "for (int e%d = ctap_map_walk_first(G.g_%s, &sort%d); e%d >= 0;",
			 n, arr->name, n, n);
		gen_emit(x, "     e%d = ctap_map_walk_next(G.g_%s, &sort%d, e%d)) {", n, arr->name, n, n);
		x->depth++;
	}
	if (key) {
		gen_emit(x, "if (!ctap_map_matches(G.g_%s, e%d, &%s, %#x))", arr->name, n, key, mask);
		gen_emit(x, "\tcontinue;");
	}
	gen_emit(x, "if (lim%d >= 0 && lim%d-- == 0)", n, n);
	gen_emit(x, "\tbreak;");
	foreach_assign(x, fe, arr, n);
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
		gen_effect(x, s->init);
	if (s->incr) {
		/* One statement fits C's for (;; incr); more run at a label. */
		size_t len;

		gen_aside(x, s->incr, x->depth + 1, &incr_stmts, false);
		len = strlen(incr_stmts);
		if (len > 2 && !strchr(incr_stmts, '\n')[1] && incr_stmts[len - 2] == ';' &&
		    !strchr(incr_stmts, '{')) {
			const char *text = incr_stmts + strspn(incr_stmts, "\t");

			incr = arena_printf(x->a, "%.*s", (int)strlen(text) - 2, text);
		} else if (len) {
			cont = arena_printf(x->a, "next_%d", x->labels++);
		}
	}
	gen_emit(x, "for (;; %s) {", incr ? incr : "");
	x->depth++;
	gen_emit(x, "CTAP_ACTIONS(c, 1, %s);", gen_err_label(x));
	if (s->e) {
		const char *cond = gen_expr_c(x, s->e);

		gen_emit(x, "if (!(%s))", cond);
		gen_emit(x, "\tbreak;");
	}
	loop_body(x, s->body, cont);
	x->depth--;
	if (cont) {
		/* unused when the body has no continue */
		gen_emit(x, "%s: __attribute__((unused));", cont);
		fputs(incr_stmts, x->code);
	}
	free(incr_stmts);
	gen_emit(x, "}");
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
	gen_emit(x, "{ /* %s */", comment);
	x->depth++;
	x->err = k->label;
	if (x->s->opt.json)	/* how deep in printing statements the try starts */
		gen_emit(x, "const int %s_json = c->json_depth;", k->label);
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
		gen_emit(x, "}");
		return false;
	}
	gen_emit(x, "goto %s_end;", k->label);
	x->depth--;
	gen_emit(x, "%s:", k->label);
	x->depth++;
	/* abort() goes on past every catch */
	gen_emit(x, "if (unlikely(c->last_error == ctap_abort_error))");
	gen_emit(x, "\tgoto %s;", gen_err_label(x));
	if (error_to)
		gen_emit(x, "ctap_strcpy(%s, c->last_error);", error_to);
	gen_emit(x, "c->last_error = NULL;");
	gen_emit(x, "c->last_stmt = NULL;");
	gen_emit(x, "c->ncalled = 0;");
	if (x->s->opt.json)
		gen_emit(x, "ctap_json_unwind(c, %s_json);", k->label);
	return true;
}

static void catch_end(struct xlate *x, const struct xcatch *k)
{
	x->depth--;
	gen_emit(x, "%s_end:", k->label);
	gen_emit(x, "\t;");
	gen_emit(x, "}");
}

const char *gen_caught(struct xlate *x, const struct expr *e, const char *on_error)
{
	const char *t = gen_str_temp(x, "caught"), *fallback = gen_c_string(x, on_error);
	struct xcatch k;

	catch_begin(x, &k, arena_printf(x->a, "%s:%d: a fault here reads %s", e->loc.src->name,
					e->loc.line, fallback));
	gen_emit(x, "ctap_strcpy(%s, %s);", t, gen_expr(x, e));
	if (catch_handler(x, &k, NULL)) {
		gen_emit(x, "ctap_strcpy(%s, %s);", t, fallback);
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
	if (s->catch_var && !gen_lookup(x, s->catch_var, &lv))
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
		bool json = x->s->opt.json && calls_something(e);

		if (!e)
			break;	/* gone, as SystemTap's: no action, no statement */
		statement_actions(x, s, e, stmt_token(x, s));
		if (json)	/* what it prints is one JSON line */
			gen_emit(x, "ctap_json_begin(c);");
		gen_effect(x, e);
		if (json)
			gen_emit(x, "ctap_json_end(c);");
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
		gen_emit(x, "if (%s) {", gen_expr_c(x, s->e));
		gen_stmt(x, s->body, depth + 1);
		if (s->els) {
			gen_emit(x, "} else {");
			gen_stmt(x, s->els, depth + 1);
		}
		gen_emit(x, "}");
		break;
	case S_WHILE:
	case S_FOR:
		loop_stmt(x, s);
		break;
	case S_FOREACH:
		foreach_stmt(x, s);
		break;
	case S_BREAK:
		gen_emit(x, "break;");
		break;
	case S_CONTINUE:
		if (x->cont)
			gen_emit(x, "goto %s;", x->cont);
		else
			gen_emit(x, "continue;");
		break;
	case S_NEXT:
		if (x->sc->fn)
			gen_error(x, &s->loc, "'next' in a function (overloads) is not supported yet");
		x->sc->uses_out = true;
		gen_emit(x, "goto out;");
		break;
	case S_RETURN:
		if (s->e) {
			const char *v = gen_expr_c(x, s->e);

			if (x->sc->fn && x->sc->fn->ret == T_STRING)
				gen_emit(x, "ctap_strcpy(l->__retvalue, %s);", v);
			else
				gen_emit(x, "l->__retvalue = %s;", v);
		}
		x->sc->uses_out = true;
		gen_emit(x, "goto out;");
		break;
	case S_DELETE:
		gen_actions(x, &s->loc, "keyword 'delete'");
		delete_stmt(x, s);
		break;
	case S_TRY:
		try_stmt(x, s);
		break;
	case S_EMBEDDED:
		gen_emit(x, "{\n%s\n}", s->code);
		break;
	}
	x->depth = saved;
}
