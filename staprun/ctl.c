// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the control channel: framed messages over the module's .cmd file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

int ctl_open(const char *modname)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s%s/%s", CTAP_PROCFS_PREFIX, modname, CTAP_CMD_FILE);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int ctl_send(int fd, uint32_t type, const void *payload, uint32_t len)
{
	char buf[sizeof(struct ctap_msg_hdr) + CTAP_MSG_MAX_PAYLOAD];
	struct ctap_msg_hdr hdr = { .type = type, .len = len };
	ssize_t n;

	if (len > CTAP_MSG_MAX_PAYLOAD)
		return -EMSGSIZE;
	memcpy(buf, &hdr, sizeof(hdr));
	if (len)
		memcpy(buf + sizeof(hdr), payload, len);
	dbug("ctl: send type %u len %u\n", type, len);
	n = write(fd, buf, sizeof(hdr) + len);
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(hdr) + len ? 0 : -EIO;
}

int ctl_recv(int fd, struct ctap_msg_hdr *hdr, char *payload, size_t size)
{
	char buf[sizeof(struct ctap_msg_hdr) + CTAP_MSG_MAX_PAYLOAD];
	ssize_t n;

	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(*hdr))
		return -EPROTO;
	memcpy(hdr, buf, sizeof(*hdr));
	if (hdr->len != (size_t)n - sizeof(*hdr) || hdr->len >= size)
		return -EPROTO;
	memcpy(payload, buf + sizeof(*hdr), hdr->len);
	payload[hdr->len] = '\0';
	dbug("ctl: recv type %u len %u\n", hdr->type, hdr->len);
	return 0;
}

void ctl_open_failed(const char *modname, int err)
{
	if (err == -ENOENT)
		errmsg("module '%s' is not a ctap session (it has no /proc/%s%s/%s)\n",
		       modname, CTAP_PROCFS_PREFIX, modname, CTAP_CMD_FILE);
	else if (err == -EPERM)
		errmsg("session '%s' was started by another user: only they and root may stop it "
		       "or attach to it\n", modname);
	else if (err == -EBUSY)
		errmsg("module '%s' is busy: another staprun is attached to it\n", modname);
	else
		errmsg("cannot open the control channel of '%s': %s\n", modname, strerror(-err));
}
