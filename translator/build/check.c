// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - stap --check: what stands between this machine and a running
 * script.
 *
 * The translator's side here (the target kernel's build tree, its
 * configuration, BTF, the compiler, the module cache, what --vm needs),
 * then the loading side from staprun --check (run.c): on this host, or with
 * --vm in a guest of the target kernel.  Each line is ok, warn or FAIL,
 * and every one that is not ok says what to do.
 */
#include "config.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "check.h"
#include "kbtf.h"
#include "kfeatures.h"
#include "run.h"

struct check {
	struct session *s;
	int failures;
};

static void line(struct check *c, const char *verdict, const char *what, const char *fix)
{
	printf("[%s] %s\n", verdict, what);
	if (fix)
		printf("       -> %s\n", fix);
	if (!strcmp(verdict, "FAIL"))
		c->failures++;
}

/* A .config value ("y", "m", a quoted string) or NULL when not set. */
static const char *kconfig(struct check *c, const char *name)
{
	FILE *f = fopen(c->s->pp.kconfig_path, "r");
	size_t len = strlen(name);
	char l[512];
	const char *v = NULL;

	if (!f)
		return NULL;
	while (!v && fgets(l, sizeof(l), f))
		if (!strncmp(l, name, len) && l[len] == '=') {
			l[strcspn(l, "\n")] = '\0';
			v = arena_printf(&c->s->arena, "%s", l + len + 1);
		}
	fclose(f);
	return v;
}

static void check_build_tree(struct check *c)
{
	struct session *s = c->s;
	char path[4200];

	snprintf(path, sizeof(path), "%s/Makefile", s->opt.kernel_build);
	if (access(path, R_OK)) {
		line(c, "FAIL", arena_printf(&s->arena, "target kernel %s: no build tree at %s",
					     s->opt.kernel_release, s->opt.kernel_build),
		     arena_printf(&s->arena, "apt-get install linux-headers-%s (or -r DIR)",
				  s->opt.kernel_release));
		return;
	}
	line(c, " ok ", arena_printf(&s->arena, "target kernel %s: build tree %s", s->opt.kernel_release,
				     s->opt.kernel_build), NULL);
}

/* The options the probe families rest on, and what is lost without each. */
static void check_config(struct check *c)
{
	static const struct {
		const char *name, *loss;
		bool fatal;
	} opts[] = {
		{ "CONFIG_MODULES", "no module can be loaded", true },
		{ "CONFIG_KPROBES", "no kernel.function, kprobe or syscall probes", true },
		{ "CONFIG_KRETPROBES", "no .return probes of kernel functions", false },
		{ "CONFIG_TRACEPOINTS", "no kernel.trace probes (nor the tapsets on them)", false },
		{ "CONFIG_UPROBES", "no process(...) probes", false },
		{ "CONFIG_PERF_EVENTS", "no perf.* probes", false },
		{ "CONFIG_HAVE_HW_BREAKPOINT", "no kernel.data watchpoints", false },
		{ "CONFIG_KALLSYMS_ALL", "no symbols of kernel data (@var, symdata)", false },
		{ "CONFIG_DEBUG_INFO_BTF", "no kernel types: $vars cannot be read", true },
	};
	struct session *s = c->s;

	if (access(s->pp.kconfig_path, R_OK)) {
		line(c, "warn", arena_printf(&s->arena, "kernel configuration: no %s",
					     s->pp.kconfig_path), "install the kernel's headers package");
		return;
	}
	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		const char *v = kconfig(c, opts[i].name);

		if (v && (!strcmp(v, "y") || !strcmp(v, "m")))
			line(c, " ok ", arena_printf(&s->arena, "%s=%s", opts[i].name, v), NULL);
		else
			line(c, opts[i].fatal ? "FAIL" : "warn",
			     arena_printf(&s->arena, "%s is not set: %s", opts[i].name, opts[i].loss),
			     "a kernel built with it (Debian's has it)");
	}
}

static void check_btf(struct check *c)
{
	struct session *s = c->s;
	struct btf *btf = NULL;
	int ret = kbtf_load(s->opt.kernel_release, s->opt.kernel_build, s->opt.kernel_image, &btf);

	if (ret) {
		line(c, "FAIL", arena_printf(&s->arena, "BTF of %s: %s", s->opt.kernel_release,
					     ret == -ENOENT ? "none found" :
					     ret == -ENODATA ? "the image has no .BTF section" :
					     "it does not parse"),
		     arena_printf(&s->arena, "apt-get install linux-image-%s (its /boot/vmlinuz "
				  "carries the BTF)", s->opt.kernel_release));
		return;
	}
	line(c, " ok ", arena_printf(&s->arena, "BTF of %s: %u types; kernel interfaces: %s",
				     s->opt.kernel_release, btf__type_cnt(btf),
				     kfeatures_names(&s->arena, btf, s->opt.kernel_build)), NULL);
	kbtf_forget(btf);
	btf__free(btf);
}

/* The first line "PROG --version" prints on stdout, or "" (PROG found on
 * $PATH and run without a shell). */
static const char *version_line(struct check *c, const char *prog)
{
	char l[512] = "";
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	fflush(NULL);
	if (pipe2(fd, O_CLOEXEC))
		return "";
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(fd[1], 1) < 0 || dup2(null, 2) < 0 || dup2(null, 0) < 0)
			_exit(127);
		execlp(prog, prog, "--version", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && got < (ssize_t)sizeof(l) - 1 &&
	       (n = read(fd[0], l + got, sizeof(l) - 1 - got)) > 0)
		got += n;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return "";
	l[got] = '\0';
	l[strcspn(l, "\n")] = '\0';
	return arena_printf(&c->s->arena, "%s", l);
}

