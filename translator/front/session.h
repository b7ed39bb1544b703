/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - what one stap invocation was asked to do (struct stap_options,
 * s->opt: the command line, set by main.c) and what its passes compute and
 * share (the rest of struct session: the scripts, the kernel's BTF and
 * symbols, pass 2's results).
 */
#ifndef SESSION_H
#define SESSION_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "arena.h"
#include "ast.h"
#include "lex.h"
#include "preproc.h"
#include "strset.h"

struct btf;
struct ksyms;
struct elab;
struct module_btf;
struct sem;
struct umod_note;

#define MAX_INCLUDE_DIRS	32
#define MAX_DEFINES		64

/* What the invocation asked for: set by main.c from the command line (and
 * the target kernel named there), read-only afterwards but for the --vm
 * defaults run.c gives -T and -o for the guest's staprun. */
struct stap_options {
	int last_pass;			/* -p: stop after this pass (1-5) */
	int verbose;			/* -v */
	const char *script_file;	/* FILE or "-" */
	const char *script_text;	/* -e */
	struct script_args args;	/* $1.. @1.. */
	const char *include_dirs[MAX_INCLUDE_DIRS];	/* -I */
	int n_include_dirs;
	const char *defines[MAX_DEFINES];		/* -D */
	int n_defines;
	const char *globals_set[MAX_DEFINES];		/* -G */
	int n_globals_set;
	bool guru, unoptimized, suppress_warnings, warnings_as_errors, keep_tmpdir;
	bool timing;			/* -t: STP_TIMING, the probe hit report */
	bool disable_cache;		/* --disable-cache: no cached module or runtime is reused */
	bool sign;			/* --sign-module[=DIR] (sign.c) */
	const char *sign_dir;		/* its DIR, or NULL: the default */
	bool skip_badvars;		/* --skip-badvars: a $var not there reads 0 */
	bool check_version;		/* --check-version */
	bool json;			/* --json: output as JSON lines (docs/json.md) */
	bool dyninst;			/* --runtime=dyninst: a user-space module run by stapdyn
					   (docs/userspace.md) */
	bool check;			/* --check: the pre-flight check (check.c) */
	bool bulk;			/* -b */
	bool flight;			/* -F: staprun -L, or -D with -o */
	const char *module_name;	/* -m */
	const char *output_file;	/* -o */
	const char *output_size;	/* -S MB[,N]: staprun's file rotation */
	const char *cmd;		/* -c */
	int target_pid;			/* -x */
	int target_ns_pid;		/* --target-namespaces, or 0 */
	const char *cgroup_path;	/* --cgroup, or NULL */
	int monitor;			/* --monitor's interval in seconds, or 0 */
	int timeout_s;			/* -T */
	int buffer_mb;			/* -s */
	const char *kernel_build;	/* build tree of the target kernel */
	const char *targets[16];	/* every -r: several make a bundle (bundle.c) */
	int n_targets;
	bool bundle_member;		/* --bundle-member: one kernel's module of a bundle */
	const char *remotes[16];	/* every --remote HOST (remote.c) */
	int n_remotes;
	bool remote_prefix;		/* --remote-prefix: "N: " before each host's lines */
	bool remote_merge;		/* --remote-merge: one report of the fleet (merge.c) */
	bool merge_end;			/* --merge-end: the fleet's end probes, run here */
	const char *kernel_release;
	const char *kernel_image;	/* its boot image: /boot/vmlinuz-RELEASE, or an
					   unpacked kernel's (kernel_root()) */
	const char *kernel_moddir;	/* its /lib/modules/RELEASE, or an unpacked one's */
	const char *runtime_dir;	/* -R */
	const char *sysroot;		/* --sysroot: where the target's files are here */
	const char *kernel_debuginfo;	/* --kernel-debuginfo: where its DWARF is unpacked */
	const char *d_options[64];	/* -d FILE|MODULE */
	int n_d_options;
	bool ldd;			/* --ldd: -d for the libraries they need too */
	bool prologue_never;		/* --prologue-searching=never: user function
					   probes at the symbol, not after the prologue */
	const char *list_pattern;	/* -l / -L */
	bool list_vars;			/* -L */
	const char *compat_version;	/* --compatible */
	const char *vm_kernel;		/* --vm[=IMAGE] */
	bool vm;
	enum { DUMP_NONE, DUMP_FUNCTIONS, DUMP_ALIASES } dump;	/* --dump-* */
};

struct session {
	struct arena arena;
	struct stap_options opt;	/* the command line: s->opt.verbose */

	/* What the passes compute and share. */
	const char *sign_key, *sign_cert;	/* the key pair's files, once prepared */
	bool read_stdin;		/* a procfs("__stdin") probe: staprun -i */
	const char *target_tapsets;	/* their directory (target_tapsets.c), or NULL */
	struct umod_note *umods;	/* user modules for usymtab.c's tables */
	struct strset target_files;	/* the programs process() probes name, as the
					   target names them: --vm ships them (vmroot.c) */

	struct pp_env pp;
	struct script *user;		/* the user's script */
	const struct source *monitor_src;	/* --monitor's own probes (pass1.c), or NULL */
	struct script *library;		/* tapset files, in load order */
	int n_library;
	struct btf *btf;		/* the target kernel's types: session_btf() */
	struct module_btf *module_btfs;	/* its modules': session_module_btf() */
	struct btf *user_btf;		/* user programs' DWARF types: session_user_btf() */
	struct cast_headers *cast_headers;	/* headers compiled for @cast (cast_headers.c) */
	bool btf_failed;
	__s32 long_type;		/* session_long_type()'s, once looked up */
	bool long_type_known;
	struct ksyms *ksyms;		/* its function symbols: session_ksyms() */
	bool ksyms_failed;
	struct elab *elab;		/* pass 2: probe points */
	struct sem *sem;		/* pass 2: symbols and types */
};

/* The target kernel's BTF, loaded on first use and shared by every pass;
 * NULL after reporting why it cannot be had. */
struct btf *session_btf(struct session *s);
/* The same, or NULL with no error: for what can do without (pass 4's
 * kernel features, kfeatures.h). */
struct btf *session_btf_quiet(struct session *s);
/* The target kernel BTF's "long int", the type of a number read from a
 * register or a system call's argument: looked up once (a lookup by name
 * walks all of BTF); 0 without BTF. */
__s32 session_long_type(struct session *s);
/* Module name's BTF, split on session_btf(), loaded once: 0 or kmod_btf()'s -errno. */
int session_module_btf(struct session *s, const char *name, struct btf **btf);
/* The BTF user programs' DWARF types are rewritten into (udwarf_btf.c),
 * made on first use; NULL without memory.  A $var typed in it lives in
 * user memory. */
struct btf *session_user_btf(struct session *s);
/* The target kernel's function symbols, loaded on first use; NULL when
 * there are none to be had (then BTF alone names functions). */
struct ksyms *session_ksyms(struct session *s);
/* What the session holds outside its arena (the BTF, the symbols). */
void session_free(struct session *s);
/* A new directory for pass 4 or 5 ("$TMPDIR/PREFIXXXXXXX", /tmp by
 * default, which main() checked), arena memory; NULL with errno. */
char *session_mkdtemp(struct session *s, const char *prefix);
/* mkdir -p of every directory of path up to its last '/' (mode for those
 * made; those there are kept): 0, or the first failure's -errno. */
int session_mkdirs(char *path, mode_t mode);
/* Removes the directory tree of a session_mkdtemp() (no shell, no
 * symlink followed): 0 or -errno. */
int session_rmtree(const char *dir);
/* -D NAME[=VALUE] (checked by main()) as a line of C: "#define NAME VALUE"
 * (1 without a value, as the compiler's -D), arena memory. */
const char *session_define_line(struct session *s, const char *d);
/* -D NAME=NUMBER's number (the last -D NAME), else fallback. */
long long session_define(const struct session *s, const char *name, long long fallback);
/* The module name: -m NAME, else stap_<hash of the script and -D options>. */
const char *session_module_name(struct session *s);
/* DIR/SUB of the installed data (tapset, runtime): for the build tree's
 * own stap the source tree's; else relative to this stap's own path, else
 * the install prefix's; NULL if none has it. */
const char *session_data_dir(struct session *s, const char *sub);
/* A program ctap runs (guest-run, for --vm): for the build tree's own stap
 * the source tree's testsuite/NAME; else ../libexec/ctap/NAME beside this
 * stap, else $(pkglibexecdir)/NAME; NULL if none has it. */
const char *session_libexec(struct session *s, const char *name);
/* Where the runtime sources are: -R, $SYSTEMTAP_RUNTIME, the installed
 * data, the source tree's for the build tree's stap, else the configured
 * place (missing). */
const char *session_runtime_dir(struct session *s);

#endif /* SESSION_H */
