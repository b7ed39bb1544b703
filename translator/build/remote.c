// SPDX-License-Identifier: GPL-2.0
/*
 * remote.c - stap --remote [ssh://][USER@]HOST[:PORT] (repeatable):
 * SystemTap's remote execution, over OpenSSH's own client, so the user's
 * keys, agent and ~/.ssh/config apply.  Four steps, every host at once:
 *
 *   1. ask:   ssh HOST: the kernel's release, its build id (the hex of
 *             /sys/kernel/notes) and where staprun is;
 *   2. build: this stap again (--bundle-member=RELEASE -p4, bundle.c's
 *             member mode) once per distinct release, in a directory of
 *             its own; pass 4's cache makes a rebuild cheap.  A host whose
 *             build id differs from the one the local headers were built
 *             for is refused (its module could not load);
 *   3. copy:  the module (without its DWARF) through ssh's stdin into a
 *             mktemp directory on the host;
 *   4. run:   staprun there, in a small sh wrapper that sends staprun
 *             SIGINT when ssh's stdin ends: ^C here closes the pipes, each
 *             host's session ends as a local one would, end probes and
 *             all, and its output still comes back.  The wrapper removes
 *             the directory.
 *
 * Output is relayed line by line as it comes (--remote-prefix: "N: "
 * before each line, N the host's index, as SystemTap prints it); each
 * host's end is reported on stderr.  A host that fails at any step is
 * reported and the others go on.  ssh runs in a process group of its own
 * so that the terminal's ^C reaches stap alone, and with BatchMode=yes:
 * nothing may prompt (keys come from the agent or are unencrypted).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet.h"
#include "kimage.h"
#include "remote.h"
#include "run.h"
#include "spawn.h"
#include "xalloc.h"

#define LINE_MAX_KEEP	65536	/* a longer line is relayed in pieces */
#define MERGE_TAG	"\036ctap-merge "	/* --remote-merge's lines (ctap_runtime.h) */

/* One stream of a host (its stdout or stderr), relayed by whole lines. */
struct relay {
	int fd;			/* -1 once at its end */
	int to;			/* 1 or 2 */
	char *buf;
	size_t len;
};

struct host {
	int index;
	const char *spec, *dest;	/* as given; the ssh destination */
	char release[256], build_id[130], staprun[512];
	const char *dir;		/* the build directory of its kernel (local) */
	const char *remote_dir;		/* the module's directory on the host */
	const char *failed;		/* why it did not run, or NULL */
	char last_err[512];		/* its last line on stderr */
	pid_t pid;
	int in;				/* the run's stdin, closed to stop it */
	struct relay out, err;
	int status;			/* the run's exit status */
	char *dump;			/* --remote-merge: its merged globals' lines */
	size_t dump_len;
	bool dump_done;			/* ... through their last ("e") */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
}

/* ---- the destination ---- */

static bool name_chars(const char *p, size_t n)
{
	if (!n || *p == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)p[i]) && !strchr("._-", p[i]))
			return false;
	return true;
}

const char *remote_destination(struct session *s, const char *spec)
{
	const char *p = spec, *at, *host, *port = NULL, *end;
	size_t user_len = 0;

	if (!strncmp(p, "ssh://", 6))
		p += 6;
	else if (strstr(p, "://") || !strncmp(p, "unix:", 5)) {
		fprintf(stderr, "stap: --remote %s: only ssh:// hosts are supported\n", spec);
		return NULL;
	}
	at = strchr(p, '@');
	host = at ? at + 1 : p;
	user_len = at ? (size_t)(at - p) : 0;
	if (*host == '[') {		/* [IPv6]:PORT */
		end = strchr(host, ']');
		if (!end || end == host + 1 || strspn(host + 1, "0123456789abcdefABCDEF:.") !=
		    (size_t)(end - host - 1))
			goto bad;
		end++;
	} else {
		end = host + strcspn(host, ":");
		if (!name_chars(host, end - host))
			goto bad;
	}
	if (*end == ':') {
		char *e;
		long n;

		port = end + 1;
		errno = 0;
		n = strtol(port, &e, 10);
		if (errno || *e || e == port || n < 1 || n > 65535 || !isdigit((unsigned char)*port))
			goto bad;
	} else if (*end) {
		goto bad;
	}
	if (at && !name_chars(p, user_len))
		goto bad;
	return arena_printf(&s->arena, "ssh://%s", p);
bad:
	fprintf(stderr, "stap: --remote %s: not [ssh://][USER@]HOST[:PORT]\n", spec);
	return NULL;
}

