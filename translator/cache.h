/*
 * cache.h - where ctap keeps what it can rebuild: $CTAP_CACHE_DIR, else
 * $XDG_CACHE_HOME/ctap, else ~/.cache/ctap.
 */
#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>

/* buf = the cache directory's file name (created, with its parents).
 * Returns 0, or -1 if it does not fit. */
int cache_path(char *buf, size_t size, const char *name);

#endif /* CACHE_H */
