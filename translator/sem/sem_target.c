// SPDX-License-Identifier: GPL-2.0
/*
 * sem_target.c - pass 2's $vars: a probe's context variables ($file,
 * $return, $$parms, procfs's $value), @cast and autocast chains, each
 * resolved once through BTF (tvar.c) into a base and steps that pass 3
 * emits (target.c).  The rest of pass 2 is sem.c.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "kbtf.h"
#include "sem_internal.h"
#include "session.h"

const struct probe_var *sem_probe_var(const struct derived_probe *d, const char *name)
{
	for (const struct probe_var *v = d->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

/* ---- target variables: resolved here, once (tvar.c), emitted by pass 3 ---- */

/* The [i] of a chain are expressions of the script: longs. */
void sem_chain_indexes(struct sem *sem, struct scope *sc, struct expr *e)
{
	for (struct component *c = e->chain; c; c = c->next) {
		enum vtype t;

		if (c->member)
			continue;
		t = sem_expr(sem, sc, c->index);
		if (t != T_UNKNOWN && t != T_LONG)
			sem_error(sem, &c->index->loc, NULL, "an index is a long, not a %s", vtype_name(t));
	}
}

/* The BTF a probe variable's type is in: a module's, else the kernel's. */
static const struct btf *var_btf(struct sem *sem, const struct probe_var *v)
{
	return v->btf ? v->btf : session_btf(sem->s);
}

/* e's chain from a base of type type (of btf; NULL: the kernel's), recorded for pass 3. */
enum vtype sem_resolve_tvar(struct sem *sem, struct scope *sc, struct expr *e, struct tvar *t,
			    __u32 type, const struct btf *btf)
{
	struct tvar_error err = { 0 };

	if (!btf)
		btf = session_btf(sem->s);

	if (!btf)
		return T_UNKNOWN;
	if (e->pretty) {
		bool at_pointer = t->base == TVAR_POINTER ||
				  (t->base == TVAR_ARG && t->arg_is_address);
		/* A structure passed by value in registers has no address to
		 * read its members at: each one "?" (pretty.c), as SystemTap
		 * 4.8 prints it. */
		bool in_registers = !e->chain && t->base == TVAR_ARG && !t->arg_is_address &&
				    kbtf_classify(btf, type) == KBTF_AGGREGATE;

		return sem_pretty(sem, sc, e, btf, type, at_pointer, in_registers);
	}
	if (tvar_from_btf(sem->a, btf, e, type, t, &err)) {
		sem_error(sem, err.loc, err.what, "%s", err.msg);
		return T_UNKNOWN;
	}
	tvar_map_set(sem->tvars, e, t);
	return e->pretty ? T_STRING : T_LONG;
}


/*
 * A handler serves every probe its point matched (kernel.function("vfs_*")):
 * a $var must read alike in all of them.  Checked once, when reporting.
 * -1: it does not (reported); 0: it does; 1: it does, but the probes pass
 * it at different argument positions, so it needs a slot.
 */
static int same_everywhere(struct sem *sem, struct scope *sc, const struct expr *e,
			   const struct probe_var *v)
{
	const struct btf *btf = var_btf(sem, v);
	bool movable;
	int moved = 0;

	if (!sem->report || !sc->handler || !btf)
		return 0;
	/* The handler's probes come at and after its first one, sc->site. */
	for (const struct derived_probe *d = sc->site->next; d; d = d->next) {
		const struct probe_var *w;

		if (sem_handler_for(sem, d) != sc->handler)
			continue;
		w = sem_probe_var(d, e->name);
		/* Elsewhere is fine for a plain argument that is only read. */
		movable = w && w->arg >= 0 && v->arg >= 0 && !d->is_return && sem->lvalue_target != e;
		if (!w || (w->arg != v->arg && !movable) || w->arg_is_address != v->arg_is_address ||
		    !tvar_btf_same_read(btf, v->btf_id, var_btf(sem, w), w->btf_id, e)) {
			sem_error(sem, &e->loc, NULL, "'%s' is %s in %s but %s in %s: a probe's $vars must "
			      "be the same in every function it matches", e->name, v->type,
			      sc->site->name, w ? w->type : "missing", d->name);
			return -1;
		}
		moved |= w->arg != v->arg;
	}
	return moved;
}

