// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - pass 3 of stap --monitor's two builtins, which only the
 * probes front/pass1.c adds can call: __monitor_status() writes the
 * session's state as JSON into monitor_status (kmod-runtime/monitor.c
 * writes the head and the probes, this the globals), __monitor_control(v)
 * obeys a command written to monitor_control, resetting every global for
 * "clear".  Both hold every global's lock (analyses.c).
 */
#include <string.h>

#include "gen_internal.h"
#include "monitor.h"
#include "xlate.h"

bool gen_is_monitor_call(const struct expr *e)
{
	return e->kind == E_CALL && (!strcmp(e->name, "__monitor_status") ||
				     !strcmp(e->name, "__monitor_control"));
}

/* The user's globals that exist in C, in declaration order. */
static struct var **monitored(struct xlate *x, int *n)
{
	struct var **vs;
	int count = 0;

	for (struct var *v = sem_globals(x->s); v; v = v->next)
		count++;
	vs = arena_alloc(x->a, (count + 1) * sizeof(*vs));
	*n = 0;
	/* The list has the last declared first. */
	for (struct var *v = sem_globals(x->s); v; v = v->next)
		if (xlate_user_global(x, v) && v->used && v->type != T_UNKNOWN)
			vs[(*n)++] = v;
	for (int i = 0; i < *n / 2; i++) {
		struct var *t = vs[i];

		vs[i] = vs[*n - 1 - i];
		vs[*n - 1 - i] = t;
	}
	return vs;
}

/* __monitor_status(): {"uptime": ..., "globals": {...}, "probe_list": [...]} */
static void monitor_status(struct xlate *x)
{
	int n;
	struct var **vs = monitored(x, &n);

	gen_emit(x, "{");
	x->depth++;
	gen_emit(x, "struct ctap_out mon;");
	gen_blank(x);
	gen_emit(x, "ctap_monitor_begin(c, &mon);");
	for (int i = 0; i < n; i++) {
		const struct var *v = vs[i];

		gen_emit(x, "ctap_monitor_name(&mon, %s, %s);", gen_c_string(x, v->name),
			 i ? "false" : "true");
		if (v->nkeys)
			gen_emit(x, "ctap_monitor_map(&mon, G.g_%s);", v->name);
		else if (v->type == T_STATS)
			gen_emit(x, "ctap_monitor_stat(&mon, ctap_pstat_aggregate(&spec_%s, &G.g_%s));",
				 v->name, v->name);
		else if (v->counter)
			gen_emit(x, "ctap_out_dec(&mon, ctap_counter_read(&G.g_%s));", v->name);
		else if (v->type == T_STRING)
			gen_emit(x, "ctap_json_string(&mon, G.g_%s, strlen(G.g_%s));", v->name, v->name);
		else
			gen_emit(x, "ctap_out_dec(&mon, G.g_%s);", v->name);
	}
	gen_emit(x, "ctap_monitor_end(c, &mon);");
	x->depth--;
	gen_emit(x, "}");
}

/* __monitor_control($value): "clear" sets each global as the module
 * started it (its -G value or initializer: param_NAME). */
static void monitor_control(struct xlate *x, const struct expr *e)
{
	const char *cmd = gen_expr(x, e->args);
	int n;
	struct var **vs = monitored(x, &n);

	gen_emit(x, "if (ctap_monitor_control(c, %s)) {", cmd);
	x->depth++;
	for (int i = 0; i < n; i++) {
		const struct var *v = vs[i];

		if (v->nkeys)
			gen_emit(x, "ctap_map_clear(G.g_%s);", v->name);
		else if (v->type == T_STATS)
			gen_emit(x, "ctap_pstat_clear(&G.g_%s);", v->name);
		else if (v->counter)
			gen_emit(x, "ctap_counter_set(&G.g_%s, param_%s);", v->name, v->name);
		else if (v->type == T_STRING)
			gen_emit(x, "strscpy(G.g_%s, param_%s, MAXSTRINGLEN);", v->name, v->name);
		else
			gen_emit(x, "G.g_%s = param_%s;", v->name, v->name);
	}
	x->depth--;
	gen_emit(x, "}");
}

const char *gen_monitor_call(struct xlate *x, const struct expr *e)
{
	if (!strcmp(e->name, "__monitor_status"))
		monitor_status(x);
	else
		monitor_control(x, e);
	return "0LL";
}
