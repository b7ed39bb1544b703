// SPDX-License-Identifier: GPL-2.0
/*
 * modinfo.c - the .modinfo section of a module file: "tag=value" strings,
 * NUL-separated (MODULE_INFO, MODULE_LICENSE, module_param's parmtype=,
 * modpost's name=).  staprun reads it from the descriptor it will load, to
 * learn the module's own name, whether it is a ctap module and which
 * parameters it declares.  Only an uncompressed 64-bit ELF file is read:
 * that is what stap builds.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "staprun.h"

#define MODINFO_MAX	(1 << 20)	/* a few KiB in practice */
#define SHNUM_MAX	65280		/* SHN_LORESERVE: no extended numbering */

static int read_at(int fd, void *buf, size_t len, off_t off, off_t size)
{
	ssize_t n;

	if (off < 0 || (uint64_t)off > (uint64_t)size || len > (uint64_t)(size - off))
		return -ENOEXEC;
	n = pread(fd, buf, len, off);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOEXEC;
}

static bool elf_header_ok(const Elf64_Ehdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_type == ET_REL &&
	       eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shnum > 0 &&
	       eh->e_shnum < SHNUM_MAX && eh->e_shstrndx < eh->e_shnum;
}

/* The section named name (its header in *found), or -ENOENT. */
static int find_section(int fd, const Elf64_Ehdr *eh, off_t size, const char *name,
			Elf64_Shdr *found)
{
	size_t want = strlen(name) + 1;
	Elf64_Shdr strtab, sh;
	char buf[64];
	int ret;

	ret = read_at(fd, &strtab, sizeof(strtab), eh->e_shoff + eh->e_shstrndx * sizeof(sh), size);
	if (ret)
		return ret;
	for (unsigned int i = 1; i < eh->e_shnum; i++) {
		ret = read_at(fd, &sh, sizeof(sh), eh->e_shoff + i * sizeof(sh), size);
		if (ret)
			return ret;
		if (sh.sh_name >= strtab.sh_size || strtab.sh_size - sh.sh_name < want ||
		    want > sizeof(buf) || sh.sh_type == SHT_NOBITS)
			continue;
		ret = read_at(fd, buf, want, strtab.sh_offset + sh.sh_name, size);
		if (ret)
			return ret;
		if (!memcmp(buf, name, want)) {
			*found = sh;
			return 0;
		}
	}
	return -ENOENT;
}

int modinfo_read(int fd, struct modinfo *mi)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	struct stat st;
	int ret;

	mi->text = NULL;
	mi->len = 0;
	if (fstat(fd, &st))
		return -errno;
	ret = read_at(fd, &eh, sizeof(eh), 0, st.st_size);
	if (ret)
		return ret;
	if (!elf_header_ok(&eh))
		return -ENOEXEC;
	ret = find_section(fd, &eh, st.st_size, ".modinfo", &sh);
	if (ret)
		return ret == -ENOENT ? -ENOEXEC : ret;
	if (sh.sh_size > MODINFO_MAX)
		return -ENOEXEC;
	mi->text = malloc(sh.sh_size + 1);
	if (!mi->text)
		return -ENOMEM;
	ret = read_at(fd, mi->text, sh.sh_size, sh.sh_offset, st.st_size);
	if (ret) {
		modinfo_free(mi);
		return ret;
	}
	mi->text[sh.sh_size] = '\0';	/* the last string ends, whatever the file says */
	mi->len = sh.sh_size + 1;
	return 0;
}

/*
 * The next "tag=value" string of tag after *pos (start at 0): its value,
 * or NULL when there are no more.
 */
const char *modinfo_next(const struct modinfo *mi, const char *tag, size_t *pos)
{
	size_t tlen = strlen(tag);

	while (*pos < mi->len) {
		const char *s = mi->text + *pos;

		*pos += strlen(s) + 1;
		if (!strncmp(s, tag, tlen) && s[tlen] == '=')
			return s + tlen + 1;
	}
	return NULL;
}

const char *modinfo_get(const struct modinfo *mi, const char *tag)
{
	size_t pos = 0;

	return modinfo_next(mi, tag, &pos);
}

/* parmtype=NAME:TYPE for each module_param(): does the module declare name? */
bool modinfo_declares(const struct modinfo *mi, const char *name, size_t len)
{
	size_t pos = 0;
	const char *v;

	while ((v = modinfo_next(mi, "parmtype", &pos)))
		if (!strncmp(v, name, len) && v[len] == ':')
			return true;
	return false;
}

void modinfo_free(struct modinfo *mi)
{
	free(mi->text);
	mi->text = NULL;
	mi->len = 0;
}