/* 1 + the slot of $var name in handler h, added if new. */
static int handler_slot(struct sem *sem, struct sem_handler *h, const char *name)
{
	const char **slots;

	for (int i = 0; i < h->nslots; i++)
		if (!strcmp(h->slots[i], name))
			return i + 1;
	slots = arena_alloc(sem->a, (h->nslots + 1) * sizeof(*slots));
	if (h->nslots)
		memcpy(slots, h->slots, h->nslots * sizeof(*slots));
	slots[h->nslots++] = name;
	h->slots = slots;
	return h->nslots;
}

/* A synthetic $var of e's probe, for an expansion. */
static struct expr *var_node(struct sem *sem, const struct expr *at, const char *name)
{
	struct expr *v = arena_new(sem->a, struct expr);

	v->kind = E_TARGET;
	v->loc = at->loc;
	v->name = name;
	return v;
}

/*
 * $$parms is sprintf("a=%#x b=%#x", $a, $b), as SystemTap expands it;
 * $$return "return=%#x"; $$locals is empty (locals need DWARF); $$vars
 * is $$parms.  Structs print as "{...}", other values that are not
 * numbers as "?".  $$parms$ is
 * sprintf("a=%s b=%s", $a$, $b$) (pretty.c).
 */
static enum vtype dollar_dollar(struct sem *sem, struct scope *sc, struct expr *e)
{
	const struct derived_probe *d = sc->site;
	struct btf *btf = session_btf(sem->s);
	struct expr *args = NULL, **tail = &args;
	bool ret = !strcmp(e->name, "$$return");
	char *text = "";
	int size;
	bool is_signed;

	/* A kernel function without parameters has no vars but still its
	 * (empty) $$parms, as SystemTap expands it for "*@fs/proc*.c" */
	if (!d || (!d->vars && strcmp(d->provider->name, "kernel.function"))) {
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "%s is not available in this probe "
		      "(only in kernel.function probes)", e->name);
		return T_STRING;
	}
	for (const struct probe_var *v = d->vars; btf && v; v = v->next) {
		bool want = !strcmp(e->name, "$$locals") ? v->is_local :
			    !strcmp(e->name, "$$parms") ? !v->is_local : true;

		/* $$return is $return alone; the others leave it out */
		if (!want || ret != !strcmp(v->name, "$return") || v->arg == PROBE_VAR_VALUE ||
		    v->is_string)
			continue;
		text = arena_printf(sem->a, "%s%s%s=", text, *text ? " " : "",
				    v->parms_name ? v->parms_name : v->name + 1);
		if (v->unavailable) {
			text = arena_printf(sem->a, "%s?", text);
			continue;
		}
		if (e->pretty) {
			/* $$parms$: each one as $name$ prints it */
			text = arena_printf(sem->a, "%s%%s", text);
			*tail = var_node(sem, e, v->name);
			(*tail)->pretty = e->pretty;
			tail = &(*tail)->next;
			continue;
		}
		/* Not a number: a struct or union "{...}", as SystemTap 4.8
		 * prints one (next_tgid's iter={...}), anything else "?". */
		if (kbtf_scalar(var_btf(sem, v), v->btf_id, &size, &is_signed)) {
			text = arena_printf(sem->a, "%s%s", text,
					    kbtf_classify(var_btf(sem, v), v->btf_id) ==
					    KBTF_AGGREGATE ? "{...}" : "?");
			continue;
		}
		text = arena_printf(sem->a, "%s%%#x", text);
		*tail = var_node(sem, e, v->name);
		tail = &(*tail)->next;
	}
	return sem_expand_sprintf(sem, sc, e, text, args, false);
}

enum vtype sem_expand_sprintf(struct sem *sem, struct scope *sc, struct expr *e, const char *format,
			      struct expr *args, bool catch_errors)
{
	struct expr *call = arena_new(sem->a, struct expr), *fmt = arena_new(sem->a, struct expr);
	struct tvar t = { 0 };

	fmt->kind = E_STRING;
	fmt->loc = e->loc;
	fmt->str = format;
	fmt->next = args;
	call->kind = E_CALL;
	call->loc = e->loc;
	call->name = "sprintf";
	call->args = fmt;
	t.expansion = call;
	t.catch_errors = catch_errors;
	tvar_map_set(sem->tvars, e, &t);
	return sem_expr(sem, sc, call);
}

enum vtype sem_target_var(struct sem *sem, struct scope *sc, struct expr *e)
{
	const struct derived_probe *d = sc->site;
	const struct probe_var *v;
	char alternatives[512] = "";

