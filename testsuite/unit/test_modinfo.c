/*
 * test_modinfo.c - staprun's reading of a module file's .modinfo
 * (modinfo.c) and its module parameter string (trust.c), on ELF files
 * made here: a good one, and every truncation and corruption of it that
 * must be refused rather than read out of bounds.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"
#include "unit.h"

static const char shstrtab[] = "\0.shstrtab\0.modinfo";
static const char info[] = "license=GPL\0name=ctap_demo\0ctap_protocol=1\0"
			   "parmtype=lim:long\0parmtype=label:charp";

struct image {
	Elf64_Ehdr eh;
	char strs[sizeof(shstrtab)];
	char info[sizeof(info)];
	Elf64_Shdr sh[3];
};

static void make_image(struct image *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh.e_type = ET_REL;
	im->eh.e_shentsize = sizeof(Elf64_Shdr);
	im->eh.e_shnum = 3;
	im->eh.e_shstrndx = 1;
	im->eh.e_shoff = offsetof(struct image, sh);
	memcpy(im->strs, shstrtab, sizeof(shstrtab));
	memcpy(im->info, info, sizeof(info));
	im->sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB,
				  .sh_offset = offsetof(struct image, strs),
				  .sh_size = sizeof(shstrtab) };
	im->sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_PROGBITS,
				  .sh_offset = offsetof(struct image, info),
				  .sh_size = sizeof(info) - 1 };	/* no final NUL */
}

/* A file holding the first len bytes of im. */
static int file_of(const struct image *im, size_t len)
{
	char path[] = "/tmp/test_modinfo.XXXXXX";
	int fd = mkstemp(path);

	unlink(path);
	if (fd < 0 || write(fd, im, len) != (ssize_t)len)
		abort();
	return fd;
}

static int read_image(const struct image *im, size_t len, struct modinfo *mi)
{
	int fd = file_of(im, len), ret = modinfo_read(fd, mi);

	close(fd);
	return ret;
}

static void test_good(void)
{
	struct image im;
	struct modinfo mi;
	size_t pos = 0;

	make_image(&im);
	CHECK_INT(read_image(&im, sizeof(im), &mi), 0, "a module's .modinfo is read");
	CHECK_STR(modinfo_get(&mi, "name"), "ctap_demo", "name=");
	CHECK_STR(modinfo_get(&mi, CTAP_MODINFO_TAG), CTAP_PROTOCOL, "the ctap tag");
	CHECK(modinfo_get(&mi, "parmtype=lim") == NULL, "a tag is the text before '='");
	CHECK_STR(modinfo_next(&mi, "parmtype", &pos), "lim:long", "first parmtype");
	CHECK_STR(modinfo_next(&mi, "parmtype", &pos), "label:charp",
		  "the last string, unterminated in the file, ends");
	CHECK(modinfo_next(&mi, "parmtype", &pos) == NULL, "then no more");
	CHECK(modinfo_declares(&mi, "lim=3", 3), "a declared parameter");
	CHECK(!modinfo_declares(&mi, "li=3", 2), "a prefix of one is not");
	CHECK(!modinfo_declares(&mi, "dyndbg=+p", 6), "dyndbg is not declared");
	modinfo_free(&mi);
}

static void test_bad(void)
{
	struct image im, bad;
	struct modinfo mi;
	int refused = 0;

	make_image(&im);
	/* Every truncation is refused, never read past the end. */
	for (size_t len = 0; len < sizeof(im); len++) {
		int ret = read_image(&im, len, &mi);

		refused += ret == -ENOEXEC;
		modinfo_free(&mi);
	}
	CHECK_INT(refused, sizeof(im), "every truncated file is refused");
	bad = im;
	bad.eh.e_ident[EI_CLASS] = ELFCLASS32;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "a 32-bit file");
	bad = im;
	bad.sh[2].sh_size = 1ULL << 40;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "a .modinfo past the end");
	bad = im;
	bad.sh[2].sh_offset = ~0ULL - 4;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "an offset that wraps");
	bad = im;
	bad.eh.e_shoff = ~0ULL - 8;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "section headers that wrap");
	bad = im;
	bad.sh[2].sh_name = 1000;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "a name outside the strings");
	bad = im;
	bad.eh.e_shstrndx = 7;
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "no such string table");
	bad = im;
	memcpy(bad.strs + 11, "x", 1);
	CHECK_INT(read_image(&bad, sizeof(bad), &mi), -ENOEXEC, "no .modinfo");
}

/* Run by root (not setuid): the parameter string the kernel gets. */
static void test_params(void)
{
	struct module_file m = { .fd = -1 };
	char why[256], *params = NULL;
	const char *args[] = { "lim=7", "label=two words", "quoted=\"as given\"" };
	const char *bad[] = { "lim" };

	strcpy(m.name, "ctap_demo");
	CHECK_INT(module_params(&m, args, 3, &params, why, sizeof(why)), 0, "root's parameters");
	CHECK_STR(params, "lim=7 label=\"two words\" quoted=\"as given\"",
		  "a value with spaces is one value for the kernel");
	free(params);
	CHECK_INT(module_params(&m, bad, 1, &params, why, sizeof(why)), -EINVAL, "not name=value");
	CHECK_STR(why, "module parameter 'lim' is not name=value", "and says so");
	CHECK_INT(module_params(&m, args, 0, &params, why, sizeof(why)), 0, "no parameters");
	CHECK_STR(params, "", "an empty string");
	free(params);
}

int main(void)
{
	test_good();
	test_bad();
	if (geteuid() == getuid())
		test_params();
	return unit_done();
}
