// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the stap command: options, then the passes.
 *
 *   stap [options] FILE [ARGS...]       stap [options] -e SCRIPT [ARGS...]
 *
 * Options follow SystemTap's.  Passes: 1 parse (pass1.c), 2 elaborate
 * (elaborate.c, sem.c), 3 translate (translate.c), 4 build (build.c),
 * 5 run (run.c).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analyses.h"
#include "elaborate.h"
#include "fold.h"
#include "sem.h"
#include "provider.h"
#include "print.h"
#include "session.h"
#include "build.h"
#include "bundle.h"
#include "ctap_bundle.h"
#include "pass1.h"
#include "check.h"
#include "merge.h"
#include "remote.h"
#include "run.h"
#include "translate.h"

#define COMPAT_VERSION		"4.8"	/* the SystemTap we are compatible with */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stap [options] FILE [ARGS ...]   run script in FILE\n"
		"   or: stap [options] -e SCRIPT [ARGS ...]\n"
		"   or: stap [options] -l PROBE | -L PROBE\n"
		"Options:\n"
		"  -p NUM     stop after pass NUM 1-5 (parse, elaborate, translate, compile, run)\n"
		"  -v         more verbose; prints each pass's time\n"
		"  -V         print the version and exit\n"
		"  -e SCRIPT  run the given script\n"
		"  -I DIR     look in DIR for additional .stp and .stpm tapsets\n"
		"  -D NM=VAL  emit #define NM VAL into the module\n"
		"  -G VAR=VAL set a global at load time\n"
		"  -g         guru mode (embedded C, writing $vars)\n"
		"  -u         unoptimized translation\n"
		"  -t         time each probe; report hits and cycles at the end\n"
		"  -w / -W    suppress warnings / treat warnings as errors\n"
		"  -k         keep the temporary directory\n"
		"  -m NAME    name the module NAME\n"
		"  -r DIR|REL target the kernel build tree DIR or release REL; several,\n"
		"             with -p4 -m NAME: NAME.ctap, a module for each, which\n"
		"             staprun loads on whichever kernel runs\n"
		"  -R DIR     look in DIR for the runtime\n"
		"  -o FILE    send the output to FILE\n"
		"  -S MB[,N]  with -o: go on in FILE.1, FILE.2... once a file exceeds MB\n"
		"             megabytes, keeping the N newest\n"
		"  -c CMD     start the probes, run CMD, stop when it exits\n"
		"  -x PID     set target() to PID\n"
		"  -T SECS    stop after SECS seconds\n"
		"  -s MB      output buffer size in megabytes\n"
		"  -b         bulk (per-CPU) output files\n"
		"  -F         flight recorder: start the session and leave it running; with\n"
		"             -o, staprun writes FILE as a daemon (its pid printed); else\n"
		"             the newest output waits in the module for staprun -A NAME\n"
		"  -l PROBE   list matching probe points\n"
		"  -L PROBE   list matching probe points and their context variables\n"
		"  --remote [ssh://][USER@]HOST[:PORT]  run on that host over ssh\n"
		"             (repeatable: every host at once, a module built per kernel)\n"
		"  --remote-prefix  \"N: \" before each line of host N's output\n"
		"  --remote-merge  with --remote: one end for all hosts, on their merged\n"
		"             statistics and counters (-p2: check that the script qualifies)\n"
		"  --vm[=IMAGE]  run in a QEMU guest of the target (or given) kernel\n"
		"  --vm-kernel=RELEASE|DIR|/boot/vmlinuz-RELEASE  --vm, targeting that\n"
		"             installed kernel (its headers build the module)\n"
		"  --sysroot=DIR read process(\"/path\") binaries at DIR/path\n"
		"  --kernel-debuginfo=DIR  the kernel's DWARF under DIR (DIR/usr/lib/debug/boot/\n"
		"             vmlinux-RELEASE, a -dbg package unpacked), for files, lines and locals\n"
		"  --compatible=VER, --dump-functions, --dump-probe-types, --dump-probe-aliases\n"
		"  -d FILE    symbols and unwind data of a user program or library, for\n"
		"             usymname(), print_ubacktrace()... (process probes' files have them)\n"
		"  --ldd      -d for the shared libraries those need too\n"
		"  -d MODULE, --all-modules: accepted; the kernel's and its modules'\n"
		"             symbols come from kallsyms at run time\n"
		"  --disable-cache  build afresh, reusing no cached module or runtime\n"
		"  --sign-module[=DIR]  sign the module for kernels that enforce\n"
		"             signatures, with the key pair in DIR (default\n"
		"             ~/.config/ctap/signing, made on first use)\n"
		"  --check-version  warn about the tapset code the script uses whose\n"
		"             behaviour depends on --compatible\n"
		"  --json     output as JSON, one object per line: what each statement\n"
		"             prints, histograms, the globals printed at the end\n"
		"  --check    pre-flight check: can scripts run here (or, with --vm, in\n"
		"             the guest)?  What to do about each thing that fails\n"
		"  --target-namespaces=PID  ns_pid(), ns_uid()... as seen in the pid and\n"
		"             user namespaces of process PID (a container's)\n"
		"  --cgroup=PATH  run the probes of tasks only for tasks in cgroup v2 PATH\n"
		"             (as cgroup_path() prints it) or below it\n"
		"  --monitor[=INTERVAL]  a live view of the session on the terminal,\n"
		"             refreshed every INTERVAL seconds (1): each probe's hits and\n"
		"             cost, the globals; keys pause, resume, clear, quit\n"
		"  --runtime=dyninst, --dyninst  build a user-space module (NAME.so) that\n"
		"             stapdyn runs as an ordinary user: begin, end, error, timer\n"
		"             probes (docs/userspace.md)\n");
}

