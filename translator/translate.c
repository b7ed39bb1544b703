/*
 * translate.c - pass 3: the module's C file.
 *
 * Layout of the file, top to bottom (each section is one function here):
 *   -D defines, the runtime header, embedded C of the script and tapsets
 *   globals: struct G, one rwlock each, statistics and map specs,
 *            module parameters for the script's scalars
 *   the locals struct of every handler and function, then struct context
 *   script functions, then probe handlers (one per user probe)
 *   struct ctap_probe for every concrete probe, with its lock table
 *   each probe family's tables (the providers' emit callbacks)
 *   the module: session probes in order, families, globals init/free
 * Bodies are generated first (gen.c), since their temporaries belong in
 * the locals structs that come before them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "xlate.h"

/* ---- module name ---- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

const char *xlate_module_name(struct session *s)
{
	uint64_t h = 14695981039346656037ull;

	if (s->module_name)
		return s->module_name;
	h = fnv1a(h, s->user->src->text, s->user->src->len);
	for (int i = 0; i < s->n_defines; i++)
		h = fnv1a(h, s->defines[i], strlen(s->defines[i]) + 1);
	return arena_printf(&s->arena, "stap_%016llx", (unsigned long long)h);
}

/* ---- services for providers ---- */

void emit_c(struct xlate *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(x->families, fmt, ap);
	va_end(ap);
}

const char *emit_probe_ref(struct xlate *x, const struct derived_probe *d)
{
	return arena_printf(x->a, "&ctap_probes[%d]", d->index);
}

bool emit_entry_args(struct xlate *x, const struct derived_probe *d)
{
	return x->probes[d->index].entry_args;
}

void emit_session_probe(struct xlate *x, const struct derived_probe *d, const char *kind)
{
	x->probes[d->index].kind = kind;
}

void emit_family(struct xlate *x, const char *start_fn, const char *stop_fn)
{
	fprintf(x->family_list_f, "\t{ %s, %s },\n", start_fn, stop_fn);
}

void emit_table_family(struct xlate *x, const char *table, const char *start_fn,
		       const char *stop_fn)
{
	emit_c(x, "};\n\nstatic int %s_start(void)\n{\n\treturn %s(%s, ARRAY_SIZE(%s));\n}\n\n"
	       "static void %s_stop(void)\n{\n\t%s(%s, ARRAY_SIZE(%s));\n}\n\n",
	       table, start_fn, table, table, table, stop_fn, table, table);
	emit_family(x, arena_printf(x->a, "%s_start", table), arena_printf(x->a, "%s_stop", table));
}

/* ---- variables ---- */

static const char *c_type_decl(enum vtype t, const char *name)
{
	static char buf[256];

	if (t == T_STRING)
		snprintf(buf, sizeof(buf), "char %s[MAXSTRINGLEN]", name);
	else
		snprintf(buf, sizeof(buf), "int64_t %s", name);
	return buf;
}

/* Globals the module has: used, and typed (unused ones are elided). */
static bool emitted(const struct var *v)
{
	return v->used && v->type != T_UNKNOWN;
}

static bool is_map(const struct var *v)
{
	return v->nkeys > 0;
}

static bool is_stats(const struct var *v)
{
	return v->type == T_STATS;
}

static bool from_user_script(struct xlate *x, const struct var *v)
{
	return v->global && v->global->loc.src == x->s->user->src;
}

