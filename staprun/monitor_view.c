// SPDX-License-Identifier: GPL-2.0
/*
 * monitor_view.c - staprun -M's status panel as text: the module's
 * monitor_status JSON (kmod-runtime/monitor.c) read with json-c, the
 * probes sorted by a column, written as lines that fit the terminal.
 * monitor.c draws them; a unit test reads them (testsuite/unit).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "monitor_view.h"

const char *const mon_column_names[MON_NCOLUMNS] = {
	"index", "state", "hits", "min", "avg", "max", "name",
};

static const char *field_string(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static long long field_int(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

int mon_status_parse(const char *json, struct mon_status *st)
{
	json_object *list;

	memset(st, 0, sizeof(*st));
	st->root = json_tokener_parse(json);
	if (!st->root || !json_object_is_type(st->root, json_type_object))
		goto bad;
	if (!json_object_object_get_ex(st->root, "probe_list", &list) ||
	    !json_object_is_type(list, json_type_array) ||
	    !json_object_object_get_ex(st->root, "globals", &st->globals) ||
	    !json_object_is_type(st->globals, json_type_object))
		goto bad;
	st->uptime = field_string(st->root, "uptime");
	st->uid = field_string(st->root, "uid");
	st->memory = field_string(st->root, "memory");
	st->module = field_string(st->root, "module_name");
	st->nprobes = json_object_array_length(list);
	st->probes = calloc(st->nprobes ? st->nprobes : 1, sizeof(*st->probes));
	if (!st->probes) {
		mon_status_free(st);
		return -ENOMEM;
	}
	for (int i = 0; i < st->nprobes; i++) {
		json_object *p = json_object_array_get_idx(list, i);
		struct mon_probe *mp = &st->probes[i];

		mp->v[MON_INDEX] = field_int(p, "index");
		mp->v[MON_HITS] = field_int(p, "hits");
		mp->v[MON_MIN] = field_int(p, "min");
		mp->v[MON_AVG] = field_int(p, "avg");
		mp->v[MON_MAX] = field_int(p, "max");
		mp->state = field_string(p, "state");
		mp->name = field_string(p, "name");
	}
	return 0;
bad:
	mon_status_free(st);
	return -EINVAL;
}

void mon_status_free(struct mon_status *st)
{
	if (st->root)
		json_object_put(st->root);
	free(st->probes);
	memset(st, 0, sizeof(*st));
}

/* SystemTap's orders: index, state and name ascending, numbers descending. */
static enum mon_column sort_column;

static int compare(const void *a, const void *b)
{
	const struct mon_probe *p = a, *q = b;
	int c = sort_column;

	if (c == MON_STATE)
		return strcmp(p->state, q->state);
	if (c == MON_NAME)
		return strcmp(p->name, q->name);
	if (c == MON_INDEX)
		return (p->v[c] > q->v[c]) - (p->v[c] < q->v[c]);
	return (p->v[c] < q->v[c]) - (p->v[c] > q->v[c]);
}

void mon_status_sort(struct mon_status *st, enum mon_column column)
{
	sort_column = column;
	qsort(st->probes, st->nprobes, sizeof(*st->probes), compare);
}

/* "name: value" of each global, as many on a line as fit in cols; one
 * that fits on no line is left out, as SystemTap's view does. */
static void format_globals(const struct mon_status *st, int cols, FILE *out)
{
	const int prefix = (int)strlen("globals: ");
	int used = 0;

	json_object_object_foreach(st->globals, name, value) {
		const char *text = json_object_get_string(value);
		int len = (int)(strlen(name) + 2 + strlen(text));

		if (prefix + len > cols)
			continue;
		if (used && used + 1 + len > cols) {
			fputc('\n', out);
			used = 0;
		}
		used += fprintf(out, used ? " %s: %s" : "globals: %s: %s", name, text);
	}
	if (used)
		fputc('\n', out);
}

static int digits(long long v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%lld", v);
}

void mon_status_format(const struct mon_status *st, enum mon_column sort, int cols, int rows,
		       int scroll, FILE *out)
{
	int width[MON_NCOLUMNS] = { 0 };
	char head[64];
	int used;

	fprintf(out, "uptime: %s uid: %s memory: %s\n", st->uptime, st->uid, st->memory);
	fprintf(out, "module_name: %s probes: %d\n", st->module, st->nprobes);
	format_globals(st, cols, out);
	for (int c = 0; c < MON_NAME; c++)
		width[c] = (int)strlen(mon_column_names[c]) + (c == (int)sort);
	for (int i = 0; i < st->nprobes; i++) {
		const struct mon_probe *p = &st->probes[i];

		for (int c = 0; c < MON_NAME; c++) {
			int w = c == MON_STATE ? (int)strlen(p->state) : digits(p->v[c]);

			width[c] = w > width[c] ? w : width[c];
		}
	}
	fprintf(out, "\n");
	for (int c = 0; c < MON_NCOLUMNS; c++) {
		snprintf(head, sizeof(head), "%s%s", mon_column_names[c], c == (int)sort ? "*" : "");
		if (c < MON_NAME)
			fprintf(out, "%*s  ", width[c], head);
		else
			fputs(head, out);
	}
	fprintf(out, "\n");
	for (int i = scroll < 0 ? 0 : scroll; i < st->nprobes && rows-- > 0; i++) {
		const struct mon_probe *p = &st->probes[i];

		used = fprintf(out, "%*lld  %*s  ", width[MON_INDEX], p->v[MON_INDEX],
			       width[MON_STATE], p->state);
		for (int c = MON_HITS; c < MON_NAME; c++)
			used += fprintf(out, "%*lld  ", width[c], p->v[c]);
		fprintf(out, "%.*s\n", cols > used ? cols - used : 0, p->name);
	}
}