static void bad_option(const char *fmt, const char *arg)
{
	fprintf(stderr, "stap: ");
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	exit(1);
}

static long parse_number(const char *arg, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < min || v > max) {
		fprintf(stderr, "stap: invalid %s '%s' (expected %ld-%ld)\n", what, arg, min, max);
		exit(1);
	}
	return v;
}

/*
 * -D NAME[=VALUE]: one line of a C header (ctap_defines.h, the script's
 * unit): a C name, and a value with no line break, no other control
 * character and no backslash at its end that would join the next line.
 */
static bool define_ok(const char *d)
{
	size_t n = strspn(d, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	const char *v = d + n, *end;

	if (!n || (*d >= '0' && *d <= '9') || (*v && *v++ != '='))
		return false;
	for (end = v; *end; end++)
		if ((unsigned char)*end < ' ' && *end != '\t')
			return false;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end == v || end[-1] != '\\';
}

static bool is_name_value(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq && eq != s;
}

/*
 * Where testsuite/kernels unpacks the kernels this machine's apt sources
 * do not carry (bullseye's 5.10): KERNELS/RELEASE/{boot,lib/modules,usr}.
 */
static const char *kernels_dir(void)
{
	const char *d = getenv("CTAP_KERNELS");

	return d && *d ? d : "/var/cache/ctap/kernels";
}

/* The root holding release's image and modules: "" (the system's own),
 * else an unpacked kernel's when it has them. */
static const char *kernel_root(struct session *s, const char *release)
{
	const char *root = arena_printf(&s->arena, "%s/%s", kernels_dir(), release);

	if (!access(arena_printf(&s->arena, "/boot/vmlinuz-%s", release), F_OK) ||
	    !access(arena_printf(&s->arena, "/lib/modules/%s/build/Makefile", release), F_OK))
		return "";
	return access(arena_printf(&s->arena, "%s/boot/vmlinuz-%s", root, release), F_OK) ?
	       "" : root;
}

/* -r: a build tree (contains '/') or a release under /lib/modules (or unpacked). */
static void set_target_kernel(struct session *s, const char *arg)
{
	const char *release = NULL, *root;
	char path[4096];
	FILE *f;

	if (arg && !strchr(arg, '/')) {
		release = arg;
		arg = arena_printf(&s->arena, "%s/lib/modules/%s/build", kernel_root(s, arg), arg);
	}
	if (!arg)
		arg = CTAP_KERNEL_BUILD;
	if (!*arg) {		/* configured --with-kernel-build=running */
		struct utsname u;

		uname(&u);
		arg = arena_printf(&s->arena, "/lib/modules/%s/build", u.release);
	}
	s->opt.kernel_build = arg;
	snprintf(path, sizeof(path), "%s/include/generated/utsrelease.h", arg);
	f = fopen(path, "r");
	if (f) {
		char line[256], rel[200];

		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "#define UTS_RELEASE \"%199[^\"]\"", rel) == 1)
				s->opt.kernel_release = arena_strndup(&s->arena, rel, strlen(rel));
		fclose(f);
	}
	/* -r RELEASE without its build tree is still a request for RELEASE. */
	if (!s->opt.kernel_release && release)
		s->opt.kernel_release = release;
	if (!s->opt.kernel_release) {
		struct utsname u;

		uname(&u);
		s->opt.kernel_release = arena_strndup(&s->arena, u.release, strlen(u.release));
	}
	root = kernel_root(s, s->opt.kernel_release);
	s->opt.kernel_image = arena_printf(&s->arena, "%s/boot/vmlinuz-%s", root, s->opt.kernel_release);
	s->opt.kernel_moddir = arena_printf(&s->arena, "%s/lib/modules/%s", root, s->opt.kernel_release);
	s->pp.kconfig_path = arena_printf(&s->arena, "%s/.config", arg);
}

