// SPDX-License-Identifier: GPL-2.0
/*
 * target_tapsets.c - tapsets written from the target kernel itself, so that
 * what differs between kernels is never a table in ctap's tapsets:
 * syscall_table.stp, the system call numbers of the kernel's own
 * unistd_64.h and unistd_32.h (syscall_name(), syscall_num()), and
 * syscalls.stp, an alias for each system call (target_syscalls.c).
 *
 * They are generated into the user's cache, target-<release>-<stap>/ (a
 * directory per stap build, which may write them differently: two builds
 * sharing a cache rewrote each other's, three quarters of a -p2 run each
 * time; the newest few are kept), when their inputs change (the file
 * "inputs" there names each with its size and modification time),
 * rewritten only when the text differs, so the tapset index stays valid,
 * and searched after -I and before the library.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "target_tapsets.h"

#define MAX_SYSCALL	1024	/* numbers above are not system calls */
#define TARGET_TAPSETS_KEEP	4	/* directories per kernel, newest first */

/* names[nr] from "#define __NR_name nr" lines; returns the highest nr + 1. */
static int read_unistd(struct arena *a, const char *path, const char **names)
{
	size_t len;
	char *text = arena_read_file(a, path, &len), *line, *save = NULL;
	int n = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int nr;

		if (sscanf(line, "#define __NR_%63[a-zA-Z0-9_] %d", name, &nr) != 2 ||
		    nr < 0 || nr >= MAX_SYSCALL)
			continue;
		names[nr] = arena_printf(a, "%s", name);
		if (nr >= n)
			n = nr + 1;
	}
	return n;
}

static void table(FILE *f, const char *cname, const char *const *names, int n)
{
	fprintf(f, "static const char *const %s[%d] = {\n", cname, n ? n : 1);
	for (int i = 0; i < n; i++)
		if (names[i])
			fprintf(f, "\t[%d] = \"%s\",\n", i, names[i]);
	fprintf(f, "};\n\n");
}

/* The system call names of a unistd header, by number. */
struct syscall_names {
	const char *v[MAX_SYSCALL];
	int n;				/* the highest number + 1 */
};

/* The tapset's text, or NULL without the kernel's unistd_64.h. */
static char *syscall_table(struct arena *a, const char *dir, const struct syscall_names *s64,
			   const struct syscall_names *s32, size_t *len)
{
	const char *const *n64 = s64->v, *const *n32 = s32->v;
	int max64 = s64->n, max32 = s32->n;
	char *text = NULL;
	FILE *f;

	if (!max64 || !(f = open_memstream(&text, len)))
		return NULL;
	fprintf(f, "// syscall_table.stp - written by ctap (translator/kernel/target_tapsets.c) from\n"
		"// %s/unistd_{64,32}.h: the target kernel's system call numbers.\n\n%%{\n"
		"#include <linux/compat.h>\n\n", dir);
	table(f, "ctap_syscalls_64", n64, max64);
	table(f, "ctap_syscalls_32", n32, max32);
	fprintf(f, "%%}\n\n"
		"// The name of system call num (the 32-bit one in a 32-bit task), \"\" if none.\n"
		"function syscall_name:string (num:long)\n"
		"%%{ /* pure */ /* unprivileged */\n"
		"\tbool compat = IS_ENABLED(CONFIG_COMPAT) && in_compat_syscall();\n"
		"\tconst char *const *names = compat ? ctap_syscalls_32 : ctap_syscalls_64;\n"
		"\tlong n = compat ? ARRAY_SIZE(ctap_syscalls_32) : ARRAY_SIZE(ctap_syscalls_64);\n"
		"\n"
		"\tif (STAP_ARG_num >= 0 && STAP_ARG_num < n && names[STAP_ARG_num])\n"
		"\t\tstrlcpy(STAP_RETVALUE, names[STAP_ARG_num], MAXSTRINGLEN);\n"
		"%%}\n\n"
		"// The number of system call name, -1 if there is none.\n"
		"function syscall_num:long (name:string)\n"
		"%%{ /* pure */ /* unprivileged */\n"
		"\tbool compat = IS_ENABLED(CONFIG_COMPAT) && in_compat_syscall();\n"
		"\tconst char *const *names = compat ? ctap_syscalls_32 : ctap_syscalls_64;\n"
		"\tlong n = compat ? ARRAY_SIZE(ctap_syscalls_32) : ARRAY_SIZE(ctap_syscalls_64);\n"
		"\n"
		"\tfor (long i = 0; i < n; i++)\n"
		"\t\tif (names[i] && !strcmp(names[i], STAP_ARG_name))\n"
		"\t\t\tSTAP_RETURN(i);\n"
		"\tSTAP_RETURN(-1);\n"
		"%%}\n");
	fclose(f);
	arena_own(a, text);
	return text;
}

