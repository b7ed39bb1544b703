// SPDX-License-Identifier: GPL-2.0
/*
 * elaborate.c - probe point matching: patterns, wildcards, aliases.
 *
 * Every provider pattern ("timer.ms(number)") and every alias name from
 * the tapsets and the script ("syscall.read") is a pattern.  A written
 * probe point is brace-expanded, then matched against all patterns: a
 * component name may hold * wildcards (fnmatch), "**" stands for any number
 * of argument-less components (inside a name, "*sys**pen", for any text
 * across dots: syscall.open), and arguments must agree in kind.  A match
 * on a provider pattern asks the provider for concrete probes; a match on
 * an alias resolves the alias's own probe points in turn.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "elaborate.h"
#include "kbtf.h"
#include "print.h"
#include "provider.h"
#include "strset.h"
#include "unprobeable.h"
#include "xalloc.h"

#define MAX_EXPANSIONS	4096	/* brace expansion results per point */
/* Alias expansions per point of the user's script: a name defined many
 * times, each using the others, fans out at every level (the fuzzer's
 * 800-byte script took 19 s before this bound). */
#define MAX_ALIAS_EXPANSIONS	10000

enum arg_kind { ARG_NONE, ARG_STRING, ARG_NUMBER };

struct pattern {
	struct pattern *next;
	struct pattern *next_head;	/* the next with the same first component */
	const char *text;		/* as written, e.g. "timer.ms(number)" */
	const struct provider *provider;	/* or NULL for an alias */
	int index;			/* in provider->patterns */
	const struct probe *alias;
	int n;
	struct {
		const char *name;
		enum arg_kind arg;
	} comp[MAX_PP_COMPONENTS];
};

struct elab {
	struct session *s;
	struct arena *arena;
	struct pattern *patterns;
	struct strmap heads;		/* first component -> its first pattern */
	struct unprobeable unprobeable;
	bool unprobeable_loaded;
	struct derived_probe *probes, **tail;
	int nprobes;
	const struct probe_point *reported;	/* point whose context was printed */
	bool listing;			/* -l: aliases are listed, not expanded */
	const struct probe_point *written;	/* the user's point being resolved */
	const struct probe *probe;		/* ... and its probe */
	const struct probe *alias_stack[MAX_ALIAS_DEPTH];
	const char *alias_names[MAX_ALIAS_DEPTH];	/* ... the names they matched as */
	int depth;
	int expansions;			/* aliases expanded for the user's point */
	int optional_nest;		/* "?" alias points being expanded */
	const char *skipped_why;	/* the last optional point's error, skipped */
	void *provider_state[MAX_PROVIDERS];	/* elab_provider_state() */
};

/* ---- services for providers ---- */

struct arena *elab_arena(struct elab *elab)
{
	return elab->arena;
}

struct session *elab_session(struct elab *elab)
{
	return elab->s;
}

void **elab_provider_state(struct elab *elab, const struct provider *p)
{
	int i = 0;

	while (providers[i] != p)
		i++;
	return &elab->provider_state[i];
}

struct btf *elab_btf(struct elab *elab)
{
	return session_btf(elab->s);
}

const char *elab_unprobeable(struct elab *elab, const char *func, bool is_return)
{
	if (!elab->unprobeable_loaded) {
		const char *dir = session_runtime_dir(elab->s);
		int ret = unprobeable_load(&elab->unprobeable, dir);

		/* Without it a probe could land on what the handler calls. */
		if (ret)
			diag_error("semantic", NULL, NULL, "cannot read %s/callees.txt: %s",
				   dir, strerror(-ret));
		elab->unprobeable_loaded = true;
	}
	return unprobeable_why(&elab->unprobeable, func, is_return);
}

struct derived_probe *elab_add(struct elab *elab, const struct pp_match *m, const char *name)
{
	struct derived_probe *d = arena_new(elab->arena, struct derived_probe);

	/* A provider without a family would leave probe_type() nothing to
	 * say: a bug of the translator, whatever the script.  (-L lists an
	 * alias as a probe of no provider, never translated.) */
	assert(!m->provider || m->provider->family);
	d->provider = m->provider;
	d->family = m->provider ? m->provider->family : NULL;
	d->name = arena_strndup(elab->arena, name, strlen(name));	/* callers pass buffers */
	d->match = m;
	d->written = elab->written;
	d->probe = elab->probe;
	d->naliases = elab->depth;
	if (elab->depth)
		d->pn = arena_strndup(elab->arena, elab->alias_names[0], strlen(elab->alias_names[0]));
	memcpy(d->aliases, elab->alias_stack, elab->depth * sizeof(*d->aliases));
	d->seq = elab->nprobes++;
	*elab->tail = d;
	elab->tail = &d->next;
	return d;
}

struct probe_var *elab_add_var(struct elab *elab, struct derived_probe *d, const char *name,
			       const char *type, __u32 btf_id, int arg)
{
	struct probe_var *v = arena_new(elab->arena, struct probe_var), **tail = &d->vars;

	v->name = name;
	v->type = type;
	v->btf_id = btf_id;
	v->arg = arg;
	v->regs_arg = -1;
	while (*tail)
		tail = &(*tail)->next;
	*tail = v;
	return v;
}

