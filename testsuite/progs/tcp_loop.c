/*
 * tcp_loop [PORT] - one TCP connection over loopback, for tcp tests: bring
 * lo up, listen on 127.0.0.1:PORT (40002), connect from 127.0.0.1:PORT+1,
 * send "ctap" (4 bytes), receive it on the accepted socket, close both.
 * The client's port stays in TIME_WAIT a while: tests in one boot give
 * different PORTs.  Exits non-zero if a step fails.
 *
 * tcp_loop PORT nodelay - the client sets TCP_NODELAY (level IPPROTO_TCP)
 * before it connects, for tcp.setsockopt.
 *
 * tcp_loop PORT resets - then two failures, for the MIB counters' test:
 * a connect to PORT+2, where nothing listens (refused: the peer's reset
 * ends the attempt), and a second connection from PORT+3 whose client
 * closes with the server's "ctap" unread (it sends a reset, and the
 * server's established socket receives it).
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int resets(int l, int port)
{
	struct sockaddr_in srv = loopback(port), none = loopback(port + 2), cli = loopback(port + 3);
	int c, a;
	char buf[16];

	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || !connect(c, (struct sockaddr *)&none, sizeof(none)))
		return 5;
	close(c);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || bind(c, (struct sockaddr *)&cli, sizeof(cli)) ||
	    connect(c, (struct sockaddr *)&srv, sizeof(srv)))
		return 6;
	a = accept(l, NULL, NULL);
	/* Wait for the data to arrive before closing with it unread. */
	if (a < 0 || send(a, "ctap", 4, 0) != 4 || recv(c, buf, 1, MSG_PEEK) != 1)
		return 7;
	close(c);
	/* The reset: the server's next receive fails. */
	if (recv(a, buf, sizeof(buf), 0) >= 0)
		return 8;
	close(a);
	close(l);
	return 0;
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 40002;
	struct sockaddr_in srv = loopback(port), cli = loopback(port + 1);
	struct ifreq ifr = { 0 };
	int one = 1, l, c, a;
	char buf[16];

	l = socket(AF_INET, SOCK_STREAM, 0);
	strcpy(ifr.ifr_name, "lo");
	if (l < 0 || ioctl(l, SIOCGIFFLAGS, &ifr))
		return 1;
	ifr.ifr_flags |= IFF_UP;
	ioctl(l, SIOCSIFFLAGS, &ifr);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&srv, sizeof(srv)) || listen(l, 1))
		return 2;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c >= 0 && argc > 2 && !strcmp(argv[2], "nodelay") &&
	    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return 9;
	if (c < 0 || bind(c, (struct sockaddr *)&cli, sizeof(cli)) ||
	    connect(c, (struct sockaddr *)&srv, sizeof(srv)))
		return 3;
	a = accept(l, NULL, NULL);
	if (a < 0 || send(c, "ctap", 4, 0) != 4 || recv(a, buf, sizeof(buf), 0) != 4)
		return 4;
	close(c);
	close(a);
	return argc > 2 && !strcmp(argv[2], "resets") ? resets(l, port) : (close(l), 0);
}
