/*
 * fuzz_pass2.c - libFuzzer target for passes 1 and 2 over one script with
 * ctap's own tapset library (fixed: tapsets/ of this tree) and the guest
 * kernel's BTF from the test cache: probe point matching, aliases,
 * symbols, types, constant folding.  Any input must end in a checked
 * script or in error messages; never a crash, a sanitizer report or a hang.
 *
 *   testsuite/run-tests fuzz
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses.h"
#include "diag.h"
#include "elaborate.h"
#include "fold.h"
#include "pass1.h"
#include "sem.h"
#include "session.h"

/* The BTF, loaded by the first run that needs it and kept: it is only
 * read, and loading 5 MB each run made the target ten times slower. */
static struct btf *btf;
static struct ksyms *ksyms;	/* the same for the symbol table */
/* The kernel's image and modules, where main() finds an installed one. */
static char image[4096], moddir[4096];

/* Each run frees its arenas at the end and allocates them again: glibc
 * gave the memory back to the kernel every time (heap trims and munmaps,
 * then page faults on fresh zeroed pages), 40% of a short run's time. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *release = getenv("KERNEL_RELEASE");

	snprintf(image, sizeof(image), "/boot/vmlinuz-%s", release ? release : "");
	snprintf(moddir, sizeof(moddir), "/lib/modules/%s", release ? release : "");
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);	/* glibc's maximum */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s = {
		.opt.last_pass = 2,
		.opt.kernel_release = getenv("KERNEL_RELEASE"),
		.opt.kernel_build = getenv("KERNEL_BUILD"),
		.opt.kernel_image = image,
		.opt.kernel_moddir = moddir,
		.pp = { .arch = "x86_64", .runtime = "kernel", .privilege = "stapdev",
			.compat_version = "4.8",
			.max_expansion = 20000 },	/* the limit, not its size, is under test */
	};
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	s.opt.script_text = text;
	s.pp.kernel_release = s.opt.kernel_release;
	s.btf = btf;
	s.ksyms = ksyms;
	diag_reset();
	if (pass1_parse(&s) == 0 && pass2_elaborate(&s) == 0 && pass2_semantic(&s) == 0 &&
	    analyses_check_foreach(&s) == 0 && analyses_check_sizes(&s) == 0) {
		fold_script(&s.arena, s.user);
		for (struct script *t = s.library; t; t = t->next)
			fold_script(&s.arena, t);
	}
	pass2_free(&s);
	btf = s.btf;
	s.btf = NULL;
	ksyms = s.ksyms;
	s.ksyms = NULL;
	session_free(&s);
	sem_free(&s);
	pp_env_free(&s.pp);
	arena_free(&s.arena);
	lex_free_sources();	/* else the source table grows by every run's files */
	free(text);
	return 0;
}
