/* SPDX-License-Identifier: GPL-2.0 */
/*
 * monitor_view.h - staprun -M's status panel as text (monitor_view.c).
 */
#ifndef STAPRUN_MONITOR_VIEW_H
#define STAPRUN_MONITOR_VIEW_H

#include <stdio.h>

#include <json-c/json.h>

/* The probe table's columns; 's' in the view moves the sort to the next. */
enum mon_column { MON_INDEX, MON_STATE, MON_HITS, MON_MIN, MON_AVG, MON_MAX, MON_NAME,
		  MON_NCOLUMNS };
extern const char *const mon_column_names[MON_NCOLUMNS];

struct mon_probe {
	long long v[MON_NCOLUMNS];	/* index, hits, min, avg, max (cycles) */
	const char *state;		/* "on" or "off" */
	const char *name;
};

/* One read of monitor_status; the strings live in root. */
struct mon_status {
	json_object *root;
	const char *uptime, *uid, *memory, *module;
	json_object *globals;
	struct mon_probe *probes;
	int nprobes;
};

/* 0, -EINVAL for text that is not the module's JSON, or -ENOMEM. */
int mon_status_parse(const char *json, struct mon_status *st);
void mon_status_free(struct mon_status *st);
void mon_status_sort(struct mon_status *st, enum mon_column column);
/*
 * The panel into out, each line ended by '\n': the session's line, the
 * module's, the globals (lines of at most cols, a global longer than one
 * left out), a blank line, the table's head (the sort column starred),
 * then at most rows of probes from the scroll'th, their names cut to
 * cols.  The drawing cuts what is still wider.
 */
void mon_status_format(const struct mon_status *st, enum mon_column sort, int cols, int rows,
		       int scroll, FILE *out);

#endif /* STAPRUN_MONITOR_VIEW_H */
