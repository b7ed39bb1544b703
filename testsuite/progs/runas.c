/*
 * runas UID PROGRAM [ARGS...] - run PROGRAM as UID (and its gid): the
 * guest has no su, and the tests need an unprivileged user.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID PROGRAM [ARGS...]\n");
		return 2;
	}
	uid = atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("runas: exec");
	return 127;
}
