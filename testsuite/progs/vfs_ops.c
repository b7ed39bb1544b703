/*
 * vfs_ops - a fixed sequence of file operations on /tmp/ctap-vfs: open
 * (creating it), write 10 bytes, writev 3 + 4, lseek to 0, read 5, readv
 * 3 + 3, mmap and unmap a page of it, close.  The workload of the vfs
 * tapset's test; silent.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void)
{
	char buf[16], a[3], b[3];
	struct iovec out[2] = { { "abc", 3 }, { "defg", 4 } };
	struct iovec in[2] = { { a, 3 }, { b, 3 } };
	int fd = open("/tmp/ctap-vfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p;

	if (fd < 0)
		return 1;
	if (write(fd, "0123456789", 10) != 10 || writev(fd, out, 2) != 7)
		return 1;
	lseek(fd, 0, SEEK_SET);
	if (read(fd, buf, 5) != 5 || readv(fd, in, 2) != 6)
		return 1;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
	return 0;
}