static void emit_globals(struct xlate *x, FILE *out)
{
	fputs("/* ---- globals ---- */\n\nstatic struct {\n\tchar unused;\n", out);
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v))
			continue;
		if (is_map(v))
			fprintf(out, "\tstruct ctap_map *g_%s;\n", v->name);
		else if (is_stats(v))
			fprintf(out, "\tstruct ctap_pstat g_%s;\n", v->name);
		else
			fprintf(out, "\t%s;\n", c_type_decl(v->type, arena_printf(x->a, "g_%s", v->name)));
	}
	fputs("} G __maybe_unused;\n\n", out);
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v))
			continue;
		fprintf(out, "static DEFINE_RWLOCK(lock_%s);\n", v->name);
		if (is_stats(v)) {
			const struct expr *h = v->hist;
			const char *type = !h ? "CTAP_HIST_NONE" :
				!strcmp(h->name, "@hist_log") ? "CTAP_HIST_LOG" : "CTAP_HIST_LINEAR";

			fprintf(out, "static struct ctap_stat_spec spec_%s = { .type = %s", v->name, type);
			if (h && !strcmp(h->name, "@hist_linear")) {
				const struct expr *a = h->args->next;

				fprintf(out, ", .start = %lldLL, .stop = %lldLL, .interval = %lldLL",
					(long long)a->num, (long long)a->next->num,
					(long long)a->next->next->num);
			}
			fputs(" };\n", out);
		}
		if (is_map(v)) {
			fprintf(out, "static const struct ctap_map_spec mspec_%s = {\n\t.nkeys = %d,\n\t.keys = {",
				v->name, v->nkeys);
			for (int i = 0; i < v->nkeys; i++)
				fprintf(out, " %s,", v->keys[i] == T_STRING ? "CTAP_STRING" : "CTAP_LONG");
			fprintf(out, " },\n\t.value = %s,\n\t.max_entries = ",
				v->type == T_STRING ? "CTAP_STRING" : v->type == T_STATS ? "CTAP_STATS" : "CTAP_LONG");
			if (v->global && v->global->size)
				fprintf(out, "%lld", (long long)v->global->size);
			else
				fputs("MAXMAPENTRIES", out);
			fprintf(out, ",\n\t.wrap = %s,\n\t.string_len = MAXSTRINGLEN,\n",
				v->global && v->global->wrap ? "true" : "false");
			if (is_stats(v))
				fprintf(out, "\t.stat = &spec_%s,\n", v->name);
			fputs("};\n", out);
		}
		/* The script's scalars can be set at load time (staprun NAME=VALUE;
		 * stap -G passes them so in pass 5, as SystemTap's). */
		if (from_user_script(x, v) && !is_map(v) && !is_stats(v)) {
			const struct expr *init = v->global->init;

			if (v->type == T_STRING) {
				fprintf(out, "static char *param_%s = %s;\n", v->name,
					init && init->kind == E_STRING ? gen_c_string(x, init->str) : "\"\"");
				fprintf(out, "module_param_named(%s, param_%s, charp, 0);\n", v->name, v->name);
			} else {
				fprintf(out, "static long param_%s = %s;\n", v->name,
					init && init->kind == E_NUMBER ?
					arena_printf(x->a, "%lldL", (long long)init->num) : "0");
				fprintf(out, "module_param_named(%s, param_%s, long, 0);\n", v->name, v->name);
			}
		}
	}
	fputc('\n', out);
}

static void emit_init_globals(struct xlate *x, FILE *out)
{
	fputs("static void free_globals(void)\n{\n", out);
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v))
			continue;
		if (is_map(v))
			fprintf(out, "\tctap_free(G.g_%s);\n", v->name);
		else if (is_stats(v))
			fprintf(out, "\tctap_pstat_free(&G.g_%s);\n", v->name);
	}
	fputs("}\n\nstatic int init_globals(void)\n{\n\tvoid *mem;\n\n\t(void)mem;\n", out);
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		const struct expr *init = v->global ? v->global->init : NULL;

		if (!emitted(v))
			continue;
		if (is_stats(v))
			fprintf(out, "\tif (ctap_stat_spec_init(&spec_%s))\n\t\tgoto fail;\n", v->name);
		if (is_map(v)) {
			fprintf(out, "\tmem = ctap_alloc(ctap_map_bytes(&mspec_%s));\n\tif (!mem)\n\t\tgoto fail;\n"
				"\tG.g_%s = ctap_map_init(mem, &mspec_%s);\n", v->name, v->name, v->name);
		} else if (is_stats(v)) {
			fprintf(out, "\tif (ctap_pstat_init(&G.g_%s))\n\t\tgoto fail;\n", v->name);
		} else if (from_user_script(x, v)) {
			if (v->type == T_STRING)
				fprintf(out, "\tstrscpy(G.g_%s, param_%s, MAXSTRINGLEN);\n", v->name, v->name);
			else
				fprintf(out, "\tG.g_%s = param_%s;\n", v->name, v->name);
		} else if (init) {
			if (v->type == T_STRING)
				fprintf(out, "\tstrscpy(G.g_%s, %s, MAXSTRINGLEN);\n", v->name,
					gen_c_string(x, init->str));
			else
				fprintf(out, "\tG.g_%s = %lldLL;\n", v->name, (long long)init->num);
		}
	}
	fputs("\treturn 0;\nfail: __attribute__((unused));\n\tfree_globals();\n\treturn -ENOMEM;\n}\n\n", out);
}

/* ---- locks: which globals a handler touches, and how ---- */