/* SystemTap's two-part message: where, once per point, then what. */
static void point_context(struct elab *elab, const struct probe_point *pp)
{
	const struct pp_component *c = pp->components;

	if (elab->reported == pp)
		return;
	elab->reported = pp;
	diag_error("semantic", &c->loc, arena_printf(elab->arena, "identifier '%s'", c->name),
		   "while resolving probe point");
}

static void point_error(struct elab *elab, const struct pp_match *m, const char *fmt, va_list ap)
{
	point_context(elab, m->pp);
	diag_verror("semantic", NULL, NULL, fmt, ap);
}

static bool point_optional(const struct elab *elab, const struct pp_match *m)
{
	return m->pp->optional || elab->optional_nest || (elab->written && elab->written->optional);
}

bool elab_optional(const struct elab *elab, const struct pp_match *m)
{
	if (elab->listing && !elab->depth)
		return false;
	return point_optional(elab, m);
}

void elab_error(struct elab *elab, const struct pp_match *m, const char *fmt, ...)
{
	va_list ap;

	/* "?" means: a point that does not resolve is skipped, silently, and
	 * so is what the aliases it names expand to; -vv says why (run-tests
	 * dyn tells a script with an optional kernel probe by it). */
	if (point_optional(elab, m)) {
		char why[256];

		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		elab->skipped_why = arena_printf(elab->arena, "%s", why);
		if (elab->s->opt.verbose >= 2) {
			fputs("Pass 2: optional probe point skipped: ", stderr);
			va_start(ap, fmt);
			vfprintf(stderr, fmt, ap);
			va_end(ap);
			fputc('\n', stderr);
		}
		return;
	}

	va_start(ap, fmt);
	point_error(elab, m, fmt, ap);
	va_end(ap);
}

void elab_limit_error(struct elab *elab, const struct pp_match *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	point_error(elab, m, fmt, ap);
	va_end(ap);
}

/* ---- patterns ---- */

/* "timer.ms(number).randomize(number)" into components. */
static struct pattern *pattern_from_text(struct elab *elab, const char *text)
{
	struct pattern *p = arena_new(elab->arena, struct pattern);
	const char *s = text;

	p->text = text;
	while (*s && p->n < MAX_PP_COMPONENTS) {
		size_t len = strcspn(s, ".(");

		p->comp[p->n].name = arena_strndup(elab->arena, s, len);
		s += len;
		if (*s == '(') {
			p->comp[p->n].arg = !strncmp(s, "(string)", 8) ? ARG_STRING : ARG_NUMBER;
			s = strchr(s, ')') + 1;
		}
		p->n++;
		if (*s == '.')
			s++;
	}
	return p;
}

static const char *point_text(struct elab *elab, const struct probe_point *pp)
{
	return probe_point_text(elab->arena, pp);
}

/* Add scr's aliases; a default script's (is_default) only for names that
 * no other script in defined (its alias texts are in defined). */
static void add_aliases(struct elab *elab, const struct script *scr, const struct strset *defined)
{
	for (const struct probe *pr = scr->probes; pr; pr = pr->next) {
		if (!pr->is_alias)
			continue;
		for (const struct probe_point *n = pr->alias_names; n; n = n->next) {
			struct pattern *p = arena_new(elab->arena, struct pattern);

			p->text = point_text(elab, n);
			if (scr->is_default && strset_has(defined, p->text))
				continue;
			p->alias = pr;
			for (const struct pp_component *c = n->components;
			     c && p->n < MAX_PP_COMPONENTS; c = c->next, p->n++) {
				p->comp[p->n].name = c->name;
				p->comp[p->n].arg = !c->arg ? ARG_NONE :
					c->arg->kind == E_STRING ? ARG_STRING : ARG_NUMBER;
			}
			p->next = elab->patterns;
			elab->patterns = p;
		}
	}
}

/* The alias names that scripts other than the default ones define. */
static void defined_aliases(struct elab *elab, const struct script *scr, struct strset *defined)
{
	for (const struct probe *pr = scr->is_default ? NULL : scr->probes; pr; pr = pr->next)
		for (const struct probe_point *n = pr->is_alias ? pr->alias_names : NULL; n;
		     n = n->next)
			strset_add(defined, point_text(elab, n));
}

/*
 * Each pattern chained to the next with its first component, in list
 * order: a point whose first component is a plain name ("kernel", "vfs")
 * is tried against those only, not the thousands of aliases (each alias
 * body's points are resolved too, so `probe **` tried millions).
 */
static void index_heads(struct elab *elab)
{
	size_t n = 0, i = 0;
	struct pattern **v;

	strmap_free(&elab->heads);	/* again after more aliases (pass2_list) */
	for (struct pattern *p = elab->patterns; p; p = p->next)
		n++;
	v = arena_alloc(elab->arena, (n ? n : 1) * sizeof(*v));
	for (struct pattern *p = elab->patterns; p; p = p->next)
		v[i++] = p;
	while (i--) {
		v[i]->next_head = strmap_get(&elab->heads, v[i]->comp[0].name);
		strmap_put(&elab->heads, v[i]->comp[0].name, v[i]);
	}
}

