/*
 * target_tapsets.c - tapsets written from the target kernel itself, so that
 * what differs between kernels is never a table in ctap's tapsets: today
 * syscall_table.stp, the system call numbers of the kernel's own
 * unistd_64.h and unistd_32.h (syscall_name(), syscall_num()).
 *
 * They are generated into the user's cache, target-<release>/, on each
 * run (a few hundred lines; the file is rewritten only when it changes,
 * so the tapset index stays valid), and searched after -I and before the
 * library.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "target_tapsets.h"

#define MAX_SYSCALL	1024	/* numbers above are not system calls */

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

static void table(FILE *f, const char *cname, const char **names, int n)
{
	fprintf(f, "static const char *const %s[%d] = {\n", cname, n ? n : 1);
	for (int i = 0; i < n; i++)
		if (names[i])
			fprintf(f, "\t[%d] = \"%s\",\n", i, names[i]);
	fprintf(f, "};\n\n");
}

/* The tapset's text, or NULL without the kernel's unistd_64.h. */
static char *syscall_table(struct arena *a, const char *build, const char *arch, size_t *len)
{
	const char *dir = arena_printf(a, "%s/arch/%s/include/generated/uapi/asm", build,
				       !strcmp(arch, "x86_64") ? "x86" : arch);
	const char **n64 = arena_alloc(a, MAX_SYSCALL * sizeof(*n64));
	const char **n32 = arena_alloc(a, MAX_SYSCALL * sizeof(*n32));
	int max64, max32;
	char *text = NULL;
	FILE *f;

	memset(n64, 0, MAX_SYSCALL * sizeof(*n64));
	memset(n32, 0, MAX_SYSCALL * sizeof(*n32));
	max64 = read_unistd(a, arena_printf(a, "%s/unistd_64.h", dir), n64);
	max32 = read_unistd(a, arena_printf(a, "%s/unistd_32.h", dir), n32);
	if (!max64 || !(f = open_memstream(&text, len)))
		return NULL;
	fprintf(f, "// syscall_table.stp - written by ctap (translator/target_tapsets.c) from\n"
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

const char *target_tapsets_dir(struct arena *a, const char *release, const char *build,
			       const char *arch)
{
	char path[4096];
	size_t len;
	char *text;

	if (!build || !release)
		return NULL;
	text = syscall_table(a, build, arch, &len);
	if (!text)
		return NULL;
	if (cache_path(path, sizeof(path), arena_printf(a, "target-%s/syscall_table.stp", release)))
		return NULL;
	if (refresh(a, path, text, len))
		return NULL;
	*strrchr(path, '/') = '\0';
	return arena_printf(a, "%s", path);
}
