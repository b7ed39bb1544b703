// SPDX-License-Identifier: GPL-2.0
/*
 * sdt.c - read the <sys/sdt.h> markers of an ELF file (sdt.h).
 *
 * The note layout is <sys/sdt.h>'s own: owner "stapsdt", type 3, and
 * the descriptor three addresses (the marker, the link-time address of
 * the .stapsdt.base section, the semaphore) followed by three strings
 * (provider, name, arguments).  A prelinked or otherwise moved file
 * shows the move in where .stapsdt.base is now, which the addresses
 * follow.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sdt.h"

#define NT_STAPSDT	3

/* x86_64's register names as operands spell them: the pt_regs member,
 * and for %ah..%dh where their byte sits. */
static const struct {
	const char *name;
	const char *member;
	int shift;
	int width;
} regs[] = {
	{ "rax", "ax", 0, 8 }, { "eax", "ax", 0, 4 }, { "ax", "ax", 0, 2 }, { "al", "ax", 0, 1 }, { "ah", "ax", 8, 1 },
	{ "rbx", "bx", 0, 8 }, { "ebx", "bx", 0, 4 }, { "bx", "bx", 0, 2 }, { "bl", "bx", 0, 1 }, { "bh", "bx", 8, 1 },
	{ "rcx", "cx", 0, 8 }, { "ecx", "cx", 0, 4 }, { "cx", "cx", 0, 2 }, { "cl", "cx", 0, 1 }, { "ch", "cx", 8, 1 },
	{ "rdx", "dx", 0, 8 }, { "edx", "dx", 0, 4 }, { "dx", "dx", 0, 2 }, { "dl", "dx", 0, 1 }, { "dh", "dx", 8, 1 },
	{ "rsi", "si", 0, 8 }, { "esi", "si", 0, 4 }, { "si", "si", 0, 2 }, { "sil", "si", 0, 1 },
	{ "rdi", "di", 0, 8 }, { "edi", "di", 0, 4 }, { "di", "di", 0, 2 }, { "dil", "di", 0, 1 },
	{ "rbp", "bp", 0, 8 }, { "ebp", "bp", 0, 4 }, { "bp", "bp", 0, 2 }, { "bpl", "bp", 0, 1 },
	{ "rsp", "sp", 0, 8 }, { "esp", "sp", 0, 4 }, { "sp", "sp", 0, 2 }, { "spl", "sp", 0, 1 },
};

/* "%r9d" -> "r9"; NULL if not a register.  *width: the bytes it names. */
static const char *reg_member(struct arena *a, const char *name, size_t n, int *shift,
			      int *width)
{
	char buf[8];
	size_t len;

	*shift = 0;
	*width = 8;
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, name, n);
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(buf, regs[i].name)) {
			*shift = regs[i].shift;
			*width = regs[i].width;
			return regs[i].member;
		}
	/* r8..r15 with an optional d, w, b or l suffix */
	if (buf[0] != 'r' || !isdigit((unsigned char)buf[1]))
		return NULL;
	len = strspn(buf + 1, "0123456789");
	if (atoi(buf + 1) < 8 || atoi(buf + 1) > 15 || (buf[1 + len] && (buf[2 + len] ||
	    !strchr("dwbl", buf[1 + len]))))
		return NULL;
	*width = !buf[1 + len] ? 8 : buf[1 + len] == 'd' ? 4 : buf[1 + len] == 'w' ? 2 : 1;
	return arena_strndup(a, buf, 1 + len);
}

/* A register operand "%name" at *p: its member, *p past it. */
static const char *parse_reg(struct arena *a, const char **p, int *shift, int *width)
{
	const char *s = *p + 1;
	size_t n = 0;

	if (**p != '%')
		return NULL;
	while (isalnum((unsigned char)s[n]))
		n++;
	*p = s + n;
	return reg_member(a, s, n, shift, width);
}

int sdt_parse_arg(struct arena *a, const char *text, struct sdt_arg *arg)
{
	const char *at = strchr(text, '@'), *p = text;
	char *end;
	int shift, width;

	memset(arg, 0, sizeof(*arg));
	arg->size = 8;
	arg->is_signed = true;
	if (at) {
		long size = strtol(text, &end, 10);

		if (end != at || !size)
			return -EINVAL;
		arg->is_signed = size < 0;
		arg->size = labs(size);
		p = at + 1;
	}
	if (arg->size != 1 && arg->size != 2 && arg->size != 4 && arg->size != 8)
		return -EINVAL;
	if (*p == '%') {
		arg->kind = SDT_ARG_REG;
		arg->base = parse_reg(a, &p, &arg->shift, &arg->reg_width);
		return arg->base && !*p ? 0 : -EINVAL;
	}
	if (*p == '$') {
		arg->kind = SDT_ARG_IMM;
		arg->disp = strtoll(p + 1, &end, 0);
		return end != p + 1 && !*end ? 0 : -EINVAL;
	}
	/* disp(%base[,%index[,scale]]), the displacement a number */
	arg->kind = SDT_ARG_MEM;
	if (*p != '(') {
		arg->disp = strtoll(p, &end, 0);
		if (end == p)
			return -EINVAL;	/* a symbol: see sdt_markers() for %rip */
		p = end;
	}
	if (*p++ != '(')
		return -EINVAL;
	if (*p != ',' && !(arg->base = parse_reg(a, &p, &shift, &width)))
		return -EINVAL;
	if (*p == ',') {
		p++;
		if (!(arg->index = parse_reg(a, &p, &shift, &width)))
			return -EINVAL;
		arg->scale = 1;
		if (*p == ',') {
			arg->scale = strtol(p + 1, &end, 10);
			p = end;
			if (arg->scale != 1 && arg->scale != 2 && arg->scale != 4 && arg->scale != 8)
				return -EINVAL;
		}
	}
	return *p == ')' && !p[1] ? 0 : -EINVAL;
}

