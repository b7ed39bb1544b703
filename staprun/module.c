// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - insert and remove the ctap kernel module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "staprun.h"

/*
 * The kernel names a module after its file, with '-' read as '_'; the
 * debugfs directory and delete_module() use that name.
 */
int module_name_from_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len >= 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= size)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[len] = '\0';
	return 0;
}

bool module_is_loaded(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

/* The descriptor module_open() checked: the file is not looked up again. */
int module_load(int fd, const char *params)
{
	if (syscall(SYS_finit_module, fd, params ? params : "", 0) != 0)
		return -errno;
	return 0;
}

/* The marker sign-file appends after a module's signature. */
#define SIG_MAGIC	"~Module signature appended~\n"

/* Whether the module file at fd ends with a signature (read with pread:
 * the descriptor's offset is not moved). */
static bool module_signed(int fd)
{
	char tail[sizeof(SIG_MAGIC) - 1];
	struct stat st;

	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(tail))
		return false;
	if (pread(fd, tail, sizeof(tail), st.st_size - sizeof(tail)) != (ssize_t)sizeof(tail))
		return false;
	return !memcmp(tail, SIG_MAGIC, sizeof(tail));
}

/* Whether lockdown (which Secure Boot turns on) is in force: then an
 * unsigned module is refused with EPERM, not a key error. */
static bool locked_down(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	return strstr(line, "[integrity]") || strstr(line, "[confidentiality]");
}

/*
 * Why the kernel refused the module at fd with err, when the reason is
 * signatures: the kernel loads only signed modules (module.sig_enforce,
 * or lockdown under Secure Boot) and says only "Key was rejected by
 * service" (EKEYREJECTED) or "Required key not available" (ENOKEY), or,
 * locked down, "Operation not permitted".  NULL for any other error.
 */
const char *module_refusal(int fd, int err)
{
	if (err == -EPERM && locked_down())
		return "the kernel is locked down (Secure Boot) and loads only modules signed "
		       "with a key it trusts: build with stap --sign-module, and enroll the key "
		       "it names with mokutil --import";
	if (err != -EKEYREJECTED && err != -ENOKEY && err != -EBADMSG)
		return NULL;
	if (!module_signed(fd))
		return "this kernel loads only signed modules (module.sig_enforce=1 or Secure "
		       "Boot) and this one is not signed: build it with stap --sign-module, "
		       "and enroll the key it names with mokutil --import";
	return "this kernel loads only signed modules (module.sig_enforce=1 or Secure Boot) "
	       "and does not trust the key this one is signed with: enroll that key's "
	       "certificate (mokutil --import ~/.config/ctap/signing/signing_key.x509 of "
	       "the user who built it, then reboot to confirm)";
}

int module_unload(const char *name)
{
	/* The module holds no references once stopped, so this won't wait. */
	for (int tries = 0; tries < 50; tries++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(100 * 1000);
	}
	return -EBUSY;
}