/* --vm needs the target's build tree (for the module) and its image (to
 * boot): say which is missing now, not after pass 4. */
static void check_vm_kernel(struct session *s)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/Makefile", s->opt.kernel_build);
	if (access(path, R_OK)) {
		fprintf(stderr, "stap: --vm: no build tree for kernel %s at %s "
			"(install linux-headers-%s)\n", s->opt.kernel_release, s->opt.kernel_build,
			s->opt.kernel_release);
		exit(1);
	}
	if (access(s->opt.kernel_image, R_OK)) {
		fprintf(stderr, "stap: --vm: no kernel image %s to boot (install linux-image-%s, "
			"or testsuite/kernels --install)\n", s->opt.kernel_image, s->opt.kernel_release);
		exit(1);
	}
}

/* --dump-probe-types: every provider's patterns, sorted. */
static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void dump_probe_types(void)
{
	const char *v[512];
	size_t n = 0;

	for (int i = 0; providers[i]; i++)
		for (int j = 0; providers[i]->patterns[j] && n < 512; j++)
			v[n++] = providers[i]->patterns[j];
	qsort(v, n, sizeof(*v), cmp_strp);
	for (size_t i = 0; i < n; i++)
		puts(v[i]);
}

/*
 * $TMPDIR, where passes 4 and 5 make their directories, is checked first
 * (SystemTap's rule): a directory, and a path that Kbuild's makefiles and
 * the shell take as one word.
 */
static int check_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;

	if (!t || !*t)
		return 0;
	if (t[strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-")]) {
		fprintf(stderr, "stap: TMPDIR '%s' has characters a makefile or shell would split "
			"or expand\n", t);
		return -1;
	}
	if (stat(t, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "stap: TMPDIR '%s' is not a directory\n", t);
		return -1;
	}
	return 0;
}

/* -W: the warnings so far are errors; says so. */
static bool warnings_failed(const struct session *s)
{
	if (!s->opt.warnings_as_errors || !diag_warnings())
		return false;
	fprintf(stderr, "%d warning%s treated as errors (-W)\n", diag_warnings(),
		diag_warnings() == 1 ? "" : "s");
	return true;
}

enum {
	OPT_VM = 256, OPT_VM_KERNEL, OPT_COMPAT, OPT_DUMP_FUNCTIONS, OPT_DUMP_TYPES, OPT_DUMP_ALIASES,
	OPT_PRIVILEGE, OPT_SYSROOT, OPT_IGNORED, OPT_LDD, OPT_PROLOGUE, OPT_SKIP_BADVARS,
	OPT_DISABLE_CACHE, OPT_CHECK_VERSION, OPT_JSON, OPT_CHECK, OPT_SIGN, OPT_BUNDLE_MEMBER,
	OPT_TARGET_NS, OPT_CGROUP, OPT_MONITOR, OPT_RUNTIME, OPT_DYNINST, OPT_REMOTE, OPT_REMOTE_PREFIX,
	OPT_REMOTE_MERGE, OPT_MERGE_END, OPT_KERNEL_DEBUGINFO,
};

static const struct option longopts[] = {
	{ "vm", optional_argument, NULL, OPT_VM },
	{ "vm-kernel", required_argument, NULL, OPT_VM_KERNEL },
	{ "compatible", required_argument, NULL, OPT_COMPAT },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "dump-probe-types", no_argument, NULL, OPT_DUMP_TYPES },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_ALIASES },
	{ "privilege", required_argument, NULL, OPT_PRIVILEGE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "kernel-debuginfo", required_argument, NULL, OPT_KERNEL_DEBUGINFO },
	{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE },
	{ "suppress-handler-errors", no_argument, NULL, OPT_IGNORED },
	{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
	{ "suppress-time-limits", no_argument, NULL, OPT_IGNORED },
	/* SystemTap's symbol tables for backtraces: ctap's runtime asks
	 * kallsyms, which has the kernel's and every module's. */
	{ "all-modules", no_argument, NULL, OPT_IGNORED },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "sign-module", optional_argument, NULL, OPT_SIGN },
	{ "target-namespaces", required_argument, NULL, OPT_TARGET_NS },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "monitor", optional_argument, NULL, OPT_MONITOR },
	{ "bundle-member", required_argument, NULL, OPT_BUNDLE_MEMBER },	/* bundle.c */
	{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "dyninst", no_argument, NULL, OPT_DYNINST },	/* SystemTap's alias */
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "remote", required_argument, NULL, OPT_REMOTE },		/* remote.c */
	{ "remote-prefix", no_argument, NULL, OPT_REMOTE_PREFIX },
	{ "remote-merge", no_argument, NULL, OPT_REMOTE_MERGE },	/* merge.c */
	{ "merge-end", no_argument, NULL, OPT_MERGE_END },		/* remote.c */
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 }
};

