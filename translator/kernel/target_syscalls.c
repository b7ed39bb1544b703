// SPDX-License-Identifier: GPL-2.0
/*
 * target_syscalls.c - syscall.NAME and syscall.NAME.return for every
 * system call of the target kernel, written from its own headers.
 *
 * include/linux/syscalls.h declares each call with its C parameters
 * ("asmlinkage long sys_read(unsigned int fd, char __user *buf, size_t
 * count);"), under the name of its entry point (syscalls_64.h: "stat" is
 * sys_newstat).  From a declaration this writes an alias on the call
 * (translator/probes/syscalls.c), whose $regs are the caller's registers:
 *
 *	probe syscall.read = kernel.syscall("read")
 *	{
 *		name = "read"
 *		fd = __uint32($regs->di)
 *		buf_uaddr = $regs->si
 *		count = $regs->dx
 *		argstr = sprintf("%u, %p, %u", fd, buf_uaddr, count)
 *	}
 *
 * following SystemTap's conventions: a pointer argument is NAME_uaddr
 * and shown with %p, a string (char *) is read and quoted, a mode is
 * octal.  The return alias sets name, retval and retstr.
 *
 * These aliases are defaults (struct script.is_default): a hand-written
 * tapset that defines syscall.read, with SystemTap's own decoding of
 * flags and buffers, replaces the one written here.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target_tapsets.h"
#include "xalloc.h"

#define MAX_PARAMS	6	/* x86_64 passes six in registers */

/* The registers of a system call's arguments on x86_64, in order. */
static const char *const arg_regs[MAX_PARAMS] = { "di", "si", "dx", "r10", "r8", "r9" };

enum kind { K_S32, K_U32, K_S64, K_U64, K_MODE, K_STR, K_PTR };

struct param {
	const char *var;	/* the alias's variable */
	enum kind kind;
	const char *cname;	/* the C parameter's name, NULL if unnamed */
	const char *ctype;	/* its type without qualifiers: "struct iovec *" */
};

struct decl {
	const char *name;	/* "read" */
	struct param p[MAX_PARAMS];
	int n;
};

/* Integer types by how SystemTap shows them; anything else is a long. */
static const struct {
	const char *type;
	enum kind kind;
} int_types[] = {
	{ "int", K_S32 }, { "pid_t", K_S32 }, { "uid_t", K_S32 }, { "gid_t", K_S32 },
	{ "old_uid_t", K_S32 }, { "old_gid_t", K_S32 }, { "clockid_t", K_S32 },
	{ "timer_t", K_S32 }, { "mqd_t", K_S32 }, { "key_t", K_S32 },
	{ "key_serial_t", K_S32 }, { "rwf_t", K_S32 }, { "s32", K_S32 }, { "__s32", K_S32 },
	{ "unsigned int", K_U32 }, { "unsigned", K_U32 }, { "u32", K_U32 }, { "__u32", K_U32 },
	{ "qid_t", K_U32 },
	{ "unsigned long", K_U64 }, { "size_t", K_U64 }, { "u64", K_U64 }, { "__u64", K_U64 },
	{ "aio_context_t", K_U64 },
	{ "umode_t", K_MODE }, { "mode_t", K_MODE },
	{ "cap_user_header_t", K_PTR }, { "cap_user_data_t", K_PTR },
};

/* Words that are a type, never a parameter's name. */
static bool type_word(const char *w, size_t n)
{
	static const char *const words[] = { "int", "long", "char", "short", "unsigned",
					     "signed", "void", "const", "__user", NULL };

	for (const char *const *k = words; *k; k++)
		if (strlen(*k) == n && !strncmp(w, *k, n))
			return true;
	for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
		if (strlen(int_types[i].type) == n && !strncmp(w, int_types[i].type, n))
			return true;
	return false;
}

/* Names an alias must not take for an argument: the script language's
 * keywords and the variables every syscall alias sets. */
static bool reserved(const char *w)
{
	static const char *const words[] = { "name", "argstr", "retval", "retstr", "probe",
		"global", "function", "if", "else", "for", "foreach", "in", "limit", "while",
		"break", "continue", "return", "next", "delete", "try", "catch", "string",
		"long", "private", "in", NULL };

	for (const char *const *k = words; *k; k++)
		if (!strcmp(w, *k))
			return true;
	return false;
}

