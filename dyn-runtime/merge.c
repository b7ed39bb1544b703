// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - stap --remote-merge, the fleet's end: the merged globals read
 * from $CTAP_MERGE_FILE (written by stap, translator/build/fleet.c) into
 * this user-space module's globals before its end probes run.  The
 * format is kmod-runtime/ctap_runtime.h's (CTAP_MERGE_TAG); each
 * statistic is one part, the fleet's aggregate, stored in slot 0.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "ctap_runtime.h"

/* The next space-separated field of *p as a number; false at the end. */
static bool field_num(char **p, int64_t *v)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!**p || **p == '\n')
		return false;
	*v = strtoll(*p, &end, 10);
	if (end == *p)
		return false;
	*p = end;
	return true;
}

/* " SHIFT NBUCKETS count sum min max avg_s variance_s B:C..." */
static bool parse_stat(char **p, struct ctap_stat *s)
{
	int64_t shift, nb, b, cnt;

	memset(s, 0, sizeof(*s));
	if (!field_num(p, &shift) || !field_num(p, &nb) || !field_num(p, &s->count) ||
	    !field_num(p, &s->sum) || !field_num(p, &s->min) || !field_num(p, &s->max) ||
	    !field_num(p, &s->avg_s) || !field_num(p, &s->variance_s))
		return false;
	while (field_num(p, &b)) {
		if (**p != ':' || b < 0 || b >= CTAP_HIST_MAX_BUCKETS)
			return false;
		(*p)++;
		if (!field_num(p, &cnt))
			return false;
		s->hist[b] = cnt;
	}
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* " i-12" or " x6869" (a string's bytes in hex), into key slot i. */
static bool parse_key(char **p, const struct ctap_map_spec *ms, int i, struct ctap_key *k,
		      char *buf, size_t size)
{
	size_t n = 0;

	while (**p == ' ')
		(*p)++;
	if (**p == 'i' && ms->keys[i] == CTAP_LONG) {
		(*p)++;
		return field_num(p, &k->n[i]);
	}
	if (**p != 'x' || ms->keys[i] != CTAP_STRING)
		return false;
	for ((*p)++; hexval((*p)[0]) >= 0 && hexval((*p)[1]) >= 0 && n + 1 < size; *p += 2)
		buf[n++] = (char)(hexval((*p)[0]) << 4 | hexval((*p)[1]));
	buf[n] = '\0';
	k->s[i] = buf;
	return **p == ' ' || **p == '\n' || !**p;
}

static bool load_entry(const struct ctap_merge_var *v, char *p, bool stats)
{
	static char keybuf[CTAP_MAX_KEYS][CTAP_MAXSTRINGLEN_DEFAULT * 8];
	struct ctap_key key = { 0 };
	struct ctap_stat st;
	int64_t nkeys, val;
	int e;

	if (!v->map || !field_num(&p, &nkeys) || nkeys != v->mspec->nkeys)
		return false;
	for (int i = 0; i < nkeys; i++)
		if (!parse_key(&p, v->mspec, i, &key, keybuf[i], sizeof(keybuf[i])))
			return false;
	if (stats ? !parse_stat(&p, &st) : !field_num(&p, &val))
		return false;
	e = ctap_map_find(*v->map, &key, true);
	if (e < 0)
		return false;
	if (stats)
		*ctap_map_stat(*v->map, e) = st;
	else
		*ctap_map_long(*v->map, e) = val;
	return true;
}

static bool load_line(const struct ctap_merge_var *vars, int n, char *line)
{
	char kind, *p, *name;
	const struct ctap_merge_var *v = NULL;
	struct ctap_stat st;
	int64_t val;

	if (strncmp(line, CTAP_MERGE_TAG, sizeof(CTAP_MERGE_TAG) - 1))
		return false;
	p = line + sizeof(CTAP_MERGE_TAG) - 1;
	kind = *p++;
	if (kind == 'v' || kind == 'e')
		return true;
	if (*p++ != ' ')
		return false;
	name = p;
	p += strcspn(p, " \n");
	if (*p)
		*p++ = '\0';
	for (int i = 0; i < n && !v; i++)
		if (!strcmp(vars[i].name, name))
			v = &vars[i];
	if (!v)
		return false;
	switch (kind) {
	case 'n':
		if (!field_num(&p, &val))
			return false;
		if (v->num)
			*v->num = val;
		else if (v->counter)
			ctap_counter_set(v->counter, val);
		return v->num || v->counter;
	case 's':
		if (!v->pstat || !parse_stat(&p, &st))
			return false;
		*per_cpu_ptr(v->pstat->cpu, 0) = st;
		return true;
	case 'a':
	case 'A':
		return load_entry(v, p, kind == 'A');
	}
	return false;
}

int ctap_merge_load(const struct ctap_merge_var *vars, int n)
{
	const char *path = getenv("CTAP_MERGE_FILE");
	FILE *f = path ? fopen(path, "re") : NULL;
	char *line = NULL;
	size_t cap = 0;
	int ret = f ? 0 : -1;

	while (f && getline(&line, &cap, f) > 0)
		if (!load_line(vars, n, line))
			ret = -1;
	free(line);
	if (f)
		fclose(f);
	return ret;
}