static void build_patterns(struct elab *elab)
{
	struct strset defined = { 0 };

	for (int i = 0; providers[i]; i++)
		for (int j = 0; providers[i]->patterns[j]; j++) {
			struct pattern *p = pattern_from_text(elab, providers[i]->patterns[j]);

			p->provider = providers[i];
			p->index = j;
			p->next = elab->patterns;
			elab->patterns = p;
		}
	for (const struct script *t = elab->s->library; t; t = t->next)
		defined_aliases(elab, t, &defined);
	if (elab->s->user)
		defined_aliases(elab, elab->s->user, &defined);
	for (const struct script *t = elab->s->library; t; t = t->next)
		add_aliases(elab, t, &defined);
	if (elab->s->user)
		add_aliases(elab, elab->s->user, &defined);
	strset_free(&defined);
	index_heads(elab);
}

/* ---- matching ---- */

/* The written point, expanded and flattened: one entry per component. */
struct point {
	const struct pp_component *c[MAX_PP_COMPONENTS];
	int n;
};

/* The patterns that can match pt: those of its first component when that
 * is a plain name (fnmatch() of a plain name is equality), else all. */
static const struct pattern *first_candidate(const struct elab *elab, const struct point *pt,
					     bool *by_head)
{
	*by_head = !strpbrk(pt->c[0]->name, "*?[\\");
	return *by_head ? strmap_get(&elab->heads, pt->c[0]->name) : elab->patterns;
}

static const struct pattern *next_candidate(const struct pattern *p, bool by_head)
{
	return by_head ? p->next_head : p->next;
}

static bool arg_fits(const struct pp_component *c, enum arg_kind want)
{
	if (!c->arg)
		return want == ARG_NONE;
	return want == (c->arg->kind == E_STRING ? ARG_STRING : ARG_NUMBER);
}

/* One element of a glob: a character, "?", "*", "**" or a "[...]" class. */
struct glob_tok {
	enum { G_CHAR, G_ANY, G_STAR, G_STARS, G_CLASS } kind;
	const char *s;		/* G_CHAR: the character; G_CLASS: "[" */
	size_t len;		/* G_CLASS: with its brackets */
};

/* Whether tok matches the one character c: never a dot (only "**" crosses one). */
static bool tok_one(const struct glob_tok *tok, char c)
{
	char cls[256], one[2] = { c, '\0' };

	if (c == '.')
		return false;
	switch (tok->kind) {
	case G_CHAR:
		return *tok->s == c;
	case G_ANY:
		return true;
	case G_CLASS:
		memcpy(cls, tok->s, tok->len);
		cls[tok->len] = '\0';
		return !fnmatch(cls, one, 0);
	default:
		return false;
	}
}

/*
 * glob over a dotted name ("syscall.open"): "**" matches anything, dots
 * included; "*", "?" and "[...]" stay inside one component.  Dynamic
 * programming over (token, text position): O(|glob| * |text|), so a
 * pattern of many stars cannot make it backtrack.
 */
static bool glob_dotted(const char *glob, const char *text)
{
	size_t g = strlen(glob), t = strlen(text), n = 0;
	struct glob_tok *tok = xcalloc(g + 1, sizeof(*tok));
	bool *row = xcalloc(t + 2, sizeof(*row)), *next = xcalloc(t + 2, sizeof(*next)), *swap;
	bool ok = false;

	for (size_t i = 0; i < g; n++) {
		const char *end = glob[i] == '[' ? strchr(glob + i + 1, ']') : NULL;

		tok[n].s = glob + i;
		if (glob[i] == '*' && glob[i + 1] == '*') {
			tok[n].kind = G_STARS;
			i += 2;
		} else if (glob[i] == '*' || glob[i] == '?') {
			tok[n].kind = glob[i] == '*' ? G_STAR : G_ANY;
			i++;
		} else if (end && end - glob - i < 255) {
			tok[n].kind = G_CLASS;
			tok[n].len = end - glob - i + 1;
			i += tok[n].len;
		} else {
			tok[n].kind = G_CHAR;
			i++;
		}
	}
	/* row[k]: tokens [x..n) match text[k..], x going down from n */
	row[t] = true;
	for (size_t x = n; x-- > 0;) {
		for (size_t k = t + 1; k-- > 0;) {
			if (tok[x].kind == G_STAR || tok[x].kind == G_STARS)
				next[k] = row[k] || (k < t && next[k + 1] &&
						     (tok[x].kind == G_STARS || text[k] != '.'));
			else
				next[k] = k < t && tok_one(&tok[x], text[k]) && row[k + 1];
		}
		swap = row, row = next, next = swap;
	}
	ok = row[0];
	free(tok);
	free(row);
	free(next);
	return ok;
}

static bool match_from(struct elab *elab, const struct point *pt, int i,
		       const struct pattern *p, int j, struct pp_match *m);

