/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print.h - print the AST back as script text (stap -p1).
 *
 * The output is canonical: it parses back to the same AST, and printing
 * that gives the same text again (the round-trip tests rely on it).
 * Parentheses appear only where precedence needs them.
 */
#ifndef PRINT_H
#define PRINT_H

#include <stdio.h>

#include "arena.h"
#include "ast.h"

void print_script(FILE *f, const struct script *s);
void print_expr(FILE *f, const struct expr *e);
void print_probe_point(FILE *f, const struct probe_point *pp);

/* The same as text in the arena, for messages and names. */
const char *expr_text(struct arena *a, const struct expr *e);
const char *probe_point_text(struct arena *a, const struct probe_point *pp);

#endif /* PRINT_H */
