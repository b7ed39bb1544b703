/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sign.h - stap --sign-module: modules signed with the user's key pair by
 * the target kernel's scripts/sign-file.
 */
#ifndef SIGN_H
#define SIGN_H

#include "session.h"

/* The key pair (s->sign_key, s->sign_cert) in --sign-module's directory,
 * made by openssl on first use; 0, or -1 after saying why on stderr. */
int sign_prepare(struct session *s);

/* Appends the signature to the module ko; 0, or -1 after saying why. */
int sign_module(struct session *s, const char *ko);

#endif /* SIGN_H */
