/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - pass 1: script text to AST.
 */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "lex.h"
#include "preproc.h"

/*
 * Lex, preprocess and parse one file.  Errors are reported through diag
 * (several per file where recovery is sound); returns the script, with
 * whatever parsed, or NULL if the source could not be lexed at all.
 */
struct script *parse_script(struct arena *a, const struct source *src,
			    const struct script_args *args,
			    struct pp_env *env, bool is_tapset);

/* A probe point's component names joined by dots ("syscall.open"), in
 * the arena; with glob, as a glob over alias names: a brace expansion or
 * '**' becomes '*'. */
const char *probe_point_name(struct arena *a, const struct probe_point *pp, bool glob);

/* Reads a whole file into the arena as a source; NULL (errno) on failure. */
struct source *source_from_file(struct arena *a, const char *path);
struct source *source_from_string(struct arena *a, const char *name, const char *text);

#endif /* PARSE_H */
