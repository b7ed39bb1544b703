// SPDX-License-Identifier: GPL-2.0
/*
 * sign.c - stap --sign-module[=KEYDIR]: modules signed for kernels that
 * load only signed ones (module.sig_enforce=1, or Secure Boot's lockdown).
 *
 * The key pair is the user's: KEYDIR, by default $XDG_CONFIG_HOME/ctap/
 * signing (~/.config/ctap/signing), holds signing_key.pem (the private
 * key) and signing_key.x509 (its certificate, DER, the form mokutil
 * enrolls).  Made on first use by openssl, as the kernel's own build makes
 * its key (an X.509 code-signing certificate, no CA), and never made by
 * anyone but the user: a directory others can write to is refused.  The
 * module is signed by the target kernel's own scripts/sign-file (Debian's
 * linux-kbuild package), so the signature is the one that kernel checks.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sign.h"
#include "spawn.h"

#define KEY_FILE	"signing_key.pem"
#define CERT_FILE	"signing_key.x509"

/* The directory of the key pair: --sign-module=DIR, else the default. */
static const char *key_dir(struct session *s)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct passwd *pw;

	if (s->opt.sign_dir && *s->opt.sign_dir)
		return s->opt.sign_dir;
	if (xdg && *xdg == '/')
		return arena_printf(&s->arena, "%s/ctap/signing", xdg);
	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	return home ? arena_printf(&s->arena, "%s/.config/ctap/signing", home) : NULL;
}

/* 0 if path is the user's own and nobody else may write it (nor, for
 * the private key, read it); -errno otherwise. */
static int private_enough(const char *path, mode_t forbidden)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (S_ISLNK(st.st_mode) || st.st_uid != getuid() || (st.st_mode & forbidden))
		return -EPERM;
	return 0;
}

/* openssl's request: a certificate for signing code, not a CA. */
static int write_config(const char *path)
{
	char host[256] = "localhost";
	struct passwd *pw = getpwuid(getuid());
	FILE *f = fopen(path, "wxe");

	if (!f)
		return -errno;
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "[ req ]\ndistinguished_name = dn\nprompt = no\nx509_extensions = ext\n\n"
		"[ dn ]\nCN = ctap module signing key of %s@%s\n\n"
		"[ ext ]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = digitalSignature\n"
		"extendedKeyUsage = codeSigning\nsubjectKeyIdentifier = hash\n"
		"authorityKeyIdentifier = keyid\n",
		pw ? pw->pw_name : "user", host);
	return fclose(f) ? -errno : 0;
}

/* A new key pair in dir, by openssl; said on stderr, with how to enroll it. */
static int make_key(struct session *s, const char *dir)
{
	const char *conf = arena_printf(&s->arena, "%s/.x509.genkey", dir);
	const char *log = arena_printf(&s->arena, "%s/openssl.log", dir);
	const char *key = arena_printf(&s->arena, "%s/%s", dir, KEY_FILE);
	const char *cert = arena_printf(&s->arena, "%s/%s", dir, CERT_FILE);
	const char *argv[] = { "openssl", "req", "-new", "-x509", "-newkey", "rsa:2048",
			       "-nodes", "-sha256", "-days", "36500", "-batch", "-config", conf,
			       "-outform", "DER", "-out", cert, "-keyout", key, NULL };
	mode_t mask;
	int ret;

	unlink(conf);
	ret = write_config(conf);
	if (ret) {
		fprintf(stderr, "stap: --sign-module: cannot write %s: %s\n", conf, strerror(-ret));
		return -1;
	}
	mask = umask(077);	/* the private key: the user's alone */
	ret = spawn_logged(argv, NULL, log, false, NULL);
	umask(mask);
	unlink(conf);
	if (ret) {
		fprintf(stderr, "stap: --sign-module: openssl could not make a key pair in %s "
			"(exit %d; %s)\n", dir, ret, log);
		unlink(key);
		unlink(cert);
		return -1;
	}
	unlink(log);
	fprintf(stderr, "stap: made a module signing key in %s.  For a kernel that enforces "
		"signatures (Secure Boot), enroll it once and reboot to confirm:\n"
		"    mokutil --import %s\n", dir, cert);
	return 0;
}

int sign_prepare(struct session *s)
{
	const char *dir = key_dir(s);
	int ret;

	if (!dir) {
		fprintf(stderr, "stap: --sign-module: no home directory for the key; "
			"name one: --sign-module=DIR\n");
		return -1;
	}
	/* the default's parents too (~/.config/ctap), as the user's; what
	 * could not be made is said by the check below */
	session_mkdirs(arena_printf(&s->arena, "%s/", dir), 0700);
	ret = private_enough(dir, 022);
	if (ret) {
		fprintf(stderr, "stap: --sign-module: %s is not a directory of yours alone: %s\n",
			dir, ret == -EPERM ? "others may write to it" : strerror(-ret));
		return -1;
	}
	s->sign_key = arena_printf(&s->arena, "%s/%s", dir, KEY_FILE);
	s->sign_cert = arena_printf(&s->arena, "%s/%s", dir, CERT_FILE);
	if (access(s->sign_key, F_OK) && access(s->sign_cert, F_OK) && make_key(s, dir))
		return -1;
	if ((ret = private_enough(s->sign_key, 077)) || (ret = private_enough(s->sign_cert, 022))) {
		fprintf(stderr, "stap: --sign-module: the key pair in %s is not yours alone "
			"(%s must be mode 0600, %s not writable by others): %s\n", dir, KEY_FILE,
			CERT_FILE, strerror(-ret));
		return -1;
	}
	return 0;
}

int sign_module(struct session *s, const char *ko)
{
	const char *tool = arena_printf(&s->arena, "%s/scripts/sign-file", s->opt.kernel_build);
	const char *log = arena_printf(&s->arena, "%s.sign.log", ko);
	const char *argv[] = { tool, "sha256", s->sign_key, s->sign_cert, ko, NULL };
	int ret;

	if (access(tool, X_OK)) {
		fprintf(stderr, "stap: --sign-module: no %s (Debian's linux-kbuild package of "
			"this kernel has it)\n", tool);
		return -1;
	}
	ret = spawn_logged(argv, NULL, log, false, NULL);
	if (ret) {
		fprintf(stderr, "stap: --sign-module: sign-file failed (exit %d):\n", ret);
		fflush(stderr);
		spawn_copy_file(log, STDERR_FILENO);
		return -1;
	}
	unlink(log);
	if (s->opt.verbose > 1)
		fprintf(stderr, "Pass 4: signed with %s\n", s->sign_cert);
	return 0;
}