/*
 * What one handler touches, through every function it can call.  Called
 * functions are queued, not walked recursively, each at most once: a
 * chain of 20,000 calls takes no C stack, a diamond no second walk.
 */
struct lockset {
	struct xlate *x;
	struct var *locals;		/* the handler's: not globals */
	bool *queued;			/* per function (sem_function.index) */
	const struct sem_function **todo;
	int ntodo;
	char *mode;			/* per global (var.index): 0, 'r', 'w' */
};

static void touch(struct lockset *ls, struct var *locals, const char *name, char mode)
{
	struct var *g;

	for (struct var *v = locals; v; v = v->next)
		if (!strcmp(v->name, name))
			return;
	g = sem_global(ls->x->s, name);
	if (g && ls->mode[g->index] != 'w')
		ls->mode[g->index] = mode;
}

static const char *base_name(const struct expr *e)
{
	if (e->kind == E_SYMBOL)
		return e->name;
	if (e->kind == E_INDEX && e->a->kind == E_SYMBOL)
		return e->a->name;
	return NULL;
}

static void lock_stmt(struct lockset *ls, struct var *locals, const struct stmt *s);

struct lock_walk {
	struct lockset *ls;
	struct var *locals;
};

static void lock_expr(struct expr *e, void *ctx)
{
	struct lock_walk *w = ctx;
	const char *name;

	switch (e->kind) {
	case E_SYMBOL:
		touch(w->ls, w->locals, e->name, 'r');
		break;
	case E_INDEX:
		if ((name = base_name(e)))
			touch(w->ls, w->locals, name, 'r');
		break;
	case E_IN:
		if (e->a->kind == E_SYMBOL)
			touch(w->ls, w->locals, e->a->name, 'r');
		break;
	case E_ASSIGN:
	case E_UNARY:
	case E_POSTFIX:
		name = e->kind == E_ASSIGN || !strcmp(e->op, "++") || !strcmp(e->op, "--") ?
			base_name(e->a) : NULL;
		/* Adding to scalar statistics is per CPU: a read lock keeps
		 * only readers (who aggregate) out. */
		if (name)
			touch(w->ls, w->locals, name,
			      !strcmp(e->op, "<<<") && e->a->kind == E_SYMBOL ? 'r' : 'w');
		break;
	case E_STAT:
	case E_HIST: {
		const struct expr *operand = e->kind == E_STAT ? e->a : e->args;

		if ((name = base_name(operand)))
			touch(w->ls, w->locals, name, 'w');	/* aggregates into G */
		break;
	}
	case E_CALL: {
		const struct sem_function *f = sem_function_of(w->ls->x->s, e);

		if (!f || w->ls->queued[f->index] || !f->fn->body)
			break;
		w->ls->queued[f->index] = true;
		w->ls->todo[w->ls->ntodo++] = f;
		break;
	}
		break;
	default:
		break;
	}
}

/* delete writes what it names (the expression walk saw a read). */
static void lock_deletes(struct lockset *ls, struct var *locals, const struct stmt *s)
{
	for (; s; s = s->next) {
		const char *name;

		if (s->kind == S_DELETE && (name = base_name(s->e)))
			touch(ls, locals, name, 'w');
		lock_deletes(ls, locals, s->body);
		lock_deletes(ls, locals, s->els);
	}
}

static void lock_stmt(struct lockset *ls, struct var *locals, const struct stmt *s)
{
	struct lock_walk w = { ls, locals };

	ast_walk_stmt((struct stmt *)s, lock_expr, &w);
	lock_deletes(ls, locals, s);
}

/* ---- handlers and functions ---- */

static void begin_scope(struct xlate *x, struct xscope *sc, struct var *locals,
			const struct sem_function *fn, const char *struct_name)
{
	memset(sc, 0, sizeof(*sc));
	sc->handler = -1;
	sc->locals = locals;
	sc->fn = fn;
	sc->struct_name = struct_name;
	sc->temps = open_memstream(&sc->temps_text, &sc->temps_len);
	x->sc = sc;
	x->err = "out";
}

/* The locals struct of a scope: its variables, then its temporaries. */
static void emit_locals_struct(struct xlate *x, FILE *out, struct xscope *sc)
{
	fclose(sc->temps);
	fprintf(out, "struct %s {\n", sc->struct_name);
	for (struct var *v = sc->locals; v; v = v->next)
		if (v->type == T_LONG || v->type == T_STRING)
			fprintf(out, "\t%s;\n", c_type_decl(v->type, arena_printf(x->a, "v_%s", v->name)));
	if (sc->fn && (sc->fn->ret == T_LONG || sc->fn->ret == T_STRING))
		fprintf(out, "\t%s;\n", c_type_decl(sc->fn->ret, "__retvalue"));
	fputs(sc->temps_text, out);
	fputs("};\n\n", out);
	free(sc->temps_text);
}

