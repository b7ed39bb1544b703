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
	r->base = NULL;
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

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

void relay_output_to(struct relay *r, int out_fd)
{
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		r->out_fds[cpu] = out_fd;
}

int relay_file_name(char *buf, size_t size, const char *base, int fnum)
{
	int n = fnum < 0 ? snprintf(buf, size, "%s", base) : snprintf(buf, size, "%s.%d", base, fnum);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void relay_output_rotating(struct relay *r, int out_fd, const char *base, uint64_t fsize_max,
			   int fnum_max)
{
	relay_output_to(r, out_fd);
	r->base = base;
	r->fnum = 0;
	r->fsize_max = fsize_max;
	r->fnum_max = fnum_max;
	r->wsize = 0;
}

/*
 * As SystemTap's stapio: FILE.n+1 replaces FILE.n, and with -S MB,N the
 * file N back is removed, so that N remain.
 */
static int relay_switch(struct relay *r)
{
	char path[4096];
	int fd, ret;

	r->switch_asked = false;
	ret = relay_file_name(path, sizeof(path), r->base, r->fnum + 1);
	if (ret)
		return ret;
	fd = open_output(path);
	if (fd < 0)
		return fd;
	close(r->out_fds[0]);
	relay_output_to(r, fd);
	r->fnum++;
	r->wsize = 0;
	if (r->fnum_max && r->fnum >= r->fnum_max &&
	    !relay_file_name(path, sizeof(path), r->base, r->fnum - r->fnum_max))
		unlink(path);	/* gone already is fine */
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

static int write_rotating(struct relay *r, int cpu, const char *buf, size_t n)
{
	while (n) {
		size_t part = r->base ? fitting(r, buf, n) : n;
		int ret;

		if (r->base && (r->switch_asked || !part)) {
			ret = relay_switch(r);
			if (ret)
				return ret;
			continue;
		}
		ret = write_all(r->out_fds[cpu], buf, part);
		if (ret)
			return ret;
		r->wsize += part;
		buf += part;
		n -= part;
	}
	return 0;
}

long relay_drain(struct relay *r)
{
	char buf[65536];
	long total = 0;

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		ssize_t n;

		if (r->fds[cpu] < 0)
			continue;
		while ((n = read(r->fds[cpu], buf, sizeof(buf))) > 0) {
			int ret = write_rotating(r, cpu, buf, n);

			if (ret)
				return ret;
			total += n;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	r->bytes += total;
	return total;
}

void relay_close_all(struct relay *r)
{
	for (int cpu = 0; r->fds && cpu < r->ncpus; cpu++) {
		if (r->fds[cpu] >= 0)
			close(r->fds[cpu]);
		if (r->own_outs && r->out_fds[cpu] >= 0)
			close(r->out_fds[cpu]);
	}
	free(r->fds);
	free(r->out_fds);
	r->fds = r->out_fds = NULL;
}
