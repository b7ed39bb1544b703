/*
 * run.h - pass 5: run the module, with staprun here or in a QEMU guest
 * (--vm).
 */
#ifndef RUN_H
#define RUN_H

#include "session.h"

/* Returns the exit status for stap. */
int pass5_run(struct session *s, const char *ko);

#endif /* RUN_H */
