/* SPDX-License-Identifier: GPL-2.0 */
/*
 * remote.h - stap --remote [ssh://][USER@]HOST[:PORT] ...: the script
 * built once per distinct kernel of the hosts and run on each of them
 * with its own staprun, over OpenSSH.
 */
#ifndef REMOTE_H
#define REMOTE_H

#include "session.h"

/* The ssh destination for a --remote argument ("ssh://USER@HOST:PORT"),
 * or NULL after saying why the argument is not one. */
const char *remote_destination(struct session *s, const char *spec);

/* The whole of pass 5 for s->opt.remotes: ask each host for its kernel,
 * build a module per distinct kernel (this stap again, with argv), copy
 * it, run staprun on every host at once and stream their output; stap's
 * exit status (0 when every host's session ended with status 0). */
int remote_run(struct session *s, int argc, char **argv);

#endif /* REMOTE_H */