	if (!strcmp(e->name, "$$vars") || !strcmp(e->name, "$$parms") ||
	    !strcmp(e->name, "$$locals") || !strcmp(e->name, "$$return"))
		return dollar_dollar(sem, sc, e);
	if (!d) {
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "target variable %s used outside a probe", e->name);
		return T_UNKNOWN;
	}
	sem_chain_indexes(sem, sc, e);
	v = sem_probe_var(d, e->name);
	if (v && v->arg == PROBE_VAR_VALUE) {
		/* A read probe's $value is what it writes for the reader. */
		if (v->writable && sem->lvalue_target != e) {
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "a procfs read probe sets '%s'; "
				  "it cannot read it", e->name);
			return T_STRING;
		}
		if (e->chain || e->addressof || e->pretty) {
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "'%s' is a string, not a structure",
			      e->name);
			return T_UNKNOWN;
		}
		tvar_map_set(sem->tvars, e, &(struct tvar){ .base = TVAR_VALUE });
		return T_STRING;
	}
	/* $var$ of one that cannot be read here is "?", as SystemTap 4.8
	 * prints a variable it cannot locate (join_session_keyring's $name
	 * at its label error2: DW_OP_entry_value) */
	if (v && v->unavailable && e->pretty && !e->chain)
		return sem_expand_sprintf(sem, sc, e, "?", NULL, true);
	if (v && v->unavailable) {
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "'%s' cannot be read in %s: %s",
			  e->name, d->name, v->unavailable);
		return T_UNKNOWN;
	}
	if (v && v->is_string) {
		if (e->chain || e->addressof || e->pretty) {
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "'%s' is a string, not a structure",
				  e->name);
			return T_UNKNOWN;
		}
		int where = same_everywhere(sem, sc, e, v);

		if (where > 0)	/* a string of the module's: no slot for it */
			sem_error(sem, &e->loc, NULL, "'%s' is not at the same place in every probe "
				  "of this handler", e->name);
		if (where)
			return T_UNKNOWN;
		tvar_map_set(sem->tvars, e, &(struct tvar){ .base = TVAR_ARG, .arg = v->arg,
							   .is_string = true });
		return T_STRING;
	}
	if (v) {
		struct tvar t = { .base = v->arg < 0 ? TVAR_RETURN : TVAR_ARG, .arg = v->arg,
				  .write_reg = v->reg, .write_regs_arg = v->regs_arg,
				  .write_in_args = v->in_args, .arg_is_address = v->arg_is_address };

		int where = same_everywhere(sem, sc, e, v);

		if (where < 0)
			return T_UNKNOWN;
		if (where)
			t.slot = handler_slot(sem, sc->handler, e->name);
		if (sem->lvalue_target == e && !e->chain && !v->reg && !v->in_args) {
			sem_error(sem, &e->loc, sem_ident(sem, e->name), "'%s' cannot be written in %s: no "
				  "register holds it there", e->name, d->name);
			return T_UNKNOWN;
		}
		/* A kretprobe sees the arguments it saved at entry. */
		if (v->arg >= 0 && d->is_return && d->provider->runtime &&
		    !strcmp(d->provider->runtime, "probes/kprobes")) {
			if (v->arg >= CTAP_ENTRY_ARGS) {
				sem_error(sem, &e->loc, NULL, "'%s' is argument %d: a .return probe sees "
				      "only the first %d", e->name, v->arg + 1, CTAP_ENTRY_ARGS);
				return T_UNKNOWN;
			}
			sc->handler->entry_args = true;	/* saved at entry */
		}
		return sem_resolve_tvar(sem, sc, e, &t, v->btf_id, v->btf);
	}
	if (sem->s->opt.skip_badvars) {
		/* As SystemTap's --skip-badvars: the whole $var (chain and all) is 0. */
		e->kind = E_NUMBER;
		e->num = 0;
		e->chain = NULL;
		e->pretty = 0;
		return T_LONG;
	}
	for (v = d->vars; v; v = v->next)
		snprintf(alternatives + strlen(alternatives), sizeof(alternatives) - strlen(alternatives),
			 " %s", v->name);
	if (d->vars)
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "unable to find target variable '%s' in %s "
		      "(alternatives:%s)", e->name, d->name, alternatives);
	else if (!strncmp(d->name, "kernel.function(", 16))
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "target variable '%s' is not available in %s: "
		      "the kernel's BTF has no prototype for it (ctap found it in the symbol "
		      "table)", e->name, d->name);
	else if (!strncmp(d->name, "process(", 8))
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "target variable '%s' is not available in %s: "
		      "the program has no DWARF debug information (int_arg(), pointer_arg()... "
		      "read the arguments)", e->name, d->name);
	else
		sem_error(sem, &e->loc, sem_ident(sem, e->name), "target variable '%s' is not available in %s: "
		      "only kernel.function probes (and process probes with DWARF) have them",
		      e->name, d->name);
	return T_UNKNOWN;
}

