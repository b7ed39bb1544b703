/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arena.h - bump allocation for everything a translation creates.
 *
 * Tokens, AST nodes and strings live until the translation ends and are
 * freed together, so a parse error may unwind (longjmp) without leaking.
 */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>
#include <string.h>

struct arena_block;
struct arena_owned;

struct arena {
	struct arena_block *head;
	struct arena_owned *owned;	/* malloc'd blocks handed over */
	char *free, *limit;		/* the unused part of the head block */
};

/* size bytes at a multiple of align from a new block: the slow path. */
void *arena_refill(struct arena *a, size_t size, size_t align);

/* size bytes at a multiple of align (a power of two), not zeroed. */
static inline void *arena_bump(struct arena *a, size_t size, size_t align)
{
	char *p = (char *)(((size_t)a->free + align - 1) & ~(align - 1));

	if (!a->free || p > a->limit || (size_t)(a->limit - p) < size)
		return arena_refill(a, size, align);
	a->free = p + size;
	return p;
}

/*
 * Zeroed memory; exits with a message when memory runs out.  Inline, as
 * arena_strndup: pass 1 calls them for every token and node.
 */
static inline void *arena_alloc(struct arena *a, size_t size)
{
	return memset(arena_bump(a, size, _Alignof(max_align_t)), 0, size);
}

static inline char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_bump(a, n + 1, 1);	/* strings need no alignment */

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
/* A copy of size bytes at p. */
static inline void *arena_memdup(struct arena *a, const void *p, size_t size)
{
	return memcpy(arena_bump(a, size, _Alignof(max_align_t)), p, size);
}

char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hand a malloc'd block to the arena: arena_free() will free it. */
void arena_own(struct arena *a, void *p);
void arena_free(struct arena *a);

/* The whole file at path, NUL-terminated, kept by a (*len bytes); NULL
 * with errno set if it cannot be read. */
char *arena_read_file(struct arena *a, const char *path, size_t *len);

/*
 * malloc for big, short-lived arrays: at 2 MiB and more it asks for huge
 * pages, since first-touch page faults are most of what a large parse
 * costs.  Free with free(); exits when memory runs out.
 */
void *big_alloc(size_t size);

#define arena_new(a, type) ((type *)arena_alloc((a), sizeof(type)))

/*
 * The nodes of a linked list (each one's next pointer at next_off), in
 * an arena array sorted by cmp (qsort's, over pointers to nodes); *n of
 * them, then NULL.
 */
void **arena_sorted(struct arena *a, void *head, size_t next_off,
		    int (*cmp)(const void *, const void *), size_t *n);

#endif /* ARENA_H */
