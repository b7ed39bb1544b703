// SPDX-License-Identifier: GPL-2.0
/*
 * cast_headers.c - @cast(p, "timeval", "<sys/time.h>"): a user-space type
 * that C headers declare.  As SystemTap does, ctap compiles a file that
 * includes the headers with -g and reads the type from its DWARF; the
 * type is rewritten as BTF (udwarf_btf.c) into the session's user-space
 * types, so that @cast walks it, and pass 3 reads through it from user
 * memory, as it does a user program's.  ("kernel<linux/sched.h>" is the
 * kernel's BTF: that needs no compiler.)
 *
 * Each set of headers is compiled once per session and kept open.
 *
 * A header name is a path the compiler opens: "</dev/stdin>" had it read
 * stap's standard input, "</dev/zero>" allocate until it died.  So each
 * name must be a regular file found on the compiler's own include path
 * (no absolute name, no ".."), and the compiler runs with stdin from
 * /dev/null, in a process group bounded in CPU time and memory per
 * process (setrlimit, inherited by cc1, as and ld) and in wall-clock time
 * (then the group is killed): a header that includes /dev/zero or a
 * FIFO, or expands without end, ends in an error.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "cast_headers.h"
#include "session.h"
#include "udwarf_btf.h"
#include "xalloc.h"

#define MAX_HEADERS	16	/* "<a.h><b.h>...": SystemTap's tests use two */
#define MAX_CC_DIRS	64

/* The compiler's bounds: <stdio.h> with six more system headers takes
 * 0.07 s and 23 MB. */
#define CC_CPU_S	10		/* CPU time, per process */
#define CC_WALL_S	20		/* wall-clock time, in all */
#define CC_MEM		(1ul << 30)	/* address space, per process */
#define CC_FILE		(256ul << 20)	/* largest file it may write */

struct cast_headers {
	struct cast_headers *next;
	const char *headers;		/* as written: "<a.h><b.h>" */
	int fd;
	Dwarf *dwarf;			/* NULL: it did not compile ... */
	const char *why;		/* ... for this reason */
	struct dwarf_btf *conv;
};

/* A header name fit for an #include line: no quotes, spaces or newlines;
 * relative, with no ".." (it names a file under an include directory). */
static bool header_name_ok(const char *h, size_t len)
{
	if (!len || h[0] == '/' ||
	    strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-") < len)
		return false;
	for (size_t i = 0; i + 1 < len; i++)
		if (h[i] == '.' && h[i + 1] == '.' && (i == 0 || h[i - 1] == '/') &&
		    (i + 2 == len || h[i + 2] == '/'))
			return false;
	return true;
}

/*
 * Runs argv (the compiler) with stdin from /dev/null, stdout and stderr
 * into log, in a process group of its own within the CC_* bounds: 0,
 * -EIO if it failed (its messages in log), -ETIME if it ran out of time.
 */
static int run_bounded(const char *const *argv, const char *log)
{
	/* CPU: SIGXCPU at the soft limit (the driver names it), SIGKILL a
	 * second later at the hard one. */
	static const struct { int resource; rlim_t soft, hard; } limits[] = {
		{ RLIMIT_CPU, CC_CPU_S, CC_CPU_S + 1 }, { RLIMIT_AS, CC_MEM, CC_MEM },
		{ RLIMIT_FSIZE, CC_FILE, CC_FILE },
	};
	struct pollfd p = { .events = POLLIN };
	pid_t pid;
	int status, ret = 0;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
		    setpgid(0, 0))
			_exit(127);
		for (size_t i = 0; i < sizeof(limits) / sizeof(*limits); i++) {
			struct rlimit r = { limits[i].soft, limits[i].hard };

			if (setrlimit(limits[i].resource, &r))
				_exit(127);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	p.fd = pidfd_open(pid, 0);	/* Linux 5.3; before, no wall-clock bound */
	if (p.fd >= 0 && poll(&p, 1, CC_WALL_S * 1000) == 0) {
		kill(-pid, SIGKILL);
		ret = -ETIME;
	}
	if (p.fd >= 0)
		close(p.fd);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = -EIO;
	return ret;
}

/*
 * The directories the compiler searches for <...> headers, in its order
 * ("cc -E -v" lists them; C_INCLUDE_PATH and CPATH are among them): their
 * number, or -errno.
 */
static int include_dirs(struct arena *a, const char *dir, const char **dirs, int max)
{
	const char *argv[] = { "cc", "-E", "-v", "-x", "c", "-o", "/dev/null", "/dev/null", NULL };
	const char *log = arena_printf(a, "%s/cc.log", dir);
	char line[4096];
	bool in_list = false;
	int n = 0, ret = run_bounded(argv, log);
	FILE *f;

	if (ret)
		return ret;
	f = fopen(log, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "#include <...> search starts here:", 34))
			in_list = true;
		else if (!strcmp(line, "End of search list."))
			in_list = false;
		else if (in_list && line[0] == ' ' && n < max)
			dirs[n++] = arena_printf(a, "%s", line + 1);
	}
	fclose(f);
	return n;
}

