// SPDX-License-Identifier: GPL-2.0
/*
 * kfeatures.c - the target kernel's interfaces, from its BTF (kfeatures.h).
 *
 * SystemTap compiles about 130 small test programs against the kernel's
 * headers to learn this; BTF already describes every function, structure
 * and function-pointer type the runtime uses, so each question is a lookup
 * of microseconds.  Inline helpers are not in BTF: a test asks about the
 * exported function or the type the helper is built on.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbtf.h"
#include "kfeatures.h"
#include "kimage.h"

/* What a test sees: the kernel's BTF and the build tree's Module.symvers. */
struct kernel {
	const struct btf *btf;
	char *symvers;		/* "CRC\tNAME\tMODULE\tEXPORT..." lines, or NULL */
};

static bool has_func(const struct kernel *k, const char *name)
{
	return kbtf_find(k->btf, name, BTF_KIND_FUNC) > 0;
}

/* A module can call name: the kernel exports it (BTF has every function,
 * exported or not). */
static bool exported(const struct kernel *k, const char *name)
{
	char key[256];

	snprintf(key, sizeof(key), "\t%s\t", name);
	return k->symvers && strstr(k->symvers, key);
}

/* struct sname has a member mname (a complete struct, not a declaration). */
static bool has_member(const struct kernel *k, const char *sname, const char *mname)
{
	struct kbtf_field f;
	__s32 id = kbtf_find(k->btf, sname, BTF_KIND_STRUCT);

	return id > 0 && kbtf_member(k->btf, id, mname, &f) == 0;
}

/* enum ename has the enumerator vname. */
static bool has_enumerator(const struct kernel *k, const char *ename, const char *vname)
{
	__s32 id = kbtf_find(k->btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(k->btf, id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(k->btf, btf_enum(t)[i].name_off), vname))
			return true;
	return false;
}

