// SPDX-License-Identifier: GPL-2.0
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

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "elaborate.h"
#include "merge.h"
#include "print.h"
#include "translate.h"
#include "usymtab.h"
#include "merge.h"
#include "xlate.h"

static const char *const kind_names[] = {
	[XPROBE_EVENT] = "CTAP_PROBE_EVENT",
	[XPROBE_BEGIN] = "CTAP_PROBE_BEGIN",
	[XPROBE_END] = "CTAP_PROBE_END",
	[XPROBE_ERROR] = "CTAP_PROBE_ERROR",
};

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

static void emit_globals(struct xlate *x, FILE *out)
{
	int n = 0;

	for (struct var *v = sem_globals(x->s); v; v = v->next)
		n += emitted(v);
	fputs("/* ---- globals ---- */\n\n", out);
	if (n) {
		fputs("static struct {\n", out);
		for (struct var *v = sem_globals(x->s); v; v = v->next) {
			if (!emitted(v))
				continue;
			if (is_map(v))
				fprintf(out, "\tstruct ctap_map *g_%s;\n", v->name);
			else if (is_stats(v))
				fprintf(out, "\tstruct ctap_pstat g_%s;\n", v->name);
			else if (v->counter)
				fprintf(out, "\tstruct ctap_counter g_%s;\t/* per CPU, no lock */\n", v->name);
			else
				fprintf(out, "\t%s;\n", c_type_decl(v->type, arena_printf(x->a, "g_%s", v->name)));
		}
		/* CTAP_SHARED: in the user-space runtime, memory that stapdyn and
		 * the traced processes share (dyn-runtime/shm.c); nothing in a module. */
		fputs("} G CTAP_SHARED __maybe_unused;\n\n", out);
	}
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v))
			continue;
		if (!v->counter)
			fprintf(out, "static DEFINE_RWLOCK(lock_%s);\n", v->name);
		if (is_stats(v)) {
			const struct expr *h = v->hist;
			const char *type = !h ? "CTAP_HIST_NONE" :
				!strcmp(h->name, "@hist_log") ? "CTAP_HIST_LOG" : "CTAP_HIST_LINEAR";

			fprintf(out, "static struct ctap_stat_spec spec_%s CTAP_SHARED = { .type = %s",
				v->name, type);
			if (h && !strcmp(h->name, "@hist_linear")) {
				const struct expr *a = h->args->next;

				fprintf(out, ", .start = %lldLL, .stop = %lldLL, .interval = %lldLL",
					(long long)a->num, (long long)a->next->num,
					(long long)a->next->next->num);
			}
			if (v->variance && v->variance->b->num)
				fprintf(out, ", .shift = %lld", (long long)v->variance->b->num);
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
		if (xlate_user_global(x, v) && !is_map(v) && !is_stats(v)) {
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

/* The arrays' memory, reserved before any is allocated (ctap_reserve()). */
static void emit_reserve_maps(struct xlate *x, FILE *out)
{
	const char *sep = "\tif (ctap_reserve(";

	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v) || !is_map(v))
			continue;
		fprintf(out, "%sctap_map_bytes(&mspec_%s)", sep, v->name);
		sep = " +\n\t\t\t ";
	}
	fputs("))\n\t\treturn -ENOMEM;\n", out);
}