/* addr + argument arg of the probe (the load bias of its file), as an
 * expression resolved here; NULL on an error. */
static struct expr *add_load_bias(struct sem *sem, struct scope *sc, struct expr *addr, int arg)
{
	const struct btf *btf = session_btf(sem->s);
	struct expr *bias = arena_new(sem->a, struct expr);
	struct expr *sum = arena_new(sem->a, struct expr);
	__s32 long_id = session_long_type(sem->s);

	bias->kind = E_TARGET;
	bias->name = "$__load_bias";
	bias->loc = addr->loc;
	if (!long_id || sem_resolve_tvar(sem, sc, bias, &(struct tvar){ .base = TVAR_ARG, .arg = arg },
					    long_id, btf) != T_LONG)
		return NULL;
	bias->vtype = T_LONG;
	sum->kind = E_BINARY;
	sum->op = "+";
	sum->opid = OP_ADD;
	sum->a = addr;
	sum->b = bias;
	sum->loc = addr->loc;
	sum->vtype = T_LONG;
	return sum;
}

/*
 * @var("NAME[@CU]")->chain: a global of the program a process probe is in
 * (its provider's global_var), walked as an object at its address, the
 * way @cast(ADDR, "type") is.
 */
enum vtype sem_atvar(struct sem *sem, struct scope *sc, struct expr *e)
{
	const struct derived_probe *d = sc->site;
	struct global_var g;
	struct expr *addr;

	if (!d || !d->provider->global_var) {
		sem_error(sem, &e->loc, NULL, "@var(\"%s\"): ctap reads globals in process probes, "
			  "from the program's DWARF (kernel ones need debuginfo)", e->str);
		return T_UNKNOWN;
	}
	if (d->provider->global_var(sem->s, d, e->str, &g)) {
		sem_error(sem, &e->loc, NULL, "%s", g.why);
		return T_UNKNOWN;
	}
	addr = arena_new(sem->a, struct expr);
	addr->kind = E_NUMBER;
	addr->loc = e->loc;
	addr->num = (int64_t)g.addr;
	addr->vtype = T_LONG;
	if (g.addr_in_arg) {
		addr->kind = E_TARGET;
		addr->name = "$__var_addr";
		if (sem_resolve_tvar(sem, sc, addr, &(struct tvar){ .base = TVAR_ARG,
				     .arg = g.addr_arg }, session_long_type(sem->s),
				     session_btf(sem->s)) != T_LONG)
			return T_UNKNOWN;
		addr->vtype = T_LONG;
	}
	if (g.load_biased && !(addr = add_load_bias(sem, sc, addr, g.bias_arg)))
		return T_UNKNOWN;
	e->a = addr;
	sem_chain_indexes(sem, sc, e);
	return sem_resolve_tvar(sem, sc, e, &(struct tvar){ .base = TVAR_POINTER }, g.type, g.btf);
}

/* ---- autocast: pointers whose BTF type follows them through the script ---- */

static bool same_typed(const struct typed_value *a, const struct typed_value *b)
{
	return a->btf == b->btf && a->type == b->type && a->is_address == b->is_address &&
	       !strcmp(a->origin ? a->origin : "", b->origin ? b->origin : "");
}

