/*
 * translate.h - pass 3 (the module's C) and pass 4 (building it).
 *
 * Pass 3 writes one C file that reads like a kernel sample module: the
 * globals and their locks, one function per probe body and per script
 * function, a struct ctap_probe per concrete probe, each probe family's
 * table (from its provider's emit callback), and module init/exit.  It
 * is written against kmod-runtime/ctap_runtime.h; docs/translator.md
 * describes the layout and the calling conventions.
 */
#ifndef TRANSLATE_H
#define TRANSLATE_H

#include <stdio.h>

#include "session.h"

/* The module name: -m NAME, else stap_<hash of the script>. */
const char *xlate_module_name(struct session *s);

/* Pass 3: write the module's C to out.  Returns 0 if clean. */
int pass3_translate(struct session *s, FILE *out);

/*
 * Pass 4: build the C (text, len bytes) against the target kernel's build
 * tree, or find it in the module cache.  Sets *ko to the module's path.
 * Returns 0, or -1 after printing why.
 */
/* Where the runtime sources are: -R, the install prefix, or the source tree. */
const char *session_runtime_dir(struct session *s);

int pass4_build(struct session *s, const char *c_text, size_t len, const char **ko);

/* Pass 5: run the module (staprun here, or in a guest with --vm).
 * Returns the exit status for stap. */
int pass5_run(struct session *s, const char *ko);

#endif /* TRANSLATE_H */