/* ---- running ssh ---- */

/* A word for the remote shell, single-quoted. */
static const char *quote(struct session *s, const char *w)
{
	char *out = arena_alloc(&s->arena, strlen(w) * 4 + 3), *o = out;

	*o++ = '\'';
	for (; *w; w++) {
		if (*w == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *w;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

/*
 * ssh DEST sh -c SCRIPT, in a process group of its own: stdin from in
 * (or a pipe whose writing end is *to_in when in < 0), stdout and stderr
 * to pipes (*out, *err).  Its pid, or -1.
 */
static pid_t start_ssh(struct session *s, const struct host *h, const char *script, int in,
		       int *to_in, int *out, int *err)
{
	const char *cmd = arena_printf(&s->arena, "sh -c %s", quote(s, script));
	const char *argv[] = { "ssh", "-T", "-o", "BatchMode=yes", "--", h->dest, cmd, NULL };
	int pin[2] = { -1, -1 }, pout[2], perr[2];
	pid_t pid;

	if (in < 0 && pipe2(pin, O_CLOEXEC))
		return -1;
	if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in >= 0 ? in : pin[0], 0) < 0 || dup2(pout[1], 1) < 0 ||
		    dup2(perr[1], 2) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run ssh: %s\n", strerror(errno));
		_exit(127);
	}
	if (in < 0) {
		close(pin[0]);
		*to_in = pin[1];
	}
	close(pout[1]);
	close(perr[1]);
	*out = pout[0];
	*err = perr[0];
	if (pid < 0) {
		close(*out);
		close(*err);
		if (in < 0)
			close(pin[1]);
	}
	return pid;
}

/* Everything fd gives until its end, NUL-terminated (malloc'd). */
static char *read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += n;
		if (cap - len < 1024)
			buf = xrealloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* The last non-empty line of text, into h->last_err. */
static void keep_last_line(struct host *h, const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	snprintf(h->last_err, sizeof(h->last_err), "%.*s", (int)(end - start), start);
}

struct capture {
	pid_t pid;
	int out, err;
};

/* The end of a start_ssh() whose output is small: its status, *out_text
 * and h->last_err filled; -1 if it could not run. */
static int finish_capture(struct host *h, struct capture *c, char **out_text)
{
	char *out = read_all(c->out), *err = read_all(c->err);
	int status;

	if (waitpid(c->pid, &status, 0) < 0)
		status = -1;
	if (err)
		keep_last_line(h, err);
	free(err);
	*out_text = out;
	return status < 0 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
}

/* Why an ssh step failed, for the report. */
static const char *ssh_failure(struct session *s, struct host *h, int status, const char *what)
{
	if (status == 255)
		return arena_printf(&s->arena, "unreachable: %s", *h->last_err ? h->last_err :
				    "ssh failed");
	return arena_printf(&s->arena, "%s failed (status %d)%s%s", what, status,
			    *h->last_err ? ": " : "", h->last_err);
}

/* ---- 1. ask each host for its kernel ---- */

static const char ask_script[] =
	"echo \"release $(uname -r)\"; "
	"echo \"staprun $(command -v staprun || echo -)\"; "
	"echo \"notes $(od -A n -t x1 -v /sys/kernel/notes 2>/dev/null | tr -d ' \\n')\"";

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/* The GNU build id in the hex of /sys/kernel/notes (staprun/bundle.c
 * reads the same notes on the host itself); "-" if none. */
static void notes_build_id(const char *hex, char *id, size_t size)
{
	size_t n = strlen(hex) / 2, off = 0;
	unsigned char *b = xmalloc(n + 1);

	snprintf(id, size, "-");
	if (strspn(hex, "0123456789abcdefABCDEF") != strlen(hex)) {
		free(b);
		return;
	}
	for (size_t i = 0; i < n; i++)
		b[i] = hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]);
	while (off + 12 <= n) {
		unsigned int namesz, descsz, type;
		size_t name, desc, next;

		memcpy(&namesz, b + off, 4);
		memcpy(&descsz, b + off + 4, 4);
		memcpy(&type, b + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~3u);
		next = desc + ((descsz + 3) & ~3u);
		if (namesz > 256 || descsz > 256 || next > n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(b + name, "GNU", 4) &&
		    descsz * 2 + 1 <= size) {
			for (unsigned int i = 0; i < descsz; i++)
				sprintf(id + 2 * i, "%02x", b[desc + i]);
			break;
		}
		off = next;
	}
	free(b);
}