/* "const char __user *" -> "char *": the type without qualifiers. */
static void plain_type(char *out, size_t size, const char *t, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 2 < size;) {
		size_t w = 0;

		while (i < n && isspace((unsigned char)t[i]))
			i++;
		if (i < n && t[i] == '*') {
			if (o && out[o - 1] != ' ' && out[o - 1] != '*')
				out[o++] = ' ';
			out[o++] = '*';
			i++;
			continue;
		}
		while (i + w < n && (isalnum((unsigned char)t[i + w]) || t[i + w] == '_'))
			w++;
		if (!w) {
			i++;
			continue;
		}
		if (!((w == 5 && !strncmp(t + i, "const", 5)) ||
		      (w == 6 && !strncmp(t + i, "__user", 6)))) {
			if (o && out[o - 1] != ' ')
				out[o++] = ' ';
			if (o + w + 1 >= size)
				break;
			memcpy(out + o, t + i, w);
			o += w;
		}
		i += w;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

/* type without qualifiers; a const char * is a string the caller passes,
 * a char * a buffer the call fills. */
static enum kind classify(const char *type, bool is_const)
{
	const char *star = strchr(type, '*');

	if (star)
		return is_const && !strcmp(type, "char *") ? K_STR : K_PTR;
	for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
		if (!strcmp(type, int_types[i].type))
			return int_types[i].kind;
	return K_S64;
}

/* One parameter, text [p, end): its variable and kind; i counts from 1. */
static void parse_param(struct arena *a, struct param *out, const char *p, const char *end,
			int i)
{
	const char *q = end, *word;
	char type[128];
	bool is_const = false;

	while (q > p && isspace((unsigned char)q[-1]))
		q--;
	word = q;
	while (word > p && (isalnum((unsigned char)word[-1]) || word[-1] == '_'))
		word--;
	/* Unnamed ("int __user *", "unsigned long"): the name is argN. */
	if (word == q || word == p || type_word(word, q - word)) {
		plain_type(type, sizeof(type), p, q - p);
		out->var = arena_printf(a, "arg%d", i);
		out->cname = NULL;
	} else {
		plain_type(type, sizeof(type), p, word - p);
		out->var = arena_strndup(a, word, q - word);
		out->cname = out->var;
	}
	out->ctype = arena_strndup(a, type, strlen(type));
	for (const char *c = p; c + 5 <= end && !is_const; c++)
		is_const = !strncmp(c, "const", 5);
	out->kind = classify(type, is_const);
	if (out->kind == K_PTR)
		out->var = arena_printf(a, "%s_uaddr", out->var);
	else if (reserved(out->var))
		out->var = arena_printf(a, "%s_arg", out->var);
}

/* The declaration starting after "asmlinkage long sys_" at p, or false. */
static bool parse_decl(struct arena *a, const char *p, struct decl *d)
{
	const char *open = strchr(p, '('), *close, *start;
	int depth = 0;

	if (!open)
		return false;
	d->name = arena_strndup(a, p, open - p);
	d->n = 0;
	for (close = open + 1; *close && (*close != ')' || depth); close++)
		depth += *close == '(' ? 1 : *close == ')' ? -1 : 0;
	if (!*close)
		return false;
	for (start = open + 1; start < close;) {
		const char *comma = start;

		for (depth = 0; comma < close && (*comma != ',' || depth); comma++)
			depth += *comma == '(' ? 1 : *comma == ')' ? -1 : 0;
		if (d->n == MAX_PARAMS)
			return false;
		parse_param(a, &d->p[d->n], start, comma, d->n + 1);
		d->n++;
		start = comma + 1;
	}
	/* "(void)" */
	if (d->n == 1 && !strcmp(d->p[0].var, "arg1") && d->p[0].kind == K_S64 &&
	    strstr(arena_strndup(a, open, close - open), "void"))
		d->n = 0;
	return true;
}

/* The declarations of syscalls.h by name; a later one (the #else branch
 * of an #ifdef, x86_64's case for clone) replaces an earlier one. */
static struct decl *find_decl(struct decl *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static int read_decls(struct arena *a, const char *headers, struct decl **out)
{
	static const char key[] = "asmlinkage long sys_";
	size_t len;
	char *text = arena_read_file(a, arena_printf(a, "%s/include/linux/syscalls.h", headers),
				     &len);
	struct decl *v = NULL;
	int n = 0;

	for (char *p = text; p && (p = strstr(p, key)); p += sizeof(key) - 1) {
		struct decl d, *old;

		if (p != text && p[-1] != '\n')
			continue;
		if (!parse_decl(a, p + sizeof(key) - 1, &d))
			continue;
		old = find_decl(v, n, d.name);
		if (old) {
			*old = d;
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = d;
	}
	*out = v;
	return n;
}

static const char *read_arg(struct arena *a, const struct param *p, int i)
{
	const char *reg = arena_printf(a, "$regs->%s", arg_regs[i]);

	switch (p->kind) {
	case K_S32:
		return arena_printf(a, "__int32(%s)", reg);
	case K_U32:
	case K_MODE:
		return arena_printf(a, "__uint32(%s)", reg);
	case K_STR:
		return arena_printf(a, "user_string_quoted(%s)", reg);
	default:
		return reg;
	}
}

static const char *const formats[] = {
	[K_S32] = "%d", [K_U32] = "%u", [K_S64] = "%d", [K_U64] = "%u",
	[K_MODE] = "%#o", [K_STR] = "%s", [K_PTR] = "%p",
};

/* SystemTap's names for the calls whose x86_64 name differs: scripts say
 * syscall.pread, and name is "pread". */
static const char *const renamed[][2] = {
	{ "pread64", "pread" }, { "pwrite64", "pwrite" }, { "newfstatat", "fstatat" },
	{ "mmap", "mmap2" }, { "umount2", "umount" },
};

static const char *stap_name(const char *name)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i][0]))
			return renamed[i][1];
	return name;
}