/* Write text to path unless it holds that already; 0 or -errno. */
static int refresh(struct arena *a, const char *path, const char *text, size_t len)
{
	size_t old_len;
	const char *old = arena_read_file(a, path, &old_len);
	const char *tmp = arena_printf(a, "%s.%d", path, (int)getpid());
	FILE *f;

	if (old && old_len == len && !memcmp(old, text, len))
		return 0;
	f = fopen(tmp, "wx");
	if (!f)
		return -errno;
	if (fwrite(text, 1, len, f) != len || fclose(f)) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) ? -errno : 0;
}

int target_syscall_names(struct arena *a, const char *build, const char *arch,
			 const char *const **names)
{
	const char **v = arena_alloc(a, MAX_SYSCALL * sizeof(*v));
	const char *dir = arena_printf(a, "%s/arch/%s/include/generated/uapi/asm", build,
				       !strcmp(arch, "x86_64") ? "x86" : arch);

	memset(v, 0, MAX_SYSCALL * sizeof(*v));
	*names = v;
	return build ? read_unistd(a, arena_printf(a, "%s/unistd_64.h", dir), v) : 0;
}

/*
 * A line of syscalls_64.h or syscalls_32.h: "__SYSCALL(0, sys_read)",
 * __SYSCALL_NORETURN (6.x), __SYSCALL_WITH_COMPAT(5, sys_open,
 * compat_sys_open) (6.x ia32: a 64-bit kernel enters the second),
 * __SYSCALL_COMMON, __SYSCALL_64 and __SYSCALL_I386 (5.10; its ia32 table
 * has "#ifdef CONFIG_X86_32" a native line "#else" a compat one: the
 * later line is a 64-bit kernel's).  __SYSCALL_X32 lines are skipped.
 */
static void read_entries(struct arena *a, const char *path, const char **entries)
{
	size_t len;
	char *text = arena_read_file(a, path, &len), *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char macro[32], fn[64], compat[64];
		int nr, got = sscanf(line, "%31[A-Z0-9_](%d, %63[a-zA-Z0-9_], %63[a-zA-Z0-9_]",
				     macro, &nr, fn, compat);

		if (got < 3 || strncmp(macro, "__SYSCALL", 9) || !strcmp(macro, "__SYSCALL_X32") ||
		    nr < 0 || nr >= MAX_SYSCALL)
			continue;
		entries[nr] = strcmp(fn, "sys_ni_syscall") ?
			      arena_printf(a, "%s", got == 4 ? compat : fn) : NULL;
	}
}

int target_syscall_entries(struct arena *a, const char *build, bool ia32,
			   const char *const **entries)
{
	const char **v = arena_alloc(a, MAX_SYSCALL * sizeof(*v));

	memset(v, 0, MAX_SYSCALL * sizeof(*v));
	*entries = v;
	if (build)
		read_entries(a, arena_printf(a, "%s/arch/x86/include/generated/asm/syscalls_%s.h",
					     build, ia32 ? "32" : "64"), v);
	return MAX_SYSCALL;
}

/* The ia32 names of unistd_32.h whose number has an entry point (none
 * for a number left to sys_ni_syscall: _sysctl since 5.5). */
int target_compat_syscall_names(struct arena *a, const char *build, const char *const **names)
{
	const char **v = arena_alloc(a, MAX_SYSCALL * sizeof(*v));
	const char *const *entries;
	int n;

	memset(v, 0, MAX_SYSCALL * sizeof(*v));
	*names = v;
	if (!build)
		return 0;
	n = read_unistd(a, arena_printf(a, "%s/arch/x86/include/generated/uapi/asm/unistd_32.h",
					build), v);
	target_syscall_entries(a, build, true, &entries);
	for (int nr = 0; nr < n; nr++)
		if (!entries[nr])
			v[nr] = NULL;
	return n;
}