static void parse_answer(struct session *s, struct host *h, const char *text)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		char *l = arena_strndup(&s->arena, line, len);

		if (!strncmp(l, "release ", 8))
			snprintf(h->release, sizeof(h->release), "%s", l + 8);
		else if (!strncmp(l, "staprun ", 8))
			snprintf(h->staprun, sizeof(h->staprun), "%s", l + 8);
		else if (!strncmp(l, "notes ", 6))
			notes_build_id(l + 6, h->build_id, sizeof(h->build_id));
		line = nl ? nl + 1 : NULL;
	}
}

static void ask_hosts(struct session *s, struct host *hosts, int n)
{
	struct capture *c = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*c));

	for (int i = 0; i < n; i++)
		c[i].pid = start_ssh(s, &hosts[i], ask_script, open("/dev/null", O_RDONLY | O_CLOEXEC),
				     NULL, &c[i].out, &c[i].err);
	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		char *text = NULL;
		int st;

		if (c[i].pid < 0) {
			h->failed = "cannot run ssh";
			continue;
		}
		st = finish_capture(h, &c[i], &text);
		if (st)
			h->failed = ssh_failure(s, h, st, "asking for its kernel");
		else
			parse_answer(s, h, text ? text : "");
		if (!h->failed && !*h->release)
			h->failed = "no kernel release in its answer";
		else if (!h->failed && (!*h->staprun || !strcmp(h->staprun, "-")))
			h->failed = "no staprun on the host (install ctap's staprun there)";
		free(text);
	}
	free(c);
}

/* ---- 2. build once per distinct kernel ---- */

/* This stap again in dir: --bundle-member=RELEASE -m NAME [extra], then
 * the user's arguments (main.c makes a member with --remote stop at pass 4). */
static int build_member(struct session *s, const char *release, const char *dir,
			const char *name, const char *extra, int argc, char **argv)
{
	char **args = xcalloc(argc + 5, sizeof(*args));
	int status, k = 0;
	pid_t pid;

	args[k++] = argv[0];
	args[k++] = (char *)arena_printf(&s->arena, "--bundle-member=%s", release);
	args[k++] = "-m";
	args[k++] = (char *)name;
	if (extra)
		args[k++] = (char *)extra;
	memcpy(args + k, argv + 1, (argc - 1) * sizeof(*args));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (chdir(dir) || null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	free(args);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* The module, without its DWARF (a signed one as it is): what is copied. */
static int strip_module(struct session *s, const char *dir, const char *name)
{
	const char *ko = arena_printf(&s->arena, "%s/%s.ko", dir, name);
	const char *out = arena_printf(&s->arena, "%s/%s.send.ko", dir, name);
	const char *argv[] = { "objcopy", "--strip-debug", ko, out, NULL };
	char tail[28];
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	bool signed_ko = fd >= 0 && lseek(fd, -28, SEEK_END) >= 0 &&
			 read(fd, tail, 28) == 28 && !memcmp(tail, "~Module signature appended~", 27);

	if (fd >= 0)
		close(fd);
	if (signed_ko || spawn_logged(argv, NULL, arena_printf(&s->arena, "%s/strip.log", dir),
				      false, NULL))
		return link(ko, out);
	return 0;
}

static int build_kernels(struct session *s, struct host *hosts, int n, const char *top,
			 const char *name, int argc, char **argv)
{
	int built = 0;

	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		char *text = NULL;
		size_t len;
		char rel[256], id[130];

		if (h->failed)
			continue;
		for (int j = 0; j < i; j++)	/* the same kernel: the same module */
			if (hosts[j].dir && !strcmp(hosts[j].release, h->release))
				h->dir = hosts[j].dir;
		if (!h->dir) {
			h->dir = arena_printf(&s->arena, "%s/%d", top, i);
			if (s->opt.verbose)
				fprintf(stderr, "stap: building for %s (host %d)\n", h->release, i);
			if (mkdir(h->dir, 0700) ||
			    build_member(s, h->release, h->dir, name, NULL, argc, argv) ||
			    strip_module(s, h->dir, name)) {
				h->failed = arena_printf(&s->arena, "no module built for its kernel %s",
							 h->release);
				continue;
			}
			built++;
		}
		if (kimage_read_file(arena_printf(&s->arena, "%s/%s.kernel", h->dir, name),
				     &text, &len) ||
		    sscanf(text, "%255s %129s", rel, id) != 2) {
			h->failed = arena_printf(&s->arena, "no module built for its kernel %s",
						 h->release);
		} else if (strcmp(id, "-") && strcmp(h->build_id, "-") && strcmp(id, h->build_id)) {
			h->failed = arena_printf(&s->arena, "its kernel %s has build id %s; the "
						 "headers here are of build %s", h->release,
						 h->build_id, id);
		}
		free(text);
	}
	return built;
}

/* ---- 3. copy the module ---- */

static const char copy_script[] =
	"d=$(mktemp -d /tmp/ctap-remote.XXXXXX) && cat > \"$d/m.ko\" && echo \"$d\"";

static void copy_modules(struct session *s, struct host *hosts, int n, const char *name)
{
	struct capture *c = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*c));

	for (int i = 0; i < n; i++) {
		int fd;

		c[i].pid = -1;
		if (hosts[i].failed)
			continue;
		fd = open(arena_printf(&s->arena, "%s/%s.send.ko", hosts[i].dir, name),
			  O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			c[i].pid = start_ssh(s, &hosts[i], copy_script, fd, NULL, &c[i].out,
					     &c[i].err);
		if (fd >= 0)
			close(fd);
		if (c[i].pid < 0)
			hosts[i].failed = "cannot copy the module";
	}
	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		char *text = NULL;
		int st;

		if (h->failed || c[i].pid < 0)
			continue;
		st = finish_capture(h, &c[i], &text);
		if (st || !text || strncmp(text, "/tmp/ctap-remote.", 17))
			h->failed = ssh_failure(s, h, st ? st : 1, "copying the module");
		else
			h->remote_dir = arena_strndup(&s->arena, text, strcspn(text, "\n"));
		free(text);
	}
	free(c);
}