/* The script and what shapes it: the last pass, -e, -I, -D, -G. */
static bool script_option(struct session *s, int opt)
{
	switch (opt) {
	case 'p':
		s->opt.last_pass = parse_number(optarg, 1, 5, "pass number");
		return true;
	case 'e':
		if (s->opt.script_text)
			bad_option("only one -e script may be given%s", "");
		s->opt.script_text = optarg;
		return true;
	case 'I':
		if (s->opt.n_include_dirs == MAX_INCLUDE_DIRS)
			bad_option("too many -I directories%s", "");
		s->opt.include_dirs[s->opt.n_include_dirs++] = optarg;
		return true;
	case 'D':
		if (!define_ok(optarg) || s->opt.n_defines == MAX_DEFINES)
			bad_option("invalid -D '%s' (expected NAME or NAME=VALUE, one line)", optarg);
		s->opt.defines[s->opt.n_defines++] = optarg;
		return true;
	case 'G':
		if (!is_name_value(optarg) || s->opt.n_globals_set == MAX_DEFINES)
			bad_option("invalid -G '%s' (expected NAME=VALUE)", optarg);
		s->opt.globals_set[s->opt.n_globals_set++] = optarg;
		return true;
	}
	return false;
}

/* The options that only set a flag (or are SystemTap's and mean nothing here). */
static bool flag_option(struct session *s, int opt)
{
	switch (opt) {
	case 'v':			s->opt.verbose++; return true;
	case 'g':			s->opt.guru = true; return true;
	case 'u':			s->opt.unoptimized = true; return true;
	case 't':			s->opt.timing = true; return true;
	case 'w':			s->opt.suppress_warnings = true; return true;
	case 'W':			s->opt.warnings_as_errors = true; return true;
	case 'k':			s->opt.keep_tmpdir = true; return true;
	case 'b':			s->opt.bulk = true; return true;
	case OPT_SKIP_BADVARS:		s->opt.skip_badvars = true; return true;
	case OPT_CHECK_VERSION:		s->opt.check_version = true; return true;
	case OPT_JSON:			s->opt.json = true; return true;
	case OPT_DYNINST:		s->opt.dyninst = true; return true;
	case OPT_RUNTIME:
		if (strcmp(optarg, "kernel") && strcmp(optarg, "dyninst"))
			bad_option("invalid --runtime '%s' (kernel or dyninst)", optarg);
		s->opt.dyninst = !strcmp(optarg, "dyninst");
		return true;
	case OPT_CHECK:			s->opt.check = true; return true;
	/* build afresh; the result still goes to the cache */
	case OPT_DISABLE_CACHE:		s->opt.disable_cache = true; return true;
	case OPT_LDD:			s->opt.ldd = true; return true;
	case OPT_DUMP_FUNCTIONS:	s->opt.dump = DUMP_FUNCTIONS; return true;
	case OPT_DUMP_ALIASES:		s->opt.dump = DUMP_ALIASES; return true;
	case OPT_IGNORED:		return true;
	}
	return false;
}

/* -m NAME: a C identifier short enough for the kernel's module name. */
static void module_name_option(struct session *s)
{
	for (const char *c = optarg; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c != optarg && *c >= '0' && *c <= '9')))
			bad_option("invalid module name '%s' (letters, digits, '_')", optarg);
	if (!*optarg || strlen(optarg) > 55)
		bad_option("invalid module name '%s'", optarg);
	s->opt.module_name = optarg;
}

/* Which kernel, and where: -r, --vm, --vm-kernel, --sysroot, a bundle's
 * member.  *target: the kernel named last, for set_target_kernel(). */
