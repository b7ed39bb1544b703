/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs.h - procfs("NAME").read / .write: files in /proc/systemtap/MODULE/
 * whose reads and writes run probes.
 *
 * A read probe fills the file's buffer ($value) once per open, at the
 * first read; the reader then reads that.  A write probe runs for each
 * write(2), with the bytes written (at most bufsize - 1 of them) as its
 * $value.  One opener at a time, as SystemTap: a second open waits until
 * the first is closed (O_NONBLOCK: -EAGAIN).
 */
#ifndef CTAP_PROCFS_H
#define CTAP_PROCFS_H

#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/wait.h>

#include "ctap_runtime.h"

/* What a procfs probe's $value is: the file's buffer, as a string. */
struct ctap_procfs_value {
	char *buf;
	size_t len;
	size_t size;		/* of buf, the NUL included */
};

struct ctap_procfs_file {
	const char *name;		/* in /proc/systemtap/MODULE/ */
	umode_t mode;
	size_t bufsize;			/* .maxsize(N), else MAXSTRINGLEN */
	const struct ctap_probe *read_probe;	/* or NULL */
	const struct ctap_probe *const *write_probes;
	int nwrite;
	/* While armed: */
	struct ctap_procfs_value value;
	bool needs_fill;		/* opened for reading, not read yet */
	bool open;			/* one opener at a time */
	struct mutex lock;		/* value, needs_fill, open */
	wait_queue_head_t wait;		/* for open to become false */
	struct proc_dir_entry *pde;
};

/**
 * ctap_procfs_register - create the files of a table
 * @files: the table
 * @n: its length
 *
 * /proc/systemtap/MODULE/NAME for each, with its buffer (allocated here:
 * handlers never allocate).  Process context.  A file or directory that
 * cannot be made is an error naming it: returns the -errno, nothing made.
 */
int ctap_procfs_register(struct ctap_procfs_file *files, int n);

/**
 * ctap_procfs_unregister - remove the files of a table
 * @files: the table
 * @n: its length
 *
 * Wakes openers waiting (-ENODEV) and returns once no read or write of
 * the files is in progress; /proc/systemtap goes with the last module.
 */
void ctap_procfs_unregister(struct ctap_procfs_file *files, int n);

/* $value in a procfs probe's handler (its args[0] is the value). */
static inline struct ctap_procfs_value *ctap_procfs_of(struct ctap_context *c)
{
	return (struct ctap_procfs_value *)c->args[0];
}

static inline const char *ctap_procfs_get(struct ctap_context *c)
{
	return ctap_procfs_of(c)->buf;
}

/* $value = s, or $value .= s: cut at the buffer's size. */
static inline const char *ctap_procfs_set(struct ctap_context *c, const char *s, bool append)
{
	struct ctap_procfs_value *v = ctap_procfs_of(c);

	ssize_t n;

	if (!append)
		v->len = 0;
	n = strscpy(v->buf + v->len, s, v->size - v->len);
	v->len = n < 0 ? v->size - 1 : v->len + n;
	return v->buf;
}

#endif /* CTAP_PROCFS_H */