/*
 * A component with "**" inside ("*sys**pen", "ke**on(\"vfs_read\")"):
 * it stands for pattern components [j..k), joined by dots, the fewest
 * first; only the last of them may take the point's argument.
 */
static bool match_across(struct elab *elab, const struct point *pt, int i,
			 const struct pattern *p, int j, struct pp_match *m)
{
	char joined[1024];
	size_t len = 0;

	for (int k = j + 1; k <= p->n; k++) {
		const char *name = p->comp[k - 1].name;

		if (len + strlen(name) + 2 > sizeof(joined))
			return false;
		len += sprintf(joined + len, "%s%s", k > j + 1 ? "." : "", name);
		if (arg_fits(pt->c[i], p->comp[k - 1].arg) && glob_dotted(pt->c[i]->name, joined) &&
		    match_from(elab, pt, i + 1, p, k, m)) {
			for (int x = j; x < k; x++) {
				struct pp_component *c = arena_new(elab->arena, struct pp_component);

				*c = *pt->c[i];
				c->name = p->comp[x].name;
				if (x < k - 1)
					c->arg = NULL;
				m->comps[x] = c;
			}
			return true;
		}
		if (p->comp[k - 1].arg != ARG_NONE)
			return false;	/* an argument ends what "**" can span */
	}
	return false;
}

/*
 * Match point components [i..] against pattern components [j..], filling
 * m->comps with components named as the pattern names them.
 */
static bool match_from(struct elab *elab, const struct point *pt, int i,
		       const struct pattern *p, int j, struct pp_match *m)
{
	if (i == pt->n)
		return j == p->n;
	if (!strcmp(pt->c[i]->name, "**")) {
		/* Any number of argument-less components, fewest first. */
		for (int k = j; k <= p->n; k++) {
			if (k > j && p->comp[k - 1].arg != ARG_NONE)
				break;
			if (match_from(elab, pt, i + 1, p, k, m)) {
				for (int x = j; x < k; x++) {
					struct pp_component *c = arena_new(elab->arena, struct pp_component);

					c->loc = pt->c[i]->loc;
					c->name = p->comp[x].name;
					m->comps[x] = c;
				}
				return true;
			}
		}
		return false;
	}
	if (strstr(pt->c[i]->name, "**"))
		return match_across(elab, pt, i, p, j, m);
	if (j == p->n || fnmatch(pt->c[i]->name, p->comp[j].name, 0) ||
	    !arg_fits(pt->c[i], p->comp[j].arg))
		return false;
	if (!match_from(elab, pt, i + 1, p, j + 1, m))
		return false;
	if (strcmp(pt->c[i]->name, p->comp[j].name)) {
		struct pp_component *c = arena_new(elab->arena, struct pp_component);

		*c = *pt->c[i];
		c->name = p->comp[j].name;
		m->comps[j] = c;
	} else {
		m->comps[j] = pt->c[i];
	}
	return true;
}

/* "a{b,c}d" -> "abd", "acd"; nested braces allowed.  Appends to out. */
static int expand_braces(struct elab *elab, const char *s, const char **out, int n, int max)
{
	const char *open = strchr(s, '{'), *close;
	int depth = 0;

	if (!open) {
		if (n < max)
			out[n++] = s;
		return n;
	}
	for (close = open; *close; close++) {
		depth += *close == '{';
		depth -= *close == '}';
		if (depth == 0)
			break;
	}
	if (!*close)
		return n;	/* unbalanced: the parser would not have let it through */
	for (const char *alt = open + 1; alt <= close - 1 + 1;) {
		const char *end = alt;
		int d = 0;

		while (end < close && !(d == 0 && *end == ',')) {
			d += *end == '{';
			d -= *end == '}';
			end++;
		}
		char *joined = arena_printf(elab->arena, "%.*s%.*s%s", (int)(open - s), s,
					    (int)(end - alt), alt, close + 1);
		n = expand_braces(elab, joined, out, n, max);
		alt = end + 1;
		if (end >= close)
			break;
	}
	return n;
}

static int resolve_point(struct elab *elab, const struct probe_point *pp);

/*
 * Resolve one fully expanded point: returns the probes added, -ENOENT if
 * no pattern matches it at all, or -EINVAL after an error.
 */
/* ---- -L of an alias: the variables its prologue sets ---- */

static const char *function_type(struct elab *elab, const char *name)
{
	for (const struct script *t = elab->s->library; t; t = t->next)
		for (const struct function *f = t->functions; f; f = f->next)
			if (!strcmp(f->name, name))
				return f->type;
	return NULL;
}

/* "string" or "long": what pass 2 would infer for x, short of running it
 * (a call's declared type; a variable's from its first assignment). */
