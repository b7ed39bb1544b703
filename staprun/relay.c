/*
 * relay.c - read the module's relay files: trace0, or trace0 .. traceN in
 * bulk mode (one per CPU, each copied to a file of its own).
 *
 * A relay file returns what has been written so far and 0 when there is
 * nothing more, so draining never blocks; the main loop calls us when poll()
 * says so, and on a short timer, because relay only signals readers when a
 * whole sub-buffer fills.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

long relay_drain(struct relay *r)
{
	char buf[65536];
	long total = 0;

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		ssize_t n;

		if (r->fds[cpu] < 0)
			continue;
		while ((n = read(r->fds[cpu], buf, sizeof(buf))) > 0) {
			int ret = write_all(r->out_fds[cpu], buf, n);

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
