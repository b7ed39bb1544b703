// SPDX-License-Identifier: GPL-2.0
/*
 * test_monitor_view.c - staprun -M's status panel (staprun/monitor_view.c)
 * from monitor_status as kmod-runtime/monitor.c writes it: the lines, the
 * sort orders, the width, the scroll, and text that is not its JSON.
 */
#include <errno.h>
#include <stdlib.h>

#include "monitor_view.h"
#include "unit.h"

/* run/monitor_files' first read, in the guest (cycles as they were). */
static const char status[] =
	"{\n\"uptime\": \"00:01:05\",\n\"uid\": \"0\",\n\"memory\": \"16ctx/1090alloc kb\",\n"
	"\"module_name\": \"t_monitor_files\",\n\"globals\": {\n\"n\": 5,\n"
	"\"s\": {\"@count\": 5, \"@min\": 2, \"@max\": 2, \"@sum\": 10, \"@avg\": 2},\n"
	"\"a\": {\"(\\\"getpid_loop\\\", 1)\": 5},\n\"who\": \"getpid_loop\"\n},\n"
	"\"probe_list\": [\n"
	"{\"index\": 0, \"state\": \"on\", \"hits\": 6, \"min\": 1520, \"avg\": 2711, "
	"\"max\": 7409, \"name\": \"kprobe.function(\\\"__x64_sys_getpid\\\")\"},\n"
	"{\"index\": 1, \"state\": \"off\", \"hits\": 0, \"min\": 0, \"avg\": 0, \"max\": 0, "
	"\"name\": \"end\"},\n"
	"{\"index\": 2, \"state\": \"on\", \"hits\": 12, \"min\": 900, \"avg\": 1000, "
	"\"max\": 1100, \"name\": \"timer.ms(100)\"}\n]\n}\n";

static char *format(const char *json, enum mon_column sort, int cols, int rows, int scroll)
{
	struct mon_status st;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	if (mon_status_parse(json, &st))
		return NULL;
	f = open_memstream(&text, &size);
	mon_status_sort(&st, sort);
	mon_status_format(&st, sort, cols, rows, scroll, f);
	fclose(f);
	mon_status_free(&st);
	return text;
}

int main(void)
{
	struct mon_status st;
	char *t;

	t = format(status, MON_INDEX, 80, 10, 0);
	CHECK_STR(t,
		  "uptime: 00:01:05 uid: 0 memory: 16ctx/1090alloc kb\n"
		  "module_name: t_monitor_files probes: 3\n"
		  "globals: n: 5 s: { \"@count\": 5, \"@min\": 2, \"@max\": 2, \"@sum\": 10, \"@avg\": 2 }\n"
		  "globals: a: { \"(\\\"getpid_loop\\\", 1)\": 5 } who: getpid_loop\n"
		  "\n"
		  "index*  state  hits   min   avg   max  name\n"
		  "     0     on     6  1520  2711  7409  kprobe.function(\"__x64_sys_getpid\")\n"
		  "     1    off     0     0     0     0  end\n"
		  "     2     on    12   900  1000  1100  timer.ms(100)\n",
		  "the panel, by index, 80 columns");
	free(t);

	t = format(status, MON_HITS, 80, 10, 0);
	CHECK(t && strstr(t, "hits*") && strstr(t, "12   900") < strstr(t, "6  1520") &&
	      strstr(t, "6  1520") < strstr(t, "0     0     0  end"), "by hits: 12, 6, 0 (%s)", t);
	free(t);
	t = format(status, MON_NAME, 80, 10, 0);
	CHECK(t && strstr(t, "  end\n") < strstr(t, "kprobe.") && strstr(t, "kprobe.") <
	      strstr(t, "timer."), "by name: end, kprobe, timer (%s)", t);
	free(t);
	t = format(status, MON_STATE, 80, 10, 0);
	CHECK(t && strstr(t, "off") < strstr(t, "on     6"), "by state: off first (%s)", t);
	free(t);

	/* 40 columns: names cut; the globals that fit on no line left out. */
	t = format(status, MON_INDEX, 40, 1, 1);
	CHECK_STR(t,
		  "uptime: 00:01:05 uid: 0 memory: 16ctx/1090alloc kb\n"
		  "module_name: t_monitor_files probes: 3\n"
		  "globals: n: 5 who: getpid_loop\n"
		  "\n"
		  "index*  state  hits   min   avg   max  name\n"
		  "     1    off     0     0     0     0  e\n",
		  "40 columns, one row from the second");
	free(t);

	CHECK_INT(mon_status_parse("(data not available)", &st), -EINVAL, "not JSON");
	CHECK_INT(mon_status_parse("{\"uptime\": \"00:00:01\"}", &st), -EINVAL, "no probe_list");
	CHECK_INT(mon_status_parse("", &st), -EINVAL, "empty (the module stopped)");
	CHECK_INT(mon_status_parse("{\"globals\": {}, \"probe_list\": []}", &st), 0, "no probe at all");
	CHECK_INT(st.nprobes, 0, "... none");
	mon_status_free(&st);
	return unit_done();
}
