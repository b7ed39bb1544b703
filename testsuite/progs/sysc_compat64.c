/*
 * sysc_compat64 - 32-bit (ia32) system calls from a 64-bit program, by
 * int $0x80, of the calls x86_64 has too: what syscall.read,
 * syscall.lseek... see of a 32-bit task.  The kernel runs the same
 * function for some (read: sys_read), its compat_ one for others (lseek:
 * compat_sys_lseek), another one for the rest (getuid: sys_getuid16,
 * nanosleep: sys_nanosleep_time32).  Failing calls (a bad descriptor, a
 * file in a missing directory, a pid that is not there), pointers to static data below
 * 4 GiB.  Silent.
 */
#include <stdint.h>

/* The ia32 numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
enum {
	NR_read = 3, NR_write = 4, NR_open = 5, NR_close = 6, NR_lseek = 19, NR_getpid = 20,
	NR_getuid = 24, NR_kill = 37, NR_dup = 41, NR_ioctl = 54, NR_umask = 60,
	NR_fcntl = 55, NR_uname = 122, NR_nanosleep = 162, NR_getuid32 = 199,
	NR_openat = 295,
};

static long sys32(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

#define ADDR(p) ((long)(uintptr_t)(p))

static const char missing[] = "/ctap-no-such-dir/file";
static const char data[] = "hello";
static char buf[512];
static int32_t ts_sleep[2] = { 0, 1000 };

int main(void)
{
	sys32(NR_getpid, 0, 0, 0, 0);
	sys32(NR_read, 1000, ADDR(buf), 10, 0);
	sys32(NR_write, 1000, ADDR(data), 5, 0);
	sys32(NR_close, 1000, 0, 0, 0);
	sys32(NR_lseek, 1000, 7, 1, 0);
	sys32(NR_open, ADDR(missing), 0101, 0644, 0);	/* O_WRONLY|O_CREAT */
	sys32(NR_openat, -100, ADDR(missing), 0, 0);
	sys32(NR_dup, 1000, 0, 0, 0);
	sys32(NR_kill, 0x7ffffff0, 0, 0, 0);
	sys32(NR_ioctl, 1000, 0x5401, ADDR(buf), 0);	/* TCGETS */
	sys32(NR_fcntl, 1000, 1, 0, 0);			/* F_GETFD */
	sys32(NR_umask, 022, 0, 0, 0);
	sys32(NR_uname, ADDR(buf), 0, 0, 0);
	sys32(NR_getuid, 0, 0, 0, 0);
	sys32(NR_getuid32, 0, 0, 0, 0);
	sys32(NR_nanosleep, ADDR(ts_sleep), 0, 0, 0);
	return 0;
}
