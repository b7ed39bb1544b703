/*
 * sysc_modes - the system calls that take a file mode or an access mode,
 * with fixed arguments (made with syscall(2), as libc would change some),
 * for argstr's octal modes, file types and access-mode names.  Works in
 * /tmp/ctap-modes and removes it.  Silent.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

int main(void)
{
	long fd;

	syscall(SYS_umask, 022);
	syscall(SYS_umask, 077);
	syscall(SYS_umask, 022);
	syscall(SYS_mkdir, "/tmp/ctap-modes", 0750);
	syscall(SYS_mkdirat, AT_FDCWD, "/tmp/ctap-modes/d", 0700);
	syscall(SYS_chmod, "/tmp/ctap-modes", 0755);
	fd = syscall(SYS_creat, "/tmp/ctap-modes/f", 0640);
	syscall(SYS_fchmod, fd, 0600);
	syscall(SYS_close, fd);
	syscall(SYS_fchmodat, AT_FDCWD, "/tmp/ctap-modes/f", 04711);
	syscall(SYS_mknod, "/tmp/ctap-modes/p", S_IFIFO | 0600, 0);
	syscall(SYS_mknodat, AT_FDCWD, "/tmp/ctap-modes/r", S_IFREG | 0644, 0);
	syscall(SYS_access, "/tmp/ctap-modes", R_OK | W_OK);
	syscall(SYS_access, "/tmp/ctap-nothing", F_OK);
	syscall(SYS_faccessat, AT_FDCWD, "/tmp/ctap-modes/f", X_OK);
	syscall(SYS_faccessat2, AT_FDCWD, "/tmp/ctap-modes/f", R_OK, AT_EACCESS);
	unlink("/tmp/ctap-modes/f");
	unlink("/tmp/ctap-modes/p");
	unlink("/tmp/ctap-modes/r");
	rmdir("/tmp/ctap-modes/d");
	rmdir("/tmp/ctap-modes");
	return 0;
}
