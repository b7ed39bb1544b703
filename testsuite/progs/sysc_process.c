/*
 * sysc_process - a fixed sequence of process and memory system calls
 * whose arguments argstr decodes (mmap flags and protections, a timespec,
 * signal names, wait options, argv and envp, futex operations), made with syscall(2) and
 * every argument fixed (MAP_FIXED at a constant address, static buffers
 * in a non-PIE binary) so that the trace is the same on every run: the
 * strings are copied to written (so resident) memory, which a probe can
 * read without faulting, and vfork() orders the child's execve before
 * the parent's wait4.  Exits with status 0; silent.
 */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define AT	0x10000000L

int main(void)
{
	static const struct timespec nap = { 0, 0 };
	static char path[32], arg0[16], arg1[4], env0[16];
	static char *argv[] = { arg0, arg1, NULL }, *envp[] = { env0, NULL };
	static int status, word, word2;
	long pid;

	strcpy(path, "/ctap/bin/getpid_loop");
	strcpy(arg0, "getpid_loop");
	strcpy(arg1, "1");
	strcpy(env0, "CTAP=\"x\"");

	syscall(SYS_mmap, AT, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		-1, 0);
	*(volatile char *)AT = 1;	/* one write fault, at AT */
	syscall(SYS_mprotect, AT, 4096, PROT_READ);
	syscall(SYS_mprotect, AT + 4096, 4096, PROT_NONE);
	syscall(SYS_munmap, AT, 8192);
	syscall(SYS_nanosleep, &nap, NULL);
	syscall(SYS_futex, &word, FUTEX_WAIT, 1, &nap, NULL, 0);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	syscall(SYS_futex, &word, FUTEX_WAKE_OP, 1, 1, &word2, FUTEX_OP(FUTEX_OP_ADD, 1,
		FUTEX_OP_CMP_GT, 0));
	syscall(SYS_futex, &word, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0xff);
	syscall(SYS_kill, syscall(SYS_getpid), 0);
	syscall(SYS_kill, 0x7ffffff0, SIGTERM);
	pid = vfork();
	if (pid == 0) {
		syscall(SYS_execve, path, argv, envp);
		_exit(7);
	}
	syscall(SYS_wait4, -1, &status, __WALL, NULL);
	syscall(SYS_wait4, -1, &status, WNOHANG, NULL);
	syscall(SYS_exit_group, WEXITSTATUS(status));
	return 0;
}
