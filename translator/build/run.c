// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - pass 5: run the module with staprun, on this kernel or, with
 * --vm, in a disposable QEMU guest of the target kernel.
 *
 * On the host, stap becomes staprun (exec), passing -c, -x, -o, -T, -b,
 * -s through, as SystemTap's stap does with its staprun.  With --vm, the
 * guest harness (testsuite/guest-run) boots the target kernel with the
 * module, staprun and a test script that runs staprun inside the guest
 * (the -c command runs there too, in the same directory as here, with the
 * programs the script probes: vmroot.c); the guest's output comes back
 * when it powers off.  Without -c or -T, the guest session ends after 60 s (-T 60)
 * if the script does not call exit() before.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "run.h"
#include "spawn.h"
#include "vmroot.h"

/*
 * staprun: $SYSTEMTAP_STAPRUN, else beside this stap (installed side by
 * side, or in the build tree), else the install path.  Always an absolute
 * path: execv() of a bare "staprun" would run one in the current directory.
 */
const char *run_tool_path(struct session *s, const char *tool, const char *var)
{
	const char *env = getenv(var);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (env && *env)
		return env;
	if (n > 0) {
		const char *beside, *built;

		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		beside = arena_printf(&s->arena, "%s/%s", self, tool);
		built = arena_printf(&s->arena, "%s/../%s/%s", self, tool, tool);
		if (access(beside, X_OK) == 0)
			return beside;
		if (access(built, X_OK) == 0)
			return built;
	}
	return arena_printf(&s->arena, "%s/%s", CTAP_BINDIR, tool);
}

/* staprun's arguments for this session, the module path last. */
static int staprun_args(struct session *s, const char **argv, const char *ko, const char *cmd)
{
	int n = 0;

	argv[n++] = "staprun";
	/* -F: SystemTap's flight recorder, staprun -D with -o (a daemon
	 * writing the file), else -L (the output kept in the module for -A) */
	if (s->opt.flight)
		argv[n++] = s->opt.output_file || s->opt.bulk ? "-D" : "-L";
	if (cmd) {
		argv[n++] = "-c";
		argv[n++] = cmd;
	}
	if (s->opt.target_pid) {
		argv[n++] = "-x";
		argv[n++] = arena_printf(&s->arena, "%d", s->opt.target_pid);
	}
	if (s->opt.target_ns_pid) {
		argv[n++] = "-N";
		argv[n++] = arena_printf(&s->arena, "%d", s->opt.target_ns_pid);
	}
	if (s->opt.output_file) {
		argv[n++] = "-o";
		argv[n++] = s->opt.output_file;
	}
	if (s->opt.output_size) {
		argv[n++] = "-S";
		argv[n++] = s->opt.output_size;
	}
	if (s->opt.timeout_s) {
		argv[n++] = "-T";
		argv[n++] = arena_printf(&s->arena, "%d", s->opt.timeout_s);
	}
	if (s->opt.bulk)
		argv[n++] = "-b";
	if (s->read_stdin)
		argv[n++] = "-i";
	if (s->opt.buffer_mb) {
		argv[n++] = "-s";
		argv[n++] = arena_printf(&s->arena, "%d", s->opt.buffer_mb);
	}
	if (s->opt.monitor) {
		argv[n++] = "-M";
		argv[n++] = arena_printf(&s->arena, "%d", s->opt.monitor);
	}
	argv[n++] = ko;
	/* -G NAME=VALUE: module parameters of the script's globals. */
	for (int i = 0; i < s->opt.n_globals_set; i++)
		argv[n++] = s->opt.globals_set[i];
	argv[n] = NULL;
	return n;
}

/* A word for the guest's shell, single-quoted. */
static const char *shell_quote(struct session *s, const char *w)
{
	char *out = arena_alloc(&s->arena, strlen(w) * 4 + 3), *o = out;

	*o++ = '\'';
	for (const char *p = w; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

/* The output file's name in the guest, where staprun writes it: -o's own
 * name, or stpd (-b's stpd_cpuN) -- in the directory whose files come back. */
static const char *vm_output_base(struct session *s)
{
	const char *slash;

	if (!s->opt.output_file)
		return "stpd";
	slash = strrchr(s->opt.output_file, '/');
	return slash ? slash + 1 : s->opt.output_file;
}

/* Copy one file that came back from the guest to the host, refusing to
 * follow a symlink there (-o's rule on the host too). */
static int vm_copy_back(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0) {
		int err = -errno;

		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) || n < 0)
		return -EIO;
	return 0;
}

/* NAME, NAME.N (rotated by switch_file() or -S) or NAME_cpuN: a file
 * staprun makes for -o NAME. */
static bool staprun_output_name(const char *name, const char *base)
{
	size_t n = strlen(base);
	const char *rest = name + n;

	if (strncmp(name, base, n))
		return false;
	if (!strncmp(rest, "_cpu", 4))
		rest += 4;
	else if (*rest == '.')
		rest++;
	else
		return !*rest;
	return *rest && strspn(rest, "0123456789") == strlen(rest);
}