/* ---- 4. run staprun everywhere ---- */

/* The wrapper: staprun in the background, SIGTERM to it when our pipe on
 * its stdin ends (^C here, or ssh gone; not SIGINT, which sh has a
 * background job ignore, and staprun stops on either), its status as the
 * wrapper's. */
static const char *run_script(struct session *s, const struct host *h)
{
	const char *args = "";

	if (s->opt.cmd)
		args = arena_printf(&s->arena, "%s -c %s", args, quote(s, s->opt.cmd));
	if (s->opt.target_pid)
		args = arena_printf(&s->arena, "%s -x %d", args, s->opt.target_pid);
	if (s->opt.timeout_s)
		args = arena_printf(&s->arena, "%s -T %d", args, s->opt.timeout_s);
	if (s->opt.buffer_mb)
		args = arena_printf(&s->arena, "%s -s %d", args, s->opt.buffer_mb);
	if (s->opt.target_ns_pid)
		args = arena_printf(&s->arena, "%s -N %d", args, s->opt.target_ns_pid);
	args = arena_printf(&s->arena, "%s \"$d/m.ko\"", args);
	/* remote_id(), remote_uri() (kmod-runtime/session.c) */
	args = arena_printf(&s->arena, "%s ctap_remote_id=%d %s", args, h->index,
			    quote(s, arena_printf(&s->arena, "ctap_remote_uri=%s", h->spec)));
	for (int i = 0; i < s->opt.n_globals_set; i++)
		args = arena_printf(&s->arena, "%s %s", args, quote(s, s->opt.globals_set[i]));
	return arena_printf(&s->arena,
		"d=%s; exec 3<&0; %s%s </dev/null & p=$!; "
		"{ read -r x <&3; kill -TERM $p 2>/dev/null; } & w=$!; "
		"wait $p; rc=$?; kill $w 2>/dev/null; rm -rf \"$d\"; exit $rc",
		quote(s, h->remote_dir), quote(s, h->staprun), args);
}

/* Write the whole of buf to fd. */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

/* One line (or the last piece of a stream) of host h, prefixed. */
static void emit(struct session *s, const struct host *h, int to, const char *p, size_t len)
{
	if (s->opt.remote_prefix) {
		char pre[16];

		snprintf(pre, sizeof(pre), "%d: ", h->index);
		write_all(to, pre, strlen(pre));
	}
	write_all(to, p, len);
}

/* A whole line of h's: --remote-merge's own lines (from the tag on)
 * kept for the merge, the rest relayed. */
