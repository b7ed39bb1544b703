/*
 * ctl_poll PATH MS - open PATH (a module's /proc/ctap-NAME/.cmd) without
 * blocking and poll() it for input for MS milliseconds; prints what poll()
 * returned.  A waiter whose entry sits on the module's wait queue while
 * something tries to unload the module (guest/ctl-unload-open).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct pollfd pfd = { .events = POLLIN };
	int n;

	if (argc != 3)
		return 2;
	pfd.fd = open(argv[1], O_RDONLY | O_NONBLOCK);
	if (pfd.fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = poll(&pfd, 1, atoi(argv[2]));
	printf("poll: %d\n", n);
	return 0;
}