static const char *expr_type(struct elab *elab, const struct expr *x, const struct probe_var *vars)
{
	const char *t;

	switch (x->kind) {
	case E_STRING:
		return "string";
	case E_CALL:	/* the built-in sprint* functions return strings */
		t = function_type(elab, x->name);
		if (!t && !strncmp(x->name, "sprint", 6))
			return "string";
		return t && !strcmp(t, "string") ? "string" : "long";
	case E_BINARY:
		return x->opid == OP_CONCAT ? "string" : "long";
	case E_ASSIGN:
		return x->opid == OP_ASSIGN_CONCAT ? "string" : expr_type(elab, x->b, vars);
	case E_TERNARY:
		return expr_type(elab, x->b, vars);
	case E_SYMBOL:
		for (const struct probe_var *v = vars; v; v = v->next)
			if (!strcmp(v->name, x->name))
				return v->type;
		return "long";
	default:
		return "long";
	}
}

/* Append the variables that the statements st assign, first assignment
 * first (SystemTap's -L order for an alias). */
static void assigned_vars(struct elab *elab, const struct stmt *st, struct probe_var **vars)
{
	for (; st; st = st->next) {
		const struct expr *x = st->e;

		if (st->kind == S_EXPR && x && x->kind == E_ASSIGN && x->a->kind == E_SYMBOL) {
			struct probe_var **tail = vars;

			while (*tail && strcmp((*tail)->name, x->a->name))
				tail = &(*tail)->next;
			if (!*tail) {
				*tail = arena_new(elab->arena, struct probe_var);
				memset(*tail, 0, sizeof(**tail));
				(*tail)->name = x->a->name;
				(*tail)->type = expr_type(elab, x, *vars);
			}
		}
		assigned_vars(elab, st->body, vars);
		assigned_vars(elab, st->els, vars);
	}
}

/*
 * Expand alias p matched as m: each of its points, with the written point's
 * components from index from on appended (alias suffixes; none when from
 * is pt->n).  Returns the probes added, -EINVAL if none, or -ELOOP after
 * an error that ends the point's resolution (recursion, depth, fan-out).
 */
static int expand_alias(struct elab *elab, const struct pp_match *m, const struct pattern *p,
			const struct point *pt, int from)
{
	int r = 0;

	for (int d = 0; d < elab->depth; d++)
		if (!strcmp(elab->alias_names[d], p->text)) {
			elab_error(elab, m, "probe alias '%s' is recursive", p->text);
			return -ELOOP;
		}
	if (elab->depth >= MAX_ALIAS_DEPTH) {
		elab_error(elab, m, "probe aliases nest more than %d deep", MAX_ALIAS_DEPTH);
		return -ELOOP;
	}
	if (++elab->expansions > MAX_ALIAS_EXPANSIONS) {
		if (elab->expansions == MAX_ALIAS_EXPANSIONS + 1)
			elab_error(elab, m, "probe point expands through more than %d aliases",
				   MAX_ALIAS_EXPANSIONS);
		return -ELOOP;
	}
	elab->alias_names[elab->depth] = p->text;
	elab->alias_stack[elab->depth++] = p->alias;
	/* "a = b ?, c": what b expands to is as optional as b itself. */
	if (m->pp->optional)
		elab->optional_nest++;
	for (const struct probe_point *ap = p->alias->points; ap; ap = ap->next) {
		struct probe_point ext = *ap;
		struct pp_component **tail = &ext.components;
		int k;

		if (from < pt->n) {
			/* A copy of the alias's point, the suffix after it. */
			ext.components = NULL;
			for (const struct pp_component *c = ap->components; c; c = c->next) {
				*tail = arena_new(elab->arena, struct pp_component);
				**tail = *c;
				tail = &(*tail)->next;
			}
			for (int i = from; i < pt->n; i++) {
				*tail = arena_new(elab->arena, struct pp_component);
				**tail = *pt->c[i];
				tail = &(*tail)->next;
			}
			*tail = NULL;
		}
		k = resolve_point(elab, &ext);
		if (k > 0)
			r += k;
		if (k > 0 && ap->sufficient)
			break;
	}
	if (m->pp->optional)
		elab->optional_nest--;
	elab->depth--;
	return r ? r : -EINVAL;
}

/*
 * SystemTap's alias suffixes: a point no pattern matches whole, whose first
 * k components match an alias, is that alias's points with the rest
 * appended ("perf.sw.page_faults.sample(1)" is "perf.type(1).config(2)"
 * ".sample(1)").  The longest such prefix wins; -ENOENT if none.
 */
static int resolve_suffixed(struct elab *elab, const struct probe_point *pp, const struct point *pt)
{
	if (elab->listing)
		return -ENOENT;
	for (int k = pt->n - 1; k > 0; k--) {
		struct point head = *pt;
		int added = 0, matched = 0;

		bool by_head;

		head.n = k;
		for (const struct pattern *p = first_candidate(elab, &head, &by_head); p;
		     p = next_candidate(p, by_head)) {
			struct pp_match try = { 0 }, *m;
			int r;

			if (p->provider || !match_from(elab, &head, 0, p, 0, &try))
				continue;
			m = arena_new(elab->arena, struct pp_match);
			*m = try;
			m->pp = pp;
			m->pattern_text = p->text;
			m->ncomps = p->n;
			matched++;
			r = expand_alias(elab, m, p, pt, k);
			if (r == -ELOOP)
				return -EINVAL;
			if (r > 0)
				added += r;
		}
		if (matched)
			return added ? added : -EINVAL;
	}
	return -ENOENT;
}

