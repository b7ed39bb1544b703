// SPDX-License-Identifier: GPL-2.0
/*
 * input.c - staprun -i: the user's keystrokes to the script's input
 * probes.  SystemTap's input.char and input.line are procfs("__stdin")
 * .write probes; staprun writes what it reads on stdin into
 * /proc/systemtap/MODULE/__stdin one byte at a time, so that each write
 * is one character for input.char.  A terminal is put in non-canonical
 * mode without echo for the session, as SystemTap's staprun does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "staprun.h"

int input_start(struct input *in, const char *modname)
{
	struct termios raw;

	snprintf(in->path, sizeof(in->path), "/proc/systemtap/%s/__stdin", modname);
	in->proc_fd = open(in->path, O_WRONLY | O_CLOEXEC);
	if (in->proc_fd < 0)
		return -errno;
	in->active = true;
	in->tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &in->saved) == 0;
	if (in->tty) {
		raw = in->saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	return 0;
}

int input_fd(const struct input *in)
{
	return in->active ? STDIN_FILENO : -1;
}

void input_forward(struct input *in)
{
	char buf[256];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			in->active = false;	/* end of input: the script goes on */
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (write(in->proc_fd, &buf[i], 1) != 1)
			dbug("writing to %s: %s\n", in->path, strerror(errno));
}

void input_stop(struct input *in)
{
	if (in->tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &in->saved);
	in->tty = false;
	in->active = false;
	if (in->proc_fd >= 0)
		close(in->proc_fd);
	in->proc_fd = -1;
}