static void init_locals(FILE *code, struct var *locals)
{
	for (struct var *v = locals; v; v = v->next) {
		if (v->kind == V_PARAM)
			continue;
		if (v->type == T_STRING)
			fprintf(code, "\tl->v_%s[0] = '\\0';\n", v->name);
		else if (v->type == T_LONG)
			fprintf(code, "\tl->v_%s = 0;\n", v->name);
	}
}

static void embedded_function(struct xlate *x, const struct sem_function *f)
{
	const char *ret = f->ret == T_STRING ? "ctap_strcpy(STAP_RETVALUE, (v))" :
		"STAP_RETVALUE = (v)";

	/* A body that returns without setting it returns "" or 0, as in
	 * SystemTap (not what the frame held from an earlier call). */
	if (f->ret == T_STRING)
		fputs("\tl->__retvalue[0] = '\\0';\n", x->code);
	else if (f->ret == T_LONG)
		fputs("\tl->__retvalue = 0;\n", x->code);

	for (struct var *v = f->locals; v; v = v->next)
		fprintf(x->code, "#define STAP_ARG_%s (l->v_%s)\n", v->name, v->name);
	fprintf(x->code, "#define STAP_RETVALUE (l->__retvalue)\n"
		"#define STAP_RETURN(v) do { %s; goto out; } while (0)\n"
		"\t{\n%s\n\t}\n#undef STAP_RETURN\n#undef STAP_RETVALUE\n", ret, f->fn->embedded);
	for (struct var *v = f->locals; v; v = v->next)
		fprintf(x->code, "#undef STAP_ARG_%s\n", v->name);
}

static void gen_function(struct xlate *x, const struct sem_function *f, struct xscope *sc)
{
	const char *name = f->cname;

	begin_scope(x, sc, f->locals, f, arena_printf(x->a, "f_%s_locals", name));
	/* __maybe_unused: pass 2 marks a function used when any loaded
	 * function calls it, an unused overload of a tapset function too. */
	fprintf(x->code, "/* function %s (%s:%d) */\nstatic void __maybe_unused f_%s(struct ctap_context *c)\n{\n"
		"\tstruct %s *l = &((struct context *)c)->frames[c->nesting].f_%s;\n\n\t(void)l;\n",
		name, f->fn->loc.src->name, f->fn->loc.line, name, sc->struct_name, name);
	if (f->fn->embedded) {
		embedded_function(x, f);
	} else {
		init_locals(x->code, f->locals);
		if (f->ret == T_STRING)
			fputs("\tl->__retvalue[0] = '\\0';\n", x->code);
		else if (f->ret == T_LONG)
			fputs("\tl->__retvalue = 0;\n", x->code);
		gen_stmt(x, f->fn->body, 1);
	}
	fputs("out: __attribute__((unused));\n}\n\n", x->code);
}

static void gen_handler(struct xlate *x, const struct sem_handler *h, int n, struct xscope *sc)
{
	const struct probe_point *pp = h->site->written;

	begin_scope(x, sc, h->locals, NULL, arena_printf(x->a, "probe_%d_locals", n));
	sc->site = h->site;
	sc->handler = n;
	fprintf(x->code, "/* probe %s (%s:%d) */\nstatic void probe_%d(struct ctap_context *c)\n{\n"
		"\tstruct %s *l = &((struct context *)c)->probes.p%d;\n\n\t(void)l;\n",
		h->site->name, h->probe->loc.src->name, h->probe->loc.line, n, sc->struct_name, n);
	init_locals(x->code, h->locals);
	if (pp && pp->condition)
		fprintf(x->code, "\tif (!(%s))\n\t\tgoto out;\n", gen_expr(x, pp->condition));
	for (int i = 0; i < h->naliases; i++)
		if (h->aliases[i]->body)
			gen_stmt(x, h->aliases[i]->body, 1);
	gen_stmt(x, h->probe->body, 1);
	for (int i = h->naliases - 1; i >= 0; i--)
		if (h->aliases[i]->epilogue)
			gen_stmt(x, h->aliases[i]->epilogue, 1);
	fputs("out: __attribute__((unused));\n}\n\n", x->code);
}

/* ---- the probes ---- */