static void take_line(struct session *s, struct host *h, struct relay *r, const char *p,
		      size_t len)
{
	const char *tag = s->opt.remote_merge && r->to == 1 ?
			  memmem(p, len, MERGE_TAG, strlen(MERGE_TAG)) : NULL;
	size_t before = tag ? (size_t)(tag - p) : len;

	if (before)
		emit(s, h, r->to, p, before);
	if (!tag)
		return;
	h->dump = xrealloc(h->dump, h->dump_len + len - before + 1);
	memcpy(h->dump + h->dump_len, tag, len - before);
	h->dump_len += len - before;
	h->dump[h->dump_len] = '\0';
	if (!strncmp(tag + strlen(MERGE_TAG), "e\n", 2))
		h->dump_done = true;
}

/* Relay what r's fd has: every whole line; the rest at its end. */
static void relay_read(struct session *s, struct host *h, struct relay *r)
{
	char chunk[8192];
	ssize_t n = read(r->fd, chunk, sizeof(chunk));
	size_t start = 0;

	if (n < 0 && errno == EINTR)
		return;
	if (n > 0) {
		r->buf = xrealloc(r->buf, r->len + n);
		memcpy(r->buf + r->len, chunk, n);
		r->len += n;
	}
	for (size_t i = 0; i < r->len; i++)
		if (r->buf[i] == '\n') {
			take_line(s, h, r, r->buf + start, i + 1 - start);
			if (r->to == 2 && i > start)
				snprintf(h->last_err, sizeof(h->last_err), "%.*s",
					 (int)(i - start), r->buf + start);
			start = i + 1;
		}
	if (n <= 0 || r->len - start > LINE_MAX_KEEP) {	/* its end, or a huge line */
		if (r->len > start)
			emit(s, h, r->to, r->buf + start, r->len - start);
		start = r->len;
	}
	memmove(r->buf, r->buf + start, r->len - start);
	r->len -= start;
	if (n <= 0) {
		close(r->fd);
		r->fd = -1;
	}
}

static void stop_all(struct host *hosts, int n, bool hard)
{
	for (int i = 0; i < n; i++) {
		if (hosts[i].in >= 0) {
			close(hosts[i].in);
			hosts[i].in = -1;
		}
		if (hard && hosts[i].pid > 0)
			kill(-hosts[i].pid, SIGTERM);
	}
}

static void run_hosts(struct session *s, struct host *hosts, int n)
{
	struct pollfd *p = xcalloc(2 * (size_t)(n > 0 ? n : 1), sizeof(*p));
	int seen_interrupts = 0, live = 0;

	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];

		h->in = h->out.fd = h->err.fd = -1;
		h->pid = -1;
		if (h->failed)
			continue;
		h->out.to = 1;
		h->err.to = 2;
		h->pid = start_ssh(s, h, run_script(s, h), -1, &h->in, &h->out.fd,
				   &h->err.fd);
		if (h->pid < 0)
			h->failed = "cannot run ssh";
		else
			live += 2;
	}
	while (live) {
		int k = 0;

		if (interrupted != seen_interrupts) {
			/* the first ^C stops every session cleanly; another
			 * one ends the ssh connections */
			stop_all(hosts, n, seen_interrupts > 0);
			seen_interrupts = interrupted;
		}
		for (int i = 0; i < n; i++) {
			p[k].fd = hosts[i].out.fd;
			p[k++].events = POLLIN;
			p[k].fd = hosts[i].err.fd;
			p[k++].events = POLLIN;
		}
		if (poll(p, k, -1) < 0)
			continue;	/* EINTR: a signal; seen above */
		for (int i = 0; i < n; i++)
			for (int j = 0; j < 2; j++) {
				struct relay *r = j ? &hosts[i].err : &hosts[i].out;

				if (r->fd >= 0 && p[2 * i + j].revents) {
					relay_read(s, &hosts[i], r);
					live -= r->fd < 0;
				}
			}
	}
	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		int status;

		if (h->in >= 0)
			close(h->in);
		free(h->out.buf);
		free(h->err.buf);
		if (h->pid < 0)
			continue;
		while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR)
			;
		h->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (h->status == 255)
			h->failed = ssh_failure(s, h, 255, "running staprun");
	}
	free(p);
}

/* ---- --remote-merge: the fleet's end ---- */

/* The end probes alone, for user space (--merge-end), with the first
 * host's kernel for pass 2's types: DIR/NAME.so, or NULL after saying. */