/* The address of symbol name (an object: a global the marker passes). */
static int symbol_address(Elf *elf, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*addr = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* "-4@counter+8(%rip)": a global, as a displacement from the marker at pc. */
static int parse_rip_arg(struct arena *a, Elf *elf, const char *text, uint64_t pc,
			 struct sdt_arg *arg)
{
	const char *at = strchr(text, '@'), *sym = at ? at + 1 : text;
	const char *paren = strstr(sym, "(%rip)"), *end = paren;
	long size = at ? strtol(text, NULL, 10) : -8;
	uint64_t addr;
	int64_t off = 0;

	if (!paren || paren[6] || paren == sym || (!isalpha((unsigned char)*sym) && *sym != '_'))
		return -EINVAL;	/* a bare displacement needs the instruction's length */
	for (const char *q = sym + 1; q < paren; q++)
		if (*q == '+' || *q == '-') {
			end = q;
			off = strtoll(q, NULL, 0);
			break;
		}
	if (symbol_address(elf, arena_strndup(a, sym, end - sym), &addr))
		return -EINVAL;
	memset(arg, 0, sizeof(*arg));
	arg->kind = SDT_ARG_RIP;
	arg->is_signed = size < 0;
	arg->size = labs(size);
	arg->disp = (int64_t)(addr + off - pc);
	return arg->size == 1 || arg->size == 2 || arg->size == 4 || arg->size == 8 ? 0 : -EINVAL;
}

int sdt_file_offset(Elf *elf, uint64_t addr, bool exec, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || (exec && !(ph.p_flags & PF_X)))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -EINVAL;
}

Elf_Scn *sdt_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Where the .stapsdt.base section is now, 0 if the file has none. */
static uint64_t base_address(Elf *elf)
{
	GElf_Shdr sh;

	return sdt_section(elf, ".stapsdt.base", &sh) ? sh.sh_addr : 0;
}

/* One note's descriptor; NULL if it is not a well-formed marker. */
static struct sdt_marker *read_marker(struct arena *a, Elf *elf, const char *desc, size_t size,
				      uint64_t base)
{
	struct sdt_marker *m;
	uint64_t pc, note_base, sem;
	const char *provider, *name, *args, *end = desc + size;
	char *spec, *word, *save = NULL;

	if (size < 3 * 8 + 3)
		return NULL;
	memcpy(&pc, desc, 8);
	memcpy(&note_base, desc + 8, 8);
	memcpy(&sem, desc + 16, 8);
	provider = desc + 24;
	name = memchr(provider, '\0', end - provider);
	args = name ? memchr(name + 1, '\0', end - name - 1) : NULL;
	if (!args || !memchr(args + 1, '\0', end - args - 1))
		return NULL;
	name++;
	args++;
	if (base && note_base) {
		pc += base - note_base;
		if (sem)
			sem += base - note_base;
	}
	m = arena_new(a, struct sdt_marker);
	m->provider = arena_strndup(a, provider, strlen(provider));
	m->name = arena_strndup(a, name, strlen(name));
	m->argspec = arena_strndup(a, args, strlen(args));
	m->address = pc;
	if (sdt_file_offset(elf, pc, true, &m->offset) ||
	    (sem && sdt_file_offset(elf, sem, false, &m->semaphore_offset)))
		return NULL;
	spec = arena_strndup(a, args, strlen(args));
	for (word = strtok_r(spec, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		struct sdt_arg *arg = &m->args[m->nargs];

		if (m->nargs == SDT_MAX_ARGS ||
		    (sdt_parse_arg(a, word, arg) && parse_rip_arg(a, elf, word, pc, arg))) {
			m->nargs = -1;
			break;
		}
		m->nargs++;
	}
	return m;
}

int sdt_markers(struct arena *a, Elf *elf, struct sdt_marker **out)
{
	struct sdt_marker **tail = out;
	uint64_t base = base_address(elf);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int n = 0;

	*out = NULL;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    gelf_getclass(elf) != ELFCLASS64)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			struct sdt_marker *m;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
			    memcmp((char *)data->d_buf + name_off, "stapsdt", sizeof("stapsdt")))
				continue;
			m = read_marker(a, elf, (char *)data->d_buf + desc_off, nh.n_descsz, base);
			if (!m)
				continue;
			*tail = m;
			tail = &m->next;
			n++;
		}
	}
	return n;
}