/*
 * The file the compiler would take for the header name: the first of the
 * include directories that has it, which must be a regular file (stat():
 * a symlink to /dev/zero is a device).  0, or -errno with *why set.
 */
static int header_file(struct arena *a, const char **dirs, int n, const char *name, int len,
		       const char **why)
{
	struct stat st;

	for (int i = 0; i < n; i++) {
		const char *path = arena_printf(a, "%s/%.*s", dirs[i], len, name);

		if (stat(path, &st))
			continue;
		if (S_ISREG(st.st_mode))
			return 0;
		*why = arena_printf(a, "<%.*s>: not a regular file (%s)", len, name, path);
		return -EINVAL;
	}
	*why = arena_printf(a, "<%.*s>: not a header on the include path (%d directories, "
			    "cc -E -v lists them)", len, name, n);
	return -ENOENT;
}

/*
 * An absolute name (SystemTap's examples say </usr/include/stdio.h>) is
 * taken when it is a regular file under one of the include directories;
 * len is then the length of the part after that directory, or 0.
 */
static int absolute_header(struct arena *a, const char **dirs, int n, const char *name, int len)
{
	for (int i = 0; i < n; i++) {
		size_t d = strlen(dirs[i]);

		if ((size_t)len > d + 1 && !strncmp(name, dirs[i], d) && name[d] == '/' &&
		    header_name_ok(name + d + 1, len - (int)d - 1) &&
		    !header_file(a, dirs + i, 1, name + d + 1, len - (int)d - 1, &(const char *){ NULL }))
			return len - (int)d - 1;
	}
	return 0;
}

/*
 * "<a.h><b.h>" as C: "#include <a.h>\n#include <b.h>\n"; NULL with *why
 * if malformed, or a name is not a regular file on the include path.
 */
static char *include_lines(struct arena *a, const char *headers, const char **dirs, int ndirs,
			   const char **why)
{
	char *c = arena_printf(a, "%s", "");
	int n = 0;

	for (const char *p = headers; *p; n++) {
		const char *end = strchr(p, '>');

		if (*p != '<' || !end || n == MAX_HEADERS) {
			*why = "expected <header.h>...";
			return NULL;
		}
		if (p[1] == '/' && absolute_header(a, dirs, ndirs, p + 1, end - p - 1)) {
			c = arena_printf(a, "%s#include %.*s\n", c, (int)(end - p + 1), p);
			p = end + 1;
			continue;
		}
		if (!header_name_ok(p + 1, end - p - 1)) {
			*why = arena_printf(a, "%.*s: not a header on the include path (a name "
					    "relative to it, with no \"..\")", (int)(end - p + 1), p);
			return NULL;
		}
		if (header_file(a, dirs, ndirs, p + 1, end - p - 1, why))
			return NULL;
		c = arena_printf(a, "%s#include %.*s\n", c, (int)(end - p + 1), p);
		p = end + 1;
	}
	if (!n)
		*why = "expected <header.h>...";
	return n ? c : NULL;
}

/* cc -g dir/h.c into a shared object (linked: an object file's DWARF would
 * still need its relocations): 0, or run_bounded()'s error with the
 * compiler's messages in dir/cc.log. */
static int compile(struct arena *a, const char *dir)
{
	/* Every type the headers declare, used or not; no warnings (only
	 * the types matter), few errors (a log of bounded size); no
	 * location map per macro expansion (memory that grows with them). */
	const char *argv[] = {
		"cc", "-g", "-fno-eliminate-unused-debug-types", "-w", "-fmax-errors=10",
		"-ftrack-macro-expansion=0",
		"-shared", "-fPIC", "-nostdlib", "-o", arena_printf(a, "%s/h.so", dir),
		arena_printf(a, "%s/h.c", dir), NULL
	};

	return run_bounded(argv, arena_printf(a, "%s/cc.log", dir));
}

/* The compiler's first line of complaint, for the error message; with
 * the bounds when it ran out of one of them. */
