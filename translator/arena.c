/*
 * arena.c - bump allocator: blocks of at least 64 KiB, freed all at once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define ARENA_BLOCK_MIN	(64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) / align * align;
	if (!b || b->size - b->used < size) {
		size_t bsize = size > ARENA_BLOCK_MIN ? size : ARENA_BLOCK_MIN;

		b = malloc(sizeof(*b) + bsize);
		if (!b) {
			fprintf(stderr, "stap: out of memory\n");
			exit(1);
		}
		b->used = 0;
		b->size = bsize;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
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

void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}
