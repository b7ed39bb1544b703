// SPDX-License-Identifier: GPL-2.0
/*
 * bundle.c - build here, run there: `stap -p4 -m NAME -r K1 -r K2 ...`
 * makes one module per kernel and puts them in one file, NAME.ctap, with a
 * manifest naming each module's kernel by release and build id; staprun
 * NAME.ctap loads the one made for the running kernel (staprun/bundle.c),
 * so a production host needs staprun alone.
 *
 * Each module is built by this stap run again for one kernel
 * (--bundle-member=K, an option of its own, in a directory of its own),
 * two at a time: a session holds one kernel's BTF, symbols and probe
 * points, and a separate process is the simplest way to hold another's.
 *
 * The file, read by staprun (bounded: at most CTAP_BUNDLE_MAX_MODULES lines
 * in the first CTAP_BUNDLE_MAX_HEADER bytes; kmod-runtime/ctap_bundle.h):
 *
 *     ctap-bundle 1
 *     module RELEASE BUILD_ID OFFSET SIZE	(BUILD_ID hex, or "-" if unknown)
 *     ...
 *     end
 *     the modules' bytes, each at its OFFSET from the file's start
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle.h"
#include "kimage.h"
#include "ctap_bundle.h"
#include "xalloc.h"

struct member {
	const char *target;	/* the -r argument */
	const char *arg;	/* --bundle-member=TARGET */
	const char *dir;	/* where it is built */
	pid_t pid;
	char release[256], build_id[128];
	char *ko;		/* the module's bytes */
	size_t size;
};

/* ---- in the child: the kernel a member was built for ---- */

/* The GNU build id of the ELF image (hex), as the kernel shows it in
 * /sys/kernel/notes; "-" if it has none. */
static void elf_build_id(const char *image, size_t size, char *hex, size_t hex_size)
{
	Elf *elf = elf_memory((char *)image, size);
	Elf_Scn *scn = NULL;

	snprintf(hex, hex_size, "-");
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) ||
			    nh.n_descsz * 2 + 1 > hex_size)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", desc[i]);
			elf_end(elf);
			return;
		}
	}
	if (elf)
		elf_end(elf);
}

int bundle_note_kernel(struct session *s, const char *name)
{
	const char *path = arena_printf(&s->arena, "%s.kernel", name);
	char id[128], *image = NULL;
	size_t size;
	FILE *f;

	elf_version(EV_CURRENT);
	snprintf(id, sizeof(id), "-");
	if (kimage_elf(s->opt.kernel_image, &image, &size) == 0)
		elf_build_id(image, size, id, sizeof(id));
	free(image);
	f = fopen(path, "we");
	if (!f || fprintf(f, "%s %s\n", s->opt.kernel_release, id) < 0 || fclose(f)) {
		fprintf(stderr, "stap: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- in the parent ---- */

/* This stap again, in m->dir, for m's kernel: argv as given, and
 * --bundle-member, which overrides every -r. */
static pid_t start_member(struct member *m, int argc, char **argv)
{
	char **args = xcalloc(argc + 2, sizeof(*args));
	pid_t pid;

	args[0] = argv[0];
	args[1] = (char *)m->arg;
	memcpy(args + 2, argv + 1, (argc - 1) * sizeof(*args));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* pass 4's "NAME.ko" on stdout is ours to say, not each member's */
		if (chdir(m->dir) || null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	free(args);
	return pid;
}

static int finish_member(struct session *s, struct member *m, const char *name)
{
	char *text = NULL;
	size_t len;
	int status;

	if (waitpid(m->pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "stap: the module for %s was not built\n", m->target);
		return -1;
	}
	if (kimage_read_file(arena_printf(&s->arena, "%s/%s.kernel", m->dir, name), &text, &len) ||
	    sscanf(text, "%255s %127s", m->release, m->build_id) != 2 ||
	    kimage_read_file(arena_printf(&s->arena, "%s/%s.ko", m->dir, name), &m->ko, &m->size)) {
		fprintf(stderr, "stap: the module for %s is missing from %s\n", m->target, m->dir);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* The manifest, its modules placed from offset base on. */
static char *manifest(struct session *s, const struct member *m, int n, size_t base)
{
	char *head = arena_printf(&s->arena, "%s", CTAP_BUNDLE_MAGIC);

	for (int i = 0; i < n; i++) {
		head = arena_printf(&s->arena, "%smodule %s %s %zu %zu\n", head, m[i].release,
				    m[i].build_id, base, m[i].size);
		base += m[i].size;
	}
	return arena_printf(&s->arena, "%send\n", head);
}

/* NAME.ctap, written whole under a temporary name and renamed. */
static int write_bundle(struct session *s, const struct member *m, int n, const char *name)
{
	const char *path = arena_printf(&s->arena, "%s.ctap", name);
	const char *tmp = arena_printf(&s->arena, "%s.%d", path, (int)getpid());
	size_t base = 0;
	char *head;
	FILE *f;

	/* The manifest holds the offsets of what follows it, so its own
	 * length: laid out again until that length holds (it only grows). */
	while (strlen(head = manifest(s, m, n, base)) != base)
		base = strlen(head);
	if (base > CTAP_BUNDLE_MAX_HEADER) {
		fprintf(stderr, "stap: the bundle's manifest is over %d bytes\n",
			CTAP_BUNDLE_MAX_HEADER);
		return -1;
	}
	f = fopen(tmp, "wxe");
	if (!f)
		goto fail;
	fputs(head, f);
	for (int i = 0; i < n; i++)
		fwrite(m[i].ko, 1, m[i].size, f);
	if ((ferror(f) | fclose(f)) || rename(tmp, path))
		goto fail;
	printf("%s\n", path);
	return 0;
fail:
	fprintf(stderr, "stap: cannot write %s: %s\n", path, strerror(errno));
	unlink(tmp);
	return -1;
}

int bundle_build(struct session *s, int argc, char **argv)
{
	struct member m[CTAP_BUNDLE_MAX_MODULES] = { 0 };
	const char *name = s->opt.module_name;
	char *top = session_mkdtemp(s, "ctapbundle");
	int n = s->opt.n_targets, started = 0, done = 0, ret = 0;

	if (!top) {
		fprintf(stderr, "stap: cannot create a directory: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		m[i].target = s->opt.targets[i];
		m[i].arg = arena_printf(&s->arena, "--bundle-member=%s", s->opt.targets[i]);
		m[i].dir = arena_printf(&s->arena, "%s/%d", top, i);
		if (mkdir(m[i].dir, 0700)) {
			ret = -1;
			n = i;
			break;
		}
	}
	/* two at a time: pass 4 is one compiler each */
	while (done < n) {
		while (started < n && started - done < 2) {
			m[started].pid = start_member(&m[started], argc, argv);
			if (m[started].pid < 0)
				ret = -1;
			started++;
		}
		if (m[done].pid > 0 && finish_member(s, &m[done], name))
			ret = -1;
		done++;
	}
	if (!ret)
		ret = write_bundle(s, m, n, name);
	for (int i = 0; i < n; i++)
		free(m[i].ko);
	if (s->opt.keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", top);
	else
		session_rmtree(top);
	return ret ? 1 : 0;
}
