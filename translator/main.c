/*
 * main.c - the stap command: options, then the passes.
 *
 * Pass 1 (parse) and later passes arrive with their issues; until then stap
 * knows its options and says plainly that it cannot translate yet.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stap [options] FILE [ARGS ...]   run script in FILE\n"
		"   or: stap [options] -e SCRIPT [ARGS ...]\n"
		"  -p NUM     stop after pass NUM 1-5\n"
		"  -v         more verbose\n"
		"  -V         print the version and exit\n");
}

int main(int argc, char **argv)
{
	int opt, last_pass = 5;

	while ((opt = getopt(argc, argv, "+p:e:vVh")) != -1) {
		switch (opt) {
		case 'p':
			last_pass = atoi(optarg);
			if (last_pass < 1 || last_pass > 5) {
				fprintf(stderr, "Invalid pass number (should be 1-5).\n");
				return 1;
			}
			break;
		case 'V':
			printf("ctap stap %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'e':
		case 'v':
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	fprintf(stderr, "stap: the translator is not implemented yet\n");
	return 1;
}
