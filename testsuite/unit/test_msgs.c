/*
 * test_msgs.c - staprun's side of the control protocol, against a
 * SOCK_SEQPACKET socket pair that keeps message boundaries like .cmd does.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <unistd.h>

#include "staprun.h"
#include "unit.h"

static void test_module_names(void)
{
	char name[16];

	CHECK_INT(module_name_from_path("/tmp/x/stap_abc.ko", name, sizeof(name)), 0,
		  "path with directory");
	CHECK_STR(name, "stap_abc", "directory and .ko stripped");
	module_name_from_path("my-mod.ko", name, sizeof(name));
	CHECK_STR(name, "my_mod", "'-' becomes '_' as the kernel does");
	module_name_from_path("noext", name, sizeof(name));
	CHECK_STR(name, "noext", "no .ko suffix");
	CHECK_INT(module_name_from_path("/x/.ko", name, sizeof(name)), -EINVAL,
		  "empty name rejected");
	CHECK_INT(module_name_from_path("a_name_much_too_long.ko", name, sizeof(name)),
		  -EINVAL, "name longer than the buffer rejected");
}

static void test_framing(void)
{
	struct ctap_msg_start start = { .target = 4242 };
	struct ctap_msg_hdr hdr;
	char payload[CTAP_MSG_MAX_PAYLOAD + 1], big[CTAP_MSG_MAX_PAYLOAD + 1];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		CHECK(0, "socketpair: %s", strerror(errno));
		return;
	}
	CHECK_INT(ctl_send(sv[0], CTAP_MSG_START, &start, sizeof(start)), 0, "send START");
	CHECK_INT(ctl_recv(sv[1], &hdr, payload, sizeof(payload)), 0, "receive START");
	CHECK_INT(hdr.type, CTAP_MSG_START, "type preserved");
	CHECK_INT(hdr.len, sizeof(start), "length preserved");
	CHECK_INT(((struct ctap_msg_start *)payload)->target, 4242, "payload preserved");

	ctl_send(sv[0], CTAP_MSG_OOB, "WARNING: x", 10);
	ctl_recv(sv[1], &hdr, payload, sizeof(payload));
	CHECK_STR(payload, "WARNING: x", "text payload NUL-terminated");

	memset(big, 'x', sizeof(big));
	CHECK_INT(ctl_send(sv[0], CTAP_MSG_OOB, big, sizeof(big)), -EMSGSIZE,
		  "oversized payload refused");
	CHECK_INT(ctl_send(sv[0], CTAP_MSG_OOB, big, 100), 0, "send 100 bytes");
	CHECK_INT(ctl_recv(sv[1], &hdr, payload, 50), -EPROTO,
		  "payload larger than the caller's buffer is an error, not an overflow");

	hdr.type = CTAP_MSG_OOB;
	hdr.len = 500;		/* claims more than is sent */
	if (write(sv[0], &hdr, sizeof(hdr)) != sizeof(hdr))
		CHECK(0, "write");
	CHECK_INT(ctl_recv(sv[1], &hdr, payload, sizeof(payload)), -EPROTO,
		  "header whose length disagrees with the message is refused");
	if (write(sv[0], "abc", 3) != 3)
		CHECK(0, "write");
	CHECK_INT(ctl_recv(sv[1], &hdr, payload, sizeof(payload)), -EPROTO,
		  "message shorter than a header is refused");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	test_module_names();
	test_framing();
	return unit_done();
}