/* The function prototype a typedef of a function pointer names, or NULL. */
static const struct btf_type *typedef_proto(const struct kernel *k, const char *name)
{
	__s32 id = kbtf_find(k->btf, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id <= 0)
		return NULL;
	t = btf__type_by_id(k->btf, kbtf_strip(k->btf, id));
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(k->btf, kbtf_strip(k->btf, t->type));
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* The name of the type id (through pointers and qualifiers), or "". */
static const char *base_name(const struct kernel *k, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(k->btf, kbtf_strip(k->btf, id));

	while (t && btf_is_ptr(t))
		t = btf__type_by_id(k->btf, kbtf_strip(k->btf, t->type));
	return t ? btf__name_by_offset(k->btf, t->name_off) : "";
}

/* ftrace_func_t's fourth parameter is a struct ftrace_regs *, not pt_regs. */
static bool ftrace_regs(const struct kernel *k)
{
	const struct btf_type *p = typedef_proto(k, "ftrace_func_t");

	return p && btf_vlen(p) == 4 && !strcmp(base_name(k, btf_params(p)[3].type), "ftrace_regs");
}

static bool ftrace_set_filter_ips(const struct kernel *k)
{
	return exported(k, "ftrace_set_filter_ips");
}

static bool ftrace_free_filter(const struct kernel *k)
{
	return exported(k, "ftrace_free_filter");
}

static bool fprobe_ips(const struct kernel *k)
{
	return exported(k, "register_fprobe_ips");
}

static bool kretprobe_instance_rp(const struct kernel *k)
{
	return has_member(k, "kretprobe_instance", "rp");
}

static bool kretprobe_rethook(const struct kernel *k)
{
	return has_member(k, "kretprobe", "rh");
}

static bool module_mem(const struct kernel *k)
{
	return has_member(k, "module", "mem");
}

static bool pde_data_func(const struct kernel *k)
{
	return has_func(k, "PDE_DATA");
}

/* filldir_t returns bool (true: go on), not int (0: go on). */
static bool filldir_bool(const struct kernel *k)
{
	const struct btf_type *p = typedef_proto(k, "filldir_t");

	return p && !strcmp(base_name(k, p->type), "_Bool");
}

static bool pgty_slab(const struct kernel *k)
{
	return has_enumerator(k, "pagetype", "PGTY_slab");
}

static bool strlcpy_exported(const struct kernel *k)
{
	return exported(k, "strlcpy");
}

static bool uprobe_handle(const struct kernel *k)
{
	return has_func(k, "uprobe_unregister_nosync");
}

/* struct uprobe_consumer's filter() has the enum uprobe_filter_ctx
 * parameter between the consumer and the mm (dropped in 6.11). */
static bool uprobe_filter_ctx(const struct kernel *k)
{
	__s32 id = kbtf_find(k->btf, "uprobe_consumer", BTF_KIND_STRUCT);
	struct kbtf_field f;
	const struct btf_type *t;

	if (id <= 0 || kbtf_member(k->btf, id, "filter", &f))
		return false;
	t = btf__type_by_id(k->btf, kbtf_strip(k->btf, f.type));
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(k->btf, kbtf_strip(k->btf, t->type));
	return t && btf_is_func_proto(t) && btf_vlen(t) == 3;
}

static const struct kfeature {
	const char *name;
	bool (*test)(const struct kernel *k);
	const char *what;
} features[] = {
	{ "CTAP_HAVE_FTRACE_REGS", ftrace_regs,
	  "ftrace callbacks get struct ftrace_regs (ftrace_get_regs()), not struct pt_regs" },
	{ "CTAP_HAVE_FTRACE_SET_FILTER_IPS", ftrace_set_filter_ips,
	  "one call sets an ftrace_ops' filter to many addresses" },
	{ "CTAP_HAVE_FTRACE_FREE_FILTER", ftrace_free_filter,
	  "an ftrace_ops' filter is freed by ftrace_free_filter() (else: reset to empty)" },
	{ "CTAP_HAVE_FPROBE_IPS", fprobe_ips,
	  "fprobes: one ftrace_ops with a return hook for many functions (register_fprobe_ips())" },
	{ "CTAP_HAVE_KRETPROBE_INSTANCE_RP", kretprobe_instance_rp,
	  "a kretprobe instance points to its kretprobe (ri->rp; later get_kretprobe())" },
	{ "CTAP_HAVE_KRETPROBE_RETHOOK", kretprobe_rethook,
	  "kretprobes return through a rethook (rp->rh): one can hook many functions' returns" },
	{ "CTAP_HAVE_MODULE_MEM", module_mem,
	  "a module's memory is THIS_MODULE->mem[] by type (before: core_layout)" },
	{ "CTAP_HAVE_PDE_DATA_FUNC", pde_data_func,
	  "a proc file's data is PDE_DATA(inode) (later the inline pde_data())" },
	{ "CTAP_HAVE_FILLDIR_BOOL", filldir_bool,
	  "a directory walk's actor returns bool (before: int)" },
	{ "CTAP_HAVE_PGTY_SLAB", pgty_slab,
	  "a slab page is marked by its page_type (PGTY_slab), not by the PG_slab flag" },
	{ "CTAP_HAVE_STRLCPY", strlcpy_exported,
	  "the kernel has strlcpy() (removed in favour of strscpy(); ctap_runtime.h supplies it)" },
	{ "CTAP_HAVE_UPROBE_HANDLE", uprobe_handle,
	  "uprobe_register() returns the uprobe, unregistered with "
	  "uprobe_unregister_nosync() and uprobe_unregister_sync()" },
	{ "CTAP_HAVE_UPROBE_FILTER_CTX", uprobe_filter_ctx,
	  "a uprobe consumer's filter() is told why it is asked (enum uprobe_filter_ctx)" },
};

#define N_FEATURES (sizeof(features) / sizeof(*features))

/* have[i]: whether the kernel has features[i]. */
static void test_all(struct arena *a, const struct btf *btf, const char *build_dir,
		     bool have[N_FEATURES])
{
	struct kernel k = { btf, NULL };
	size_t size;

	if (kimage_read_file(arena_printf(a, "%s/Module.symvers", build_dir), &k.symvers, &size))
		k.symvers = NULL;
	for (size_t i = 0; i < N_FEATURES; i++)
		have[i] = features[i].test(&k);
	free(k.symvers);
}

const char *kfeatures_header(struct arena *a, const struct btf *btf, const char *build_dir)
{
	char *text = "/* The target kernel's interfaces, from its BTF and Module.symvers\n"
		     " * (stap -p4, translator/kernel/kfeatures.c). */\n";
	bool have[N_FEATURES];

	if (!btf)
		return arena_printf(a, "%s/* No BTF: the newest interfaces are assumed. */\n", text);
	test_all(a, btf, build_dir, have);
	for (size_t i = 0; i < N_FEATURES; i++)
		text = arena_printf(a, "%s/* %s */\n#%s %s%s\n", text, features[i].what,
				    have[i] ? "define" : "undef", features[i].name, have[i] ? " 1" : "");
	return text;
}

const char *kfeatures_names(struct arena *a, const struct btf *btf, const char *build_dir)
{
	bool have[N_FEATURES];
	char *text = "";

	test_all(a, btf, build_dir, have);
	for (size_t i = 0; i < N_FEATURES; i++)
		if (have[i])
			text = arena_printf(a, "%s%s%s", text, *text ? " " : "",
					    features[i].name + strlen("CTAP_HAVE_"));
	return *text ? text : "none of the newer ones";
}