static void emit_init_globals(struct xlate *x, FILE *out)
{
	bool maps = false, fails = false;

	fputs("static void free_globals(void)\n{\n", out);
	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!emitted(v))
			continue;
		maps |= is_map(v);
		fails |= is_map(v) || is_stats(v) || v->counter;
		if (is_map(v))
			fprintf(out, "\tctap_free(G.g_%s);\n", v->name);
		else if (is_stats(v))
			fprintf(out, "\tctap_pstat_free(&G.g_%s);\n", v->name);
		else if (v->counter)
			fprintf(out, "\tctap_counter_free(&G.g_%s);\n", v->name);
	}
	fputs("}\n\nstatic int init_globals(void)\n{\n", out);
	if (maps) {
		fputs("\tvoid *mem;\n\n", out);
		emit_reserve_maps(x, out);
	}
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
		} else if (v->counter) {
			fprintf(out, "\tif (ctap_counter_init(&G.g_%s, %s))\n\t\tgoto fail;\n", v->name,
				xlate_user_global(x, v) ? arena_printf(x->a, "param_%s", v->name) :
				init ? arena_printf(x->a, "%lldLL", (long long)init->num) : "0");
		} else if (xlate_user_global(x, v)) {
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
	fputs("\treturn 0;\n", out);
	if (fails)
		fputs("fail:\n\tfree_globals();\n\treturn -ENOMEM;\n", out);
	fputs("}\n\n", out);
}

/* ---- handlers and functions ---- */

static void begin_scope(struct xlate *x, struct xscope *sc, struct var *locals,
			const struct sem_function *fn, const char *struct_name)
{
	memset(sc, 0, sizeof(*sc));
	sc->locals = locals;
	sc->fn = fn;
	sc->struct_name = struct_name;
	sc->temps = open_memstream(&sc->temps_text, &sc->temps_len);
	x->sc = sc;
	x->err = "out";
	x->code = open_memstream(&sc->body, &sc->body_len);
}

static void end_scope(struct xlate *x, struct xscope *sc)
{
	fclose(x->code);
	fclose(sc->temps);
	x->code = NULL;
}

static bool typed(enum vtype t)
{
	return t == T_LONG || t == T_STRING;
}

/* Does the scope have a locals struct (variables, a result, temporaries)? */
static bool has_locals(const struct xscope *sc)
{
	for (struct var *v = sc->locals; v; v = v->next)
		if (typed(v->type))
			return true;
	return (sc->fn && typed(sc->fn->ret)) || sc->ntemps > 0;
}

