/*
 * arena.h - bump allocation for everything a translation creates.
 *
 * Tokens, AST nodes and strings live until the translation ends and are
 * freed together, so a parse error may unwind (longjmp) without leaking.
 */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>

struct arena_block;
struct arena_owned;

struct arena {
	struct arena_block *head;
	struct arena_owned *owned;	/* malloc'd blocks handed over */
};

/* Zeroed memory; exits with a message when memory runs out. */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hand a malloc'd block to the arena: arena_free() will free it. */
void arena_own(struct arena *a, void *p);
void arena_free(struct arena *a);

/*
 * malloc for big, short-lived arrays: at 2 MiB and more it asks for huge
 * pages, since first-touch page faults are most of what a large parse
 * costs.  Free with free(); exits when memory runs out.
 */
void *big_alloc(size_t size);

#define arena_new(a, type) ((type *)arena_alloc((a), sizeof(type)))

#endif /* ARENA_H */