static int handler_number(struct xlate *x, const struct sem_handler *h)
{
	int n = 0;

	for (struct sem_handler *o = sem_handlers(x->s); o; o = o->next, n++)
		if (o == h)
			return n;
	return -1;
}

static void emit_lock_tables(struct xlate *x, FILE *out)
{
	int nglobals = 0, n = 0;

	for (struct var *v = sem_globals(x->s); v; v = v->next)
		nglobals++;
	int nf = sem_nfunctions(x->s);
	struct lockset ls = {
		.x = x,
		.queued = arena_alloc(x->a, (nf + 1) * sizeof(*ls.queued)),
		.todo = arena_alloc(x->a, (nf + 1) * sizeof(*ls.todo)),
		.mode = arena_alloc(x->a, nglobals + 1),
	};

	for (struct sem_handler *h = sem_handlers(x->s); h; h = h->next, n++) {
		int i = 0;

		ls.locals = h->locals;
		memset(ls.mode, 0, nglobals + 1);
		for (int a = 0; a < h->naliases; a++) {
			lock_stmt(&ls, h->locals, h->aliases[a]->body);
			lock_stmt(&ls, h->locals, h->aliases[a]->epilogue);
		}
		lock_stmt(&ls, h->locals, h->probe->body);
		while (ls.ntodo > 0) {
			const struct sem_function *f = ls.todo[--ls.ntodo];

			lock_stmt(&ls, f->locals, f->fn->body);
		}
		memset(ls.queued, 0, (nf + 1) * sizeof(*ls.queued));
		fprintf(out, "static const struct ctap_lock locks_%d[] = {\n", n);
		for (struct var *v = sem_globals(x->s); v; v = v->next, i++)
			if (ls.mode[i] && emitted(v))
				fprintf(out, "\t{ &lock_%s, %s },\n", v->name, ls.mode[i] == 'w' ? "true" : "false");
		fputs("\t{ NULL, false }\n};\n", out);
	}
	fputc('\n', out);
}

/*
 * SystemTap prints the script's globals that are written and never read
 * when the session ends, in declaration order, from an end probe after
 * all others: "count=42", "name=\"x\"", "s @count=2 @min=..." (an empty
 * one "s @count=0x0"), and arrays element by element, by value descending
 * (statistics by @count), as "a[1,\"k\"]=42".
 */
static bool autoprinted(struct xlate *x, const struct var *v)
{
	return from_user_script(x, v) && v->used && v->written && !v->rvalue &&
		(v->type == T_LONG || v->type == T_STRING || v->type == T_STATS);
}

static void autoprint_scalar(FILE *out, const struct var *v)
{
	if (v->type != T_STATS) {
		fprintf(out, "\tctap_printf(c, \"%s=%s\\n\", &(union ctap_arg){ .%c = G.g_%s }, 1);\n",
			v->name, v->type == T_STRING ? "\\\"%s\\\"" : "%d",
			v->type == T_STRING ? 's' : 'n', v->name);
		return;
	}
	fprintf(out, "\t_g = ctap_pstat_aggregate(&spec_%s, &G.g_%s);\n"
		"\tif (!_g->count) {\n\t\tctap_printf(c, \"%s @count=0x0\\n\", NULL, 0);\n\t} else {\n"
		"\t\tctap_printf(c, \"%s \", NULL, 0);\n"
		"\t\tctap_stat_print_summary(ctap_out(c), _g);\n"
		"\t\tctap_out_write(ctap_out(c), \"\\n\", 1);\n\t}\n",
		v->name, v->name, v->name, v->name);
}

/* The entries of an array, sorted as SystemTap prints them; _idx holds
 * twice the largest array's entries. */
static void autoprint_array(FILE *out, const struct var *v)
{
	fprintf(out, "\tn = ctap_map_sorted(G.g_%s, &(struct ctap_map_sort){ 0, -1, 'c' }, _idx,\n"
		"\t\t\t    _idx + ARRAY_SIZE(_idx) / 2, -1);\n"
		"\tfor (i = 0; i < n; i++)\n"
		"\t\tctap_map_print_entry(ctap_out(c), G.g_%s, _idx[i], \"%s\");\n",
		v->name, v->name, v->name);
}

