/*
 * blk_io - block I/O with known sectors, for ioblock tests: attach a
 * 1 MiB file in /tmp to a free loop device, write 4096 bytes at offset
 * 8192 and read 4096 bytes at 0 with O_DIRECT (one bio each), detach.
 * "blk_io read": then also read 4096 bytes at 8192 through the page cache
 * (the block device's readahead: mpage's do_mpage_readpage).
 * Needs the loop module.  Exits non-zero if a step fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char img[] = "/tmp/blk_io.img";
	char dev[32];
	void *buf;
	int ctl, n, f, d, ok;

	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	f = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (n < 0 || f < 0 || ftruncate(f, 1 << 20) || posix_memalign(&buf, 4096, 4096))
		return 1;
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	d = open(dev, O_RDWR);
	if (d < 0 || ioctl(d, LOOP_SET_FD, f))
		return 2;
	close(d);
	d = open(dev, O_RDWR | O_DIRECT);
	memset(buf, 'c', 4096);
	ok = d >= 0 && pwrite(d, buf, 4096, 8192) == 4096 && pread(d, buf, 4096, 0) == 4096;
	if (d >= 0)
		close(d);
	if (ok && argc > 1 && !strcmp(argv[1], "read")) {
		d = open(dev, O_RDONLY);
		ok = d >= 0 && pread(d, buf, 4096, 8192) == 4096 && ((char *)buf)[0] == 'c';
		if (d >= 0)
			close(d);
	}
	d = open(dev, O_RDWR);
	if (d < 0 || ioctl(d, LOOP_CLR_FD, 0))
		return 3;
	close(d);
	close(f);
	unlink(img);
	return ok ? 0 : 4;
}