/* Whether an executable of that name is on $PATH (as the shell's command -v). */
static bool on_path(struct check *c, const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save;

	dirs = arena_printf(&c->s->arena, "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		if (access(arena_printf(&c->s->arena, "%s/%s", *dir ? dir : ".", prog), X_OK) == 0)
			return true;
	return false;
}

/* The kernel's compiler, by the name in CONFIG_CC_VERSION_TEXT ("gcc-12
 * (Debian ...) 12.2.0"): Kbuild builds modules with that one. */
/*
 * The compiler Kbuild will run: Debian's build trees name it in
 * .kernelvariables ("CC = ... $(CROSS_COMPILE)gcc-12"; testsuite/kernels
 * points an unpacked 5.10's at gcc); else the one the kernel was built with.
 */
static void kbuild_cc(struct check *c, const char *want, char *cc, size_t size)
{
	char line[512], *word;
	FILE *f = fopen(arena_printf(&c->s->arena, "%s/.kernelvariables", c->s->opt.kernel_build), "r");

	snprintf(cc, size, "gcc");
	if (want && sscanf(want, "\"%63[A-Za-z0-9._+-]", cc) != 1)
		snprintf(cc, size, "gcc");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CC =", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		word = strrchr(line, ')') ? strrchr(line, ')') + 1 : line + 4;
		word += strspn(word, " \t");
		if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789._+-") == strlen(word))
			snprintf(cc, size, "%.63s", word);
	}
	if (f)
		fclose(f);
}

static void check_compiler(struct check *c)
{
	struct session *s = c->s;
	const char *want = kconfig(c, "CONFIG_CC_VERSION_TEXT"), *have;
	char cc[64];

	kbuild_cc(c, want, cc, sizeof(cc));
	have = version_line(c, cc);
	if (!*have) {
		line(c, "FAIL", arena_printf(&s->arena, "compiler: no %s, which the kernel was built "
					     "with", cc), arena_printf(&s->arena, "apt-get install %s make", cc));
		return;
	}
	/* "NAME (Debian 12.2.0-14+deb12u1) 12.2.0": the same version after
	 * the parenthesis, whatever the name (x86_64-linux-gnu-gcc-12, gcc-12) */
	if (want && (!strchr(want, ')') || !strchr(have, ')') ||
		     strncmp(strchr(want, ')'), strchr(have, ')'), strlen(strchr(have, ')')))))
		line(c, "warn", arena_printf(&s->arena, "compiler: %s; the kernel was built with %s",
					     have, want),
		     "modules usually build anyway; install the kernel's compiler if they do not");
	else
		line(c, " ok ", arena_printf(&s->arena, "compiler: %s, as the kernel", have), NULL);
}

static void check_cache(struct check *c)
{
	struct session *s = c->s;
	char path[4096];
	int ret = cache_path(path, sizeof(path), "modules");

	if (ret)
		line(c, "FAIL", arena_printf(&s->arena, "module cache: %s", ret == -EPERM ?
					     "a directory on its way is not yours, or others can "
					     "write to it" : strerror(-ret)),
		     "set CTAP_CACHE_DIR to a directory of your own (0700), or fix the owner");
	else
		line(c, " ok ", arena_printf(&s->arena, "module cache: %s", path), NULL);
}

/* stap --vm: QEMU, the target's image, and the guest harness. */
static void check_vm(struct check *c)
{
	struct session *s = c->s;
	const char *image = s->opt.kernel_image;
	const char *harness = session_libexec(s, "guest-run");

	if (!on_path(c, "qemu-system-x86_64"))
		line(c, s->opt.vm ? "FAIL" : "warn", "--vm: no qemu-system-x86_64",
		     "apt-get install qemu-system-x86");
	else if (access(image, R_OK))
		line(c, s->opt.vm ? "FAIL" : "warn", arena_printf(&s->arena, "--vm: no %s to boot", image),
		     arena_printf(&s->arena, "apt-get install linux-image-%s", s->opt.kernel_release));
	else if (!harness || access(harness, X_OK))
		line(c, s->opt.vm ? "FAIL" : "warn", arena_printf(&s->arena, "--vm: the guest harness "
							      "is not installed (%s/guest-run)",
							      CTAP_PKGLIBEXECDIR),
		     "make install installs it with stap");
	else
		line(c, " ok ", arena_printf(&s->arena, "--vm: qemu-system-x86_64, %s and %s", image,
					     harness), NULL);
}

int check_run(struct session *s)
{
	struct check c = { .s = s };
	struct utsname u;
	int target;

	printf("translator (kernel %s):\n", s->opt.kernel_release);
	check_build_tree(&c);
	check_config(&c);
	check_btf(&c);
	check_compiler(&c);
	check_cache(&c);
	check_vm(&c);
	uname(&u);
	if (!s->opt.vm && strcmp(u.release, s->opt.kernel_release))
		line(&c, "warn", arena_printf(&s->arena, "the target kernel is not the running one (%s): "
					      "its modules cannot load here", u.release),
		     "stap --vm runs them in a guest of the target; -r picks another target");
	printf("\n%s:\n", s->opt.vm ? "the guest (stap --vm)" : "this host (staprun --check)");
	fflush(stdout);
	target = run_check_target(s);
	return c.failures || target ? 1 : 0;
}