static const char *build_fleet_end(struct session *s, struct host *hosts, int n,
				   const char *top, const char *name, int argc, char **argv)
{
	const char *dir = arena_printf(&s->arena, "%s/end", top);

	for (int i = 0; i < n; i++) {
		if (hosts[i].failed)
			continue;
		if (mkdir(dir, 0700) ||
		    build_member(s, hosts[i].release, dir, name, "--merge-end", argc, argv))
			break;
		return arena_printf(&s->arena, "%s/%s.so", dir, name);
	}
	fprintf(stderr, "stap: --remote-merge: the fleet's end probes were not built\n");
	return NULL;
}

/* Every host that ran to its end with its merged globals: merged, and
 * the end probes run here on the result (stapdyn).  Its exit status. */
static int run_fleet_end(struct session *s, struct host *hosts, int n, const char *top,
			 const char *so)
{
	const char *path = arena_printf(&s->arena, "%s/merged", top);
	char **dumps = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*dumps));
	const char *argv[] = { "stapdyn", so, NULL };
	int k = 0, status;
	pid_t pid;

	for (int i = 0; i < n; i++)
		if (!hosts[i].failed && !hosts[i].status && hosts[i].dump_done)
			dumps[k++] = hosts[i].dump;
		else if (!hosts[i].failed)
			fprintf(stderr, "stap: remote %d %s: left out of the merge (its session did "
				"not end cleanly)\n", i, hosts[i].spec);
	if (!k || fleet_merge(dumps, k, path)) {
		if (!k)
			fprintf(stderr, "stap: --remote-merge: no host to merge\n");
		free(dumps);
		return 1;
	}
	free(dumps);
	if (s->opt.verbose)
		fprintf(stderr, "stap: the end probes, on the merge of %d host%s\n", k,
			k == 1 ? "" : "s");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("CTAP_MERGE_FILE", path, 1);
		execv(run_tool_path(s, "stapdyn", "SYSTEMTAP_STAPDYN"), (char *const *)argv);
		fprintf(stderr, "stap: cannot run stapdyn: %s\n", strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ---- the whole ---- */

static int report(struct host *hosts, int n)
{
	int ret = 0;

	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		const char *kernel = *h->release ? h->release : "?";

		if (h->failed)
			fprintf(stderr, "stap: remote %d %s (%s): not run: %s\n", i, h->spec, kernel,
				h->failed);
		else
			fprintf(stderr, "stap: remote %d %s (%s): staprun exited with status %d%s%s\n",
				i, h->spec, kernel, h->status, h->status && *h->last_err ? ": " : "",
				h->status ? h->last_err : "");
		if (h->failed || h->status)
			ret = 1;
	}
	return ret;
}

int remote_run(struct session *s, int argc, char **argv)
{
	int n = s->opt.n_remotes, ret;
	struct host *hosts = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*hosts));
	const char *name = s->opt.module_name ? s->opt.module_name :
			   arena_printf(&s->arena, "ctap_remote_%d", (int)getpid());
	char *top = session_mkdtemp(s, "ctapremote");
	struct sigaction sa = { .sa_handler = on_signal };
	const char *end_so = NULL;
	bool ran = false;

	if (!top) {
		fprintf(stderr, "stap: cannot prepare the remote run: %s\n", strerror(errno));
		free(hosts);
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < n; i++) {
		hosts[i].index = i;
		hosts[i].spec = s->opt.remotes[i];
		hosts[i].dest = remote_destination(s, s->opt.remotes[i]);
		snprintf(hosts[i].build_id, sizeof(hosts[i].build_id), "-");
	}
	ask_hosts(s, hosts, n);
	if (!interrupted)
		build_kernels(s, hosts, n, top, name, argc, argv);
	if (!interrupted && s->opt.remote_merge)
		end_so = build_fleet_end(s, hosts, n, top, name, argc, argv);
	if (!interrupted && (end_so || !s->opt.remote_merge)) {
		copy_modules(s, hosts, n, name);
		/* from here a ^C stops the sessions, which end as usual */
		if (!interrupted) {
			run_hosts(s, hosts, n);
			ran = true;
		}
	}
	for (int i = 0; i < n && !ran; i++)
		if (!hosts[i].failed)
			hosts[i].failed = interrupted ? "interrupted before it started" :
					  "the fleet's end was not built";
	ret = report(hosts, n);
	if (end_so && ran && run_fleet_end(s, hosts, n, top, end_so))
		ret = 1;
	for (int i = 0; i < n; i++)
		free(hosts[i].dump);
	if (s->opt.keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", top);
	else
		session_rmtree(top);
	free(hosts);
	return ret;
}
