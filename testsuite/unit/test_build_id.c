/*
 * test_build_id - staprun/build_id.c, the GNU build id of a block of ELF
 * notes, which staprun reads from /sys/kernel/notes and the translator
 * from a remote host's notes and a vmlinux's: found after a note of
 * another kind, refused where a note runs past the end or the id does not
 * fit.
 */
#include <stdio.h>
#include <string.h>

#include "build_id.h"
#include "unit.h"

/* Append a note (4-byte aligned name and description) at *at. */
static void note(unsigned char *b, size_t *at, unsigned int type, const char *name,
		 const unsigned char *desc, unsigned int descsz)
{
	unsigned int namesz = strlen(name) + 1;

	memcpy(b + *at, &namesz, 4);
	memcpy(b + *at + 4, &descsz, 4);
	memcpy(b + *at + 8, &type, 4);
	*at += 12;
	memcpy(b + *at, name, namesz);
	*at += (namesz + 3) & ~3u;
	memcpy(b + *at, desc, descsz);
	*at += (descsz + 3) & ~3u;
}

int main(void)
{
	unsigned char b[256] = { 0 }, id[20], xen[3] = { 1, 2, 3 };
	char hex[41] = "untouched", want[41];
	size_t n = 0;

	for (int i = 0; i < 20; i++)
		id[i] = 0xa0 + i;
	note(b, &n, 6, "Xen", xen, sizeof(xen));	/* another kind first */
	note(b, &n, 3, "GNU", id, sizeof(id));
	for (int i = 0; i < 20; i++)
		sprintf(want + 2 * i, "%02x", id[i]);
	CHECK(notes_build_id(b, n, hex, sizeof(hex)) && !strcmp(hex, want),
	      "the GNU build id after a note of another kind");
	strcpy(hex, "untouched");
	CHECK(!notes_build_id(b, n - 1, hex, sizeof(hex)) && !strcmp(hex, "untouched"),
	      "a note that runs past the end: none, the output untouched");
	CHECK(!notes_build_id(b, n, hex, 40), "an id that does not fit: none");
	CHECK(!notes_build_id(b, 16, hex, sizeof(hex)), "a block cut inside its first note: none");

	return unit_done();
}
