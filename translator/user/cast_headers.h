/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cast_headers.h - user-space types declared by C headers, for
 * @cast(p, "type", "<header.h>") (cast_headers.c).
 */
#ifndef CAST_HEADERS_H
#define CAST_HEADERS_H

#include <linux/types.h>

struct session;

/* The id in session_user_btf() of type name ("timeval", "struct timeval")
 * as headers ("<a.h><b.h>") declare it: 0, -ENOENT if they do not, or
 * another negative errno with *why saying why (they did not compile). */
int cast_header_type(struct session *s, const char *headers, const char *name, __u32 *id,
		     const char **why);

/* Closes what the session compiled. */
void cast_headers_free(struct session *s);

#endif /* CAST_HEADERS_H */
