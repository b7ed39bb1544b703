// SPDX-License-Identifier: GPL-2.0
/*
 * kbuild_replay.c - pass 4 without make: Kbuild's own commands, recorded
 * from a build and replayed.
 *
 * `make -C <build tree> M=dir modules` spends about two seconds deciding
 * what to do before and between its five commands (compile, link, modpost,
 * compile the .mod.c, link the .ko).  Those commands are the same for
 * every script module of one kernel tree and set of -D options, but for
 * the build directory and the module's name.  So after a Kbuild build the
 * commands are read from the .cmd files Kbuild leaves (their first line:
 * "cmd_TARGET := COMMAND", make's "$$" for "$") with the directory and
 * name made placeholders, and stored next to the runtime object; a later
 * build with the cached runtime object runs them itself, in the kernel
 * tree as make would.  The directory goes in as $CTAP_BUILD_DIR, from the
 * environment, never pasted into the shell's text; the name is letters,
 * digits and '_'.  Any failure falls back to Kbuild, which records
 * again.  CTAP_KBUILD=1 in the environment always uses Kbuild.
 *
 * The runtime's units (rt_units.c) differ between scripts: where Kbuild
 * lists them (the object list, 5.10's link), the list is recorded as a
 * mark, @UNITS@ (or @DIRUNITS@, each with the directory before it), and a
 * replay puts the script's units there; one recording serves every set of
 * families and -D options.  The compile commands of the script and of the
 * .mod.c are run with the kernel headers precompiled (kbuild_pch.c), and
 * a step that names nothing of the module but its output (6.10+'s
 * .module-common.o) runs once: its object is kept with the units.
 * modpost gets only the lines of the kernel's Module.symvers that name a
 * symbol of the module (kernel_symvers()), and the .mod.c compiles beside
 * the script's unit, from a guess (struct guess): a replay is then the
 * script's compile, objtool, the module's link, and modpost beside the
 * .ko's link (modpost_beside()).
 *
 * Kernels differ in the steps (6.2+ names the lines "savedcmd_", 6.10+
 * links a .module-common.o into every module), so the steps a kernel's
 * Kbuild left are recorded, the optional ones only when there.  One step
 * is not a .cmd line: where the build tree has a vmlinux (6.12's headers
 * ship one), Kbuild adds the module's own BTF after linking; a replayed
 * module has none, which only BPF programs would read.  Another is
 * recorded all the same: 5.10's objtool, which writes the ORC data the
 * kernel's unwinder needs, runs outside the compile step's .cmd line.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <gelf.h>

#include "cache.h"
#include "kbuild_replay.h"
#include "rt_units.h"
#include "spawn.h"
#include "strset.h"

/* The .cmd files of the steps, in order (%s: the module's name); the
 * optional ones only some kernels' Kbuild has. */
static const struct step {
	const char *cmd;
	bool optional;
} steps[] = {
	{ ".modules.order.cmd", false },	/* the list modpost reads (NAME.ko, or NAME.o on 6.2+) */
	{ ".%s.mod.cmd", false },		/* the list of the module's objects */
	{ ".script.o.cmd", false },		/* compile the script (then objtool) */
	{ ".%s.o.cmd", false },		/* link script.o and the runtime's units */
	{ ".Module.symvers.cmd", false },	/* modpost: writes NAME.mod.c */
	{ ".%s.mod.o.cmd", false },		/* compile it */
	{ "..module-common.o.cmd", true },	/* 6.10+: linked into every module */
	{ ".%s.ko.cmd", false },		/* link the .ko */
};
#define NSTEPS (sizeof(steps) / sizeof(*steps))

#define DIR_MARK	"@DIR@"
#define NAME_MARK	"@NAME@"
#define DIR_VAR		"CTAP_BUILD_DIR"
#define UNITS_MARK	"@UNITS@"
#define DIRUNITS_MARK	"@DIRUNITS@"

/*
 * cmd with each DIR_MARK the shell's expansion of $CTAP_BUILD_DIR as part
 * of the word it is in: "$CTAP_BUILD_DIR" outside quotes, $CTAP_BUILD_DIR
 * inside double quotes, '"$CTAP_BUILD_DIR"' inside single quotes (Kbuild
 * 6.1 has the directory in an awk program: '... print("@DIR@/"$0) ...').
 */
