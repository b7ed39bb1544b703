/*
 * sysc_compat - 32-bit (ia32) system calls from a 64-bit program, by
 * int $0x80: what syscall.nice, syscall.llseek, syscall.compat_nanosleep...
 * see of a 32-bit task.  Fixed arguments, most of them failing calls (a
 * bad descriptor, a missing file) so that nothing changes in the guest;
 * every pointer is to static data, below 4 GiB as the ia32 ABI needs.
 * Silent.
 */
#include <stdint.h>

/* The ia32 numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
enum {
	NR_waitpid = 7, NR_lchown = 16, NR_stime = 25, NR_nice = 34, NR_signal = 48,
	NR_ustat = 62, NR_sgetmask = 68, NR_ssetmask = 69, NR_setreuid = 70,
	NR_sigpending = 73, NR_settimeofday = 79, NR_uselib = 86, NR_readdir = 89,
	NR_fchown = 95, NR_getitimer = 105, NR_sigprocmask = 126, NR_llseek = 140,
	NR_newselect = 142, NR_nanosleep = 162, NR_setresgid = 170, NR_pwrite64 = 181,
	NR_chown = 182, NR_truncate64 = 193, NR_ftruncate64 = 194, NR_readahead = 225,
	NR_futex = 240, NR_fadvise64 = 250, NR_statfs64 = 268, NR_fstatfs64 = 269,
	NR_utimes = 271, NR_fadvise64_64 = 272, NR_futimesat = 299, NR_pselect6 = 308,
	NR_ppoll = 309, NR_vmsplice = 316, NR_utimensat = 320, NR_fallocate = 324,
	NR_signalfd4 = 327, NR_recvmmsg = 337, NR_execveat = 358, NR_execve = 11,
	NR_utime = 30, NR_sigaction = 67, NR_socketcall = 102, NR_setitimer = 104,
	NR_ipc = 117, NR_rt_sigaction = 174, NR_set_thread_area = 243,
	NR_get_thread_area = 244, NR_clock_nanosleep = 267, NR_adjtimex = 124,
};

static long sys32(long nr, long a, long b, long c, long d, long e, long f)
{
	register long sixth __asm__("r12") = f;
	long ret;

	/* ebp is the sixth argument: set around the call by hand, as the
	 * compiler may use rbp; the kernel may clear r8-r11 on the way back. */
	__asm__ volatile("push %%rbp\n\tmov %%r12, %%rbp\n\tint $0x80\n\tpop %%rbp"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e), "r"(sixth)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

#define ADDR(p) ((long)(uintptr_t)(p))

static const char missing[] = "/ctap-no-such-file";
static const char data[] = "hello";
static char buf[256];
static uint32_t word;
/* 32-bit timespecs and timevals, one for each call (a call with a
 * timeout writes back what is left of it). */
static int32_t ts_sleep[2] = { 0, 1000 }, ts_pselect[2] = { 0, 2000 }, ts_ppoll[2] = { 0, 3000 };
static int32_t ts_futex[2] = { 0, 4000 }, ts_recv[2] = { 0, 5000 };
static int32_t ts_times[4] = { 1, 500, 0, (1 << 30) - 1 };	/* UTIME_NOW */
static int32_t tv_select[2] = { 0, 600 }, tv_times[4] = { 1, 500, 2, 0 };
static int32_t bad_tz[2] = { 10000, 0 };		/* out of range: EINVAL */
static uint32_t mask = 1u << (10 - 1);			/* SIGUSR1 */
static uint32_t argv32[3], envp32[2];
/* struct old_sigaction32 and compat_sigaction: a handler that is never
 * called (no SIGUSR2 comes), flags, restorer, mask. */
