/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay.h - the script's output into stdout or -o's files, rotated on
 * request and under -S (relay.c), the files made as the user (output.c):
 * staprun's, and stapdyn's for its ring's records (relay_write()).
 */
#ifndef STAPRUN_RELAY_H
#define STAPRUN_RELAY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The user's uid for what follows (staprun setuid, trust.c; else nothing;
 * stapdyn's are none), then root's. */
int as_user(void);
void as_root(void);
/* The directory part of path ("." if none), opened O_PATH as the real
 * user (output.c): a descriptor, or -errno. */
int parent_dir_open_as_user(const char *path);

/* relay.c */
struct relay {
	int ncpus;
	int *fds;		/* trace0..traceN, -1 where a CPU has none */
	int *out_fds;		/* where each CPU's output goes */
	bool own_outs;		/* out_fds are bulk files we opened */
	uint64_t bytes;		/* copied to the output so far */
	/* -o FILE in stream mode goes on in FILE.1, FILE.2 ... on request
	 * (switch_file(), SIGUSR2) and, with -S, once a file is larger than
	 * fsize_max; -S starts at FILE.0 (SystemTap's stapio names).  They are
	 * made in FILE's directory as opened at the start (output.c). */
	const char *path;	/* FILE, or NULL: no rotation */
	int dir_fd;		/* FILE's directory, -1 if none */
	const char *name;	/* FILE's name in it */
	const char *prefix;	/* -b: PREFIX_cpuN */
	int fnum;		/* the file being written is FILE.fnum (0: FILE) */
	uint64_t wsize;		/* bytes written to it */
	uint64_t fsize_max;	/* -S MB as bytes; 0: only on request */
	int fnum_max;		/* -S MB,N: keep the N newest files; 0: all */
	bool switch_asked;
	/* The first write that failed (ENOSPC, a file that cannot be made):
	 * later output is read and counted as lost, not written. */
	int failed;		/* -errno, or 0 */
	bool failed_open;	/* making the file failed, not writing to it */
	char failed_file[PATH_MAX];
	uint64_t lost;		/* bytes */
};
int relay_open_all(struct relay *r, const char *modname);
/* Every CPU's output to out_fd; or, in bulk mode, to PREFIX_cpuN files. */
void relay_output_to(struct relay *r, int out_fd);
int relay_output_bulk(struct relay *r, const char *prefix);

/* Every CPU's output to out_fd, the first file of path (FILE, or FILE.0
 * under -S), which rotates from then on in dir_fd (see struct relay),
 * which the relay closes. */
void relay_output_rotating(struct relay *r, int out_fd, int dir_fd, const char *path,
			   const char *name, uint64_t fsize_max, int fnum_max);
/* Copies everything readable now to the outputs; returns the bytes read,
 * or -errno when the module's files cannot be read.  A failure to write
 * is kept in r->failed. */
long relay_drain(struct relay *r);
void relay_write(struct relay *r, const char *buf, size_t n);
void relay_close_all(struct relay *r);

/* output.c: output files (-o, -b's per-CPU files), created as the user
 * who ran staprun, never through a symlink.  An fd or -errno. */
int open_output(const char *path);
int open_output_at(int dir_fd, const char *name);
int unlink_output_at(int dir_fd, const char *name);
/* path's directory (O_PATH, opened as the user) and *name, its last part. */
int output_dir_open(const char *path, const char **name);
/* FILE's name number fnum under -S or after a switch (FILE.fnum); FILE
 * itself for fnum -1. */
int output_file_name(char *buf, size_t size, const char *base, int fnum);
/* -o FILE (not -b): *dir_fd, FILE's directory kept for the rotations, and
 * *name in it; the fd of the first file, FILE or, numbered (-S), FILE.0. */
int output_open_first(const char *path, bool numbered, int *dir_fd, const char **name);

#endif /* STAPRUN_RELAY_H */