static bool target_option(struct session *s, int opt, const char **target)
{
	switch (opt) {
	case 'r':		/* several: a bundle (bundle.c), unless one member of it */
		if (s->opt.bundle_member)
			return true;
		if (s->opt.n_targets == CTAP_BUNDLE_MAX_MODULES)
			bad_option("at most 16 kernels (-r) in a bundle%s", "");
		s->opt.targets[s->opt.n_targets++] = optarg;
		*target = optarg;
		return true;
	case OPT_BUNDLE_MEMBER:
		s->opt.bundle_member = true;
		*target = optarg;
		return true;
	case OPT_SYSROOT:
		s->opt.sysroot = optarg;
		return true;
	case OPT_REMOTE:	/* checked now, used by remote.c */
		if (s->opt.n_remotes == 16)
			bad_option("at most 16 hosts (--remote)%s", "");
		if (!remote_destination(s, optarg))
			exit(1);
		s->opt.remotes[s->opt.n_remotes++] = optarg;
		return true;
	case OPT_REMOTE_PREFIX:
		s->opt.remote_prefix = true;
		return true;
	case OPT_REMOTE_MERGE:
		s->opt.remote_merge = true;
		return true;
	case OPT_MERGE_END:
		s->opt.merge_end = true;
		return true;
	case OPT_KERNEL_DEBUGINFO:
		s->opt.kernel_debuginfo = optarg;
		return true;
	case OPT_VM:
		s->opt.vm = true;
		s->opt.vm_kernel = optarg;
		return true;
	case OPT_VM_KERNEL:	/* another installed kernel: its release, build
				   tree, or /boot/vmlinuz-RELEASE */
		s->opt.vm = true;
		*target = optarg;
		if (strstr(optarg, "/vmlinuz-") && access(optarg, R_OK) == 0)
			*target = strstr(optarg, "/vmlinuz-") + strlen("/vmlinuz-");
		return true;
	}
	return false;
}

/* --cgroup=PATH: a cgroup v2 path from the hierarchy's root, as
 * cgroup_path() prints it ("/", "/system.slice/x.service"). */
static void cgroup_option(struct session *s)
{
	if (optarg[0] != '/' || strlen(optarg) > 1024 || strstr(optarg, "//") ||
	    strstr(optarg, "/./") || strstr(optarg, "/../") ||
	    (strlen(optarg) > 1 && optarg[strlen(optarg) - 1] == '/'))
		bad_option("invalid --cgroup '%s': a path from the cgroup v2 root, "
			   "as cgroup_path() prints it", optarg);
	for (const char *c = optarg; *c; c++)
		if (*c < ' ' || *c == '"' || *c == '\\' || *c == 0x7f)
			bad_option("invalid --cgroup '%s'", optarg);
	s->opt.cgroup_path = optarg;
}

/* How the module is built and run: -m, -R, -o, -S, -c, -x, -T, -s, -d,
 * --sign-module, --target-namespaces, --cgroup. */
static bool run_option(struct session *s, int opt)
{
	switch (opt) {
	case 'm':
		module_name_option(s);
		return true;
	case 'R':
		s->opt.runtime_dir = optarg;
		return true;
	case 'o':
		s->opt.output_file = optarg;
		return true;
	case 'F':
		s->opt.flight = true;
		return true;
	case 'S':
		if (!*optarg || strspn(optarg, "0123456789,") != strlen(optarg) ||
		    !isdigit((unsigned char)*optarg) || strchr(optarg, ',') != strrchr(optarg, ',')) {
			fprintf(stderr, "stap: invalid -S '%s': MB[,N]\n", optarg);
			exit(1);
		}
		s->opt.output_size = optarg;
		return true;
	case 'c':
		s->opt.cmd = optarg;
		return true;
	case 'x':
		s->opt.target_pid = parse_number(optarg, 1, 0x7fffffff, "-x pid");
		return true;
	case 'T':
		s->opt.timeout_s = parse_number(optarg, 1, 0x7fffffff, "-T timeout");
		return true;
	case 's':
		s->opt.buffer_mb = parse_number(optarg, 1, 4095, "buffer size");
		return true;
	case 'd':		/* -d FILE: user symbols (usymtab.c) */
		if (s->opt.n_d_options < (int)(sizeof(s->opt.d_options) / sizeof(s->opt.d_options[0])))
			s->opt.d_options[s->opt.n_d_options++] = optarg;
		return true;
	case OPT_SIGN:		/* sign.c */
		s->opt.sign = true;
		s->opt.sign_dir = optarg;
		return true;
	case OPT_TARGET_NS:	/* kmod-runtime/scope.c */
		s->opt.target_ns_pid = parse_number(optarg, 1, 0x7fffffff, "--target-namespaces pid");
		return true;
	case OPT_CGROUP:	/* kmod-runtime/scope.c */
		cgroup_option(s);
		return true;
	case OPT_MONITOR:	/* front/pass1.c, gen/monitor.c, staprun/monitor.c */
		s->opt.monitor = optarg ? parse_number(optarg, 1, 86400, "monitor interval") : 1;
		return true;
	}
	return false;
}