/* The locals struct of a scope: its variables, then its temporaries. */
static void emit_locals_struct(struct xlate *x, FILE *out, struct xscope *sc)
{
	if (!has_locals(sc))
		return;
	fprintf(out, "struct %s {\n", sc->struct_name);
	for (struct var *v = sc->locals; v; v = v->next)
		if (typed(v->type))
			fprintf(out, "\t%s;\n", c_type_decl(v->type, arena_printf(x->a, "v_%s", v->name)));
	if (sc->fn && typed(sc->fn->ret))
		fprintf(out, "\t%s;\n", c_type_decl(sc->fn->ret, "__retvalue"));
	fputs(sc->temps_text, out);
	fputs("};\n\n", out);
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

/* A body that returns without setting its result returns "" or 0, as in
 * SystemTap (not what the frame held from an earlier call). */
static void init_result(FILE *code, const struct sem_function *f)
{
	if (f->ret == T_STRING)
		fputs("\tl->__retvalue[0] = '\\0';\n", code);
	else if (f->ret == T_LONG)
		fputs("\tl->__retvalue = 0;\n", code);
}

static void embedded_function(struct xlate *x, const struct sem_function *f)
{
	const char *ret = f->ret == T_STRING ? "ctap_strcpy(STAP_RETVALUE, (v))" :
		"STAP_RETVALUE = (v)";

	init_result(x->code, f);
	for (struct var *v = f->locals; v; v = v->next)
		fprintf(x->code, "#define STAP_ARG_%s (l->v_%s)\n", v->name, v->name);
	fprintf(x->code, "#define STAP_RETVALUE (l->__retvalue)\n"
		"#define STAP_RETURN(v) do { %s; goto out; } while (0)\n"
		"\t{\n%s\n\t}\n#undef STAP_RETURN\n#undef STAP_RETVALUE\n", ret, f->fn->embedded);
	for (struct var *v = f->locals; v; v = v->next)
		fprintf(x->code, "#undef STAP_ARG_%s\n", v->name);
	x->sc->uses_out = strstr(f->fn->embedded, "STAP_RETURN") != NULL;
}

static void gen_function(struct xlate *x, const struct sem_function *f, struct xscope *sc)
{
	begin_scope(x, sc, f->locals, f, arena_printf(x->a, "f_%s_locals", f->cname));
	if (f->fn->embedded) {
		embedded_function(x, f);
	} else {
		init_locals(x->code, f->locals);
		init_result(x->code, f);
		gen_stmt(x, f->fn->body, 1);
	}
	end_scope(x, sc);
}

/*
 * The @entry part of a .return handler: run at entry (as a CTAP_PROBE_ENTRY
 * probe), it evaluates each @entry operand into the area saved with the
 * kretprobe instance, and stops.
 */
static void gen_entry_part(struct xlate *x, const struct sem_handler *h)
{
	x->depth = 2;
	fprintf(x->code, "\tif (c->probe->type == CTAP_PROBE_ENTRY) {\n"
		"\t\tstruct %s *saved = ctap_entry_saved(c);\n\n", x->sc->saved_struct);
	for (int i = 0; i < h->nentries; i++) {
		const struct expr *e = h->entries[i];
		const char *v = gen_expr(x, e->a);

		if (e->a->vtype == T_STRING)
			fprintf(x->code, "\t\tstrlcpy(saved->e%d, %s, MAXSTRINGLEN);\n", i, v);
		else
			fprintf(x->code, "\t\tsaved->e%d = %s;\n", i, v);
	}
	fputs("\t\tgoto out;\n\t}\n", x->code);
	x->sc->uses_out = true;
}

static void gen_handler(struct xlate *x, const struct sem_handler *h, int n, struct xscope *sc)
{
	const struct probe_point *pp = h->site->written;
	struct stmt *bodies[SEM_MAX_BODIES];
	int nbodies;

	begin_scope(x, sc, h->locals, NULL, arena_printf(x->a, "probe_%d_locals", n));
	sc->handler = h;
	sc->unbudgeted = gen_unbudgeted(x, h);
	init_locals(x->code, h->locals);
	if (h->nentries) {
		sc->saved_struct = arena_printf(x->a, "probe_%d_saved", n);
		gen_entry_part(x, h);
	}
	if (pp && pp->condition) {
		x->depth = 1;
		fprintf(x->code, "\tif (!(%s))\n\t\tgoto out;\n", gen_expr(x, pp->condition));
		sc->uses_out = true;
	}
	/* Alias bodies around the probe's, in SystemTap's order
	 * (run/alias_nesting_order). */
	nbodies = sem_handler_bodies(h, bodies, NULL);
	for (int i = 0; i < nbodies; i++)
		gen_stmt(x, bodies[i], 1);
	end_scope(x, sc);
}

/*
 * A handler or function: its locals pointer (if it has locals), its body,
 * its exit label (if anything jumps there).  Both run inside a kprobe
 * handler, so no kprobe may go on them: a handler is NOKPROBE_SYMBOL (its
 * address is in the probe table anyway); a function goes to .kprobes.text
 * (__kprobes), which the kernel refuses probes in just as well, since
 * taking its address for NOKPROBE_SYMBOL would keep the compiler from
 * inlining it (two calls more per hit in bench's printf).
 */
static void emit_scope(FILE *out, const struct xscope *sc, const char *comment,
		       const char *name, const char *locals)
{
	if (sc->saved_struct) {
		fprintf(out, "/* %s: @entry values, saved after the arguments */\nstruct %s {\n",
			comment, sc->saved_struct);
		for (int i = 0; i < sc->handler->nentries; i++) {
			char name[16];

			snprintf(name, sizeof(name), "e%d", i);
			fprintf(out, "\t%s;\n", c_type_decl(sc->handler->entries[i]->a->vtype, name));
		}
		fputs("};\n\n", out);
	}
	fprintf(out, "/* %s */\nstatic void %s%s(struct ctap_context *c)\n{\n", comment,
		sc->fn ? "__maybe_unused __kprobes " : "", name);
	if (has_locals(sc))
		fprintf(out, "\tstruct %s *l = %s;\n\n", sc->struct_name, locals);
	fwrite(sc->body, 1, sc->body_len, out);
	if (sc->uses_out)
		fputs("out:\n\treturn;\n", out);
	fputs("}\n", out);
	if (!sc->fn)
		fprintf(out, "NOKPROBE_SYMBOL(%s);\n", name);
	fputc('\n', out);
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
	char *mode;

	for (struct var *v = sem_globals(x->s); v; v = v->next)
		nglobals++;
	mode = arena_alloc(x->a, nglobals + 1);
	for (struct sem_handler *h = sem_handlers(x->s); h; h = h->next, n++) {
		int i = 0;

		analyses_lock_modes(x->s, h, mode);
		fprintf(out, "static const struct ctap_lock locks_%d[] = {\n", n);
		for (struct var *v = sem_globals(x->s); v; v = v->next, i++)
			if (mode[i] && emitted(v))
				fprintf(out, "\t{ .lock = &lock_%s, .write = %s },\n", v->name,
					mode[i] == 'w' ? "true" : "false");
		fputs("\t{ .lock = NULL }\n};\n", out);
	}
	fputc('\n', out);
}

/*
 * The entry parts of .return probes with @entry: the same handler, run by
 * the kretprobe's entry handler as a CTAP_PROBE_ENTRY probe, saves the
 * values (see gen_handler).
 */
static void emit_entry_probes(struct xlate *x, FILE *out)
{
	int n = 0;

	for (int i = 0; i < x->nprobes; i++)
		n += x->probes[i].entry >= 0;
	if (!n)
		return;
	fprintf(out, "static const struct ctap_probe ctap_entry_probes[%d] = {\n", n);
	for (int i = 0; i < x->nprobes; i++) {
		const struct xprobe *p = &x->probes[i];

		if (p->entry < 0)
			continue;
		fprintf(out, "\t[%d] = {\n\t\t.pp = %s,\n", p->entry,
			gen_c_string(x, p->d->pp ? p->d->pp : p->d->name));
		if (p->d->pn)
			fprintf(out, "\t\t.pn = %s,\n", gen_c_string(x, p->d->pn));
		if (p->d->symbol)
			fprintf(out, "\t\t.function = %s,\n", gen_c_string(x, p->d->symbol));
		fprintf(out, "\t\t.kind = %s,\n", kind_names[p->kind]);
		fprintf(out, "\t\t.family = %s,\n", p->d->family);
		fprintf(out, "\t\t.type = CTAP_PROBE_ENTRY,\n"
			"\t\t.handler = probe_%d,\n\t\t.locks = locks_%d,\n"
			"\t\t.nlocks = ARRAY_SIZE(locks_%d) - 1,\n\t},\n",
			p->handler, p->handler, p->handler);
	}
	fputs("};\n\n", out);
}

/* Where each probe passes its handler's slots (sem_handler.slots). */
static void emit_slot_tables(struct xlate *x, FILE *out)
{
	for (int i = 0; i < x->nprobes; i++) {
		const struct derived_probe *d = x->probes[i].d;
		const struct sem_handler *h = sem_handler_of(x->s, d);

		if (!h->nslots)
			continue;
		fprintf(out, "/* %s: where its handler's $vars are */\n"
			"static const unsigned char args_of_%d[] = {", gen_c_comment(x->a, d->name), i);
		for (int k = 0; k < h->nslots; k++) {
			const struct probe_var *v = sem_probe_var(d, h->slots[k]);

			fprintf(out, "%s%d /* %s */", k ? ", " : " ", v ? v->arg : 0,
				gen_c_comment(x->a, h->slots[k]));
		}
		fputs(" };\n\n", out);
	}
}

/*
 * stap -t: the probe's row in the hit report, where the user wrote it and
 * the point it derives from, as SystemTap's report names them.
 */
static void emit_timing_fields(struct xlate *x, FILE *out, const struct derived_probe *d, int i)
{
	const struct loc *l = &d->probe->loc;

	fprintf(out, "\t\t.timing = %d,\n\t\t.location = %s,\n\t\t.derivation = %s,\n", i + 1,
		gen_c_string(x, arena_printf(x->a, "%s:%d:%d", l->src ? l->src->name : "?",
					     l->line, l->col)),
		gen_c_string(x, arena_printf(x->a, " from: %s",
					     probe_point_text(x->a, d->written))));
}

static void emit_probes(struct xlate *x, FILE *out)
{
	emit_slot_tables(x, out);
	x->autoprint = emit_autoprint(x, out);
	x->merge_probe = merge_emit_dump(x, out) ? 1 : merge_emit_load(x, out) ? 2 : 0;
	fprintf(out, "static const struct ctap_probe ctap_probes[%d] = {\n",
		(x->nprobes + x->autoprint + !!x->merge_probe) ?
		x->nprobes + x->autoprint + !!x->merge_probe : 1);
	for (int i = 0; i < x->nprobes; i++) {
		const struct derived_probe *d = x->probes[i].d;

		const struct xprobe *p = &x->probes[i];

		fprintf(out, "\t[%d] = {\n\t\t.pp = %s,\n", i, gen_c_string(x, d->pp ? d->pp : d->name));
		if (d->pn)
			fprintf(out, "\t\t.pn = %s,\n", gen_c_string(x, d->pn));
		if (d->symbol)
			fprintf(out, "\t\t.function = %s,\n", gen_c_string(x, d->symbol));
		fprintf(out, "\t\t.kind = %s,\n", kind_names[p->kind]);
		fprintf(out, "\t\t.family = %s,\n", d->family);
		if (d->is_return)
			fprintf(out, "\t\t.type = CTAP_PROBE_RETURN,\n");
		if (p->any_task && x->s->opt.cgroup_path)
			fprintf(out, "\t\t.any_task = true,\n");
		if (p->order == INT64_MIN)	/* init; no literal spells it */
			fprintf(out, "\t\t.order = S64_MIN,\n");
		else if (p->order)
			fprintf(out, "\t\t.order = %lldLL,\n", (long long)p->order);
		if (sem_handler_of(x->s, d)->nslots)
			fprintf(out, "\t\t.args_of = args_of_%d,\n", i);
		if (x->s->opt.timing || (x->s->opt.monitor && d->probe->loc.src != x->s->monitor_src))
			emit_timing_fields(x, out, d, i);
		fprintf(out, "\t\t.handler = probe_%d,\n\t\t.locks = locks_%d,\n"
			"\t\t.nlocks = ARRAY_SIZE(locks_%d) - 1,\n\t},\n",
			p->handler, p->handler, p->handler);
	}
	if (x->autoprint)
		fprintf(out, "\t[%d] = { .pp = \"end\", .kind = CTAP_PROBE_END, .order = S64_MAX,\n"
			"\t\t.handler = probe_autoprint },\n", x->nprobes);
	if (x->merge_probe == 1)
		fprintf(out, "\t[%d] = { .pp = \"end\", .kind = CTAP_PROBE_END, .order = S64_MAX,\n"
			"\t\t.handler = probe_merge_dump },\n", x->nprobes + x->autoprint);
	else if (x->merge_probe == 2)
		fprintf(out, "\t[%d] = { .pp = \"begin\", .kind = CTAP_PROBE_BEGIN, .order = S64_MIN,\n"
			"\t\t.handler = probe_merge_load },\n", x->nprobes + x->autoprint);
	fputs("};\n\n", out);
	emit_entry_probes(x, out);
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
	static const enum xprobe_kind kinds[] = { XPROBE_BEGIN, XPROBE_END, XPROBE_ERROR };
	int n = 0;

	fputs("static const struct ctap_probe *const session_probes[] = {\n", out);
	for (int k = 0; k < 3; k++) {
		int *order = arena_alloc(x->a, (x->nprobes + 1) * sizeof(int)), m = 0;

		if (k == 0 && x->merge_probe == 2) {	/* the merged globals first */
			fprintf(out, "\t&ctap_probes[%d],\n", x->nprobes + x->autoprint);
			n++;
		}
		for (int i = 0; i < x->nprobes; i++)
			/* --remote-merge: each host runs all but the end probes */
			if (x->probes[i].kind == kinds[k] &&
			    !(kinds[k] == XPROBE_END && x->merge_probe == 1))
				order[m++] = i;
		/* Stable insertion sort by order: equal ones keep program order. */
		for (int i = 1; i < m; i++)
			for (int j = i; j > 0 && x->probes[order[j - 1]].order >
			     x->probes[order[j]].order; j--) {
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
		if (k == 1 && x->merge_probe == 1) {
			fprintf(out, "\t&ctap_probes[%d],\n", x->nprobes + x->autoprint);
			n++;
		}
	}
	if (!n)
		fputs("\tNULL\n", out);
	fprintf(out, "};\n#define N_SESSION_PROBES %d\n\n", n);
}

/*
 * Whether tapset t's top-level %{ %} goes in: always for the kernel; under
 * --runtime=dyninst only when one of t's embedded-C functions is called.
 * A tapset is loaded for any name it defines (signal.stp's aliases bring
 * in aux_syscalls.stp), and another one's kernel headers would not compile
 * in user space, where only the called functions' bodies must.
 */
static bool embeds_wanted(struct xlate *x, const struct script *t)
{
	if (!x->s->opt.dyninst)
		return true;
	for (const struct sem_function *f = sem_functions(x->s); f; f = f->next)
		if (f->used && f->script == t && f->fn->embedded)
			return true;
	return false;
}

static void emit_header(struct xlate *x, FILE *out)
{
	fprintf(out, "// SPDX-License-Identifier: GPL-2.0\n"
		"/*\n * %s - ctap's stap -p3 for %s, kernel %s.\n"
		" * Written against kmod-runtime/ctap_runtime.h; docs/translator.md\n"
		" * explains the layout.\n */\n",
		session_module_name(x->s), gen_c_comment(x->a, x->s->user->src->name),
		x->s->opt.kernel_release);
	for (int i = 0; i < x->s->opt.n_defines; i++)
		fputs(session_define_line(x->s, x->s->opt.defines[i]), out);
	fprintf(out, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n\n",
		analyses_max_nesting(x->s));
	fputs("#include \"ctap_runtime.h\"\n#include \"target.h\"\n", out);
	if (x->s->opt.monitor)
		fputs("#include \"core/json.h\"\n#include \"monitor.h\"\n", out);
	for (const char **r = elab_runtime_families(x->s); *r; r++)
		fprintf(out, "#include \"%s.h\"\n", *r);
	fputc('\n', out);
	/* Top-level %{ %} of the tapsets the script loaded, then its own. */
	for (const struct script *t = x->s->library; t; t = t->next)
		for (const struct embedded *e = t->embeds; e && embeds_wanted(x, t); e = e->next)
			fprintf(out, "%s\n", e->code);
	for (const struct embedded *e = x->s->user->embeds; e; e = e->next)
		fprintf(out, "%s\n", e->code);
}

/*
 * struct context: the runtime's per-CPU context, then the locals of the
 * handler that runs (one at a time) and a stack of function frames.
 */
static void emit_context(FILE *out, struct xscope *fscopes, int nf, struct xscope *hscopes,
			 int nh, bool submatch)
{
	bool probes = false, frames = false;

	for (int i = 0; i < nh; i++)
		probes |= has_locals(&hscopes[i]);
	for (int i = 0; i < nf; i++)
		frames |= fscopes[i].fn && has_locals(&fscopes[i]);
	fputs("struct context {\n\tstruct ctap_context c;\n", out);
	if (submatch)	/* what the last =~ matched, for matched() and ngroups() */
		fputs("\tstruct {\n\t\tstruct ctap_regex_last last;\n"
		      "\t\tchar str[MAXSTRINGLEN];\n\t} submatch;\n", out);
	if (probes) {
		fputs("\tunion {\n", out);
		for (int i = 0; i < nh; i++)
			if (has_locals(&hscopes[i]))
				fprintf(out, "\t\tstruct probe_%d_locals p%d;\n", i, i);
		fputs("\t} probes;\n", out);
	}
	if (frames) {
		fputs("\tunion {\n", out);
		for (int i = 0; i < nf; i++)
			if (fscopes[i].fn && has_locals(&fscopes[i]))
				fprintf(out, "\t\tstruct f_%s_locals f_%s;\n", fscopes[i].fn->cname,
					fscopes[i].fn->cname);
		fputs("\t} frames[MAXNESTING + 1];\n", out);
	}
	fputs("};\n\n", out);
	if (submatch)
		fputs("#define SUBMATCH(c) (&((struct context *)(c))->submatch)\n", out);
	if (probes)
		fputs("/* The locals of handler p. */\n"
		      "#define PROBE_LOCALS(c, p) (&((struct context *)(c))->probes.p)\n", out);
	if (frames)
		fputs("/* The frame of function f that runs, and of the one it calls. */\n"
		      "#define THIS_FRAME(c, f) (&((struct context *)(c))->frames[(c)->nesting].f)\n"
		      "#define NEXT_FRAME(c, f) (&((struct context *)(c))->frames[(c)->nesting + 1].f)\n",
		      out);
	fputc('\n', out);
}

static void emit_module(struct xlate *x, FILE *out)
{
	fprintf(out, "static const struct ctap_module ctap_module_desc = {\n"
		"\t.name = %s,\n\t.probes = session_probes,\n\t.nprobes = N_SESSION_PROBES,\n"
		"\t.families = families,\n\t.nfamilies = ARRAY_SIZE(families) - 1,\n"
		"\t.context_size = sizeof(struct context),\n\t.init_globals = init_globals,\n"
		"\t.free_globals = free_globals,\n%s%s};\n\n"
		"static int __init ctap_init(void)\n{\n\treturn ctap_module_init(&ctap_module_desc);\n}\n\n"
		"static void __exit ctap_cleanup(void)\n{\n\tctap_module_exit();\n}\n\n"
		"module_init(ctap_init);\nmodule_exit(ctap_cleanup);\nMODULE_LICENSE(\"GPL\");\n"
		"MODULE_DESCRIPTION(\"ctap script %s\");\n",
		gen_c_string(x, session_module_name(x->s)),
		x->s->opt.cgroup_path ?
			arena_printf(x->a, "\t.cgroup_path = %s,\n", gen_c_string(x, x->s->opt.cgroup_path)) : "",
		x->s->opt.timing || x->s->opt.monitor ?
			arena_printf(x->a, "\t.timed = ctap_probes,\n\t.ntimed = %d,\n",
					     x->nprobes) : "",
		x->s->user->src->name);
}

static void free_scopes(struct xscope *sc, int n)
{
	for (int i = 0; i < n; i++) {
		free(sc[i].temps_text);
		free(sc[i].body);
	}
}

int pass3_translate(struct session *s, FILE *out)
{
	struct xlate x = { .s = s, .a = &s->arena };
	struct xscope *fscopes, *hscopes;
	int nf = 0, nh = 0, nentry = 0, i;

	if (sem_translate_errors(s))
		return -1;
	analyses_find_counters(s);	/* before any C: it changes how globals read */
	for (const struct sem_function *f = sem_functions(s); f; f = f->next) {
		nf++;
		/* matched(), ngroups(): every =~ records its groups. */
		if (f->used && f->fn->embedded && strstr(f->fn->embedded, "/* pragma:submatch */"))
			x.submatch = true;
	}
	for (struct sem_handler *h = sem_handlers(s); h; h = h->next)
		nh++;
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next)
		x.nprobes++;
	x.probes = arena_alloc(x.a, (x.nprobes + 1) * sizeof(*x.probes));
	i = 0;
	/* The index, not a search: kernel.function("*") makes tens of thousands. */
	for (const struct derived_probe *d = elab_probes(s); d; d = d->next, i++) {
		x.probes[i].d = d;
		x.probes[i].handler = handler_number(&x, sem_handler_of(s, d));
		x.probes[i].kind = XPROBE_EVENT;
		x.probes[i].entry = sem_handler_of(s, d)->nentries ? nentry++ : -1;
	}
	x.regs_used = arena_alloc(x.a, nh + 1);
	fscopes = arena_alloc(x.a, (nf + 1) * sizeof(*fscopes));
	hscopes = arena_alloc(x.a, (nh + 1) * sizeof(*hscopes));

	/* Bodies first: they find the temporaries of the locals structs. */
	x.statics = open_memstream(&x.statics_text, &x.statics_len);
	i = 0;
	for (const struct sem_function *f = sem_functions(s); f; f = f->next, i++)
		if (f->used)
			gen_function(&x, f, &fscopes[i]);
	i = 0;
	for (struct sem_handler *h = sem_handlers(s); h; h = h->next, i++)
		gen_handler(&x, h, i, &hscopes[i]);

	fclose(x.statics);
	x.families = open_memstream(&x.families_text, &x.families_len);
	x.family_list_f = open_memstream(&x.family_list, &x.family_list_len);
	usyms_emit(&x);		/* first: its tables outlive every probe */
	emit_families(&x);
	fclose(x.families);
	fclose(x.family_list_f);

	if (!x.errors) {
		emit_header(&x, out);
		emit_globals(&x, out);
		if (x.statics_len) {
			fputs("/* ---- constant data ---- */\n\n", out);
			fwrite(x.statics_text, 1, x.statics_len, out);
		}
		fputs("/* ---- locals of handlers and functions ---- */\n\n", out);
		for (i = 0; i < nf; i++)
			if (fscopes[i].fn)
				emit_locals_struct(&x, out, &fscopes[i]);
		for (i = 0; i < nh; i++)
			emit_locals_struct(&x, out, &hscopes[i]);
		emit_context(out, fscopes, nf, hscopes, nh, x.submatch);
		for (i = 0; i < nf; i++)
			if (fscopes[i].fn)
				fprintf(out, "static void __maybe_unused __kprobes f_%s(struct ctap_context *c);\n",
					fscopes[i].fn->cname);
		fputc('\n', out);
		for (i = 0; i < nf; i++) {
			const struct sem_function *f = fscopes[i].fn;

			if (f)
				emit_scope(out, &fscopes[i],
					   gen_c_comment(x.a, arena_printf(x.a, "function %s (%s:%d)",
							f->cname, f->fn->loc.src->name, f->fn->loc.line)),
					   arena_printf(x.a, "f_%s", f->cname),
					   arena_printf(x.a, "THIS_FRAME(c, f_%s)", f->cname));
		}
		i = 0;
		for (struct sem_handler *h = sem_handlers(s); h; h = h->next, i++)
			emit_scope(out, &hscopes[i],
				   gen_c_comment(x.a, arena_printf(x.a, "probe %s (%s:%d)",
						h->site->name, h->probe->loc.src->name, h->probe->loc.line)),
				   arena_printf(x.a, "probe_%d", i),
				   arena_printf(x.a, "PROBE_LOCALS(c, p%d)", i));
		emit_lock_tables(&x, out);
		emit_probes(&x, out);
		fwrite(x.families_text, 1, x.families_len, out);
		emit_session_probes(&x, out);
		fprintf(out, "static const struct ctap_family families[] = {\n%s\t{ .start = NULL }\n};\n\n",
			x.family_list);
		emit_init_globals(&x, out);
		emit_module(&x, out);
	}
	free_scopes(fscopes, nf);
	free_scopes(hscopes, nh);
	free(x.statics_text);
	free(x.families_text);
	free(x.family_list);
	return x.errors ? -EINVAL : 0;
}