/*
 * -L of an alias: the variables its body assigns, then those of the
 * aliases its points name outright (nd_syscall.open = syscall.open runs
 * syscall.open's body too), as far as MAX_ALIAS_DEPTH.
 */
static void listed_alias_vars(struct elab *elab, const struct probe *alias, struct probe_var **vars,
			      int depth)
{
	if (alias->body)
		assigned_vars(elab, alias->body->body, vars);
	if (depth >= MAX_ALIAS_DEPTH)
		return;
	for (const struct probe_point *pp = alias->points; pp; pp = pp->next) {
		/* Its name alone: "__syscall.send ?" is alias __syscall.send. */
		struct probe_point bare = *pp;
		const char *text;

		bare.optional = bare.sufficient = false;
		bare.condition = NULL;
		text = point_text(elab, &bare);
		for (const struct pattern *p = elab->patterns; p; p = p->next)
			if (!p->provider && p->alias != alias && !strcmp(p->text, text))
				listed_alias_vars(elab, p->alias, vars, depth + 1);
	}
}

/*
 * Alias p, named by the user's point, expanded to nothing: its points are
 * all optional ("?") and the target has none of them (vfs.buffer_migrate_page
 * on a kernel without buffer_migrate_page).  As SystemTap, that is no match
 * for the user's point, with the reason; a wildcard's match ("vfs.*") is
 * skipped, as the aliases of a family the kernel lacks are.
 */
static void alias_unresolved(struct elab *elab, const struct pp_match *m, const struct pattern *p)
{
	if (m->pp->optional || elab->optional_nest || (elab->written && elab->written->optional) ||
	    strchr(point_text(elab, m->pp), '*') ||
	    (elab->written && strchr(point_text(elab, elab->written), '*')))
		return;
	elab_error(elab, m, "no match for probe point '%s': none of its points resolves here (%s)",
		   p->text, elab->skipped_why);
}

static int resolve_expanded(struct elab *elab, const struct probe_point *pp, const struct point *pt)
{
	int added = 0, matched = 0;
	bool by_head;
	/* An alias defined more than once is no match only if none of its
	 * definitions resolves (SystemTap 4.8's semok/thirtyfour: "foo" is
	 * do_sys_open's, and do_sys_close's which 6.1 lacks). */
	const struct pp_match *unresolved = NULL;
	const struct pattern *unresolved_p = NULL;
	const char *unresolved_why = NULL;

	for (const struct pattern *p = first_candidate(elab, pt, &by_head); p;
	     p = next_candidate(p, by_head)) {
		struct pp_match try = { 0 }, *m;
		int r;

		/* Tried on the stack: most patterns do not match, and only a
		 * match outlives this loop (its probes point at it). */
		if (!match_from(elab, pt, 0, p, 0, &try))
			continue;
		m = arena_new(elab->arena, struct pp_match);
		*m = try;
		matched++;
		m->pp = pp;
		m->provider = p->provider;
		m->pattern = p->index;
		m->pattern_text = p->text;
		m->ncomps = p->n;
		if (p->provider && elab->s->opt.dyninst && !p->provider->user) {
			elab_error(elab, m, "probe point '%s' is not available with --runtime=dyninst "
				   "(it needs the kernel)", p->text);
			r = -EINVAL;
		} else if (p->provider) {
			r = p->provider->resolve(elab, m);
		} else if (elab->listing) {
			struct derived_probe *d = elab_add(elab, m, p->text);

			listed_alias_vars(elab, p->alias, &d->vars, 0);
			r = 1;
		} else {
			elab->skipped_why = NULL;
			r = expand_alias(elab, m, p, pt, pt->n);
			if (r == -ELOOP)
				return -EINVAL;
			if (r < 0 && elab->skipped_why && !unresolved) {
				unresolved = m;
				unresolved_p = p;
				unresolved_why = elab->skipped_why;
			}
		}
		if (r > 0)
			added += r;
	}
	if (unresolved && !added) {
		elab->skipped_why = unresolved_why;
		alias_unresolved(elab, unresolved, unresolved_p);
	}
	return matched ? added : resolve_suffixed(elab, pp, pt);
}

/* Close pattern heads, for "did you mean" on an unknown family. */
static void suggest_families(struct elab *elab, const char *head, char *hint, size_t size)
{
	int found = 0;

	for (const struct pattern *p = elab->patterns; p && found < 5; p = p->next) {
		const char *name = p->comp[0].name;
		size_t la = strlen(head), lb = strlen(name), common = 0;

		while (common < la && common < lb && head[common] == name[common])
			common++;
		/* A shared prefix of most of the word, or a one-letter slip. */
		if (!(common * 2 >= la && common >= 3) && !(la == lb && la > 3 &&
		      strncmp(head + 1, name + 1, la - 1) == 0))
			continue;
		if (strstr(hint, arena_printf(elab->arena, " %s,", name)) ||
		    strstr(hint, arena_printf(elab->arena, "(%s,", name)))
			continue;
		snprintf(hint + strlen(hint), size - strlen(hint), "%s%s,",
			 found++ ? " " : " (similar: ", name);
	}
	if (found)
		hint[strlen(hint) - 1] = ')';
}

