/*
 * sysc_files - a fixed sequence of file system calls with arguments that
 * exercise argstr's decoding (flags, modes, AT_FDCWD, quoted and cut
 * strings, buffers with escapes, an error return), made with syscall(2)
 * so that libc adds or changes nothing, and every argument fixed (the
 * buffer is static, in a non-PIE binary; unused mode arguments are 0) so
 * that the trace is the same on every run.  Silent.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	static const char data[] = "hello\tworld\n\"q\" \\ \001\177 caf\xc3\xa9 \xff"
		"and a long tail that syscall_string_trunc cuts";
	static char buf[16];
	long fd;

	fd = syscall(SYS_openat, AT_FDCWD, "/proc/version", O_RDONLY | O_CLOEXEC, 0);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	fd = syscall(SYS_open, "/tmp/ctap-sysc", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0640);
	syscall(SYS_write, fd, data, sizeof(data) - 1);
	syscall(SYS_write, fd, "a\0b", 3);
	syscall(SYS_close, fd);
	syscall(SYS_openat, AT_FDCWD, "/no/such\nfile", O_RDWR | O_NONBLOCK | O_DIRECTORY, 0);
	syscall(SYS_open, NULL, O_RDONLY, 0);
	syscall(SYS_close, 9999);
	return 0;
}