/* e's value as a typed pointer, if pass 2 knows its type (from an earlier walk). */
const struct typed_value *sem_typed(struct sem *sem, struct scope *sc, const struct expr *e)
{
	const struct tvar *t;
	const struct sem_function *f;
	struct var *v;

	const struct typed_value *a, *b;

	switch (e->kind) {
	case E_TARGET:
	case E_CAST:
	case E_AUTOCAST:
	case E_ATVAR:
		t = tvar_map_get(sem->tvars, e);
		if (!t || !t->value_type)
			return NULL;
		return arena_memdup(sem->a, &(struct typed_value){ .btf = t->btf,
				.type = t->value_type, .is_address = t->value_is_address,
				.origin = e->kind == E_CAST ? e->module : NULL },
				    sizeof(struct typed_value));
	case E_SYMBOL:
		/* Locals only: a global's value may come from anywhere. */
		v = sem_find_var(*sc->locals, e->name);
		return v && v->typed && !v->typed->conflict ? v->typed : NULL;
	case E_ASSIGN:
		return e->opid == OP_ASSIGN ? sem_typed(sem, sc, e->b) : NULL;
	case E_TERNARY:
		a = sem_typed(sem, sc, e->b);
		b = sem_typed(sem, sc, e->c);
		return a && b && !same_typed(a, b) ? NULL : a ? a : b;
	case E_CALL:
		f = sem_find_loaded(sem, e->name);
		return f && f->ret_typed && !f->ret_typed->conflict ? f->ret_typed : NULL;
	default:
		return NULL;
	}
}

/* Record that *slot is given ty (a change, for the next walk, if it is
 * new); given two different types it has none. */
void sem_set_typed(struct sem *sem, struct typed_value **slot, const struct typed_value *ty)
{
	if (!ty || (*slot && ((*slot)->conflict || same_typed(*slot, ty))))
		return;
	if (*slot) {
		(*slot)->conflict = true;
	} else {
		*slot = arena_memdup(sem->a, ty, sizeof(*ty));
		(*slot)->conflict = false;
	}
	sem->changed = true;
}

/* value->member, value[i] on a value of inferred type: an @cast of the
 * value to its type, or, untyped, SystemTap's error without DWARF. */
enum vtype sem_autocast(struct sem *sem, struct scope *sc, struct expr *e)
{
	const struct typed_value *ty;
	enum vtype t = sem_expr(sem, sc, e->a);

	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->a->loc, NULL, "'->' needs a pointer (a long), not a %s", vtype_name(t));
	ty = sem_typed(sem, sc, e->a);
	if (!ty) {
		sem_error(sem, &e->loc, NULL, "'->' on a value whose type ctap cannot infer (ctap types "
		      "$vars, @cast and what is assigned from them): write @cast(value, \"type\")");
		return T_UNKNOWN;
	}
	if (!e->chain && !e->pretty)
		return T_LONG;
	sem_chain_indexes(sem, sc, e);
	return sem_resolve_tvar(sem, sc, e, &(struct tvar){ .base = ty->is_address ? TVAR_POINTER :
							  TVAR_TYPED }, ty->type, ty->btf);
}

/* ---- @enum and @enumname: the kernel's enums, from BTF ---- */

/* "enum pid_type", or an anonymous enum's id. */
static const char *enum_label(struct sem *sem, const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	return t && t->name_off ? kbtf_type_name(sem->a, btf, id) :
	       arena_printf(sem->a, "an anonymous enum (BTF type %u)", id);
}

/* SystemTap looks enumerators up in the probed function's DWARF scopes;
 * BTF has no scopes, so the kernel's enums are one name space here, and
 * a name two enums give different values is an error. */
enum vtype sem_enum(struct sem *sem, struct scope *sc, struct expr *e)
{
	struct kbtf_enumerator some[8], *hit = some;
	const char *near[4];
	struct btf *btf;
	int n, i;

	if (sc->site && sc->site->process) {
		sem_error(sem, &e->loc, NULL, "@enum reads the kernel's enums (BTF), not a "
			  "program's: not in %s", sc->site->name);
		return T_UNKNOWN;
	}
	btf = session_btf(sem->s);
	if (!btf)
		return T_UNKNOWN;
	n = kbtf_find_enumerator(btf, e->str, hit, 8);
	if (n > 8) {	/* every hit, for the ambiguity check below */
		hit = arena_alloc(sem->a, n * sizeof(*hit));
		n = kbtf_find_enumerator(btf, e->str, hit, n);
	}
	if (!n) {
		char hint[256] = "";
		int k = kbtf_similar_enumerators(btf, e->str, near, 4);

		for (i = 0; i < k; i++)
			snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "%s%s",
				 i ? ", " : " (did you mean ", near[i]);
		sem_error(sem, &e->loc, NULL, "enumeration constant '%s' not found in the kernel's "
			  "BTF%s%s", e->str, hint, k ? "?)" : "");
		return T_UNKNOWN;
	}
	for (i = 1; i < n; i++)
		if (hit[i].value != hit[0].value) {
			sem_error(sem, &e->loc, NULL, "enumeration constant '%s' is ambiguous: %lld in "
				  "%s, %lld in %s (the kernel's BTF has no scopes to tell them "
				  "apart)", e->str, (long long)hit[0].value, enum_label(sem, btf, hit[0].type),
				  (long long)hit[i].value, enum_label(sem, btf, hit[i].type));
			return T_UNKNOWN;
		}
	e->kind = E_NUMBER;
	e->num = hit[0].value;
	return T_LONG;
}