static int n_expanded(const int *counts, int n)
{
	int total = 1;

	for (int i = 0; i < n; i++)
		total *= counts[i];
	return total;
}

static int resolve_point(struct elab *elab, const struct probe_point *pp)
{
	const char *names[MAX_PP_COMPONENTS][64];
	int counts[MAX_PP_COMPONENTS], idx[MAX_PP_COMPONENTS] = { 0 }, n = 0;
	const struct pp_component *c;
	int total = 0, any_match = 0, combos = 1, errors = 0;

	for (c = pp->components; c && n < MAX_PP_COMPONENTS; c = c->next, n++) {
		counts[n] = expand_braces(elab, c->name, names[n], 0, 64);
		combos *= counts[n] ? counts[n] : 1;
	}
	if (combos > MAX_EXPANSIONS) {
		struct pp_match m = { .pp = pp };

		elab_error(elab, &m, "brace expansion gives more than %d probe points", MAX_EXPANSIONS);
		return -EINVAL;
	}
	/* Each combination of the components' expansions, odometer-style. */
	for (;;) {
		struct point pt = { .n = n };
		int i = 0, r;

		for (c = pp->components; i < n; c = c->next, i++) {
			struct pp_component *x = arena_new(elab->arena, struct pp_component);

			*x = *c;
			x->name = names[i][idx[i]];
			pt.c[i] = x;
		}
		r = resolve_expanded(elab, pp, &pt);
		if (r == -ENOENT && n_expanded(counts, n) > 1 && !pp->optional) {
			/* Each alternative of a brace expansion is a point of its own. */
			struct pp_match m = { .pp = pp };
			struct probe_point one = *pp;
			struct pp_component *head = NULL, **tail = &head;

			for (i = 0; i < n; i++) {
				*tail = arena_new(elab->arena, struct pp_component);
				**tail = *pt.c[i];
				(*tail)->next = NULL;
				tail = &(*tail)->next;
			}
			one.components = head;
			elab_error(elab, &m, "no match for probe point '%s' (from '%s')",
				   point_text(elab, &one), point_text(elab, pp));
			errors++;
		}
		if (r != -ENOENT)
			any_match = 1;
		if (r > 0)
			total += r;
		for (i = n - 1; i >= 0 && ++idx[i] == counts[i]; i--)
			idx[i] = 0;
		if (i < 0)
			break;
	}
	if (errors)
		return -EINVAL;
	if (!any_match && !pp->optional) {
		struct pp_match m = { .pp = pp };
		char hint[256] = "";

		suggest_families(elab, pp->components->name, hint, sizeof(hint));
		elab_error(elab, &m, "no match for probe point '%s'%s", point_text(elab, pp), hint);
		return -EINVAL;
	}
	return total;
}

static void elab_init(struct elab *elab, struct session *s)
{
	elab->s = s;
	elab->arena = &s->arena;
	elab->tail = &elab->probes;
	build_patterns(elab);
	s->elab = elab;
}

/* The plain probes of a script (its aliases are expanded where used). */
static void elaborate_probes(struct elab *elab, const struct script *scr)
{
	for (const struct probe *pr = scr->probes; pr; pr = pr->next) {
		if (pr->is_alias)
			continue;
		for (const struct probe_point *pp = pr->points; pp; pp = pp->next) {
			int r;

			elab->written = pp;
			elab->expansions = 0;
			elab->probe = pr;
			r = resolve_point(elab, pp);

			if (r > 0 && pp->sufficient)
				break;
		}
	}
}

int pass2_elaborate(struct session *s)
{
	struct elab *elab = arena_new(&s->arena, struct elab);
	int errors = diag_errors();

	elab_init(elab, s);
	elaborate_probes(elab, s->user);
	for (const struct script *t = s->library; t; t = t->next)
		if (t->is_used)
			elaborate_probes(elab, t);
	return diag_errors() > errors ? -EINVAL : 0;
}

static int cmp_probe_names(const void *a, const void *b)
{
	return strcmp((*(struct derived_probe *const *)a)->name,
		      (*(struct derived_probe *const *)b)->name);
}

struct derived_probe *elab_probes(struct session *s)
{
	return s->elab ? s->elab->probes : NULL;
}

/* Each family once, in the providers' order: the module's includes do not
 * depend on the script's order of probes.  All of them, or the ones a
 * probe of the script uses. */
static const char **runtime_families(struct session *s, bool all)
{
	const char **v;
	int n = 0, max = 0;

	for (const struct provider *const *p = providers; *p; p++)
		max++;
	v = arena_alloc(&s->arena, (max + 1) * sizeof(*v));
	for (const struct provider *const *p = providers; *p; p++) {
		bool used = all, listed = false;

		if (!(*p)->runtime)
			continue;
		for (const struct derived_probe *d = elab_probes(s); d && !used; d = d->next)
			used = d->provider == *p;
		for (int i = 0; i < n && !listed; i++)
			listed = !strcmp(v[i], (*p)->runtime);
		if (used && !listed)
			v[n++] = (*p)->runtime;
	}
	v[n] = NULL;
	return v;
}

