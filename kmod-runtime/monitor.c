// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - stap --monitor: the session's state for staprun -M.
 *
 * The translator adds two procfs probes (translator/front/pass1.c): a read
 * of monitor_status writes this JSON, SystemTap's shape, into the file's
 * buffer (the generated handler writes the globals between begin and end):
 *
 *   {"uptime": "00:01:05", "uid": "0", "memory": "...", "module_name": "...",
 *    "globals": {"n": 42, "s": {"@count": 3, ...}, "a": {"(1, \"x\")": 5}},
 *    "probe_list": [{"index": 0, "state": "on", "hits": 7, "min": 80,
 *                    "avg": 95, "max": 130, "name": "timer.ms(100)"}, ...]}
 *
 * Costs in cycles, as -t's report.  A write of monitor_control switches
 * event probes off and on; an event probe switched off returns before its
 * handler, as if it had not fired (entry.h).  Without --monitor none of
 * this is compiled.
 */
#ifdef CTAP_MONITOR
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "core/json.h"
#include "core/map.h"
#include "monitor.h"
#include "probes/procfs.h"

/* Room kept for what ctap_monitor_end() writes after the globals. */
#define MONITOR_TAIL	(64 * 1024)

static const struct ctap_module *mon_m;
static bool *mon_off;			/* per timed probe: switched off */
static unsigned long mon_start;		/* jiffies when the module loaded */

int ctap_monitor_init(const struct ctap_module *m)
{
	mon_off = kcalloc(m->ntimed ? m->ntimed : 1, sizeof(*mon_off), GFP_KERNEL);
	if (!mon_off)
		return -ENOMEM;
	mon_m = m;
	mon_start = jiffies;
	return 0;
}

void ctap_monitor_free(void)
{
	kfree(mon_off);
	mon_off = NULL;
}

/* Only event probes switch off: begin, end and error always run. */
notrace bool ctap_monitor_off(const struct ctap_probe *p)
{
	return p->timing && p->kind == CTAP_PROBE_EVENT && READ_ONCE(mon_off[p->timing - 1]);
}

static void out_str(struct ctap_out *o, const char *s)
{
	ctap_out_write(o, s, strlen(s));
}

static void out_fmt(struct ctap_out *o, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ctap_out_write(o, buf, n);
}

/* The head, up to the globals' first member. */
void ctap_monitor_begin(struct ctap_context *c, struct ctap_out *o)
{
	struct ctap_procfs_value *v = ctap_procfs_of(c);
	unsigned long up = (jiffies - mon_start) / HZ;
	size_t ctx = array_size(nr_cpu_ids, mon_m->context_size);

	ctap_out_init(o, v->buf, v->size > MONITOR_TAIL * 2 ? v->size - MONITOR_TAIL : v->size / 2);
	out_fmt(o, "{\n\"uptime\": \"%02lu:%02lu:%02lu\",\n", up / 3600, up / 60 % 60, up % 60);
	out_fmt(o, "\"uid\": \"%u\",\n", from_kuid_munged(current_user_ns(), current_uid()));
	out_fmt(o, "\"memory\": \"%zuctx/%zualloc kb\",\n", ctx / 1024,
		(ctap_reserved() - min(ctx, ctap_reserved())) / 1024);
	out_fmt(o, "\"module_name\": \"%s\",\n\"globals\": {", mon_m->name);
}

/* "name": before a global's value; a comma before all but the first. */
void ctap_monitor_name(struct ctap_out *o, const char *name, bool first)
{
	out_str(o, first ? "\n" : ",\n");
	ctap_json_string(o, name, strlen(name));
	out_str(o, ": ");
}

/* SystemTap's object of a statistic: its values, all 0 while empty. */
void ctap_monitor_stat(struct ctap_out *o, const struct ctap_stat *st)
{
	bool any = st->count;

	out_fmt(o, "{\"@count\": %lld, \"@min\": %lld, \"@max\": %lld, ", st->count,
		any ? st->min : 0, any ? st->max : 0);
	out_fmt(o, "\"@sum\": %lld, \"@avg\": %lld}", any ? st->sum : 0,
		any ? ctap_stat_avg(st) : 0);
}

/* The key as one JSON string, "(1, \"x\")": written plain, then
 * escaped where it is (no second buffer on the stack). */
static void map_key(struct ctap_out *o, struct ctap_map *m, int e)
{
	size_t start;

	out_str(o, "\"");
	start = o->len;
	out_str(o, "(");
	for (int i = 0; i < m->spec.nkeys; i++) {
		if (i)
			out_str(o, ", ");
		if (m->spec.keys[i] == CTAP_STRING) {
			out_str(o, "\"");
			out_str(o, ctap_map_key_string(m, e, i));
			out_str(o, "\"");
		} else {
			out_fmt(o, "%lld", ctap_map_key_long(m, e, i));
		}
	}
	out_str(o, ")");
	ctap_json_escape_tail(o, start, 1);
	out_str(o, "\"");
}