/* Compatibility and listing: --compatible, --privilege, --prologue-searching,
 * -l, -L, and those that answer and exit (-h, -V, --dump-probe-types). */
static bool other_option(struct session *s, int opt)
{
	switch (opt) {
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("ctap stap %s (SystemTap %s compatible)\n", PACKAGE_VERSION,
		       COMPAT_VERSION);
		exit(0);
	case OPT_DUMP_TYPES:
		dump_probe_types();
		exit(0);
	case 'l':
	case 'L':
		s->opt.list_pattern = optarg;
		s->opt.list_vars = opt == 'L';
		return true;
	case OPT_PROLOGUE:
		/* With DWARF, ctap always finds the prologue's end (auto
		 * and always); never keeps the probe at the symbol. */
		if (optarg && strcmp(optarg, "always") && strcmp(optarg, "never") &&
		    strcmp(optarg, "auto")) {
			fprintf(stderr, "stap: --prologue-searching: '%s' is not always, "
				"never or auto\n", optarg);
			exit(1);
		}
		s->opt.prologue_never = optarg && !strcmp(optarg, "never");
		return true;
	case OPT_COMPAT:
		if (!*optarg || strspn(optarg, "0123456789.") != strlen(optarg))
			bad_option("invalid --compatible version '%s'", optarg);
		s->opt.compat_version = optarg;
		return true;
	case OPT_PRIVILEGE:
		if (strcmp(optarg, "stapdev") && strcmp(optarg, "stapsys") &&
		    strcmp(optarg, "stapusr"))
			bad_option("invalid --privilege '%s' (stapdev, stapsys or stapusr)",
				   optarg);
		s->pp.privilege = optarg;
		return true;
	}
	return false;
}

/* --remote: pass 5 on other hosts (remote.c), which builds each module
 * with this stap again as a bundle member: that one stops at pass 4. */
static void remote_options(struct session *s)
{
	/* --remote-merge: with --remote, or -p2 to check that a script
	 * qualifies (merge.c); --merge-end: remote.c's build of the fleet's end */
	if ((s->opt.remote_merge || s->opt.merge_end) && s->opt.last_pass > 2 &&
	    !s->opt.n_remotes && !s->opt.bundle_member)
		bad_option("--remote-merge merges the hosts of --remote (or, with -p2, checks "
			   "that a script qualifies)%s", "");
	if (s->opt.merge_end && !(s->opt.remote_merge && s->opt.bundle_member))
		bad_option("--merge-end is stap's own, with --remote-merge%s", "");
	if (!s->opt.n_remotes)
		return;
	if (s->opt.bundle_member) {
		s->opt.last_pass = 4;
		return;
	}
	if (s->opt.last_pass != 5 || s->opt.vm || s->opt.flight || s->opt.output_file ||
	    s->opt.bulk || s->opt.output_size || s->opt.n_targets || s->opt.dyninst ||
	    s->opt.check || s->opt.list_pattern || s->opt.dump)
		bad_option("--remote runs the script on the hosts: not with -p, -r, --vm, -F, "
			   "-o, -b, -S, --runtime=dyninst, --check, -l or -L%s", "");
}

/* The -D an option implies (name, with no value), after the user's. */
static void option_define(struct session *s, const char *name, const char *option)
{
	if (s->opt.n_defines == MAX_DEFINES)
		bad_option("too many -D options with %s", option);
	s->opt.defines[s->opt.n_defines++] = name;
}