/*
 * -o and -b under --vm: staprun wrote into $CTAP_OUT in the guest, whose
 * files came back in DIR/out/run.files; the ones staprun makes (-o's NAME,
 * NAME.N, -b's NAME_cpuN) go where they would have on the host.
 */
static int vm_outputs(struct session *s, const char *dir)
{
	const char *out = s->opt.output_file;
	const char *base = vm_output_base(s), *slash = out ? strrchr(out, '/') : NULL;
	const char *host_dir = slash ? arena_strndup(&s->arena, out, slash - out + 1) : "";
	const char *files = arena_printf(&s->arena, "%s/out/run.files", dir);
	DIR *d = opendir(files);
	struct dirent *de;
	int copied = 0, ret = 0;

	while (d && !ret && (de = readdir(d))) {
		if (!staprun_output_name(de->d_name, base))
			continue;
		ret = vm_copy_back(arena_printf(&s->arena, "%s/%s", files, de->d_name),
				   arena_printf(&s->arena, "%s%s", host_dir, de->d_name));
		if (ret)
			fprintf(stderr, "stap: cannot write %s%s: %s\n", host_dir, de->d_name, strerror(-ret));
		copied++;
	}
	if (d)
		closedir(d);
	if (ret)
		return 1;
	if (!copied && !s->opt.bulk) {
		fprintf(stderr, "stap: the guest wrote no output file %s\n", s->opt.output_file);
		return 1;
	}
	return 0;
}

/* path, absolute (the harness runs in its own directory). */
static const char *absolute(struct session *s, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return path;
	return arena_printf(&s->arena, "%s/%s", cwd, path);
}

/* The last lines of the harness's log, to stderr: why the guest did not run. */
static void log_tail(const char *path, int lines)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&text, &len);
	int c;

	while (f && m && (c = getc(f)) != EOF)
		putc(c, m);
	if (f)
		fclose(f);
	if (!m)
		return;
	fclose(m);
	p = text + len;
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text && lines > 0)
		if (*--p == '\n')
			lines--;
	fputs(*p == '\n' ? p + 1 : p, stderr);
	free(text);
}

/*
 * guest-run, the harness installed with this stap (session_libexec(): never
 * one from the source tree of the machine that built it), with argv's
 * arguments; in dir, its output in dir/guest.log.  It copies this stap's
 * staprun into the guest and keeps the kernel it extracts in the module
 * cache.  Its exit status, or -1 if it could not be run.
 */
static int run_harness(struct session *s, const char *dir, const char **argv)
{
	const char *log = arena_printf(&s->arena, "%s/guest.log", dir), *env[3];
	char cache[4096];

	/* The cache's own directory ("ROOT/."), checked to be the user's alone. */
	if (cache_path(cache, sizeof(cache), ".")) {
		fprintf(stderr, "stap: --vm: the module cache cannot be used safely\n");
		return -1;
	}
	env[0] = arena_printf(&s->arena, "CTAP_STAPRUN=%s",
			      run_tool_path(s, "staprun", "SYSTEMTAP_STAPRUN"));
	env[1] = arena_printf(&s->arena, "CTAP_CACHE=%s", cache);
	env[2] = NULL;
	return spawn_logged(argv, dir, log, false, env);
}

/*
 * Boots a guest of the target kernel that runs the shell line (with the
 * module ko in /ctap/modules, if not NULL), in a new directory *dir; the
 * guest's stdout and stderr are copied to ours.  Returns its exit status,
 * or -1 after saying why the guest did not run it.
 */
static int vm_boot(struct session *s, const char *ko, const char *line, int timeout_s,
		   char **dir)
{
	const char *harness = session_libexec(s, "guest-run"), *argv[14], *root, *cwd = NULL;
	char path[4200], st[512] = "";
	FILE *f;
	int n = 0;

	if (!harness) {
		fprintf(stderr, "stap: --vm: no guest harness: %s/guest-run is not installed, nor "
			"../libexec/ctap/guest-run beside this stap\n", CTAP_PKGLIBEXECDIR);
		return -1;
	}
	*dir = session_mkdtemp(s, "ctapvm");
	if (!*dir) {
		fprintf(stderr, "stap: cannot create a directory for the guest: %s\n", strerror(errno));
		return -1;
	}
	/* A module's run: the files its probes and -c name, and the
	 * current directory, are the guest's too (vmroot.c). */
	root = arena_printf(&s->arena, "%s/root", *dir);
	if (ko && (mkdir(root, 0700) || vmroot_build(s, root, &cwd)))
		return -1;
	snprintf(path, sizeof(path), "%s/run.sh", *dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "stap: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# timeout: %d\ncd %s 2>/dev/null || cd /root 2>/dev/null || cd /\n%s\n",
		timeout_s, cwd ? shell_quote(s, cwd) : "/root", line);
	fclose(f);
	if (s->opt.verbose)
		fprintf(stderr, "Pass 5: starting the guest kernel %s (QEMU, %s)\n", s->opt.kernel_release,
			harness);
	argv[n++] = harness;
	argv[n++] = "-k";
	argv[n++] = absolute(s, s->opt.kernel_build);
	argv[n++] = "-o";
	argv[n++] = arena_printf(&s->arena, "%s/out", *dir);
	if (ko) {
		argv[n++] = "-m";
		argv[n++] = absolute(s, ko);
		argv[n++] = "-r";
		argv[n++] = root;
	}
	argv[n++] = arena_strndup(&s->arena, path, strlen(path));
	argv[n] = NULL;
	run_harness(s, *dir, argv);
	snprintf(path, sizeof(path), "%s/out/run.status", *dir);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(st, sizeof(st), f))
			st[0] = '\0';
		fclose(f);
	}
	if (strncmp(st, "rc=", 3)) {
		fprintf(stderr, "stap: the guest did not run the module (%s)\n",
			st[0] ? strtok(st, "\n") : "guest-run failed");
		log_tail(arena_printf(&s->arena, "%s/guest.log", *dir), 20);
		return -1;
	}
	fflush(NULL);
	spawn_copy_file(arena_printf(&s->arena, "%s/out/run.stdout", *dir), STDOUT_FILENO);
	spawn_copy_file(arena_printf(&s->arena, "%s/out/run.stderr", *dir), STDERR_FILENO);
	return atoi(st + 3);
}

