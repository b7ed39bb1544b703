/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ast.h - the parsed script.
 *
 * Plain structs, allocated in the translation's arena, every node with its
 * source location.  Lists are singly linked through `next`.  The parser
 * (parse.c) builds it, the printer (print.c) prints it back (stap -p1), the
 * later passes annotate it.
 */
#ifndef AST_H
#define AST_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "lex.h"

struct expr;
struct stmt;

enum expr_kind {
	E_NUMBER,	/* num */
	E_STRING,	/* str: escapes as written */
	E_SYMBOL,	/* name: a variable or array */
	E_INDEX,	/* base[args...]: array element or histogram bucket */
	E_WILDCARD,	/* '*' as an index in delete/foreach/in patterns */
	E_CALL,		/* name(args...) */
	E_UNARY,	/* op a: - + ! ~ ++ -- */
	E_POSTFIX,	/* a op: ++ -- */
	E_BINARY,	/* a op b: arithmetic, comparisons, . =~ !~ && || */
	E_ASSIGN,	/* a op b: = += ... .= <<< */
	E_TERNARY,	/* a ? b : c */
	E_IN,		/* [args...] in a */
	E_TARGET,	/* $name or $$vars, then chain; a: nothing */
	E_CAST,		/* @cast(a, str[, module]) chain */
	E_ATVAR,	/* @var(str[, module]) chain */
	E_STAT,		/* @name(a[, b]): count sum min max avg variance */
	E_HIST,		/* @hist_log(a) / @hist_linear(args...) */
	E_DEFINED,	/* @defined(a) */
	E_ENTRY,	/* @entry(a) */
	E_PROBEWRITE,	/* @probewrite(a) */
	E_CONST,	/* @const(str) */
	E_ENUM,		/* @enum(str): pass 2 makes it an E_NUMBER */
	E_ENUMNAME,	/* @enumname(a[, str[, module]]) */
	E_AT_CALL,	/* other @name(args...): @kregister, @uderef, ... */
	E_EMBEDDED,	/* %{ code %} as an expression (guru mode) */
	E_AUTOCAST,	/* a chain: members of a value whose type SystemTap would
			   infer, as task->utime or (expr)->m */
};

/* One step of a $var chain: ->member, [index] */
struct component {
	struct component *next;
	struct loc loc;
	const char *member;	/* NULL for an index */
	struct expr *index;
};

/*
 * 96 bytes: a 1 MB script has ~100,000 of them, the most memory pass 1
 * touches.  The unions hold fields no kind uses together (see expr_kind).
 */
struct expr {
	enum expr_kind kind : 8;
	unsigned char vtype;	/* enum vtype, from pass 2 */
	unsigned char pretty;	/* trailing $ count of $var$ / $var$$ */
	unsigned char opid;	/* enum op_id of op: passes switch on it, print op */
	bool addressof;		/* &$var->m, &@cast(p, "t")->m: the address */
	struct loc loc;
	struct expr *next;	/* in argument and key lists */
	union {
		const char *op;		/* unary, postfix, binary, assign: operator text */
		const char *str;	/* string literal; @cast type; @var name; @const;
				   @enum name; @enumname type */
	};
	const char *name;	/* symbol, function, $var, @stat name */
	union {
		int64_t num;		/* E_NUMBER */
		const char *module;	/* @cast/@var/@enumname module, or NULL */
	};
	struct expr *a, *b, *c;	/* operands */
	struct expr *args;	/* call args, index keys, hist args */
	struct component *chain;
};
_Static_assert(sizeof(struct expr) <= 96, "struct expr grew: pass 1 memory");

enum stmt_kind {
	S_NULL, S_EXPR, S_BLOCK, S_IF, S_WHILE, S_FOR, S_FOREACH, S_BREAK,
	S_CONTINUE, S_NEXT, S_RETURN, S_DELETE, S_TRY, S_EMBEDDED,
};

/* foreach ([v =] [k1, k2] in arr[pattern] [+|-] [limit n]) body */
struct foreach_info {
	struct expr *value;	/* v, or NULL */
	struct expr *keys;	/* E_SYMBOLs */
	struct expr *array;	/* E_SYMBOL or E_HIST */
	struct expr *pattern;	/* keys of arr[...], or NULL */
	struct expr *limit;
	int sort_column;	/* 0: none; 1..n: key n; -1: value */
	int sort_dir;		/* 1 ascending, -1 descending */
	const char *sort_agg;	/* "@sum" etc. when sorting by an aggregate */
	bool snapshot;		/* keeps a copy of its order: a sorted foreach over
				   the same array runs inside (analyses.c) */
};