/*
 * An array as {"(keys)": value, ...}, in insertion order (a sort would
 * reorder it, which a read lock does not allow).  One that does not fit
 * in what is left of the buffer is said so, the JSON still whole.
 */
void ctap_monitor_map(struct ctap_out *o, struct ctap_map *m)
{
	const struct ctap_map_sort none = { 0 };
	size_t start = o->len;
	bool first = true;

	out_str(o, "{");
	for (int e = ctap_map_walk_first(m, &none); e >= 0 && !o->truncated;
	     e = ctap_map_walk_next(m, &none, e)) {
		out_str(o, first ? "" : ", ");
		first = false;
		map_key(o, m, e);
		out_str(o, ": ");
		ctap_map_json_value(o, m, e, ctap_monitor_stat);
	}
	out_str(o, "}");
	if (o->truncated) {
		o->len = start;
		o->truncated = false;
		out_str(o, "\"(too large for monitor_status)\"");
	}
}

/* The probes, each with its hits and cost; then the end of the object. */
void ctap_monitor_end(struct ctap_context *c, struct ctap_out *o)
{
	struct ctap_procfs_value *v = ctap_procfs_of(c);
	bool first = true;

	/* The tail's room, less what closes the list and the NUL. */
	o->size = v->size - 1 - 8;
	o->truncated = false;
	out_str(o, "\n},\n\"probe_list\": [");
	for (int i = 0; i < mon_m->ntimed; i++) {
		const struct ctap_probe *p = &mon_m->timed[i];
		size_t before = o->len;
		struct ctap_stat *st;

		if (!p->timing)
			continue;	/* the monitor's own files */
		st = ctap_timing_stat(i);
		out_fmt(o, "%s\n{\"index\": %d, \"state\": \"%s\", \"hits\": %lld, ", first ? "" : ",",
			i, ctap_monitor_off(p) ? "off" : "on", st->count);
		out_fmt(o, "\"min\": %lld, \"avg\": %lld, \"max\": %lld, \"name\": ",
			st->count ? st->min : 0, st->count ? ctap_stat_avg(st) : 0,
			st->count ? st->max : 0);
		ctap_json_string(o, p->pp, strlen(p->pp));
		out_str(o, "}");
		first = false;
		if (o->truncated) {
			o->len = before;	/* the probes that fit, whole */
			break;
		}
	}
	o->size += 8;
	o->truncated = false;
	out_str(o, "\n]\n}\n");
	v->len = o->len;
	v->buf[v->len] = '\0';
}

/* cmd's first word (a write of "pause\n" is "pause"), at most size - 1
 * bytes of it.  By hand: a kernel helper called here could not be probed. */
static void first_word(const char *cmd, char *word, size_t size)
{
	size_t n = 0;

	while (*cmd == ' ' || *cmd == '\t' || *cmd == '\n')
		cmd++;
	while (n + 1 < size && cmd[n] && cmd[n] != ' ' && cmd[n] != '\t' && cmd[n] != '\n') {
		word[n] = cmd[n];
		n++;
	}
	word[n] = '\0';
}

/* A probe's index, or -1 if word is not one. */
static int probe_index(const char *word)
{
	int i = 0;

	if (!*word)
		return -1;
	for (; *word; word++) {
		if (*word < '0' || *word > '9' || i > mon_m->ntimed)
			return -1;
		i = i * 10 + (*word - '0');
	}
	return i < mon_m->ntimed && mon_m->timed[i].timing ? i : -1;
}

/*
 * A command written to monitor_control: "pause", "resume", a probe's
 * index (switches it), "quit".  True for "clear": the caller sets the
 * globals back to their initial values, holding their locks.
 */
bool ctap_monitor_control(struct ctap_context *c, const char *cmd)
{
	char word[16];
	int i;

	first_word(cmd, word, sizeof(word));
	if (!strcmp(word, "clear"))
		return true;
	if (!strcmp(word, "quit")) {
		ctap_exit();
	} else if (!strcmp(word, "pause") || !strcmp(word, "resume")) {
		for (i = 0; i < mon_m->ntimed; i++)
			WRITE_ONCE(mon_off[i], word[0] == 'p');
	} else if ((i = probe_index(word)) >= 0) {
		WRITE_ONCE(mon_off[i], !mon_off[i]);
	}
	return false;
}
#endif /* CTAP_MONITOR */
