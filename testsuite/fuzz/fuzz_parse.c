/*
 * fuzz_parse.c - libFuzzer target for pass 1: lexer, preprocessor, parser
 * and the -p1 printer.  Any input must end in a tree or in error messages;
 * never a crash, a sanitizer report, a hang or a leak.
 *
 *   testsuite/run-tests fuzz       (bounded run, seeded with parseok/)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse.h"
#include "print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = { 0 };
	char *text = malloc(size + 1);
	char *argv[] = { "1", "two" };
	struct script_args args = { argv, 2 };
	struct pp_env env = {
		.kernel_release = "6.1.0-56-amd64", .arch = "x86_64", .runtime = "kernel",
		.compat_version = "4.8", .privilege = "stapdev",
		.guru = true,		/* embedded C parses (a script needs -g for it) */
		.max_expansion = 20000,	/* the limit, not its size, is under test */
	};
	struct source *src;
	struct script *s;
	FILE *null = fopen("/dev/null", "w");

	diag_reset();	/* else the warnings shown, kept to show each once, pile up */
	memcpy(text, data, size);
	text[size] = '\0';
	src = source_from_string(&a, "fuzz.stp", text);
	s = parse_script(&a, src, &args, &env, false);
	if (s && null)
		print_script(null, s);
	if (null)
		fclose(null);
	free(text);
	pp_env_free(&env);
	arena_free(&a);
	lex_free_sources();
	return 0;
}