static char *expand_dir(struct arena *a, const char *cmd)
{
	static const char *const as[] = { "\"$" DIR_VAR "\"", "$" DIR_VAR, "'\"$" DIR_VAR "\"'" };
	size_t n = strlen(DIR_MARK), count = 0;
	char quote = 0, *out, *o;

	for (const char *p = cmd; (p = strstr(p, DIR_MARK)); p += n)
		count++;
	out = o = arena_alloc(a, strlen(cmd) + count * strlen(as[2]) + 1);
	for (const char *p = cmd; *p; p++) {
		if (!strncmp(p, DIR_MARK, n)) {
			const char *e = as[!quote ? 0 : quote == '"' ? 1 : 2];

			o = stpcpy(o, e);
			p += n - 1;
			continue;
		}
		if (*p == '\\' && quote != '\'' && p[1]) {
			*o++ = *p++;
		} else if (!quote && (*p == '\'' || *p == '"')) {
			quote = *p;
		} else if (*p == quote) {
			quote = 0;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* s with every from replaced by to (arena memory). */
char *kbuild_replace(struct arena *a, const char *s, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = s; (p = strstr(p, from)); p += nf)
		n++;
	out = o = arena_alloc(a, strlen(s) + n * (nt > nf ? nt - nf : 0) + 1);
	for (p = s; *p;) {
		if (!strncmp(p, from, nf)) {
			memcpy(o, to, nt);
			o += nt;
			p += nf;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The command of a .cmd file: its first line ("cmd_TARGET := ", or
 * "savedcmd_TARGET := " since 6.2) after " := ", "$$" as "$". */
static char *cmd_of(struct arena *a, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *eq;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getline(&line, &cap, f);
	fclose(f);
	eq = n > 0 && (!strncmp(line, "cmd_", 4) || !strncmp(line, "savedcmd_", 9)) ?
		strstr(line, " := ") : NULL;
	if (!eq) {
		free(line);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	eq = kbuild_replace(a, eq + 4, "$$", "$");
	free(line);
	return eq;
}

/*
 * The module's name as a placeholder where Kbuild puts it: a file name
 * (".../NAME.o", ".NAME.mod.o.d") or a define ("'\"NAME\"'", "kmod_NAME").
 * NULL if it also appears elsewhere (a name like "script" or "O2"): such
 * a build is not recorded, as a replay could not tell the two apart.
 */
static char *mark_name(struct arena *a, const char *cmd, const char *name)
{
	size_t n = strlen(name);
	char *out = "";
	const char *p = cmd, *hit;

	/* Nor a name that is part of the words around it in these commands. */
	if (n < 3 || strstr("script.o modules.order Module.symvers .mod.o .ko .module-common.o "
			    UNITS_MARK DIRUNITS_MARK, name))
		return NULL;
	while ((hit = strstr(p, name))) {
		char before = hit > cmd ? hit[-1] : ' ', after = hit[n];

		/* strchr() finds the terminator too: a name may end the line */
		if (!strchr("/._\"'", before) || before == '\0' || !strchr(".\"' ", after))
			return NULL;
		out = arena_printf(a, "%s%.*s%s", out, (int)(hit - p), p, NAME_MARK);
		p = hit + n;
	}
	return arena_printf(a, "%s%s", out, p);
}

/*
 * Kbuild's objtool command for dir/script.o, when the compile step's .cmd
 * line does not run it (5.10 runs objtool as a command of its own, which
 * no .cmd file keeps; 6.1+ appends it to the compile command).  Without
 * it a replayed module has no ORC data for the script's code, and the
 * kernel's unwinder stops at its first frame: backtraces from a handler
 * came back empty.  Kbuild is asked once, at recording time, to compile
 * script.o again with its commands shown (about a second); NULL where it
 * runs no objtool.
 */
static char *objtool_cmd(struct session *s, const char *dir)
{
	const char *log = arena_printf(&s->arena, "%s/objtool.log", dir);
	const char *argv[] = { "make", "-C", s->opt.kernel_build,
			       arena_printf(&s->arena, "M=%s", dir), "V=1", "-B", "script.o", NULL };
	const char *target = arena_printf(&s->arena, " %s/script.o", dir);
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	FILE *f;

	if (spawn_logged(argv, NULL, log, false, NULL))
		return NULL;
	f = fopen(log, "r");
	if (!f)
		return NULL;
	while (!found && getline(&line, &cap, f) > 0) {
		char *cmd = line + strspn(line, " \t"), *end;

		cmd[strcspn(cmd, "\n")] = '\0';
		end = cmd + strlen(cmd);
		if (strstr(cmd, "/objtool ") && !strchr(cmd, ';') &&
		    end - cmd > (ptrdiff_t)strlen(target) &&
		    !strcmp(end - strlen(target), target))
			found = arena_printf(&s->arena, "%s", cmd);
	}
	free(line);
	fclose(f);
	unlink(log);
	return found;
}

/* The units' objects joined by spaces, each after prefix. */
static char *unit_list(struct arena *a, const char *const *objs, const char *prefix)
{
	char *text = "";

	for (int i = 0; objs[i]; i++)
		text = arena_printf(a, "%s%s%s%s", text, i ? " " : "", prefix, objs[i]);
	return text;
}

/* The list of the units' objects as a mark; NULL if one of them is named
 * anywhere else (Kbuild listed them some other way). */
static char *mark_units(struct arena *a, const char *cmd, const char *const *objs)
{
	char *out = kbuild_replace(a, cmd, unit_list(a, objs, DIR_MARK "/"), DIRUNITS_MARK);

	out = kbuild_replace(a, out, unit_list(a, objs, ""), UNITS_MARK);
	return strstr(out, RT_UNIT_PREFIX) ? NULL : out;
}

void kbuild_record(struct session *s, const char *dir, const char *name, const char *const *objs,
		   const char *path, struct kbuild_pch *pch)
{
	char *text = KBUILD_REPLAY_FORMAT "\n", file[4200];

	for (size_t i = 0; i < NSTEPS; i++) {
		char *cmd;

		snprintf(file, sizeof(file), "%s/", dir);
		snprintf(file + strlen(file), sizeof(file) - strlen(file), steps[i].cmd, name);
		if (steps[i].optional && access(file, F_OK))
			continue;
		cmd = cmd_of(&s->arena, file);
		if (!cmd || strchr(cmd, '\n') || strstr(cmd, DIR_MARK) || strstr(cmd, NAME_MARK) ||
		    strstr(cmd, UNITS_MARK) || strstr(cmd, DIRUNITS_MARK))
			return;		/* not the Kbuild we know: keep using it */
		cmd = mark_units(&s->arena, kbuild_replace(&s->arena, cmd, dir, DIR_MARK), objs);
		cmd = cmd ? mark_name(&s->arena, cmd, name) : NULL;
		if (!cmd)
			return;
		text = arena_printf(&s->arena, "%s%s\n", text, cmd);
		if (!strcmp(steps[i].cmd, ".script.o.cmd") && !strstr(cmd, "objtool")) {
			char *objtool = objtool_cmd(s, dir);

			if (objtool)
				text = arena_printf(&s->arena, "%s%s\n", text,
						    kbuild_replace(&s->arena, objtool, dir, DIR_MARK));
		}
	}
	cache_store(path, text, strlen(text));
	/* `make prebuilt`: the headers precompiled now, while the directory
	 * has what the commands compiled.  Else the next build makes them
	 * (kbuild_pch.c): not a first build's two more seconds. */
	if (!getenv("CTAP_PREBUILD") || !*getenv("CTAP_PREBUILD"))
		return;
	pch->mode = PCH_MAKE;
	for (char *line = text, *end; (end = strchr(line, '\n')); line = end + 1)
		kbuild_pch(s, dir, name, arena_strndup(&s->arena, line, end - line), pch,
			   arena_printf(&s->arena, "%s/build.log", dir));
}

/* A recorded line as a command: the units' objects, the directory (as
 * $CTAP_BUILD_DIR) and the name in place of their marks. */
static char *expand(struct arena *a, const char *line, const char *name, const char *const *objs)
{
	if (objs) {
		line = kbuild_replace(a, line, DIRUNITS_MARK, unit_list(a, objs, DIR_MARK "/"));
		line = kbuild_replace(a, line, UNITS_MARK, unit_list(a, objs, ""));
	}
	return kbuild_replace(a, expand_dir(a, line), NAME_MARK, name);
}

static pid_t start_step(struct session *s, const char *dir, const char *cmd, const char *log)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	/* What Kbuild's make exports and its tools read: 6.12's objtool
	 * wants the source architecture (ctap targets x86_64 only). */
	const char *env[] = { arena_printf(&s->arena, "%s=%s", DIR_VAR, dir), "SRCARCH=x86", NULL };

	return spawn_start(argv, s->opt.kernel_build, log, true, env);
}

static int run_step(struct session *s, const char *dir, const char *cmd, const char *log)
{
	return spawn_wait(start_step(s, dir, cmd, log)) ? -EIO : 0;
}

int kbuild_run(struct session *s, const char *dir, const char *name, const char *line,
	       const char *log)
{
	return run_step(s, dir, expand(&s->arena, line, name, NULL), log);
}

pid_t kbuild_start(struct session *s, const char *dir, const char *name, const char *line,
		   const char *log)
{
	return start_step(s, dir, expand(&s->arena, line, name, NULL), log);
}

/*
 * The file a step writes into the build directory, if that is the only
 * file of it the step names (but its dependency file): a step the same for
 * every module, as 6.10+'s compile of .module-common.o.  NULL otherwise.
 */
static char *shared_output(struct arena *a, const char *line)
{
	const char *o = strstr(line, " -o " DIR_MARK "/"), *p;
	size_t n;

	if (!o || strstr(line, NAME_MARK) || strstr(line, UNITS_MARK) ||
	    strstr(line, DIRUNITS_MARK) || strstr(o + 4 + strlen(DIR_MARK), DIR_MARK))
		return NULL;
	for (p = line; (p = strstr(p, DIR_MARK)) && p < o; p++)
		if (p - line < 9 || strncmp(p - 9, "-Wp,-MMD,", 9))
			return NULL;
	o += 4 + strlen(DIR_MARK) + 1;
	n = strcspn(o, " \t;");
	return n && !memchr(o, '/', n) ? arena_strndup(a, o, n) : NULL;
}

/* A shared step's output from the cache, or the step run and its output
 * kept there (key: the command, the compiler, the kernel: seed).  Kept as
 * KEY.step, apart from the runtime's units (KEY.o). */
static int run_shared(struct session *s, const char *dir, const char *line, const char *cmd,
		      const char *file, uint64_t seed, const char *log)
{
	uint64_t key = kbuild_tool_key(seed, line);
	const char *store, *found = rt_file(s, arena_printf(&s->arena, "%016llx.step",
							     (unsigned long long)key), &store);
	const char *out = arena_printf(&s->arena, "%s/%s", dir, file);
	int ret;

	if (found && rt_copy(found, out) == 0)
		return 0;
	ret = run_step(s, dir, cmd, log);
	if (!ret)
		rt_keep(out, store);
	return ret;
}

/* The names in the symbol table of the ELF object at path, into set
 * (the file's memory, kept in *keep): 0, or -1. */
static int object_names(const char *path, struct strset *set, char **keep)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf *elf;
	Elf_Scn *scn = NULL;

	*keep = NULL;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(data, i, &sym) && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    *n)
				strset_add(set, n);
		}
		ret = 0;
	}
	/* The names point into the ELF's memory: kept until the set goes. */
	*keep = (char *)elf;
	close(fd);
	return ret;
}

/*
 * modpost's step reading only the lines of the kernel's Module.symvers
 * that name a symbol of the module (as the recorded line with another -i
 * file), or NULL to run the line as recorded.  modpost looks each line's
 * module up in a list, one strcmp() per module before it: 0.1 s of CPU
 * for 6.1's 24,683 lines (931 modules), a quarter of a replay; a few
 * hundred lines cost nothing, and give the .mod.c the same versions.
 * The names are those of the objects name.o is linked from (script.o and
 * the units, objs), read while that link runs (20 ms).  module_layout is
 * the symbol 6.1's and 5.10's modpost add; any other it wants and misses
 * fails the step, which then runs as recorded.
 */
static const char *kernel_symvers(struct session *s, const char *dir, const char *const *objs,
				  const char *line)
{
	static const char from[] = " -i Module.symvers";
	const char *at = strstr(line, from), *out;
	struct strset names = { 0 };
	char *elf[64] = { NULL }, *text = NULL, buf[4096];
	size_t len = 0;
	FILE *in, *mem;
	int k = 0;

	if (!strstr(line, "scripts/mod/modpost") || !at || !strchr(" \t", at[strlen(from)]) ||
	    object_names(arena_printf(&s->arena, "%s/script.o", dir), &names, &elf[k++]))
		goto fail;
	for (int i = 0; objs && objs[i]; i++)
		if (k == 64 || object_names(arena_printf(&s->arena, "%s/%s", dir, objs[i]), &names,
					    &elf[k++]))
			goto fail;
	strset_add(&names, "module_layout");
	in = fopen(arena_printf(&s->arena, "%s/Module.symvers", s->opt.kernel_build), "r");
	mem = in ? open_memstream(&text, &len) : NULL;
	while (mem && fgets(buf, sizeof(buf), in)) {
		char *sym = strchr(buf, '\t'), *end = sym ? strchr(sym + 1, '\t') : NULL;

		if (!end)
			continue;
		*end = '\0';
		if (strset_has(&names, sym + 1)) {
			*end = '\t';
			fputs(buf, mem);
		}
	}
	if (in)
		fclose(in);
	if (mem)
		fclose(mem);
	out = arena_printf(&s->arena, "%s/ctap-kernel.symvers", dir);
	if (!mem || !text || rt_write_text(out, text))
		goto fail;
	out = arena_printf(&s->arena, "%.*s -i " DIR_MARK "/ctap-kernel.symvers%s",
			   (int)(at - line), line, at + strlen(from));
	goto done;
fail:
	out = NULL;
done:
	strset_free(&names);
	for (int i = 0; i < k; i++)
		if (elf[i])
			elf_end((Elf *)elf[i]);
	free(text);
	return out;
}

/*
 * The .mod.c compiled before modpost writes it, beside the script's
 * compile (on the other CPU): modpost's .mod.c is the same for every
 * script whose module needs the same kernel symbols (it names the module
 * only as KBUILD_MODNAME), so the last one for these units is a good
 * guess (KEY.modc).  The guess is written where modpost writes, compiled
 * by the recorded command, and kept only if modpost then leaves the very
 * same text: otherwise the step runs as usual.
 */
struct guess {
	char *text;		/* the .mod.c guessed, or NULL */
	size_t len;
	const char *store;	/* where modpost's goes for the next build */
	pid_t pid;		/* its compile, until waited for */
	bool ok;		/* which then succeeded */
};

/* The guess's compile waited for: before modpost writes the .mod.c. */
static void guess_wait(struct guess *g)
{
	if (g->pid > 0)
		g->ok = spawn_wait(g->pid) == 0;
	g->pid = 0;
}

static void guess_start(struct session *s, const char *dir, const char *name,
			const char *const *objs, struct kbuild_pch *pch, const char *cmd,
			struct guess *g)
{
	uint64_t key = fnv1a(pch->keys[1], "modc", 4);
	const char *found;

	for (int i = 0; objs[i]; i++)
		key = fnv1a(key, objs[i], strlen(objs[i]) + 1);
	found = rt_file(s, arena_printf(&s->arena, "%016llx.modc", (unsigned long long)key),
			&g->store);
	g->text = found ? rt_slurp(found, &g->len) : NULL;
	if (g->text && !memchr(g->text, '\0', g->len) &&
	    !rt_write_text(arena_printf(&s->arena, "%s/%s.mod.c", dir, name), g->text))
		g->pid = start_step(s, dir, cmd, arena_printf(&s->arena, "%s/guess.log", dir));
}

/* Whether the guessed .mod.c was modpost's, and compiled (the step's
 * object is there then); modpost's kept for the next build if not. */
static bool guess_right(struct session *s, const char *dir, const char *name, struct guess *g)
{
	size_t len = 0;
	char *text = rt_slurp(arena_printf(&s->arena, "%s/%s.mod.c", dir, name), &len);
	bool same = text && g->text && len == g->len && !memcmp(text, g->text, len);

	guess_wait(g);
	if (text && !same && g->store)
		cache_store(g->store, text, len);
	free(text);
	return same && g->ok;
}

/* One recorded line (its command cmd) run: a shared step from the cache,
 * modpost with the kernel's symbols symvers if not NULL. */
static int run_line(struct session *s, const char *dir, const char *name,
		    const char *const *objs, struct kbuild_pch *pch, const char *line,
		    const char *cmd, const char *symvers, const char *log)
{
	const char *shared = pch ? shared_output(&s->arena, line) : NULL;
	int ret;

	if (shared)
		return run_shared(s, dir, line, cmd, shared, pch->keys[1], log);
	ret = run_step(s, dir, symvers ? expand(&s->arena, symvers, name, objs) : cmd, log);
	if (ret && symvers)	/* a symbol modpost wants that was left out */
		ret = run_step(s, dir, cmd, log);
	return ret;
}

/*
 * modpost (line mp) and the steps after it.  With the guessed .mod.c
 * compiled, those (the .ko's link) run beside modpost, which then only
 * tells whether the guess was right: 25 ms off a replay.  If it was not,
 * they run again, after it, with the .mod.c compiled (line mod).
 */
static int modpost_beside(struct session *s, const char *dir, const char *name,
			  const char *const *objs, struct kbuild_pch *pch, char **lines,
			  const char **cmds, int n, int mp, int mod, struct guess *g,
			  const char *symvers, const char *log)
{
	bool ahead = g->text && g->ok;
	pid_t pid = start_step(s, dir, symvers ? expand(&s->arena, symvers, name, objs) : cmds[mp],
			       log);
	int ret = 0;

	for (int j = mp + 1; ahead && !ret && j < n; j++)
		if (j != mod)
			ret = run_line(s, dir, name, objs, pch, lines[j], cmds[j], NULL, log);
	if (spawn_wait(pid) && !(symvers && run_step(s, dir, cmds[mp], log) == 0))
		return -EIO;
	if (guess_right(s, dir, name, g) && ahead)
		return ret;
	for (int j = mp + 1; j < n; j++) {
		ret = run_line(s, dir, name, objs, pch, lines[j], cmds[j], NULL, log);
		if (ret)
			return ret;
	}
	return 0;
}

int kbuild_replay(struct session *s, const char *dir, const char *name, const char *const *objs,
		  const char *path, struct kbuild_pch *pch)
{
	char file[4200], log[4200], *line = NULL, *lines[2 * NSTEPS];
	const char *cmds[2 * NSTEPS];
	struct guess g = { 0 };
	const char *symvers = NULL;
	bool have_symvers = false;
	size_t cap = 0;
	int ret = -ENOENT, n = 0, mod = -1;
	FILE *f, *empty;

	if (getenv("CTAP_KBUILD") || (cache_file_ok(path) && cache_installed_ok(path)))
		return -ENOENT;
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	/* modpost reads each object's .cmd (empty will do: neither object
	 * exports a symbol). */
	snprintf(file, sizeof(file), "%s/.script.o.cmd", dir);
	empty = fopen(file, "w");
	if (!empty)
		goto out;
	fclose(empty);
	snprintf(log, sizeof(log), "%s/build.log", dir);
	if (getline(&line, &cap, f) <= 0 || strcmp(line, KBUILD_REPLAY_FORMAT "\n"))
		goto out;
	if (pch)
		pch->mode = PCH_BACKGROUND;
	/* Every command first (the script's with its precompiled headers
	 * before the .mod.c's, which reads the same), then the guess. */
	for (; n < (int)(2 * NSTEPS) && getline(&line, &cap, f) > 0; n++) {
		line[strcspn(line, "\n")] = '\0';
		lines[n] = arena_strndup(&s->arena, line, strlen(line));
		cmds[n] = expand(&s->arena, kbuild_pch(s, dir, name, lines[n], pch, log), name, objs);
		if (strstr(lines[n], " -c -o " DIR_MARK "/" NAME_MARK ".mod.o "))
			mod = n;
	}
	if ((n == (int)(2 * NSTEPS) && getline(&line, &cap, f) > 0) || n < (int)NSTEPS - 1)
		goto out;		/* not a recording of ours: all steps but an optional one */
	if (pch && mod >= 0)
		guess_start(s, dir, name, objs, pch, cmds[mod], &g);
	for (int i = 0; i < n; i++) {
		if (strstr(lines[i], "modpost")) {
			guess_wait(&g);		/* before modpost writes the .mod.c */
			ret = modpost_beside(s, dir, name, objs, pch, lines, cmds, n, i, mod, &g,
					     have_symvers ? symvers :
					     kernel_symvers(s, dir, objs, lines[i]), log);
			goto out;
		}
		if (i + 1 < n && strstr(lines[i + 1], "modpost") &&
		    strstr(lines[i], " -o " DIR_MARK "/" NAME_MARK ".o ")) {
			/* the module's link, its symbols read for modpost meanwhile */
			pid_t pid = start_step(s, dir, cmds[i], log);

			symvers = kernel_symvers(s, dir, objs, lines[i + 1]);
			have_symvers = true;
			ret = spawn_wait(pid) ? -EIO : 0;
		} else {
			ret = run_line(s, dir, name, objs, pch, lines[i], cmds[i], NULL, log);
		}
		if (ret)
			goto out;
	}
	ret = -EINVAL;		/* no modpost: not a recording of ours */
out:
	free(line);
	fclose(f);
	guess_wait(&g);
	free(g.text);
	kbuild_pch_finish(s, dir, pch);
	return ret;
}