/* Each option by its group's function; then the script and the kernel. */
static void parse_options(struct session *s, int argc, char **argv)
{
	const char *target = NULL;
	int opt;

	while ((opt = getopt_long(argc, argv, "hVvp:e:I:D:G:gutwWkm:r:R:o:S:c:x:T:s:bFl:L:d:",
				  longopts, NULL)) != -1) {
		if (script_option(s, opt) || flag_option(s, opt) ||
		    target_option(s, opt, &target) || run_option(s, opt) || other_option(s, opt))
			continue;
		fputs("Try 'stap --help' for more information.\n", stderr);
		exit(1);
	}
	if (s->opt.cmd && s->opt.target_pid)
		bad_option("-c and -x are mutually exclusive%s", "");
	/* -t is SystemTap's -DSTP_TIMING; --monitor times each probe too,
	 * without -t's report.  Both units see them (ctap_defines.h). */
	if (s->opt.timing)
		option_define(s, "STP_TIMING", "-t");
	if (s->opt.monitor)
		option_define(s, "CTAP_MONITOR", "--monitor");
	if (s->opt.flight && (s->opt.cmd || s->opt.vm))
		bad_option("-F runs the session in the background: not with -c or --vm%s", "");
	if (!s->opt.script_text && !s->opt.list_pattern && !s->opt.dump && !s->opt.check) {
		if (optind >= argc) {
			fputs("stap: a script must be specified (FILE, - or -e SCRIPT)\n", stderr);
			fputs("Try 'stap --help' for more information.\n", stderr);
			exit(1);
		}
		s->opt.script_file = argv[optind++];
	}
	s->opt.args.argv = argv + optind;
	s->opt.args.argc = argc - optind;
	remote_options(s);
	if (s->opt.monitor && (s->opt.list_pattern || s->opt.dump))
		bad_option("Cannot specify --monitor with -l/-L/--dump-* switches.%s", "");
	if (s->opt.monitor && (s->opt.dyninst || s->opt.n_remotes || s->opt.flight))
		bad_option("--monitor views a session on this terminal: not with "
			   "--runtime=dyninst, --remote or -F%s", "");
	if (s->opt.n_targets > 1 && (s->opt.last_pass != 4 || !s->opt.module_name || s->opt.vm))
		bad_option("several kernels (-r) make a bundle of modules: with -p4 and -m NAME%s", "");
	set_target_kernel(s, target);
	if (s->opt.vm && !s->opt.vm_kernel && !s->opt.check)
		check_vm_kernel(s);
}

static double ms_of(struct timeval tv)
{
	return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

struct pass_clock {
	struct rusage ru;
	struct timespec real;
};

static void clock_start(struct pass_clock *c)
{
	getrusage(RUSAGE_SELF, &c->ru);
	clock_gettime(CLOCK_MONOTONIC, &c->real);
}

/* SystemTap's "using ...virt/...res/...shr/...data kb, in Xusr/Ysys/Zreal ms." */
static void clock_report(const struct pass_clock *c, const char *what)
{
	struct rusage ru;
	struct timespec now;
	long pages[7] = { 0 };
	long kb = sysconf(_SC_PAGESIZE) / 1024;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld %ld %ld %ld %ld", &pages[0], &pages[1], &pages[2],
			   &pages[3], &pages[4], &pages[5]) != 6)
			memset(pages, 0, sizeof(pages));
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stderr, "%s using %ldvirt/%ldres/%ldshr/%lddata kb, in %.0fusr/%.0fsys/%.0freal ms.\n",
		what, pages[0] * kb, pages[1] * kb, pages[2] * kb, pages[5] * kb,
		ms_of(ru.ru_utime) - ms_of(c->ru.ru_utime),
		ms_of(ru.ru_stime) - ms_of(c->ru.ru_stime),
		(now.tv_sec - c->real.tv_sec) * 1000.0 + (now.tv_nsec - c->real.tv_nsec) / 1e6);
}

