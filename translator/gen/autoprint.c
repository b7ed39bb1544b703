// SPDX-License-Identifier: GPL-2.0
/*
 * autoprint.c - pass 3: SystemTap's printing of unread globals at the end.
 */
#include <string.h>

#include "xlate.h"

/*
 * SystemTap prints the script's globals that are written and never read
 * when the session ends, in declaration order, from an end probe after
 * all others: "count=42", "name=\"x\"", "s @count=2 @min=..." (an empty
 * one "s @count=0x0"), and arrays element by element, by value descending
 * (statistics by @count), as "a[1,\"k\"]=42".
 */
static bool autoprinted(struct xlate *x, const struct var *v)
{
	return xlate_user_global(x, v) && v->used && v->written && !v->rvalue &&
		(v->type == T_LONG || v->type == T_STRING || v->type == T_STATS);
}

static void autoprint_scalar(FILE *out, const struct var *v)
{
	if (v->counter) {
		fprintf(out, "\tctap_printf(c, \"%s=%%d\\n\",\n"
			"\t\t    &(union ctap_arg){ .n = ctap_counter_read(&G.g_%s) }, 1);\n",
			v->name, v->name);
		return;
	}
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

/* --json: {"type":"global","name":"x","value":V}, V a number, a string
 * or a statistic's {"count":...}. */
static void autoprint_json_scalar(FILE *out, const struct var *v)
{
	fprintf(out, "\tctap_out_write(ctap_out(c), \"{\\\"type\\\":\\\"global\\\","
		"\\\"name\\\":\\\"%s\\\",\\\"value\\\":\", %zu);\n",
		v->name, strlen(v->name) + 35);
	if (v->counter)
		fprintf(out, "\tctap_out_dec(ctap_out(c), ctap_counter_read(&G.g_%s));\n", v->name);
	else if (v->type == T_LONG)
		fprintf(out, "\tctap_out_dec(ctap_out(c), G.g_%s);\n", v->name);
	else if (v->type == T_STRING)
		fprintf(out, "\tctap_json_string(ctap_out(c), G.g_%s, strlen(G.g_%s));\n",
			v->name, v->name);
	else
		fprintf(out, "\tctap_json_stat(ctap_out(c), ctap_pstat_aggregate(&spec_%s, &G.g_%s));\n",
			v->name, v->name);
	fputs("\tctap_out_write(ctap_out(c), \"}\\n\", 2);\n", out);
}

/* The entries of an array, sorted as SystemTap prints them (in place:
 * the end probes have run, nothing else walks it). */
static void autoprint_array(FILE *out, const struct var *v, bool json)
{
	fprintf(out, "\tfor (e = ctap_map_walk_first(G.g_%s, &by_value); e >= 0;\n"
		"\t     e = ctap_map_walk_next(G.g_%s, &by_value, e))\n"
		"\t\tctap_map_%s_entry(ctap_out(c), G.g_%s, e, \"%s\");\n",
		v->name, v->name, json ? "json" : "print", v->name, v->name);
}

bool emit_autoprint(struct xlate *x, FILE *out)
{
	int n = 0, arrays = 0, stats = 0;
	struct var **vs;

	for (struct var *v = sem_globals(x->s); v; v = v->next) {
		if (!autoprinted(x, v))
			continue;
		n++;
		arrays += v->nkeys > 0;
		stats += !v->nkeys && v->type == T_STATS;
	}
	if (!n)
		return false;
	fprintf(out, "/* end: the globals written and never read, as SystemTap prints them */\n"
		"static void probe_autoprint(struct ctap_context *c)\n{\n");
	if (arrays)
		fputs("\tconst struct ctap_map_sort by_value = { .column = 0, .dir = -1, .agg = 'c' };\n",
		      out);
	if (stats && !x->s->opt.json)
		fputs("\tstruct ctap_stat *_g;\n", out);
	if (arrays)
		fputs("\tint e;\n", out);
	if (stats || arrays)
		fputc('\n', out);
	/* In declaration order: the list has the last declared first. */
	vs = arena_alloc(x->a, (n + 1) * sizeof(*vs));
	n = 0;
	for (struct var *v = sem_globals(x->s); v; v = v->next)
		if (autoprinted(x, v))
			vs[n++] = v;
	while (n--) {
		if (vs[n]->nkeys)
			autoprint_array(out, vs[n], x->s->opt.json);
		else if (x->s->opt.json)
			autoprint_json_scalar(out, vs[n]);
		else
			autoprint_scalar(out, vs[n]);
	}
	fputs("}\nNOKPROBE_SYMBOL(probe_autoprint);\n\n", out);
	return true;
}

