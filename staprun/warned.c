// SPDX-License-Identifier: GPL-2.0
/*
 * warned.c - a warning printed once however often the script repeats it,
 * as SystemTap's stapio does: staprun's messages from the kernel module
 * and stapdyn's from the ring (stapdyn links this file).  The last
 * WARNED_MAX distinct warnings are remembered, by their text: a hash
 * alone let a second warning whose hash collided with a first one's go
 * unprinted (unit/test_warned).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "warned.h"

static unsigned long hash(const char *line, size_t len)
{
	unsigned long h = 5381;

	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)line[i];
	return h;
}

bool warned_before(struct warned *w, const char *line, size_t len)
{
	unsigned long h;
	struct warned_line *slot;

	if (len < 7 || strncmp(line, "WARNING", 7))
		return false;
	h = hash(line, len);
	for (unsigned int i = 0; i < WARNED_MAX; i++) {
		const struct warned_line *l = &w->lines[i];

		if (l->text && l->hash == h && l->len == len && !memcmp(l->text, line, len))
			return true;
	}
	slot = &w->lines[w->n++ % WARNED_MAX];
	free(slot->text);
	slot->text = malloc(len);
	if (slot->text)
		memcpy(slot->text, line, len);
	slot->len = len;
	slot->hash = h;
	return false;
}
