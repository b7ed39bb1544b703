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
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "cast_headers.h"
#include "session.h"
#include "udwarf_btf.h"

#define MAX_HEADERS	16	/* "<a.h><b.h>...": SystemTap's tests use two */

struct cast_headers {
	struct cast_headers *next;
	const char *headers;		/* as written: "<a.h><b.h>" */
	int fd;
	Dwarf *dwarf;			/* NULL: it did not compile ... */
	const char *why;		/* ... for this reason */
	struct dwarf_btf *conv;
};

/* A header name fit for an #include line: no quotes, spaces or newlines. */
static bool header_name_ok(const char *h, size_t len)
{
	return len && strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-") >= len;
}

/* "<a.h><b.h>" as C: "#include <a.h>\n#include <b.h>\n"; NULL if malformed. */
static char *include_lines(struct arena *a, const char *headers)
{
	char *c = arena_printf(a, "%s", "");
	int n = 0;

	for (const char *p = headers; *p; n++) {
		const char *end = strchr(p, '>');

		if (*p != '<' || !end || n == MAX_HEADERS || !header_name_ok(p + 1, end - p - 1))
			return NULL;
		c = arena_printf(a, "%s#include %.*s\n", c, (int)(end - p + 1), p);
		p = end + 1;
	}
	return n ? c : NULL;
}

/* cc -g dir/h.c into a shared object (linked: an object file's DWARF would
 * still need its relocations): 0, or -EIO with the compiler's messages in
 * dir/cc.log. */
static int compile(const char *dir)
{
	char src[4200], obj[4200], log[4200];
	pid_t pid;
	int status;

	snprintf(src, sizeof(src), "%s/h.c", dir);
	snprintf(obj, sizeof(obj), "%s/h.so", dir);
	snprintf(log, sizeof(log), "%s/cc.log", dir);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* Every type the headers declare, used or not. */
		execlp("cc", "cc", "-g", "-fno-eliminate-unused-debug-types", "-shared", "-fPIC",
		       "-nostdlib", "-o", obj, src, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* The compiler's first line of complaint, for the error message. */
static const char *first_complaint(struct arena *a, const char *dir)
{
	char path[4200], line[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/cc.log", dir);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f) && !strstr(line, "error"))
			;
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
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
	char *c = include_lines(&s->arena, h->headers);
	char *dir, path[4200];
	FILE *f;
	int err;

	if (!c) {
		*why = "expected <header.h>...";
		return -EINVAL;
	}
	dir = session_mkdtemp(s, "ctap-cast");
	if (!dir)
		return -errno;
	snprintf(path, sizeof(path), "%s/h.c", dir);
	f = fopen(path, "w");
	if (!f || fputs(c, f) < 0 || fclose(f)) {
		err = -errno;
		goto out;
	}
	err = compile(dir);
	if (err) {
		*why = first_complaint(&s->arena, dir);
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
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
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