const char **elab_runtime_families(struct session *s)
{
	return runtime_families(s, false);
}

const char **elab_all_runtime_families(struct session *s)
{
	return runtime_families(s, true);
}

void elab_filter(struct session *s, bool (*drop)(const struct derived_probe *d, void *arg),
		 void *arg)
{
	struct derived_probe **dp = s->elab ? &s->elab->probes : NULL;

	while (dp && *dp)
		if (drop(*dp, arg))
			*dp = (*dp)->next;
		else
			dp = &(*dp)->next;
}

int pass2_list(struct session *s, FILE *out)
{
	struct elab *elab = arena_new(&s->arena, struct elab);
	const char *text = arena_printf(&s->arena, "probe %s {}", s->opt.list_pattern);
	struct source *src = source_from_string(&s->arena, "<list>", text);
	struct script *scr = parse_script(&s->arena, src, NULL, &s->pp, false);
	struct derived_probe **v;
	size_t n = 0;

	if (!scr || !scr->probes || diag_errors())
		return -EINVAL;
	elab_init(elab, s);
	elab->listing = true;
	/* The pattern may define aliases and then name them, as SystemTap
	 * allows: -L 'my.poll = kernel.function("x") { t = 1 } probe my.poll'. */
	add_aliases(elab, scr, NULL);
	index_heads(elab);
	for (const struct probe *pr = scr->probes; pr; pr = pr->next) {
		for (struct probe_point *pp = pr->is_alias ? NULL : pr->points; pp; pp = pp->next) {
			pp->optional = true;	/* listing nothing is not an error */
			elab->expansions = 0;
			resolve_point(elab, pp);
		}
	}
	v = (struct derived_probe **)arena_sorted(&s->arena, elab->probes,
						  offsetof(struct derived_probe, next),
						  cmp_probe_names, &n);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(v[i]->name, v[i - 1]->name))
			continue;
		fputs(v[i]->name, out);
		for (struct probe_var *pv = v[i]->vars; s->opt.list_vars && pv; pv = pv->next)
			if (!pv->unlisted)
				fprintf(out, " %s:%s", pv->name, pv->type);
		fputc('\n', out);
	}
	return diag_errors() ? -EINVAL : 0;
}

void pass2_print(struct session *s, FILE *out)
{
	const struct probe_point *last = NULL;
	const char *text = NULL;

	fputs("# probes\n", out);
	/* A wildcard's probes share their written point: its text once.
	 * Each probe is listed by its pp(), as SystemTap's -p2 does (a
	 * label's is its function at the label's line; -L names the label). */
	for (struct derived_probe *d = s->elab->probes; d; d = d->next) {
		const char *pp = d->pp ? d->pp : d->name;

		if (d->written != last || !text)
			text = point_text(s->elab, d->written);
		last = d->written;
		if (d->where)
			fprintf(out, "%s /* %s */ /* <- %s */\n", pp, d->where, text);
		else
			fprintf(out, "%s /* <- %s */\n", pp, text);
	}
}

void pass2_free(struct session *s)
{
	int i;

	if (s->elab) {
		for (i = 0; providers[i]; i++)
			if (providers[i]->release && s->elab->provider_state[i])
				providers[i]->release(s->elab->provider_state[i]);
		unprobeable_free(&s->elab->unprobeable);
		strmap_free(&s->elab->heads);
	}
}

static int cmp_strs(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void pass2_dump_aliases(struct session *s, FILE *out)
{
	struct elab *elab = arena_new(&s->arena, struct elab);
	const char **v;
	size_t n = 0;

	elab->s = s;
	elab->arena = &s->arena;
	for (const struct script *t = s->library; t; t = t->next)
		for (const struct probe *pr = t->probes; pr; pr = pr->next)
			for (const struct probe_point *nm = pr->is_alias ? pr->alias_names : NULL; nm; nm = nm->next)
				n++;
	v = arena_alloc(elab->arena, (n + 1) * sizeof(*v));
	n = 0;
	for (const struct script *t = s->library; t; t = t->next)
		for (const struct probe *pr = t->probes; pr; pr = pr->next) {
			const char *points = "";

			if (!pr->is_alias)
				continue;
			for (const struct probe_point *pp = pr->points; pp; pp = pp->next)
				points = arena_printf(elab->arena, "%s%s%s", points, *points ? ", " : "",
						      point_text(elab, pp));
			for (const struct probe_point *nm = pr->alias_names; nm; nm = nm->next)
				v[n++] = arena_printf(elab->arena, "%s %s %s", point_text(elab, nm),
						      pr->body ? "=" : "+=", points);
		}
	qsort(v, n, sizeof(*v), cmp_strs);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\n", v[i]);
}