static uint32_t old_act[4] = { 0x1234, 1u << (2 - 1), 0x10000000, 0 };
static uint32_t rt_act[5] = { 0x5678, 0x10000004, 0x9abc, 1u << (15 - 1), 0 };
static uint32_t ign_act[5] = { 1, 0, 0, 0, 0 };
static uint32_t user_desc[4] = { 1000, 0x1000, 0xfff, 0x51 };	/* a bad entry: EINVAL */
static int32_t itv[4] = { 1, 2, 0, 0 };		/* a zero value: no timer */
static int32_t ubuf[2] = { 5, 6 };
static uint32_t kludge[2], sock_args[4];
static int32_t timex[32];				/* modes 0: only reads the clock */
static const char arg0[] = "prog", arg1[] = "-x", env0[] = "A=1";

int main(void)
{
	sys32(NR_nice, 0, 0, 0, 0, 0, 0);
	sys32(NR_setreuid, -1, -1, 0, 0, 0, 0);
	sys32(NR_setresgid, -1, -1, -1, 0, 0, 0);
	sys32(NR_chown, ADDR(missing), 0, 0, 0, 0, 0);
	sys32(NR_lchown, ADDR(missing), 5, 0xffff, 0, 0, 0);
	sys32(NR_fchown, 1000, 7, 8, 0, 0, 0);
	sys32(NR_sgetmask, 0, 0, 0, 0, 0, 0);
	sys32(NR_ssetmask, mask, 0, 0, 0, 0, 0);
	sys32(NR_ssetmask, 0, 0, 0, 0, 0, 0);
	sys32(NR_signal, 12, 1, 0, 0, 0, 0);	/* SIGUSR2, SIG_IGN */
	sys32(NR_signal, 12, 0, 0, 0, 0, 0);
	sys32(NR_sigpending, ADDR(buf), 0, 0, 0, 0, 0);
	sys32(NR_sigprocmask, 0, ADDR(&mask), ADDR(buf), 0, 0, 0);
	sys32(NR_sigprocmask, 1, ADDR(&mask), 0, 0, 0, 0);
	sys32(NR_waitpid, -1, 0, 1, 0, 0, 0);	/* WNOHANG, no child: ECHILD */
	sys32(NR_llseek, 1000, 0, 5, ADDR(buf), 0, 0);
	sys32(NR_statfs64, ADDR(missing), 84, ADDR(buf), 0, 0, 0);
	sys32(NR_fstatfs64, 1000, 84, ADDR(buf), 0, 0, 0);
	sys32(NR_readdir, 1000, ADDR(buf), 1, 0, 0, 0);
	sys32(NR_ustat, 0, ADDR(buf), 0, 0, 0, 0);
	sys32(NR_uselib, ADDR(missing), 0, 0, 0, 0, 0);
	sys32(NR_stime, 16, 0, 0, 0, 0, 0);	/* an unreadable address: EFAULT */
	sys32(NR_pwrite64, 1000, ADDR(data), 5, 7, 0, 0);
	sys32(NR_truncate64, ADDR(missing), 100, 1, 0, 0, 0);
	sys32(NR_ftruncate64, 1000, 100, 1, 0, 0, 0);
	sys32(NR_readahead, 1000, 4096, 0, 512, 0, 0);
	sys32(NR_fadvise64, 1000, 10, 0, 20, 2, 0);
	sys32(NR_fadvise64_64, 1000, 10, 1, 30, 0, 4);
	sys32(NR_fallocate, 1000, 3, 4096, 0, 8192, 0);
	sys32(NR_vmsplice, 1000, ADDR(buf), 1, 5, 0, 0);
	sys32(NR_nanosleep, ADDR(ts_sleep), 0, 0, 0, 0, 0);
	sys32(NR_getitimer, 2, ADDR(buf), 0, 0, 0, 0);
	sys32(NR_newselect, 0, 0, 0, 0, ADDR(tv_select), 0);
	sys32(NR_pselect6, 0, 0, 0, 0, ADDR(ts_pselect), 0);
	sys32(NR_ppoll, 0, 0, ADDR(ts_ppoll), 0, 8, 0);
	sys32(NR_utimensat, -100, ADDR(missing), ADDR(ts_times), 0x100, 0, 0);
	sys32(NR_futimesat, -100, ADDR(missing), ADDR(tv_times), 0, 0, 0);
	sys32(NR_utimes, ADDR(missing), ADDR(tv_times), 0, 0, 0, 0);
	sys32(NR_settimeofday, 0, ADDR(bad_tz), 0, 0, 0, 0);
	sys32(NR_futex, ADDR(&word), 1, 1, 0, 0, 0);		/* FUTEX_WAKE */
	sys32(NR_futex, ADDR(&word), 0, 1, ADDR(ts_futex), 0, 0);	/* FUTEX_WAIT: EAGAIN */
	sys32(NR_signalfd4, -1, ADDR(&mask), 4, 0x800, 0, 0);	/* bad size: EINVAL */
	sys32(NR_recvmmsg, 1000, 0, 0, 0, ADDR(ts_recv), 0);
	sys32(NR_sigaction, 12, ADDR(old_act), 0, 0, 0, 0);
	sys32(NR_rt_sigaction, 12, ADDR(rt_act), ADDR(buf), 8, 0, 0);
	sys32(NR_rt_sigaction, 12, ADDR(ign_act), 0, 8, 0, 0);
	sys32(NR_get_thread_area, ADDR(user_desc), 0, 0, 0, 0, 0);
	sys32(NR_set_thread_area, ADDR(user_desc), 0, 0, 0, 0, 0);
	sys32(NR_clock_nanosleep, 1, 0, ADDR(ts_sleep), 0, 0, 0);
	sys32(NR_setitimer, 2, ADDR(itv), 0, 0, 0, 0);
	sys32(NR_utime, ADDR(missing), ADDR(ubuf), 0, 0, 0, 0);
	sys32(NR_adjtimex, ADDR(timex), 0, 0, 0, 0, 0);
	/* ipc() on an id that does not exist (-1): EINVAL each */
	sys32(NR_ipc, 14, -1, 0x102, 0, ADDR(buf), 0);		/* MSGCTL, IPC_64|IPC_STAT */
	sys32(NR_ipc, 11, -1, 5, 0x800, ADDR(buf), 0);		/* MSGSND, IPC_NOWAIT */
	sys32(NR_ipc, 12 | 1 << 16, -1, 5, 0x1800, ADDR(buf), 7);	/* MSGRCV, version 1 */
	kludge[0] = ADDR(buf);
	kludge[1] = 3;
	sys32(NR_ipc, 12, -1, 5, 0, ADDR(kludge), 0);		/* MSGRCV, version 0 */
	sys32(NR_ipc, 3, -1, 0, 12, ADDR(buf), 0);		/* SEMCTL, GETVAL */
	sys32(NR_ipc, 4, -1, 1, 0, ADDR(buf), ADDR(ts_sleep));	/* SEMTIMEDOP */
	sys32(NR_ipc, 21, -1, 0x1000, 0, ADDR(buf), 0);		/* SHMAT, SHM_RDONLY */
	sys32(NR_ipc, 24, -1, 0, 0, ADDR(buf), 0);		/* SHMCTL, IPC_RMID */
	sock_args[0] = 1000;
	sock_args[1] = ADDR(buf);
	sock_args[2] = 0x40;					/* MSG_DONTWAIT */
	sys32(NR_socketcall, 16, ADDR(sock_args), 0, 0, 0, 0);	/* SYS_SENDMSG */
	sys32(NR_socketcall, 17, ADDR(sock_args), 0, 0, 0, 0);	/* SYS_RECVMSG */
	sock_args[1] = ADDR(data);
	sock_args[2] = 5;
	sock_args[3] = 0x40;					/* MSG_DONTWAIT */
	sys32(NR_socketcall, 9, ADDR(sock_args), 0, 0, 0, 0);	/* SYS_SEND */
	sys32(NR_socketcall, 10, ADDR(sock_args), 0, 0, 0, 0);	/* SYS_RECV */
	argv32[0] = ADDR(arg0);
	argv32[1] = ADDR(arg1);
	envp32[0] = ADDR(env0);
	sys32(NR_execve, ADDR(missing), ADDR(argv32), ADDR(envp32), 0, 0, 0);
	sys32(NR_execveat, -100, ADDR(missing), ADDR(argv32), ADDR(envp32), 0, 0);
	return 0;
}
