// SPDX-License-Identifier: GPL-2.0
/*
 * test_options.c - staprun's command line (staprun/options.c): the values
 * checked, the options that do not go together refused, and the module
 * parameters in the kernel's order (staprun's own first, then the user's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"
#include "unit.h"

/* options_parse() on a command line, getopt reset as for a new program. */
static int parse(struct options *o, const char *line)
{
	static char buf[512];
	char *argv[32];
	int argc = 0;

	memset(o, 0, sizeof(*o));
	snprintf(buf, sizeof(buf), "staprun %s", line);
	for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	optind = 0;	/* glibc: a full reinitialisation */
	opterr = 0;
	return options_parse(o, argc, argv);
}

static void test_values(void)
{
	struct options o;

	CHECK_INT(parse(&o, "-o out -S 2,3 -T 7 -x 42 stap_x.ko"), 0, "valid options");
	CHECK_INT(o.fsize_max, 2 << 20, "-S MB as bytes");
	CHECK_INT(o.fnum_max, 3, "-S MB,N keeps N files");
	CHECK_INT(o.timeout_s, 7, "-T");
	CHECK_INT(o.target, 42, "-x");
	CHECK_STR(o.modname, "stap_x", "the module's name from its path");
	CHECK_INT(parse(&o, "-x 0 m.ko"), -EINVAL, "-x 0 refused");
	CHECK_INT(parse(&o, "-S 0 -o f m.ko"), -EINVAL, "-S 0 refused");
	CHECK_INT(parse(&o, "-S 1,-1 -o f m.ko"), -EINVAL, "-S with a negative count refused");
	CHECK_INT(parse(&o, "-s 4096 m.ko"), -EINVAL, "-s over 4095 MB refused");
	CHECK_INT(parse(&o, "-T 3x m.ko"), -EINVAL, "-T with trailing text refused");
	CHECK_INT(parse(&o, "-T 0 m.ko"), -EINVAL, "-T 0 refused");
	CHECK_INT(parse(&o, "-N 77 m.ko"), 0, "-N");
	CHECK_INT(o.ns_pid, 77, "-N's pid");
	CHECK_INT(parse(&o, "-N 0 m.ko"), -EINVAL, "-N 0 refused");
	CHECK_INT(parse(&o, "-N 7x m.ko"), -EINVAL, "-N with trailing text refused");
}

static void test_combinations(void)
{
	struct options o;

	CHECK_INT(parse(&o, "-S 1 m.ko"), -EINVAL, "-S without -o refused");
	CHECK_INT(parse(&o, "-S 1 -o f -b m.ko"), -EINVAL, "-S with -b refused");
	CHECK_INT(parse(&o, "-c true -x 5 m.ko"), -EINVAL, "-c with -x refused");
	CHECK_INT(parse(&o, "-A m x=1"), -EINVAL, "-A with parameters refused");
	CHECK_INT(parse(&o, "-d -c true m"), -EINVAL, "-d with -c refused");
	CHECK_INT(parse(&o, "-v"), -EINVAL, "no module refused");
	CHECK_INT(parse(&o, "-A m"), 0, "-A NAME");
	CHECK(o.attach && !o.unload, "-A sets attach only");
}

/* -L and -D leave no terminal behind: what needs one is refused. */
static void test_detach(void)
{
	struct options o;

	CHECK_INT(parse(&o, "-L -s 2 -x 5 m.ko"), 0, "-L with -s and -x");
	CHECK(o.load_only && !o.daemon, "-L sets load_only");
	CHECK_INT(parse(&o, "-D -o f -S 1,2 -T 9 m.ko"), 0, "-D with -o, -S and -T");
	CHECK(o.daemon && !o.load_only, "-D sets daemon");
	CHECK_INT(parse(&o, "-D -b m.ko"), 0, "-D with -b's files");
	CHECK_INT(parse(&o, "-D m.ko"), -EINVAL, "-D without -o or -b refused");
	CHECK_INT(parse(&o, "-L -D -o f m.ko"), -EINVAL, "-L with -D refused");
	CHECK_INT(parse(&o, "-L -o f m.ko"), -EINVAL, "-L with -o refused (output stays in the module)");
	CHECK_INT(parse(&o, "-L -T 3 m.ko"), -EINVAL, "-L with -T refused");
	CHECK_INT(parse(&o, "-L -c true m.ko"), -EINVAL, "-L with -c refused");
	CHECK_INT(parse(&o, "-D -o f -i m.ko"), -EINVAL, "-D with -i refused");
	CHECK_INT(parse(&o, "-L -A m"), -EINVAL, "-L with -A refused");
}

static void test_params(void)
{
	struct options o;

	CHECK_INT(parse(&o, "-b -s 8 m.ko a=1 b=two"), 0, "-b -s and parameters");
	CHECK_INT(o.nparams, 4, "four parameters");
	CHECK_STR(o.param_args[0], "ctap_bulk=1", "-b first");
	CHECK_STR(o.param_args[1], "ctap_buffer_mb=8", "-s next");
	CHECK_STR(o.param_args[2], "a=1", "then the user's, in order");
	CHECK_STR(o.param_args[3], "b=two", "the last");
	free(o.param_args);
	CHECK_INT(parse(&o, "m.ko"), 0, "no parameters");
	CHECK_INT(o.nparams, 0, "none added");
	free(o.param_args);
}

int main(void)
{
	test_values();
	test_combinations();
	test_detach();
	test_params();
	return unit_done();
}
