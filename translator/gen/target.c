// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - pass 3: $var, $var->a->b[i], @cast(p, "type")->m, &..., and
 * $$parms, $$vars, $$locals, $$return, as C.
 *
 * Pass 2 resolved each of them (tvar.c): a base (an argument of the
 * probed function, read by the calling convention or as saved at entry
 * in a .return probe; its return value; an @cast's pointer) and steps.
 * Here the steps become statements on one temporary: an offset is added
 * into the address of the next read, a read is one ctap_kread() (a
 * copy_from_kernel_nofault(): a bad pointer is a soft error; ctap_uread()
 * through a user program's types, udwarf_btf.c), an index
 * multiplies.  Nothing is checked here: every error was pass 2's.
 */
#include "config.h"

#include <string.h>

#include "print.h"
#include "tvar.h"
#include "xlate.h"

struct chain {
	struct xlate *x;
	bool user;		/* a user program's types: reads of user memory */
	const char *t;		/* the temporary (unsigned long) */
	const char *where;	/* for faults: "identifier '$file' at x.stp:3:9" */
	int64_t off;		/* not yet added to t */
	const char *what;	/* ... the members it stands for */
};

/* t + off, the offset commented with the members it stands for. */
static const char *address(struct chain *ch)
{
	if (!ch->off)
		return ch->t;
	return arena_printf(ch->x->a, "%s + %lld /* %s */", ch->t, (long long)ch->off,
			    gen_c_comment(ch->x->a, ch->what));
}

static void emit_step(struct chain *ch, const struct tvar_step *s)
{
	struct xlate *x = ch->x;

	switch (s->op) {
	case TVAR_ADD:
		ch->off = s->n;
		ch->what = s->what;
		return;
	case TVAR_LOAD:
		gen_line(x, arena_printf(x->a, "%s = %s(c, %s, %lld, %s,", ch->t,
					 ch->user ? "ctap_uread" : "ctap_kread", address(ch),
					 (long long)s->n, s->is_signed ? "true" : "false"));
		gen_line(x, arena_printf(x->a, "\t\t%s);", ch->where));
		gen_fail_if(x, "c->last_error");
		break;
	case TVAR_INDEX:
		gen_line(x, arena_printf(x->a, "%s = %s + (unsigned long)(%s) * %lld;", ch->t,
					 address(ch), gen_expr(x, s->index), (long long)s->n));
		break;
	case TVAR_BITFIELD:
		gen_line(x, arena_printf(x->a, "%s = ctap_bitfield(%s, %lld, %d, %s);", ch->t, ch->t,
					 (long long)s->n, s->bits, s->is_signed ? "true" : "false"));
		break;
	}
	ch->off = 0;
}

/* The value of the base, as C. */
static const char *base(struct xlate *x, const struct expr *e, const struct tvar *t)
{
	if (t->base == TVAR_POINTER || t->base == TVAR_TYPED)
		return arena_printf(x->a, "(unsigned long)%s", gen_expr(x, e->a));
	if (t->base == TVAR_RETURN)
		return "ctap_retval(c)";
	if (t->slot)	/* where this probe passes it */
		return arena_printf(x->a, "ctap_arg(c, c->probe->args_of[%d])", t->slot - 1);
	return arena_printf(x->a, "ctap_arg(c, %d)", t->arg);
}

const char *gen_target(struct xlate *x, const struct expr *e)
{
	const struct tvar *t = sem_tvar(x->s, e);
	struct chain ch = { .x = x };
	const char *b;

	if (t && t->expansion)
		return t->catch_errors ? gen_caught(x, t->expansion, "ERROR") :
					 gen_expr(x, t->expansion);
	if ((e->kind == E_CAST || e->kind == E_AUTOCAST) && !e->chain)
		return gen_expr(x, e->a);	/* the pointer itself */
	if (!t) {
		gen_error(x, &e->loc, "%s was not resolved in pass 2", expr_text(x->a, e));
		return "0LL";
	}
	if (t->base == TVAR_VALUE)
		return "ctap_procfs_get(c)";
	if (t->is_string)
		return arena_printf(x->a, "ctap_arg_string(c, %d)", t->arg);
	b = base(x, e, t);
	if (!t->nsteps && t->extend < 8)
		return arena_printf(x->a, "ctap_extend(%s, %d, %s)", b, t->extend,
				    t->is_signed ? "true" : "false");
	if (!t->nsteps)
		return arena_printf(x->a, "(int64_t)%s", b);
	ch.t = gen_temp(x, "unsigned long %s", e->kind == E_CAST ? "cast" :
			e->kind == E_AUTOCAST ? "autocast" : e->kind == E_ATVAR ? "var" : e->name + 1);
	ch.where = gen_where(x, &e->loc, e->kind == E_CAST ? "operator '@cast'" :
			     e->kind == E_AUTOCAST ? "operator '->'" :
			     e->kind == E_ATVAR ? "operator '@var'" :
			     arena_printf(x->a, "identifier '%s'", e->name));
	gen_line(x, arena_printf(x->a, "%s = %s;", ch.t, b));
	ch.user = t->btf && t->btf == x->s->user_btf;
	for (int i = 0; i < t->nsteps; i++)
		emit_step(&ch, &t->steps[i]);
	return arena_printf(x->a, "(int64_t)(%s)", address(&ch));
}

/*
 * target = value, in guru mode (pass 2 checked the mode): a value a
 * register holds is written there; one reached through pointers
 * ($file->f_pos, @cast(p, "T")->m) is written in kernel memory, where a
 * fault is a soft error as for a read.
 */
const char *gen_assign_target(struct xlate *x, const struct expr *e)
{
	const struct expr *target = e->a;
	const struct tvar *t = sem_tvar(x->s, target);
	struct chain ch = { .x = x };
	const struct tvar_step *last;
	const char *val, *regs;

	if (!t || t->expansion || t->is_string || t->base == TVAR_TYPED ||
	    (!t->nsteps && !t->write_reg && !t->write_in_args)) {
		gen_error(x, &e->loc, "%s cannot be written", expr_text(x->a, target));
		return "0LL";
	}
	if (e->opid != OP_ASSIGN) {
		gen_error(x, &e->loc, "only '=' writes %s", expr_text(x->a, target));
		return "0LL";
	}
	val = gen_temp(x, "int64_t %s", "value");
	gen_line(x, arena_printf(x->a, "%s = %s;", val, gen_expr(x, e->b)));
	if (!t->nsteps && t->write_in_args) {
		gen_line(x, arena_printf(x->a, "ctap_set_arg(c, %d, %s);", t->arg, val));
		return val;
	}
	if (!t->nsteps) {
		regs = t->write_regs_arg < 0 ? "c->regs" :
		       arena_printf(x->a, "(struct pt_regs *)ctap_arg(c, %d)", t->write_regs_arg);
		gen_line(x, arena_printf(x->a, "ctap_set_reg(c, %s, offsetof(struct pt_regs, %s), %s,",
					 regs, t->write_reg, val));
		gen_line(x, arena_printf(x->a, "\t     %s);", gen_where(x, &target->loc,
					 arena_printf(x->a, "identifier '%s'", target->name))));
		gen_fail_if(x, "c->last_error");
		return val;
	}
	last = &t->steps[t->nsteps - 1];
	if (t->btf && t->btf == x->s->user_btf) {
		gen_error(x, &e->loc, "%s is in user memory: ctap does not write it",
			  expr_text(x->a, target));
		return "0LL";
	}
	if (last->op != TVAR_LOAD) {
		gen_error(x, &e->loc, "%s is not a whole number in memory: it cannot be written",
			  expr_text(x->a, target));
		return "0LL";
	}
	ch.t = gen_temp(x, "unsigned long %s", target->kind == E_CAST ? "cast" : "target");
	ch.where = gen_where(x, &target->loc, target->kind == E_CAST ? "operator '@cast'" :
			     arena_printf(x->a, "identifier '%s'", target->name));
	gen_line(x, arena_printf(x->a, "%s = %s;", ch.t, base(x, target, t)));
	for (int i = 0; i < t->nsteps - 1; i++)
		emit_step(&ch, &t->steps[i]);
	gen_line(x, arena_printf(x->a, "ctap_kwrite(c, %s, %lld, %s,", address(&ch),
				 (long long)last->n, val));
	gen_line(x, arena_printf(x->a, "\t    %s);", ch.where));
	gen_fail_if(x, "c->last_error");
	return val;
}
