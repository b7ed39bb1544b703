// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - staprun --check: can this kernel run ctap's modules here?
 *
 * The target side of the pre-flight check (stap --check runs it on the
 * host, and with --vm in the guest): privilege, whether modules load at
 * all, lockdown and signature enforcement, the file systems the runtime
 * uses, kprobes and uprobes switched on, BTF.  Each line says ok, warn or
 * FAIL and, when not ok, what to do.  Reads /proc and /sys only; the one
 * system call it makes, finit_module() on an invalid descriptor, loads
 * nothing: the kernel checks the caller's right to load modules first.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "staprun.h"

static int failures;

static void line(const char *verdict, const char *what, const char *fix)
{
	printf("[%s] %s\n", verdict, what);
	if (fix)
		printf("       -> %s\n", fix);
	if (!strcmp(verdict, "FAIL"))
		failures++;
}

/* The first line of a /proc or /sys file, without its newline; "" if none. */
static const char *first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return NULL;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static bool mounted(const char *type)
{
	char l[512], dev[128], dir[256], fs[64];
	FILE *f = fopen("/proc/mounts", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(l, sizeof(l), f))
		found = sscanf(l, "%127s %255s %63s", dev, dir, fs) == 3 && !strcmp(fs, type);
	fclose(f);
	return found;
}

/* finit_module(-1): EBADF once the kernel has let us load modules. */
static void check_loading(void)
{
	char v[64];
	long r = syscall(SYS_finit_module, -1, "", 0);
	int e = errno;

	if (r < 0 && e == EBADF) {
		line(" ok ", "loading modules: allowed", NULL);
		return;
	}
	if (e == ENOSYS) {
		line("FAIL", "loading modules: this kernel has no module support (finit_module: ENOSYS)",
		     "run scripts in a QEMU guest of an installed kernel: stap --vm");
	} else if (first_line("/proc/sys/kernel/modules_disabled", v, sizeof(v)) && !strcmp(v, "1")) {
		line("FAIL", "loading modules: disabled until reboot (kernel.modules_disabled=1)",
		     "reboot without setting it, or use stap --vm");
	} else if (geteuid() != 0) {
		line("FAIL", "loading modules: not root (finit_module: EPERM)",
		     "run stap and staprun as root (or with CAP_SYS_MODULE)");
	} else {
		char what[128];

		snprintf(what, sizeof(what), "loading modules: refused (finit_module: %s)",
			 strerror(e));
		line("FAIL", what, "a container without CAP_SYS_MODULE? run on the host, or use stap --vm");
	}
}

static void check_lockdown(void)
{
	char v[128], what[192];

	if (first_line("/sys/kernel/security/lockdown", v, sizeof(v))) {
		snprintf(what, sizeof(what), "lockdown: %s", v);
		/* integrity (Secure Boot's level) leaves kprobes, perf and
		 * tracefs alone: a module signed with an enrolled key runs */
		if (strstr(v, "[none]"))
			line(" ok ", what, NULL);
		else if (strstr(v, "[integrity]"))
			line("warn", what, "only signed modules load (Secure Boot): build with "
			     "stap --sign-module and enroll its key with mokutil --import");
		else
			line("FAIL", what, "lockdown=confidentiality refuses kprobes, perf and "
			     "tracefs: boot with lockdown=integrity or none");
	} else if (!mounted("securityfs")) {
		line("warn", "lockdown: unknown (securityfs is not mounted)",
		     "mount -t securityfs securityfs /sys/kernel/security, and check again");
	} else {
		line(" ok ", "lockdown: not in this kernel", NULL);
	}
	if (first_line("/sys/module/module/parameters/sig_enforce", v, sizeof(v)) && !strcmp(v, "Y"))
		line("warn", "module signatures: enforced (module.sig_enforce=Y)",
		     "sign modules with the kernel's scripts/sign-file and a key the kernel trusts");
	else
		line(" ok ", "module signatures: not enforced", NULL);
}

static void check_tracing(void)
{
	char v[64];

	if (mounted("debugfs"))
		line(" ok ", "debugfs: mounted (the module's output and control files)", NULL);
	else
		line("FAIL", "debugfs: not mounted (the module's output and control files live there)",
		     "mount -t debugfs debugfs /sys/kernel/debug");
	if (first_line("/sys/kernel/debug/kprobes/enabled", v, sizeof(v)) && !strcmp(v, "0"))
		line("FAIL", "kprobes: switched off (/sys/kernel/debug/kprobes/enabled is 0)",
		     "echo 1 > /sys/kernel/debug/kprobes/enabled");
	else if (!access("/sys/bus/event_source/devices/kprobe", F_OK))
		line(" ok ", "kprobes: available", NULL);
	else
		line("warn", "kprobes: no kprobe event source", "kernel.function probes need CONFIG_KPROBES");
	if (!access("/sys/bus/event_source/devices/uprobe", F_OK))
		line(" ok ", "uprobes: available", NULL);
	else
		line("warn", "uprobes: no uprobe event source", "process(...) probes need CONFIG_UPROBES");
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		line(" ok ", "BTF: /sys/kernel/btf/vmlinux", NULL);
	else
		line("warn", "BTF: no /sys/kernel/btf/vmlinux",
		     "$vars need BTF: a kernel built with CONFIG_DEBUG_INFO_BTF");
}

int staprun_check(void)
{
	struct utsname u;
	char what[256];

	uname(&u);
	snprintf(what, sizeof(what), "running kernel: %s", u.release);
	line(" ok ", what, NULL);
	if (geteuid() == 0)
		line(" ok ", "privilege: root", NULL);
	else
		line("FAIL", "privilege: not root", "run stap and staprun as root");
	check_loading();
	check_lockdown();
	check_tracing();
	return failures ? 1 : 0;
}