struct stmt {
	enum stmt_kind kind;
	struct loc loc;
	struct stmt *next;
	struct expr *e;		/* S_EXPR, S_RETURN, S_DELETE, conditions */
	struct stmt *body;	/* S_BLOCK list, loop and if bodies, try */
	struct stmt *els;	/* else branch, catch block */
	struct expr *init, *incr;	/* S_FOR */
	struct foreach_info *fe;
	const char *catch_var;	/* S_TRY: catch (msg) */
	const char *code;	/* S_EMBEDDED */
};

/* kernel.function("x").return: one component each. */
struct pp_component {
	struct pp_component *next;
	struct loc loc;
	const char *name;	/* may hold * ** {a,b} */
	struct expr *arg;	/* E_NUMBER or E_STRING, or NULL */
};

struct probe_point {
	struct probe_point *next;
	struct loc loc;
	struct pp_component *components;
	bool optional;		/* ? */
	bool sufficient;	/* ! */
	struct expr *condition;	/* if (expr), or NULL */
};

struct probe {
	struct probe *next;
	struct loc loc;
	struct probe_point *points;
	struct stmt *body;	/* S_BLOCK: the handler; an alias's prologue, or NULL */
	struct stmt *epilogue;	/* an alias's epilogue block ("+=", or
				   "= points { prologue }, { epilogue }"), or NULL */
	bool is_alias;
	struct probe_point *alias_names;	/* the names an alias defines */
	bool privileged;	/* from a tapset, not the user script */
	bool versioned;		/* holds systemtap_v-conditional code: --check-version */
};

struct param {
	struct param *next;
	struct loc loc;
	const char *name;
	const char *type;	/* "long", "string", or NULL */
};

struct function {
	struct function *next;
	struct loc loc;
	const char *name;
	const char *type;	/* return type, or NULL */
	struct param *params;
	struct stmt *body;	/* S_BLOCK, or NULL when embedded */
	const char *embedded;	/* %{ C %} body */
	bool private;
	bool versioned;		/* as a probe's */
};

struct global {
	struct global *next;
	struct loc loc;
	const char *name;
	struct expr *init;	/* E_NUMBER or E_STRING, or NULL */
	int64_t size;		/* arr[N]; 0: default */
	bool is_array;		/* declared with [N] or % */
	bool wrap;		/* arr% */
	bool private;
	bool versioned;		/* as a probe's */
};

struct embedded {
	struct embedded *next;
	struct loc loc;
	const char *code;
};

/* One parsed file: the user script or one tapset. */
/* A name a script uses that a tapset may define, by kind (the tapset
 * index's): 'f' a function it calls, 'g' a variable it names, 'a' a probe
 * point, as a glob over alias names ("syscall.*" for syscall.{open,close}). */
struct name_use {
	const char *name;
	char kind;
};

struct script {
	struct script *next;
	const struct source *src;
	struct probe *probes;	/* and aliases, in order */
	struct function *functions;
	struct global *globals;
	struct embedded *embeds;
	/* Every call, variable (E_CALL, E_SYMBOL) and probe point of the
	 * declarations that parsed, noted as the parser makes them: pass 1
	 * looks up the tapsets a script needs from this array, not by walking
	 * the tree (whose nodes, spread over the arena, cost a miss each). */
	struct name_use *uses;
	size_t n_uses;
	bool is_tapset;
	/* A tapset the script uses (not one loaded only for -l/-L): its
	 * plain probes run too, as in SystemTap (json.stp's "probe init"). */
	bool is_used;
	/* Written by ctap from the target kernel: its aliases are defaults,
	 * dropped for a name another script defines (target_syscalls.c). */
	bool is_default;
};

/* Visit every expression of a statement list or a script, children first
 * (so a callback may rewrite a node from its already-visited operands). */
typedef void (*ast_expr_fn)(struct expr *e, void *ctx);
void ast_walk_stmt(struct stmt *s, ast_expr_fn fn, void *ctx);
void ast_walk_script(struct script *scr, ast_expr_fn fn, void *ctx);
/* ... and of an expression (with its next ones: an argument list) */
void ast_walk_expr(struct expr *e, ast_expr_fn fn, void *ctx);

/* Free of side effects: no calls, assignments, ++ or --, embedded C
 * (a division may still fail, but SystemTap elides it all the same).
 * What pass 2 may leave untyped and pass 3 may drop must agree on this. */
bool ast_pure(const struct expr *e);

/* A deep copy of a statement list (its expressions too), in a. */
struct arena;
struct stmt *ast_clone_stmt(struct arena *a, const struct stmt *s);

#endif /* AST_H */
