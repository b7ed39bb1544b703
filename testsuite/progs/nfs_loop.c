/*
 * nfs_loop - an NFSv4.2 mount over loopback, served by the kernel's own
 * nfsd, with no other user space: lo up; a tmpfs exported through the
 * server's cache channels as rpc.mountd would answer them (127.0.0.1 is
 * domain "ctap", the tmpfs its export with fsid 0, the NFSv4 root); nfsd
 * started through its file system (NFSv3 off, this kernel builds no
 * NFSv2: NFSv4 only, which needs no rpcbind or lockd;
 * lease and grace 10 s, the grace ended at once or waited out); the client
 * mounted with mount(2), as mount.nfs does.  On the mount: mkdir ctap,
 * create ctap/data, write 5000 bytes, fsync, close; read them back with
 * O_DIRECT (so that they come from the server, not the page cache);
 * rename data to data2; unlink data2; rmdir ctap.  Then unmount and
 * stop the server.  The workload of run/nfs_loopback; silent, but a
 * failed step is named on stderr (exit status 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SRV "/tmp/ctap-srv"
#define MNT "/tmp/ctap-mnt"
#define NFSD "/tmp/ctap-nfsd"
/* A cache entry's expiry, seconds since the epoch: far away (2038). */
#define FOREVER "2147483647"
/* NFSEXP_INSECURE_PORT | NFSEXP_NOSUBTREECHECK | NFSEXP_FSID */
#define EXPORT_FLAGS "9218"

static int fail(const char *step)
{
	fprintf(stderr, "nfs_loop: %s: %s\n", step, strerror(errno));
	return 1;
}

/* Writes text to path in one write(2), as the kernel's files want. */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void lo_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	strcpy(ifr.ifr_name, "lo");
	if (s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (s >= 0)
		close(s);
}

/*
 * Ends the server's grace period, in which it refuses new opens: at once
 * by v4_end_grace where the kernel allows it (6.1's later stable kernels
 * refuse it, EBUSY, while no client tracking runs: nfsdcld is not
 * here), else waits for its 10 s to pass (the file reads "Y").
 */
static int end_grace(void)
{
	char c = 'N';
	int i, fd;

	if (put(NFSD "/v4_end_grace", "Y\n") == 0)
		return 0;
	for (i = 0; i < 80 && c != 'Y'; i++) {
		usleep(500000);
		fd = open(NFSD "/v4_end_grace", O_RDONLY);
		if (fd < 0 || read(fd, &c, 1) != 1)
			c = 'N';
		if (fd >= 0)
			close(fd);
	}
	if (c == 'Y')
		return 0;
	errno = ETIMEDOUT;
	return fail("grace period");
}

static int start_server(void)
{
	mkdir(SRV, 0755);
	mkdir(NFSD, 0755);
	if (mount("tmpfs", SRV, "tmpfs", 0, "mode=0777"))
		return fail("mount tmpfs");
	if (mount("nfsd", NFSD, "nfsd", 0, NULL))
		return fail("mount nfsd");
	if (put(NFSD "/versions", "-3\n"))
		return fail("versions");
	if (put(NFSD "/nfsv4leasetime", "10\n") || put(NFSD "/nfsv4gracetime", "10\n"))
		return fail("lease and grace time");
	if (put(NFSD "/threads", "1\n"))
		return fail("threads");
	if (put("/proc/net/rpc/auth.unix.ip/channel", "nfsd 127.0.0.1 " FOREVER " ctap\n"))
		return fail("auth.unix.ip");
	if (put("/proc/net/rpc/nfsd.export/channel",
		"ctap " SRV " " FOREVER " " EXPORT_FLAGS " 65534 65534 0\n"))
		return fail("nfsd.export");
	/* fsid type 1 (a number), fsid 0: the NFSv4 root */
	if (put("/proc/net/rpc/nfsd.fh/channel", "ctap 1 \\x00000000 " FOREVER " " SRV "\n"))
		return fail("nfsd.fh");
	return end_grace();
}

static int file_ops(void)
{
	char buf[5000], back[5000];
	int fd;

	memset(buf, 'x', sizeof(buf));
	if (mkdir(MNT "/ctap", 0755))
		return fail("mkdir");
	fd = open(MNT "/ctap/data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create");
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
		return fail("write");
	close(fd);
	fd = open(MNT "/ctap/data", O_RDONLY | O_DIRECT);
	if (fd < 0)
		return fail("open");
	if (read(fd, back, sizeof(back)) != sizeof(back) || memcmp(buf, back, sizeof(buf)))
		return fail("read");
	close(fd);
	if (rename(MNT "/ctap/data", MNT "/ctap/data2"))
		return fail("rename");
	if (unlink(MNT "/ctap/data2"))
		return fail("unlink");
	if (rmdir(MNT "/ctap"))
		return fail("rmdir");
	return 0;
}

static void stop_server(void)
{
	put(NFSD "/threads", "0\n");
	put("/proc/net/rpc/nfsd.fh/flush", "1\n");
	put("/proc/net/rpc/nfsd.export/flush", "1\n");
	put("/proc/net/rpc/auth.unix.ip/flush", "1\n");
	umount(NFSD);
	umount2(SRV, MNT_DETACH);
}

int main(void)
{
	int rc;

	lo_up();
	rc = start_server();
	if (!rc) {
		mkdir(MNT, 0755);
		if (mount("127.0.0.1:/", MNT, "nfs4", 0,
			  "vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1,soft,timeo=30,retrans=2")) {
			rc = fail("mount nfs4");
		} else {
			rc = file_ops();
			if (umount(MNT))
				rc = fail("umount nfs4");
		}
	}
	stop_server();
	return rc;
}