static int vm_done(struct session *s, char *dir, int rc)
{
	if (!dir)
		return rc;
	if (s->opt.keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", dir);
		return rc;
	}
	session_rmtree(dir);
	return rc;
}

static int run_vm(struct session *s, const char *ko)
{
	const char *argv[32 + MAX_DEFINES], *name = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	const char *output_file = s->opt.output_file;
	bool files = s->opt.output_file || s->opt.bulk;
	char *line = "", *dir = NULL;
	int n, rc;

	if (s->opt.vm_kernel) {
		fprintf(stderr, "stap: --vm=%s: only the target kernel's own image is supported; "
			"use --vm-kernel=RELEASE or -r to pick the kernel\n", s->opt.vm_kernel);
		return 1;
	}
	/* Nobody can press Ctrl-C in the guest: without -c, the session ends
	 * at exit() or after -T seconds, 60 unless given. */
	if (!s->opt.cmd && !s->opt.timeout_s)
		s->opt.timeout_s = 60;
	/* -o/-b write into $CTAP_OUT (guest-init), whose files come back. */
	if (files && !s->opt.output_file)
		s->opt.output_file = "stpd";
	n = staprun_args(s, argv, arena_printf(&s->arena, "/ctap/modules/%s", name), s->opt.cmd);
	for (int i = 0; i < n; i++) {
		const char *w = !i ? "/ctap/bin/staprun" :
				files && !strcmp(argv[i - 1], "-o") ?
				arena_printf(&s->arena, "\"$CTAP_OUT\"/%s", shell_quote(s, vm_output_base(s))) :
				shell_quote(s, argv[i]);

		line = arena_printf(&s->arena, "%s%s%s", line, i ? " " : "", w);
	}
	s->opt.output_file = output_file;
	rc = vm_boot(s, ko, line, s->opt.timeout_s ? s->opt.timeout_s + 30 : 600, &dir);
	if (rc < 0)
		return vm_done(s, dir, 1);
	if (files && vm_outputs(s, dir) && !rc)
		rc = 1;
	return vm_done(s, dir, rc);
}

int run_check_target(struct session *s)
{
	char *dir = NULL;
	int rc;

	if (!s->opt.vm) {
		const char *argv[] = { run_tool_path(s, "staprun", "SYSTEMTAP_STAPRUN"), "--check", NULL };
		pid_t pid;
		int status;

		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			execv(argv[0], (char *const *)argv);
			fprintf(stderr, "stap: cannot run %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			return 1;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	rc = vm_boot(s, NULL, "/ctap/bin/staprun --check", 60, &dir);
	return vm_done(s, dir, rc < 0 ? 1 : rc);
}

int pass5_run(struct session *s, const char *ko)
{
	const char *argv[32 + MAX_DEFINES];

	if (s->opt.vm)
		return run_vm(s, ko);
	staprun_args(s, argv, ko, s->opt.cmd);
	/* --runtime=dyninst: stapdyn takes staprun's options (stapdyn/). */
	if (s->opt.dyninst) {
		if (s->opt.verbose)
			fprintf(stderr, "Pass 5: starting run.\n");
		fflush(NULL);
		argv[0] = "stapdyn";
		execv(run_tool_path(s, "stapdyn", "SYSTEMTAP_STAPDYN"), (char *const *)argv);
		fprintf(stderr, "stap: cannot run stapdyn: %s\n", strerror(errno));
		return 1;
	}
	if (s->opt.verbose)
		fprintf(stderr, "Pass 5: starting run.\n");
	fflush(NULL);
	execv(run_tool_path(s, "staprun", "SYSTEMTAP_STAPRUN"), (char *const *)argv);
	fprintf(stderr, "stap: cannot run staprun: %s\n", strerror(errno));
	return 1;
}
