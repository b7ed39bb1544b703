/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - the target kernel's function symbols, beside its BTF.
 *
 * BTF describes the functions that have a stable prototype; the symbol
 * table has every one (Debian 6.1's BTF lacks __x64_sys_getpid and the
 * other argument-less syscall wrappers, and every .isra/.constprop clone).
 * Where it comes from, first found wins:
 *   1. /proc/kallsyms, when the target is the running kernel;
 *   2. a real System.map: <build tree>/System.map, /boot/System.map-RELEASE
 *      (Debian's is a one-line placeholder: its real one is in the -dbg
 *      package);
 *   3. the cache, file kallsyms-<release>.map (System.map's format);
 *   4. the kallsyms tables inside /boot/vmlinuz-RELEASE, decoded (the
 *      layout scripts/kallsyms.c writes, 6.1's and 6.3's orders), then
 *      cached.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stdbool.h>
#include <stdint.h>

/* A function of the kernel proper (not a module's). */
struct ksym {
	const char *name;
	uint64_t addr;		/* link-time or current: only differences count */
	uint64_t size;		/* to the next symbol; 0 if unknown */
	const char *why;	/* not NULL: the text section may not be probed, why */
	int copies;		/* functions of this name (static ones repeat) */
	bool global;		/* one of them is a global symbol (T or W): what
				 * SystemTap's .exported calls exported */
};

struct ksyms {
	struct ksym *funcs;	/* sorted by name, each name once */
	int n;
	struct ksym *vars;	/* the image's data symbols, the same way (no why);
				 * made by the first ksyms_var() */
	int nvars;
	void *raws;		/* until then, the table they are made from */
	uint64_t stext;
	char *strings;		/* the names live here */
	const char *source;	/* where they came from, for -v */
};

/*
 * The function symbols of kernel release (build_dir: its build tree;
 * image: its boot image, whose kallsyms tables are the last resort).
 * Returns 0 and *out (ksyms_free() it), -ENOENT (no source found), or
 * -errno.
 */
int ksyms_load(const char *release, const char *build_dir, const char *image,
	       struct ksyms **out);
void ksyms_free(struct ksyms *ks);

/* The function called name, or NULL. */
const struct ksym *ksyms_find(const struct ksyms *ks, const char *name);

/* The data symbol called name (defined once), or NULL.  Its address is
 * the link-time one: at run time add the image's relocation, which the
 * module learns from an exported symbol (ksyms_anchor). */
const struct ksym *ksyms_var(const struct ksyms *ks, const char *name);

/*
 * The functions whose names match glob (fnmatch), sorted by name, in *out
 * (free() it: pointers into ks).  Returns how many, or -ENOMEM.
 */
int ksyms_match(const struct ksyms *ks, const char *glob, const struct ksym ***out);

/* Up to max names close to name (edit distance), closest first. */
int ksyms_similar(const struct ksyms *ks, const char *name, const char **out, int max);

/*
 * Decode the kallsyms tables of an uncompressed kernel image into
 * System.map text ("ADDR TYPE NAME\n" lines, malloc'd, in *map).  Exposed
 * for the unit test.  0, -ENOENT (no tables found) or -ENOMEM.
 */
int ksyms_decode_image(const char *img, size_t size, char **map);

#endif /* KSYMS_H */