/* entries[nr]: the call "newstat" of the 64-bit entry point "sys_newstat". */
static void read_entries(struct arena *a, const char *build, const char **entries, int max)
{
	const char *const *fn;
	int n = target_syscall_entries(a, build, false, &fn);

	for (int nr = 0; nr < max && nr < n; nr++)
		if (fn[nr] && !strncmp(fn[nr], "sys_", 4))
			entries[nr] = fn[nr] + 4;
}

/* name: the alias's ("mmap2"), call: the kernel's ("mmap"). */
static void write_aliases(FILE *f, struct arena *a, const char *name, const char *call,
			  const struct decl *d)
{
	fprintf(f, "probe syscall.%s = kernel.syscall(\"%s\")\n{\n"
		"\tname = \"%s\"\n", name, call, name);
	if (!d) {
		fprintf(f, "\targstr = \"\"\t// no declaration in syscalls.h\n}\n");
	} else {
		for (int i = 0; i < d->n; i++)
			fprintf(f, "\t%s = %s\n", d->p[i].var, read_arg(a, &d->p[i], i));
		fprintf(f, "\targstr = ");
		if (!d->n)
			fprintf(f, "\"\"\n}\n");
		else {
			fprintf(f, "sprintf(\"");
			for (int i = 0; i < d->n; i++)
				fprintf(f, "%s%s", i ? ", " : "", formats[d->p[i].kind]);
			fprintf(f, "\"");
			for (int i = 0; i < d->n; i++)
				fprintf(f, ", %s", d->p[i].var);
			fprintf(f, ")\n}\n");
		}
	}
	/* SystemTap's nd_syscall.* (no debuginfo) is the same thing here. */
	fprintf(f, "probe nd_syscall.%s = syscall.%s { }\n", name, name);
	/* exit and exit_group never return. */
	if (!strcmp(name, "exit") || !strcmp(name, "exit_group")) {
		fputc('\n', f);
		return;
	}
	fprintf(f, "probe syscall.%s.return = kernel.syscall(\"%s\").return\n{\n"
		"\tname = \"%s\"\n\tretval = $ret\n\tretstr = return_str(1, retval)\n}\n"
		"probe nd_syscall.%s.return = syscall.%s.return { }\n\n", name, call, name, name, name);
}

struct target_syscall_decl *target_syscall_decls(struct arena *a, const char *headers,
						 const char *build, int n)
{
	const char **entries = arena_alloc(a, (n + 1) * sizeof(*entries));
	struct target_syscall_decl *out = arena_alloc(a, (n + 1) * sizeof(*out));
	struct decl *decls = NULL;
	int ndecls = read_decls(a, headers, &decls);

	memset(entries, 0, (n + 1) * sizeof(*entries));
	memset(out, 0, (n + 1) * sizeof(*out));
	read_entries(a, build, entries, n);
	for (int nr = 0; nr < n; nr++) {
		const struct decl *d = entries[nr] ? find_decl(decls, ndecls, entries[nr]) : NULL;

		if (!d)
			continue;
		out[nr].known = true;
		for (int i = 0; i < d->n; i++) {
			out[nr].p[i].name = d->p[i].cname;
			out[nr].p[i].type = d->p[i].ctype;
		}
		out[nr].n = d->n;
	}
	free(decls);
	return out;
}

char *target_syscalls(struct arena *a, const char *headers, const char *build,
		      const char *const *names, int n, size_t *len)
{
	const char **entries = arena_alloc(a, (n + 1) * sizeof(*entries));
	const char *table = arena_printf(a, "%s/arch/x86/include/generated/asm/syscalls_64.h",
					 build);
	struct decl *decls = NULL;
	int ndecls = read_decls(a, headers, &decls);
	char *text = NULL;
	FILE *f;

	memset(entries, 0, (n + 1) * sizeof(*entries));
	read_entries(a, build, entries, n);
	if (!ndecls || !(f = open_memstream(&text, len))) {
		free(decls);
		return NULL;
	}
	fprintf(f, "// syscalls.stp - written by ctap (translator/kernel/target_syscalls.c) from\n"
		"// %s/include/linux/syscalls.h and\n// %s:\n"
		"// syscall.NAME and syscall.NAME.return for each x86_64 system call,\n"
		"// where no tapset defines them.\n\n", headers, table);
	for (int i = 0; i < n; i++)
		if (names[i] && entries[i])
			write_aliases(f, a, stap_name(names[i]), names[i],
				      find_decl(decls, ndecls, entries[i]));
	fclose(f);
	free(decls);
	arena_own(a, text);
	return text;
}
