/*
 * udp_loop N - bring the loopback interface up, then send N datagrams
 * "ctap-1".."ctap-N" from 127.0.0.1:40000 to 127.0.0.1:40001 and receive
 * each (waiting at most 200 ms), for netfilter tests.  Silent.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int bound(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)))
		exit(1);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, tx, rx, s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(40001) };
	struct timeval wait = { 0, 200000 };
	struct ifreq ifr = { 0 };
	char buf[32];

	strcpy(ifr.ifr_name, "lo");
	if (s >= 0 && !ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	tx = bound(40000);
	rx = bound(40001);
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 1; i <= n; i++) {
		int len = snprintf(buf, sizeof(buf), "ctap-%d", i);

		sendto(tx, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
		recvfrom(rx, buf, sizeof(buf), 0, NULL, NULL);
	}
	return 0;
}
