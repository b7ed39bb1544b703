// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - staprun's command line: what the user asked for, checked
 * before anything is opened, and the module parameters -b and -s become.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: staprun [options] MODULE.ko [name=value ...]\n"
		"       staprun [options] NAME [name=value ...]\n"
		"              (NAME: /lib/modules/RELEASE/systemtap/NAME.ko)\n"
		"       staprun -L|-D [options] MODULE.ko [name=value ...]\n"
		"       staprun -A|-d NAME\n"
		"  -v          more verbose (repeat for more)\n"
		"  -c CMD      run CMD once the probes are armed; stop when it exits\n"
		"  -x PID      set target() to PID\n"
		"  -o FILE     write the output to FILE (FILE.1, FILE.2... after switch_file()\n"
		"              or SIGUSR2)\n"
		"  -S MB[,N]   with -o: go on in the next file once one is larger than MB\n"
		"              megabytes (FILE.0, FILE.1...), keeping the N newest\n"
		"  -T SECONDS  stop after SECONDS\n"
		"  -N PID      ns_pid(), ns_uid()... in the namespaces of process PID\n"
		"  -b          bulk mode: one output file per CPU (FILE_cpuN, or stpd_cpuN)\n"
		"  -s MB       output buffer size in MB (per CPU with -b)\n"
		"  -i          send stdin to the script's input.char/input.line probes\n"
		"  -M SECONDS  monitor mode (stap --monitor): a live view of the probes' hits\n"
		"              and cost and the globals on the terminal, refreshed every SECONDS\n"
		"  -L          load and start the module, then detach, leaving it running (the\n"
		"              flight recorder: its buffers keep the newest output for -A)\n"
		"  -D          with -o or -b: go on in the background as a daemon (its pid printed)\n"
		"  -A          attach to the ctap session NAME, loaded and running already\n"
		"  -d          stop and unload the ctap session NAME, loaded and running already\n"
		"  -V          print the version and exit\n"
		"  -h          this help\n"
		"  --check     (alone) report whether this kernel can run ctap's modules\n");
}

/* One option of getopt's; 0, or -EINVAL with the reason said. */
static int parse_option(struct options *o, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 'v':
		verbose++;
		break;
	case 'c':
		o->cmd = arg;
		break;
	case 'x':
		o->target = strtol(arg, &end, 10);
		if (*end || o->target <= 0) {
			errmsg("invalid -x pid '%s'\n", arg);
			return -EINVAL;
		}
		break;
	case 'N':
		o->ns_pid = strtol(arg, &end, 10);
		if (*end || o->ns_pid <= 0) {
			errmsg("invalid -N pid '%s'\n", arg);
			return -EINVAL;
		}
		break;
	case 'o':
		o->outfile = arg;
		break;
	case 'S':
		o->fsize_max = strtoull(arg, &end, 10);
		if (*end == ',')
			o->fnum_max = strtol(end + 1, &end, 10);
		if (*end || !o->fsize_max || o->fsize_max > 1UL << 20 || o->fnum_max < 0) {
			errmsg("invalid -S '%s' (MB[,N])\n", arg);
			return -EINVAL;
		}
		o->fsize_max <<= 20;
		break;
	case 'T':
		o->timeout_s = strtol(arg, &end, 10);
		if (*end || o->timeout_s <= 0) {
			errmsg("invalid -T timeout '%s'\n", arg);
			return -EINVAL;
		}
		break;
	case 'M':
		o->monitor = strtol(arg, &end, 10);
		if (*end || o->monitor <= 0 || o->monitor > 86400) {
			errmsg("Invalid monitor interval '%s'\n", arg);
			return -EINVAL;
		}
		break;
	case 'b':
		o->bulk = true;
		break;
	case 'i':
		o->read_stdin = true;
		break;
	case 's':
		o->buffer_mb = strtol(arg, &end, 10);
		if (*end || o->buffer_mb <= 0 || o->buffer_mb > 4095) {
			errmsg("invalid -s buffer size '%s' (MB, 1-4095)\n", arg);
			return -EINVAL;
		}
		break;
	case 'L':
		o->load_only = true;
		break;
	case 'D':
		o->daemon = true;
		break;
	case 'A':
		o->attach = true;
		break;
	case 'd':
		o->unload = true;
		break;
	case 'V':
		printf("ctap staprun %s\n", PACKAGE_VERSION);
		exit(0);
	case 'h':
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/*
 * -L and -D leave no terminal behind: no -c command or stdin to serve,
 * and -D's output must go to files.  -L keeps the output in the module.
 */
static int check_detach(const struct options *o)
{
	if (o->load_only && o->daemon) {
		errmsg("-L and -D are mutually exclusive\n");
		return -EINVAL;
	}
	if ((o->load_only || o->daemon) && (o->cmd || o->read_stdin || o->attach || o->unload)) {
		errmsg("-%c cannot be used with -c, -i, -A or -d\n", o->load_only ? 'L' : 'D');
		return -EINVAL;
	}
	if (o->load_only && (o->outfile || o->bulk || o->timeout_s)) {
		errmsg("-L keeps the output in the module's buffers for -A: "
		       "-o, -b and -T need -D instead\n");
		return -EINVAL;
	}
	if (o->daemon && !o->outfile && !o->bulk) {
		errmsg("-D needs -o FILE (or -b): a daemon has no terminal to print to\n");
		return -EINVAL;
	}
	return 0;
}

/* The options that go together. */
static int check_options(struct options *o)
{
	if (o->fsize_max && (!o->outfile || o->bulk)) {
		errmsg("-S needs -o FILE, without -b\n");
		return -EINVAL;
	}
	if (o->cmd && o->target) {
		errmsg("-c and -x are mutually exclusive\n");
		return -EINVAL;
	}
	/* The view takes the terminal's keys: stdin is not the script's. */
	if (o->monitor && (o->read_stdin || o->load_only || o->daemon || o->unload)) {
		errmsg("-M views the session on this terminal: not with -i, -L, -D or -d\n");
		return -EINVAL;
	}
	return check_detach(o);
}

/* The module named, and what goes with -A, -d. */
static int check_module(struct options *o, int argc, char **argv)
{
	if (optind >= argc) {
		usage(stderr);
		return -EINVAL;
	}
	o->ko_path = argv[optind++];
	if (module_name_from_path(o->ko_path, o->modname, sizeof(o->modname))) {
		errmsg("invalid module name '%s'\n", o->ko_path);
		return -EINVAL;
	}
	if ((o->attach || o->unload) && (o->cmd || optind < argc)) {
		errmsg("-A and -d take a module name only\n");
		return -EINVAL;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv)
{
	int opt, ret;

	while ((opt = getopt(argc, argv, "+vc:x:N:o:S:T:s:M:ibLDAdVh")) != -1) {
		ret = parse_option(o, opt, optarg);
		if (ret)
			return ret;
	}
	ret = check_options(o);
	if (!ret)
		ret = check_module(o, argc, argv);
	if (ret)
		return ret;
	/* -b and -s are parameters of the runtime's (transport.c) */
	o->param_args = calloc(argc - optind + 2, sizeof(*o->param_args));
	if (!o->param_args) {
		errmsg("%s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (o->bulk)
		o->param_args[o->nparams++] = "ctap_bulk=1";
	if (o->buffer_mb) {
		snprintf(o->buffer_arg, sizeof(o->buffer_arg), "ctap_buffer_mb=%d", o->buffer_mb);
		o->param_args[o->nparams++] = o->buffer_arg;
	}
	for (int i = optind; i < argc; i++)
		o->param_args[o->nparams++] = argv[i];
	return 0;
}
