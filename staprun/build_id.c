// SPDX-License-Identifier: GPL-2.0
/*
 * build_id.c - the GNU build id in a block of ELF notes (build_id.h).
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "build_id.h"

/**
 * notes_build_id - the GNU build id of a block of ELF notes, as hex
 * @notes: the notes, as the kernel shows them in /sys/kernel/notes or an
 *	ELF file has them in a SHT_NOTE section (host byte order)
 * @n: their size
 * @hex: where the id goes, NUL-terminated
 * @size: @hex's size
 *
 * Every note is checked against @n; a name or a description over 256
 * bytes ends the walk.  Returns true with @hex set, false with @hex
 * untouched if no build id note fits.
 */
bool notes_build_id(const void *notes, size_t n, char *hex, size_t size)
{
	const unsigned char *b = notes;
	size_t off = 0;

	while (off + 12 <= n) {
		unsigned int namesz, descsz, type;
		size_t name, desc, next;

		memcpy(&namesz, b + off, 4);
		memcpy(&descsz, b + off + 4, 4);
		memcpy(&type, b + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~3u);
		next = desc + ((descsz + 3) & ~3u);
		if (namesz > 256 || descsz > 256 || next > n)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(b + name, "GNU", 4) &&
		    descsz && descsz * 2 + 1 <= size) {
			for (unsigned int i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", b[desc + i]);
			return true;
		}
		off = next;
	}
	return false;
}