static bool emit_autoprint(struct xlate *x, FILE *out)
{
	long long most = 0;	/* the largest declared size; -1: MAXMAPENTRIES too */
	int n = 0, arrays = 0;

	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!autoprinted(x, v))
			continue;
		n++;
		arrays += v->nkeys > 0;
		if (v->nkeys && v->global && v->global->size && most >= 0)
			most = v->global->size > most ? v->global->size : most;
		else if (v->nkeys)
			most = -1;
	}
	if (!n)
		return false;
	fprintf(out, "/* end: the globals written and never read, as SystemTap prints them */\n"
		"static void probe_autoprint(struct ctap_context *c)\n{\n");
	if (arrays)
		fprintf(out, "\tstatic int _idx[2 * %s];\n",
			most < 0 ? "MAXMAPENTRIES" : arena_printf(x->a, "%lld", most));
	fputs("\tstruct ctap_stat *_g;\n\tint i, n;\n\n\t(void)_g; (void)i; (void)n;\n", out);
	/* In declaration order: the list has the last declared first. */
	struct var **vs = arena_alloc(x->a, (n + 1) * sizeof(*vs));
	n = 0;
	for (struct var *v = sem_globals(x->s); v; v = v->next)
		if (autoprinted(x, v))
			vs[n++] = v;
	while (n--) {
		if (vs[n]->nkeys)
			autoprint_array(out, vs[n]);
		else
			autoprint_scalar(out, vs[n]);
	}
	fputs("}\n\n", out);
	return true;
}

static void emit_probes(struct xlate *x, FILE *out)
{
	x->autoprint = emit_autoprint(x, out);
	fprintf(out, "static const struct ctap_probe ctap_probes[%d] = {\n",
		x->nprobes + x->autoprint ? x->nprobes + x->autoprint : 1);
	for (int i = 0; i < x->nprobes; i++) {
		const struct derived_probe *d = x->probes[i].d;

		fprintf(out, "\t[%d] = { .pp = %s, .function = %s, .kind = %s, .type = %s,\n"
			"\t\t.order = %lldLL, .handler = probe_%d, .locks = locks_%d,\n"
			"\t\t.nlocks = ARRAY_SIZE(locks_%d) - 1 },\n",
			i, gen_c_string(x, d->name), d->symbol ? gen_c_string(x, d->symbol) : "NULL",
			x->probes[i].kind, d->is_return ? "CTAP_PROBE_RETURN" : "CTAP_PROBE_ENTRY",
			(long long)d->order, x->probes[i].handler, x->probes[i].handler,
			x->probes[i].handler);
	}
	if (x->autoprint)
		fprintf(out, "\t[%d] = { .pp = \"end\", .kind = CTAP_PROBE_END, .order = S64_MAX,\n"
			"\t\t.handler = probe_autoprint },\n", x->nprobes);
	fputs("};\n\n", out);
}

/* The probes of each provider go to its emit callback together. */
static void emit_families(struct xlate *x)
{
	for (const struct provider *const *p = providers; *p; p++) {
		const struct derived_probe **ds = arena_alloc(x->a, (x->nprobes + 1) * sizeof(*ds));
		int n = 0;

		for (int i = 0; i < x->nprobes; i++)
			if (x->probes[i].d->provider == *p)
				ds[n++] = x->probes[i].d;
		if (!n)
			continue;
		if (!(*p)->emit) {
			gen_error(x, &ds[0]->written->loc, "%s probes are not supported by pass 3 yet",
				  (*p)->name);
			continue;
		}
		(*p)->emit(x, ds, n);
	}
}

