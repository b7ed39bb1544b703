// SPDX-License-Identifier: GPL-2.0
/*
 * arena.c - bump allocator: blocks of at least 64 KiB, freed all at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "xalloc.h"

#define ARENA_BLOCK_MIN	(64 * 1024)
#define ARENA_BLOCK_MAX	(16 * 1024 * 1024)
#define HUGE_PAGE	(2 * 1024 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t size;
	max_align_t data[];
};

void *arena_refill(struct arena *a, size_t size, size_t align)
{
	struct arena_block *b = a->head;
	/* Blocks double up to ARENA_BLOCK_MAX: few blocks for a big parse. */
	size_t bsize = b ? 2 * b->size : ARENA_BLOCK_MIN;

	if (bsize > ARENA_BLOCK_MAX)
		bsize = ARENA_BLOCK_MAX;
	if (bsize < size + align)
		bsize = size + align;
	b = big_alloc(sizeof(*b) + bsize);
	b->size = bsize;
	b->next = a->head;
	a->head = b;
	a->free = (char *)b->data;
	a->limit = a->free + bsize;
	return arena_bump(a, size, align);
}

void *big_alloc(size_t size)
{
	void *p = NULL;

	if (size < HUGE_PAGE) {
		p = malloc(size);
	} else if (posix_memalign(&p, HUGE_PAGE, size) == 0) {
		madvise(p, size, MADV_HUGEPAGE);	/* advice only: failure is fine */
	}
	if (!p)
		out_of_memory();
	return p;
}

char *arena_read_file(struct arena *a, const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 64 * 1024, n = 0, got;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *bigger = realloc(buf, cap *= 2);

			if (!bigger)
				free(buf);
			buf = bigger;
		}
	}
	if (!buf || ferror(f)) {
		free(buf);
		fclose(f);
		errno = buf ? EIO : ENOMEM;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	arena_own(a, buf);
	return buf;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = arena_alloc(a, n + 1);
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

struct arena_owned {
	struct arena_owned *next;
	void *p;
};

void arena_own(struct arena *a, void *p)
{
	struct arena_owned *o = arena_new(a, struct arena_owned);

	o->p = p;
	o->next = a->owned;
	a->owned = o;
}

void arena_free(struct arena *a)
{
	/* The records live in the blocks freed below: walk them first. */
	for (struct arena_owned *o = a->owned; o; o = o->next)
		free(o->p);
	a->owned = NULL;
	while (a->head) {
		struct arena_block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
	a->free = a->limit = NULL;
}

void **arena_sorted(struct arena *a, void *head, size_t next_off,
		    int (*cmp)(const void *, const void *), size_t *n)
{
	void **v;

	*n = 0;
	for (char *p = head; p; p = *(char **)(p + next_off))
		(*n)++;
	v = arena_alloc(a, (*n + 1) * sizeof(*v));
	*n = 0;
	for (char *p = head; p; p = *(char **)(p + next_off))
		v[(*n)++] = p;
	qsort(v, *n, sizeof(*v), cmp);
	return v;
}