static const char *first_complaint(struct arena *a, const char *dir)
{
	char path[4200], line[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/cc.log", dir);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f) && !strstr(line, "error") &&
		       !strstr(line, "out of memory"))
			;
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	if (strstr(line, "signal terminated") || strstr(line, "memory"))
		return arena_printf(a, "%s (the compiler may use %d s of CPU time and %lu MB of "
				    "memory)", line, CC_CPU_S, CC_MEM >> 20);
	return arena_printf(a, "%s", *line ? line : "the compiler failed");
}

static void remove_dir(const char *dir)
{
	char path[4200];

	for (const char *f = "h.c\0h.so\0cc.log\0"; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, f);
		unlink(path);
	}
	rmdir(dir);
}

/* Compiles headers into an object kept open (unlinked) for its DWARF. */
static int open_headers(struct session *s, struct cast_headers *h, const char **why)
{
	const char *dirs[MAX_CC_DIRS];
	char *c, *dir, path[4200];
	FILE *f;
	int err, ndirs;

	dir = session_mkdtemp(s, "ctap-cast");
	if (!dir)
		return -errno;
	ndirs = include_dirs(&s->arena, dir, dirs, MAX_CC_DIRS);
	if (ndirs < 0) {
		*why = "cannot ask the compiler for its include path (cc -E -v)";
		err = ndirs;
		goto out;
	}
	c = include_lines(&s->arena, h->headers, dirs, ndirs, why);
	if (!c) {
		err = -EINVAL;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/h.c", dir);
	f = fopen(path, "w");
	if (!f || fputs(c, f) < 0 || fclose(f)) {
		err = -errno;
		goto out;
	}
	err = compile(&s->arena, dir);
	if (err) {
		*why = err == -ETIME ? arena_printf(&s->arena, "the compiler took longer than %d s",
						    CC_WALL_S) :
		       first_complaint(&s->arena, dir);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/h.so", dir);
	h->fd = open(path, O_RDONLY);
	h->dwarf = h->fd >= 0 ? dwarf_begin(h->fd, DWARF_C_READ) : NULL;
	if (!h->dwarf) {
		*why = "no DWARF in the compiled headers";
		err = -EIO;
		goto out;
	}
	h->conv = dwarf_btf_new(session_user_btf(s));
	err = h->conv ? 0 : -ENOMEM;
out:
	remove_dir(dir);
	return err;
}

/* "struct x" is a struct, "union x" a union, "enum x" an enum; a bare
 * name any type of that name. */
static bool type_matches(Dwarf_Die *die, const char *want)
{
	static const struct { const char *prefix; int tag; } kinds[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};
	const char *name = dwarf_diename(die);
	int tag = dwarf_tag(die);
	Dwarf_Attribute at;

	if (!name || dwarf_attr(die, DW_AT_declaration, &at))
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strncmp(want, kinds[i].prefix, strlen(kinds[i].prefix)))
			return tag == kinds[i].tag && !strcmp(name, want + strlen(kinds[i].prefix));
	return (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef ||
		tag == DW_TAG_base_type) && !strcmp(name, want);
}

static int find_type(struct cast_headers *h, const char *name, __u32 *id)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, die;

	while (dwarf_get_units(h->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (dwarf_child(&cudie, &die) != 0)
			continue;
		do {
			if (type_matches(&die, name)) {
				*id = dwarf_btf_die(h->conv, &die);
				return *id ? 0 : -ENOTSUP;
			}
		} while (dwarf_siblingof(&die, &die) == 0);
	}
	return -ENOENT;
}

int cast_header_type(struct session *s, const char *headers, const char *name, __u32 *id,
		     const char **why)
{
	struct cast_headers *h;

	for (h = s->cast_headers; h; h = h->next)
		if (!strcmp(h->headers, headers))
			break;
	if (!h) {
		h = xcalloc(1, sizeof(*h));
		h->headers = arena_printf(&s->arena, "%s", headers);
		h->fd = -1;
		h->next = s->cast_headers;
		s->cast_headers = h;
		if (open_headers(s, h, &h->why) && !h->why)
			h->why = "cannot compile them";
	}
	*why = h->why;
	if (!h->dwarf)
		return -EIO;
	return find_type(h, name, id);
}

void cast_headers_free(struct session *s)
{
	while (s->cast_headers) {
		struct cast_headers *h = s->cast_headers;

		s->cast_headers = h->next;
		dwarf_btf_free(h->conv);
		if (h->dwarf)
			dwarf_end(h->dwarf);
		if (h->fd >= 0)
			close(h->fd);
		free(h);
	}
}