/* begin/end/error probes in the order they run: by kind, then begin(N)'s N. */
static void emit_session_probes(struct xlate *x, FILE *out)
{
	static const char *const kinds[] = { "CTAP_PROBE_BEGIN", "CTAP_PROBE_END", "CTAP_PROBE_ERROR" };
	int n = 0;

	fputs("static const struct ctap_probe *const session_probes[] = {\n", out);
	for (int k = 0; k < 3; k++) {
		int *order = arena_alloc(x->a, (x->nprobes + 1) * sizeof(int)), m = 0;

		for (int i = 0; i < x->nprobes; i++)
			if (!strcmp(x->probes[i].kind, kinds[k]))
				order[m++] = i;
		/* Stable insertion sort by order: equal ones keep program order. */
		for (int i = 1; i < m; i++)
			for (int j = i; j > 0 && x->probes[order[j - 1]].d->order >
			     x->probes[order[j]].d->order; j--) {
				int t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (int i = 0; i < m; i++, n++)
			fprintf(out, "\t&ctap_probes[%d],\n", order[i]);
		if (k == 1 && x->autoprint) {
			fprintf(out, "\t&ctap_probes[%d],\n", x->nprobes);
			n++;
		}
	}
	if (!n)
		fputs("\tNULL\n", out);
	fprintf(out, "};\n#define N_SESSION_PROBES %d\n\n", n);
}

/* ---- call depth: SystemTap's default MAXNESTING ---- */

/*
 * The deepest chain of calls from a handler, plus 10 if a function
 * recurses, as SystemTap computes it.  Each function's depth is computed
 * once (a diamond of calls is not walked twice: that was exponential), and
 * the walk stops at MAX_CALL_DEPTH levels of C recursion: deeper chains
 * only make MAXNESTING that large, the runtime checks it at every call.
 */
#define MAX_CALL_DEPTH	1000

enum { D_NEW, D_ACTIVE, D_DONE };

struct depth_walk {
	struct xlate *x;
	char *state;		/* per function: D_NEW, D_ACTIVE (on the path), D_DONE */
	int *depth;		/* per function, once D_DONE: itself and below */
	int level;		/* of C recursion */
	int max;		/* over what the current body calls */
	bool recursive;
};

static void depth_stmt(struct depth_walk *w, const struct stmt *s);

static int function_depth(struct depth_walk *w, const struct sem_function *f)
{
	int saved = w->max, d;

	if (w->state[f->index] == D_DONE)
		return w->depth[f->index];
	if (w->state[f->index] == D_ACTIVE) {
		w->recursive = true;
		return 0;
	}
	if (!f->fn->body || w->level >= MAX_CALL_DEPTH)
		return 1;
	w->state[f->index] = D_ACTIVE;
	w->level++;
	w->max = 0;
	depth_stmt(w, f->fn->body);
	d = 1 + w->max;
	w->level--;
	w->max = saved;
	w->state[f->index] = D_DONE;
	w->depth[f->index] = d;
	return d;
}

static void depth_expr(struct expr *e, void *ctx)
{
	struct depth_walk *w = ctx;
	const struct sem_function *f;
	int d;

	if (e->kind != E_CALL || !(f = sem_function_of(w->x->s, e)))
		return;
	d = function_depth(w, f);
	if (d > w->max)
		w->max = d;
}

static void depth_stmt(struct depth_walk *w, const struct stmt *s)
{
	ast_walk_stmt((struct stmt *)s, depth_expr, w);
}

static int max_nesting(struct xlate *x)
{
	int nf = sem_nfunctions(x->s), deepest = 0;
	struct depth_walk w = {
		.x = x,
		.state = arena_alloc(x->a, nf + 1),
		.depth = arena_alloc(x->a, (nf + 1) * sizeof(int)),
	};

	for (struct sem_handler *h = sem_handlers(x->s); h; h = h->next) {
		w.max = 0;
		for (int i = 0; i < h->naliases; i++) {
			depth_stmt(&w, h->aliases[i]->body);
			depth_stmt(&w, h->aliases[i]->epilogue);
		}
		depth_stmt(&w, h->probe->body);
		if (w.max > deepest)
			deepest = w.max;
	}
	return (deepest ? deepest : 1) + (w.recursive ? 10 : 0);
}

static void emit_header(struct xlate *x, FILE *out)
{
	fprintf(out, "/*\n * %s - generated by ctap's stap from %s.\n * Built against kmod-runtime "
		"(ctap_runtime.h); see docs/translator.md.\n */\n",
		xlate_module_name(x->s), x->s->user->src->name);
	for (int i = 0; i < x->s->n_defines; i++) {
		const char *d = x->s->defines[i], *eq = strchr(d, '=');

		if (eq)
			fprintf(out, "#define %.*s %s\n", (int)(eq - d), d, eq + 1);
		else
			fprintf(out, "#define %s 1\n", d);
	}
	fprintf(out, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n", max_nesting(x));
	fputs("#include \"ctap_runtime.h\"\n#include \"target.h\"\n"
	      "#include \"probes/kprobes.h\"\n#include \"probes/timers.h\"\n"
	      "#include \"probes/uprobes.h\"\n\n", out);
	for (const struct embedded *e = x->s->user->embeds; e; e = e->next)
		fprintf(out, "%s\n", e->code);
}

int pass3_translate(struct session *s, FILE *out)
{
	struct xlate x = { .s = s, .a = &s->arena };
	struct xscope *fscopes, *hscopes;
	char *code_text;
	size_t code_len;
	int nf = 0, nh = 0, i;

	for (const struct sem_function *f = sem_functions(s); f; f = f->next)
		nf++;
	for (struct sem_handler *h = sem_handlers(s); h; h = h->next)
		nh++;
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		x.nprobes++;
	x.probes = arena_alloc(x.a, (x.nprobes + 1) * sizeof(*x.probes));
	i = 0;
	/* The index, not a search: kernel.function("*") makes tens of thousands. */
	for (struct derived_probe *d = elab_probes(s); d; d = d->next, i++) {
		d->index = i;
		x.probes[i].d = d;
		x.probes[i].handler = handler_number(&x, sem_handler_of(s, d));
		x.probes[i].kind = "CTAP_PROBE_EVENT";
	}
	fscopes = arena_alloc(x.a, (nf + 1) * sizeof(*fscopes));
	hscopes = arena_alloc(x.a, (nh + 1) * sizeof(*hscopes));

	/* Bodies first: they find the temporaries of the locals structs. */
	x.code = open_memstream(&code_text, &code_len);
	i = 0;
	for (const struct sem_function *f = sem_functions(s); f; f = f->next, i++)
		if (f->used)
			gen_function(&x, f, &fscopes[i]);
	i = 0;
	for (struct sem_handler *h = sem_handlers(s); h; h = h->next, i++)
		gen_handler(&x, h, i, &hscopes[i]);
	fclose(x.code);

	x.families = open_memstream(&x.families_text, &x.families_len);
	x.family_list_f = open_memstream(&x.family_list, &x.family_list_len);
	emit_families(&x);
	fclose(x.families);
	fclose(x.family_list_f);

	if (!x.errors) {
		emit_header(&x, out);
		emit_globals(&x, out);
		fputs("/* ---- locals of handlers and functions ---- */\n\n", out);
		i = 0;
		for (const struct sem_function *f = sem_functions(s); f; f = f->next, i++)
			if (f->used)
				emit_locals_struct(&x, out, &fscopes[i]);
		for (i = 0; i < nh; i++)
			emit_locals_struct(&x, out, &hscopes[i]);
		fputs("struct context {\n\tstruct ctap_context c;\n\tunion {\n\t\tchar none;\n", out);
		for (i = 0; i < nh; i++)
			fprintf(out, "\t\tstruct probe_%d_locals p%d;\n", i, i);
		fputs("\t} probes;\n\tunion {\n\t\tchar none;\n", out);
		for (const struct sem_function *f = sem_functions(s); f; f = f->next)
			if (f->used)
				fprintf(out, "\t\tstruct f_%s_locals f_%s;\n", f->cname, f->cname);
		fputs("\t} frames[MAXNESTING + 1];\n};\n\n", out);
		for (const struct sem_function *f = sem_functions(s); f; f = f->next)
			if (f->used)
				fprintf(out, "static void __maybe_unused f_%s(struct ctap_context *c);\n",
					f->cname);
		fputc('\n', out);
		fwrite(code_text, 1, code_len, out);
		emit_lock_tables(&x, out);
		emit_probes(&x, out);
		fwrite(x.families_text, 1, x.families_len, out);
		emit_session_probes(&x, out);
		fprintf(out, "static const struct ctap_family families[] = {\n%s\t{ NULL, NULL }\n};\n\n",
			x.family_list);
		emit_init_globals(&x, out);
		fprintf(out, "static const struct ctap_module ctap_module_desc = {\n"
			"\t.name = %s,\n\t.probes = session_probes,\n\t.nprobes = N_SESSION_PROBES,\n"
			"\t.families = families,\n\t.nfamilies = ARRAY_SIZE(families) - 1,\n"
			"\t.context_size = sizeof(struct context),\n\t.init_globals = init_globals,\n"
			"\t.free_globals = free_globals,\n};\n\n"
			"static int __init ctap_init(void)\n{\n\treturn ctap_module_init(&ctap_module_desc);\n}\n\n"
			"static void __exit ctap_cleanup(void)\n{\n\tctap_module_exit();\n}\n\n"
			"module_init(ctap_init);\nmodule_exit(ctap_cleanup);\nMODULE_LICENSE(\"GPL\");\n"
			"MODULE_DESCRIPTION(\"ctap script %s\");\n",
			gen_c_string(&x, xlate_module_name(s)), s->user->src->name);
	} else {
		for (i = 0; i < nf; i++)
			if (fscopes[i].temps)
				fclose(fscopes[i].temps), free(fscopes[i].temps_text);
		for (i = 0; i < nh; i++)
			fclose(hscopes[i].temps), free(hscopes[i].temps_text);
	}
	free(code_text);
	free(x.families_text);
	free(x.family_list);
	return x.errors ? -1 : 0;
}
