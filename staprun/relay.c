// SPDX-License-Identifier: GPL-2.0
/*
 * relay.c - read the module's relay files: trace0, or trace0 .. traceN in
 * bulk mode (one per CPU, each copied to a file of its own).
 *
 * A relay file returns what has been written so far and 0 when there is
 * nothing more, so draining never blocks; the main loop calls us when poll()
 * says so, and on a short timer, because relay only signals readers when a
 * whole sub-buffer fills.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

int relay_open_all(struct relay *r, const char *modname)
{
	char path[256];
	int found = 0;

	r->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (r->ncpus < 1)
		r->ncpus = 1;
	r->bytes = 0;
	r->own_outs = false;
	r->path = r->name = r->prefix = NULL;
	r->dir_fd = -1;
	r->failed = 0;
	r->failed_open = false;
	r->lost = 0;
	r->switch_asked = false;
	r->fds = calloc(r->ncpus, sizeof(*r->fds));
	r->out_fds = calloc(r->ncpus, sizeof(*r->out_fds));
	if (!r->fds || !r->out_fds)
		return -ENOMEM;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s/%s%d",
			 CTAP_DEBUGFS_DIR, modname, CTAP_TRACE_PREFIX, cpu);
		r->fds[cpu] = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		found += r->fds[cpu] >= 0;
	}
	if (!found) {
		relay_close_all(r);
		return -ENOENT;
	}
	return 0;
}

/* Writes len bytes; on a failure -errno, with *done those that went. */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len) {
		ssize_t n = write(fd, buf + *done, len - *done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		*done += n;
	}
	return 0;
}

void relay_output_to(struct relay *r, int out_fd)
{
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		r->out_fds[cpu] = out_fd;
}

void relay_output_rotating(struct relay *r, int out_fd, int dir_fd, const char *path,
			   const char *name, uint64_t fsize_max, int fnum_max)
{
	relay_output_to(r, out_fd);
	r->dir_fd = dir_fd;
	r->path = path;
	r->name = name;
	r->fnum = 0;
	r->fsize_max = fsize_max;
	r->fnum_max = fnum_max;
	r->wsize = 0;
}

/* The first failure to write: what failed is kept for the message. */
static void note_failure(struct relay *r, int cpu, int fnum, int err, bool open)
{
	if (r->failed)
		return;
	r->failed = err;
	r->failed_open = open;
	if (r->prefix)
		snprintf(r->failed_file, sizeof(r->failed_file), "%s_cpu%d", r->prefix, cpu);
	else if (!r->path)
		snprintf(r->failed_file, sizeof(r->failed_file), "standard output");
	else if (output_file_name(r->failed_file, sizeof(r->failed_file), r->path,
				  fnum == 0 && !r->fsize_max ? -1 : fnum))
		snprintf(r->failed_file, sizeof(r->failed_file), "%s...", r->path);
}

/*
 * As SystemTap's stapio: FILE.n+1 replaces FILE.n, and with -S MB,N the
 * file N back is removed, so that N remain.  Both in the directory opened
 * at the start, as the user (output.c).
 */
static int relay_switch(struct relay *r)
{
	char name[NAME_MAX + 1];
	int fd, ret;

	r->switch_asked = false;
	ret = output_file_name(name, sizeof(name), r->name, r->fnum + 1);
	fd = ret ? ret : open_output_at(r->dir_fd, name);
	if (fd < 0) {
		note_failure(r, 0, r->fnum + 1, fd, true);
		return fd;
	}
	close(r->out_fds[0]);
	relay_output_to(r, fd);
	r->fnum++;
	r->wsize = 0;
	if (r->fnum_max && r->fnum >= r->fnum_max &&
	    !output_file_name(name, sizeof(name), r->name, r->fnum - r->fnum_max))
		unlink_output_at(r->dir_fd, name);	/* gone already is fine */
	return 0;
}

/* SystemTap's bulk naming: PREFIX_cpuN. */
int relay_output_bulk(struct relay *r, const char *prefix)
{
	char path[4096];

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		r->out_fds[cpu] = -1;
		if (r->fds[cpu] < 0)
			continue;
		snprintf(path, sizeof(path), "%s_cpu%d", prefix, cpu);
		r->out_fds[cpu] = open_output(path);
		if (r->out_fds[cpu] < 0)
			return r->out_fds[cpu];
	}
	r->own_outs = true;
	r->prefix = prefix;
	return 0;
}

/*
 * What fits of buf under -S's limit, up to its last newline: the file
 * ends on a whole line and is never larger than the limit, unless a
 * single line is (then it has a file to itself).
 */
static size_t fitting(const struct relay *r, const char *buf, size_t n)
{
	size_t room = r->fsize_max > r->wsize ? r->fsize_max - r->wsize : 0;
	const char *nl;

	if (!r->fsize_max || r->wsize + n <= r->fsize_max)
		return n;
	nl = room ? memrchr(buf, '\n', room) : NULL;
	if (nl)
		return nl - buf + 1;
	return r->wsize ? 0 : n;
}

/* On a failure -errno, with *done the bytes of buf that went. */
static int write_rotating(struct relay *r, int cpu, const char *buf, size_t n, size_t *done)
{
	*done = 0;
	while (*done < n) {
		size_t part = r->path ? fitting(r, buf + *done, n - *done) : n - *done, went;
		int ret;

		if (r->path && (r->switch_asked || !part)) {
			ret = relay_switch(r);
			if (ret)
				return ret;
			continue;
		}
		ret = write_all(r->out_fds[cpu], buf + *done, part, &went);
		*done += went;
		r->wsize += went;
		if (ret) {
			note_failure(r, cpu, r->fnum, ret, false);
			return ret;
		}
	}
	return 0;
}

/*
 * Once a write has failed, what the module still sends is read and counted
 * as lost (r->lost): the session stops, and its end probes must not wait
 * on a full buffer.
 */
long relay_drain(struct relay *r)
{
	char buf[65536];
	long total = 0;

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		ssize_t n;

		if (r->fds[cpu] < 0)
			continue;
		while ((n = read(r->fds[cpu], buf, sizeof(buf))) > 0) {
			size_t done = 0;

			if (!r->failed)
				write_rotating(r, cpu, buf, n, &done);
			r->lost += n - done;
			total += n;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	r->bytes += total;
	return total;
}

/*
 * buf to the outputs as relay_drain() writes what it reads (rotating under
 * -o and -S, what cannot be written counted lost): stapdyn's ring records,
 * with a relay of one CPU and no files to read.
 */
void relay_write(struct relay *r, const char *buf, size_t n)
{
	size_t done = 0;

	if (!r->failed)
		write_rotating(r, 0, buf, n, &done);
	r->lost += n - done;
	r->bytes += n;
}

void relay_close_all(struct relay *r)
{
	for (int cpu = 0; r->fds && cpu < r->ncpus; cpu++) {
		if (r->fds[cpu] >= 0)
			close(r->fds[cpu]);
		if (r->own_outs && r->out_fds[cpu] >= 0)
			close(r->out_fds[cpu]);
	}
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	r->dir_fd = -1;
	free(r->fds);
	free(r->out_fds);
	r->fds = r->out_fds = NULL;
}
