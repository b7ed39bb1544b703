// SPDX-License-Identifier: GPL-2.0
/*
 * ptyrun - run a command on a pseudo-terminal and play a user at it:
 *
 *   ptyrun TEXT KEYS [TEXT KEYS ...] -- CMD [ARG...]
 *
 * For each pair, waits (30 s at most) until the terminal has shown TEXT
 * since the previous pair's, then types KEYS ("" types nothing).  Then
 * reads to the end (30 s; then q twice, SIGINT, SIGKILL) and prints, one a line, "saw TEXT" for each TEXT seen
 * in time (the first missing one ends the play), and "exit N".  The
 * terminal is 80x24; what the command draws is matched with its escape
 * sequences taken out, so TEXT must be drawn in one run.  A guest
 * workload for staprun -M's view (run/monitor_tty).
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char screen[1 << 20];	/* what was shown, escapes taken out */
static size_t shown, escape;	/* escape: inside an ESC sequence */

/* Keeps the printable text of what the terminal got. */
static void keep(const char *buf, ssize_t n)
{
	for (ssize_t i = 0; i < n && shown + 1 < sizeof(screen); i++) {
		unsigned char ch = buf[i];

		if (escape == 1) {		/* ESC: '[' opens a CSI, else one char */
			escape = ch == '[' ? 2 : 0;
		} else if (escape == 2) {	/* CSI: ends at a letter */
			if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '@' ||
			    ch == '~')
				escape = 0;
		} else if (ch == 27) {
			escape = 1;
		} else if (ch >= ' ' || ch == '\n') {
			screen[shown++] = ch;
		}
	}
	screen[shown] = '\0';
}

/* Reads what the terminal shows for up to ms; false at its end. */
static int pump(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	keep(buf, n);
	return 1;
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	int sep, fd, status, open = 1;
	size_t from = 0;
	pid_t pid;

	for (sep = 1; sep < argc && strcmp(argv[sep], "--"); sep++)
		;
	if (sep >= argc - 1 || (sep - 1) % 2) {
		fprintf(stderr, "usage: ptyrun TEXT KEYS [TEXT KEYS ...] -- CMD [ARG...]\n");
		return 2;
	}
	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("ptyrun: forkpty");
		return 2;
	}
	if (pid == 0) {
		setenv("TERM", "vt100", 1);
		execvp(argv[sep + 1], argv + sep + 1);
		perror("ptyrun: exec");
		_exit(127);
	}
	for (int i = 1; i < sep && open; i += 2) {
		time_t end = time(NULL) + 30;
		char *at = NULL;

		while (open && !(at = strstr(screen + from, argv[i])) && time(NULL) < end)
			open = pump(fd, 200);
		if (!at)
			break;
		printf("saw %s\n", argv[i]);
		from = at - screen + strlen(argv[i]);
		if (*argv[i + 1] && write(fd, argv[i + 1], strlen(argv[i + 1])) < 0)
			break;
	}
	/* To the end; one that does not come gets q twice (a view quits and
	 * closes), then SIGINT, before SIGKILL leaves a module loaded. */
	for (int round = 0; open && round < 3; round++) {
		time_t end = time(NULL) + (round ? 10 : 30);

		while (open && time(NULL) < end)
			open = pump(fd, 200);
		if (open && round == 0 && write(fd, "q", 1) == 1)
			open = pump(fd, 2000) && write(fd, "q", 1) == 1;
		else if (open && round == 1)
			kill(pid, SIGINT);
	}
	if (open)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