const char *target_headers_dir(struct arena *a, const char *build)
{
	const char *mk = arena_printf(a, "%s/Makefile", build);
	char *text, *p, *q;
	size_t len;

	if (!access(arena_printf(a, "%s/include/linux/syscalls.h", build), R_OK))
		return build;
	text = arena_read_file(a, mk, &len);
	if (!text || !(p = strstr(text, "include /")) || !(q = strstr(p, "/Makefile")))
		return build;
	p += strlen("include ");
	return arena_strndup(a, p, q - p);
}

/* Write the tapset file name of the cache's target directory; 0 or -errno. */
static int store(struct arena *a, const char *subdir, const char *file, const char *text,
		 size_t len)
{
	char path[4096];

	if (cache_path(path, sizeof(path), arena_printf(a, "%s/%s", subdir, file)))
		return -EACCES;
	return refresh(a, path, text, len);
}

/*
 * What the generated files were written from: each input's path, size and
 * modification time.
 */
static char *inputs_key(struct arena *a, const char *const *paths, int n)
{
	char *key = arena_printf(a, "ctap target tapsets 2\n");

	for (int i = 0; i < n; i++) {
		struct stat st;

		if (stat(paths[i], &st))
			memset(&st, 0, sizeof(st));
		key = arena_printf(a, "%s%s %lld %lld.%09ld\n", key, paths[i],
				   (long long)st.st_size, (long long)st.st_mtim.tv_sec,
				   st.st_mtim.tv_nsec);
	}
	return key;
}

/* Whether dir's generated files exist, are trusted and were written from key. */
static bool up_to_date(struct arena *a, const char *dir, const char *key)
{
	const char *files[] = { "inputs", "syscall_table.stp", "syscalls.stp" };
	size_t len;
	const char *old;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (cache_file_ok(arena_printf(a, "%s/%s", dir, files[i])))
			return false;
	old = arena_read_file(a, arena_printf(a, "%s/inputs", dir), &len);
	return old && len == strlen(key) && !memcmp(old, key, len);
}

const char *target_tapsets_dir(struct arena *a, const char *release, const char *build,
			       const char *arch)
{
	const char *dir, *headers, *inputs[4], *subdir;
	struct syscall_names *s64, *s32;
	char *key;
	char path[4096];
	size_t len;
	char *text;

	if (!build || !release)
		return NULL;
	subdir = arena_printf(a, "target-%s-%08lx", release, cache_exe_id() & 0xffffffff);
	if (cache_path(path, sizeof(path), arena_printf(a, "%s/inputs", subdir)))
		return NULL;
	*strrchr(path, '/') = '\0';
	dir = arena_printf(a, "%s/arch/%s/include/generated/uapi/asm", build,
			   !strcmp(arch, "x86_64") ? "x86" : arch);
	headers = target_headers_dir(a, build);
	inputs[0] = arena_printf(a, "%s/unistd_64.h", dir);
	inputs[1] = arena_printf(a, "%s/unistd_32.h", dir);
	inputs[2] = arena_printf(a, "%s/include/linux/syscalls.h", headers);
	inputs[3] = arena_printf(a, "%s/arch/x86/include/generated/asm/syscalls_64.h", build);
	key = inputs_key(a, inputs, 4);
	if (up_to_date(a, path, key))
		return arena_printf(a, "%s", path);
	s64 = arena_alloc(a, sizeof(*s64));
	s32 = arena_alloc(a, sizeof(*s32));
	memset(s64, 0, sizeof(*s64));
	memset(s32, 0, sizeof(*s32));
	s64->n = read_unistd(a, arena_printf(a, "%s/unistd_64.h", dir), s64->v);
	s32->n = read_unistd(a, arena_printf(a, "%s/unistd_32.h", dir), s32->v);
	text = syscall_table(a, dir, s64, s32, &len);
	if (!text || store(a, subdir, "syscall_table.stp", text, len))
		return NULL;
	/* The aliases are x86_64's (its entry points and registers). */
	text = !strcmp(arch, "x86_64") ?
		target_syscalls(a, headers, build, s64->v, s64->n, &len) : NULL;
	if (text && store(a, subdir, "syscalls.stp", text, len))
		return NULL;
	/* Last: a run cut off before this point writes everything again. */
	if (store(a, subdir, "inputs", key, strlen(key)))
		return NULL;
	cache_prune("", arena_printf(a, "target-%s-", release), "", TARGET_TAPSETS_KEEP, NULL);
	return arena_printf(a, "%s", path);
}
