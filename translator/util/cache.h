/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - where ctap keeps what it can rebuild: $CTAP_CACHE_DIR, else
 * $XDG_CACHE_HOME/ctap, else ~/.cache/ctap (the home directory from the
 * password database if $HOME is unset).  Only the invoking user's own.
 */
#ifndef CACHE_H
#define CACHE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * buf = the path of name in the cache; the cache and name's directories
 * are created (0700) as needed.  Returns 0, -ENAMETOOLONG, -ENOENT (no home
 * directory), or -EPERM when a directory on the way is not the user's own
 * or others can write to it: then nothing in the cache may be used.
 */
int cache_path(char *buf, size_t size, const char *name);

/* 0 if the file at path (from cache_path) may be read and trusted: a
 * regular file of the user's, not a symlink, writable by nobody else;
 * -errno otherwise (-ENOENT: not there). */
int cache_file_ok(const char *path);

/* A file installed beside ctap (prebuilt runtime objects): 0 if it and its
 * directory are root's or ours, no symlink, writable by nobody else. */
int cache_installed_ok(const char *path);

/* Writes size bytes of data to path (from cache_path), under a temporary
 * name renamed into place, so that readers never see half a file; a
 * failure leaves nothing (the cache is only an optimisation). */
void cache_store(const char *path, const char *data, size_t size);

/* Keeps the keep newest entries of the cache's directory sub ("" for the
 * cache itself) whose names begin with prefix and end with suffix, files
 * or directories of files, and removes the others, each with its
 * companion (its name with also for suffix) if also is not NULL: what is
 * keyed by a stap executable gains one entry per build of ctap. */
void cache_prune(const char *sub, const char *prefix, const char *suffix, size_t keep,
		 const char *also);

/* This stap executable's identity (its size and modification time), for
 * naming what a different build may write differently. */
unsigned long cache_exe_id(void);

#endif /* CACHE_H */
