/*
 * pty_ops - one of each terminal operation on a new pty pair, for the
 * tty.* aliases' test: /dev/ptmx opened and unlocked by ioctl, the slave
 * opened and given a 24x80 window (TIOCSWINSZ), "hi\n" written to the
 * master, the slave polled and read (a canonical line), "ok\n" written
 * to the slave and read at the master (all 8 bytes, echo included),
 * both closed.  No glibc helpers
 * (grantpt, ptsname): their ioctls differ between versions.  Silent;
 * exits 0 when both lines came through.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	struct pollfd pfd;
	char path[32], buf[64];
	int m, s, unlock = 0, n = -1, ok;
	ssize_t got;

	m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (m < 0 || ioctl(m, TIOCSPTLCK, &unlock) || ioctl(m, TIOCGPTN, &n))
		return 1;
	snprintf(path, sizeof(path), "/dev/pts/%d", n);
	s = open(path, O_RDWR | O_NOCTTY);
	if (s < 0 || ioctl(s, TIOCSWINSZ, &ws))
		return 2;
	if (write(m, "hi\n", 3) != 3)
		return 3;
	pfd.fd = s;
	pfd.events = POLLIN;
	got = poll(&pfd, 1, 5000) == 1 ? read(s, buf, sizeof(buf)) : -1;
	ok = got == 3 && !memcmp(buf, "hi\n", 3);
	if (write(s, "ok\n", 3) != 3)
		return 4;
	/* The master reads what the slave's output processing made of it
	 * (ONLCR: "ok\r\n"), after the echo of "hi\n" ("hi\r\n"): until
	 * all of it came, so that nothing is still on its way at the close
	 * (the slave writes "ok" and "\r\n" separately). */
	for (n = 0; n < 8; n += got) {
		got = read(m, buf + n, sizeof(buf) - 1 - n);
		if (got <= 0)
			break;
	}
	ok = ok && n == 8 && !memcmp(buf, "hi\r\nok\r\n", 8);
	close(s);
	close(m);
	return ok ? 0 : 5;
}
