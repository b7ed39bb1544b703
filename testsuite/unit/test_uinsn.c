/*
 * test_uinsn.c - uinsn_starts() against objdump -d, over the functions of
 * the static test program ustructs (its glibc too: AVX-512 string
 * functions, CET instructions in libgcc's unwinder): every function
 * decodes to its end; at each of its first 32 instructions an
 * instruction starts, and at 8 other bytes of each function it does
 * exactly where objdump shows one.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "uinsn.h"
#include "unit.h"

#define MAX_STARTS	400000

static uint64_t starts[MAX_STARTS];
static size_t nstarts;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* objdump -d's instruction addresses of path, sorted; how many. */
static size_t objdump_starts(const char *path)
{
	char cmd[4200], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p) && nstarts < MAX_STARTS) {
		char *end;
		unsigned long long a = strtoull(line, &end, 16);

		if (line[0] == ' ' && end != line && *end == ':')
			starts[nstarts++] = a;
	}
	if (p)
		pclose(p);
	qsort(starts, nstarts, sizeof(*starts), cmp_u64);
	return nstarts;
}

static bool is_start(uint64_t a)
{
	return bsearch(&a, starts, nstarts, sizeof(*starts), cmp_u64) != NULL;
}

int main(int argc, char **argv)
{
	char *dir = dirname(strdup(argv[0])), path[4096];
	long funcs = 0, undecoded = 0, wrong = 0, checked = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	snprintf(path, sizeof(path), "%s/../progs/ustructs", dir);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "%s opens (make check builds it)", path);
	CHECK(objdump_starts(path) > 10000, "objdump -d lists its instructions (%zu)", nstarts);
	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	srand(39);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			uint64_t insn, a, lo, hi;
			GElf_Sym s;
			int n = 0;

			if (!gelf_getsym(data, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size || s.st_shndx == SHN_UNDEF)
				continue;
			funcs++;
			lo = s.st_value;
			hi = s.st_value + s.st_size;
			if (uinsn_starts(elf, lo, s.st_size, hi - 1, &insn) == -ENOEXEC)
				undecoded++;
			for (a = lo; a < hi && n < 32; a++)
				if (is_start(a)) {
					wrong += uinsn_starts(elf, lo, s.st_size, a, &insn) != 0;
					checked++;
					n++;
				}
			for (int k = 0; k < 8; k++) {
				int r;

				a = lo + (uint64_t)rand() % s.st_size;
				r = uinsn_starts(elf, lo, s.st_size, a, &insn);
				wrong += is_start(a) ? r != 0 :
					 r != -ERANGE || insn >= a || !is_start(insn);
				checked++;
			}
		}
	}
	CHECK(funcs > 1000, "ustructs has its functions in .symtab (%ld)", funcs);
	CHECK_INT(undecoded, 0, "every function decodes to its last byte");
	CHECK_INT(wrong, 0, "uinsn_starts() agrees with objdump -d at every byte tried");
	printf("# %ld bytes tried in %ld functions\n", checked, funcs);
	return unit_done();
}