const char *sem_path_next(struct sem *sem, const char **path)
{
	const char *start = *path;
	const char *end = strchr(start, ':');

	if (!*start)
		return NULL;
	if (!end)
		end = start + strlen(start);
	*path = *end ? end + 1 : end;
	return arena_strndup(sem->a, start, end - start);
}

bool sem_path_is_kernel(const char *m)
{
	return !strcmp(m, "kernel") || !strncmp(m, "kernel<", 7);
}

/* The enum type named e->str, in e->module's search path, as @cast finds
 * types.  NULL after an error. */
static const struct btf *enum_by_name(struct sem *sem, const struct expr *e, __u32 *id)
{
	const char *path = e->module ? e->module : "kernel";
	const char *m;
	struct btf *btf;

	if (!session_btf(sem->s))
		return NULL;
	while ((m = sem_path_next(sem, &path))) {
		if (sem_path_is_kernel(m))
			btf = session_btf(sem->s);
		else if (m[0] == '<' || strchr(m, '/') || session_module_btf(sem->s, m, &btf))
			continue;	/* headers and programs have no BTF enums here */
		if (!kbtf_find_enum(btf, e->str, id))
			return btf;
	}
	sem_error(sem, &e->loc, NULL, "@enumname: no enum type '%s' in %s", e->str,
		  e->module ? arena_printf(sem->a, "the BTF of '%s'", e->module) : "the kernel's BTF");
	return NULL;
}

/* The enum type of @enumname's $var operand.  NULL after an error, or
 * quietly if the $var itself did not resolve (that error is reported). */
static const struct btf *enum_of_var(struct sem *sem, struct scope *sc, const struct expr *e,
				     __u32 *id)
{
	const struct expr *v = e->a;
	const struct probe_var *pv;
	const struct btf *btf;
	const struct btf_type *t;
	struct tvar_error err = { 0 };
	__u32 end;

	if (v->kind != E_TARGET || v->pretty || v->addressof) {
		sem_error(sem, &e->loc, NULL, "@enumname needs a typed $variable or a type string "
			  "argument: @enumname(v, \"enum NAME\"[, \"module\"])");
		return NULL;
	}
	if (!sc->site || !tvar_map_get(sem->tvars, v) ||
	    !(pv = sem_probe_var(sc->site, v->name)) || !pv->btf_id)
		return NULL;
	btf = var_btf(sem, pv);
	if (tvar_end_type(sem->a, btf, v, pv->btf_id, false, &end, &err)) {
		sem_error(sem, err.loc, err.what, "%s", err.msg);
		return NULL;
	}
	t = btf__type_by_id(btf, kbtf_strip(btf, end));
	if (!t || !(btf_is_enum(t) || btf_is_enum64(t))) {
		sem_error(sem, &e->loc, NULL, "@enumname target '%s' does not have enumeration type "
			  "(have %s)", v->name, kbtf_type_name(sem->a, btf, end));
		return NULL;
	}
	*id = kbtf_strip(btf, end);
	return btf;
}

enum vtype sem_enumname(struct sem *sem, struct scope *sc, struct expr *e)
{
	enum vtype t = sem_expr(sem, sc, e->a);
	const struct btf *btf;
	__u32 id;

	if (t != T_UNKNOWN && t != T_LONG)
		sem_error(sem, &e->a->loc, NULL, "@enumname maps a long, not a %s", vtype_name(t));
	if (t == T_UNKNOWN && e->a->kind == E_SYMBOL)
		sem_assign_type(sem, sc, e->a, T_LONG, &e->loc);
	btf = e->str ? enum_by_name(sem, e, &id) : enum_of_var(sem, sc, e, &id);
	if (btf)
		tvar_map_set(sem->tvars, e, &(struct tvar){ .btf = btf, .value_type = id });
	return T_STRING;
}