static int passes_3_to_5(struct session *s)
{
	struct pass_clock clk;
	char *c_text = NULL;
	size_t c_len = 0;
	const char *ko = NULL;
	FILE *c_out;
	int ret;

	clock_start(&clk);
	c_out = open_memstream(&c_text, &c_len);
	ret = pass3_translate(s, c_out);
	fclose(c_out);
	if (s->opt.verbose)
		clock_report(&clk, "Pass 3: translated to C");
	if (ret) {
		fputs("Pass 3: translation failed.  [man error::pass3]\n", stderr);
		goto out;
	}
	if (s->opt.last_pass == 3) {
		fwrite(c_text, 1, c_len, stdout);
		goto out;
	}
	clock_start(&clk);
	ret = pass4_build(s, c_text, c_len, &ko);
	if (s->opt.verbose)
		clock_report(&clk, arena_printf(&s->arena, "Pass 4: compiled C into \"%s\"",
						ko ? ko : "?"));
	if (ret)
		goto out;
	if (s->opt.last_pass == 4) {
		if (s->opt.bundle_member && bundle_note_kernel(s, s->opt.module_name)) {
			ret = -1;
			goto out;
		}
		/* -m NAME: the copy in the current directory (pass4_build()) */
		printf("%s\n", s->opt.module_name ?
		       arena_printf(&s->arena, "%s.%s", s->opt.module_name,
				    s->opt.dyninst ? "so" : "ko") : ko);
		goto out;
	}
	free(c_text);
	c_text = NULL;
	ret = pass5_run(s, ko);
	if (ret && s->opt.verbose)
		fputs("Pass 5: run failed.  [man error::pass5]\n", stderr);
	return ret;
out:
	free(c_text);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct session s = {
		.opt.last_pass = 5,
		.pp = { .arch = "x86_64", .runtime = "kernel", .privilege = "stapdev" },
	};
	struct pass_clock clk;
	int ret;

	parse_options(&s, argc, argv);
	if (check_tmpdir())
		return 1;
	if (s.opt.n_targets > 1)
		return bundle_build(&s, argc, argv);
	if (s.opt.n_remotes && !s.opt.bundle_member)
		return remote_run(&s, argc, argv);
	if (s.opt.check)
		return check_run(&s);
	s.pp.kernel_release = s.opt.kernel_release;
	s.pp.compat_version = s.opt.compat_version ? s.opt.compat_version : COMPAT_VERSION;
	s.pp.guru = s.opt.guru;
	/* %( runtime == "dyninst" %? ... %): the tapsets' user-space bodies */
	if (s.opt.dyninst)
		s.pp.runtime = "dyninst";

	clock_start(&clk);
	ret = pass1_parse(&s);
	if (s.opt.verbose)
		clock_report(&clk, arena_printf(&s.arena, "Pass 1: parsed user script and %d library scripts",
						s.n_library));
	if (!ret && warnings_failed(&s))
		ret = -1;
	if (ret) {
		fputs("Pass 1: parse failed.  [man error::pass1]\n", stderr);
		goto out;
	}
	if (s.opt.list_pattern) {
		ret = pass2_list(&s, stdout);
		goto out;
	}
	if (s.opt.dump == DUMP_FUNCTIONS) {
		ret = sem_dump_functions(&s, stdout);
		goto out;
	}
	if (s.opt.dump == DUMP_ALIASES) {
		pass2_dump_aliases(&s, stdout);
		goto out;
	}
	if (s.opt.last_pass == 1) {
		fputs("# parse tree dump\n", stdout);
		print_script(stdout, s.user);
		goto out;
	}

	clock_start(&clk);
	ret = pass2_elaborate(&s);
	if (!ret)
		ret = pass2_semantic(&s);
	/* The checks over the whole typed program (analyses.c) come after
	 * pass 2's own, and only when those passed: they assume every call
	 * and global resolved.  The driver runs them so that pass 2 does not
	 * reach into the pass-3 analyses. */
	if (!ret)
		ret = analyses_check_foreach(&s) ? -EINVAL : 0;
	if (!ret)
		ret = analyses_check_sizes(&s) ? -EINVAL : 0;
	if (!ret && s.opt.remote_merge)
		ret = merge_check(&s) ? -EINVAL : 0;
	/* the fleet's end (remote.c): its end probes, built for user space */
	if (!ret && s.opt.merge_end) {
		merge_prune(&s);
		s.opt.dyninst = true;
	}
	if (!ret && !s.opt.unoptimized) {
		fold_script(&s.arena, s.user);
		for (struct script *t = s.library; t; t = t->next)
			fold_script(&s.arena, t);
	}
	if (!ret && warnings_failed(&s))
		ret = -1;
	if (s.opt.verbose && !ret) {
		/* SystemTap's counts: concrete probes, functions, embeds, globals */
		int probes = 0, functions = 0, embeds = 0, globals = 0;
		char what[160];

		for (const struct derived_probe *d = elab_probes(&s); d; d = d->next)
			probes++;
		for (const struct sem_function *f = sem_functions(&s); f; f = f->next) {
			functions += f->used;
			embeds += f->used && f->fn->embedded;
		}
		for (const struct var *v = sem_globals(&s); v; v = v->next)
			globals += v->used;
		snprintf(what, sizeof(what), "Pass 2: analyzed script: %d probe%s, %d function%s, "
			 "%d embed%s, %d global%s", probes, probes == 1 ? "" : "s", functions,
			 functions == 1 ? "" : "s", embeds, embeds == 1 ? "" : "s", globals,
			 globals == 1 ? "" : "s");
		clock_report(&clk, what);
	} else if (s.opt.verbose) {
		clock_report(&clk, "Pass 2: analyzed script");
	}
	if (ret) {
		fputs("Pass 2: analysis failed.  [man error::pass2]\n", stderr);
		goto out;
	}
	if (s.opt.last_pass == 2) {
		sem_print(&s, stdout);
		pass2_print(&s, stdout);
		if (s.opt.remote_merge)
			merge_print(&s, stdout);
		goto out;
	}
	ret = passes_3_to_5(&s);
out:
	pass2_free(&s);
	sem_free(&s);
	session_free(&s);
	pp_env_free(&s.pp);
	arena_free(&s.arena);
	lex_free_sources();
	return ret ? 1 : 0;
}
