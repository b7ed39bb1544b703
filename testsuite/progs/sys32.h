/*
 * sys32.h - an ia32 system call from a 64-bit program, by int $0x80, for
 * the workloads that show syscall.* probes a 32-bit task (sysc_compat,
 * sysc_compat64).  Static programs only: each pointer argument must be
 * below 4 GiB, as the ia32 ABI has it (static data is).
 */
#ifndef SYS32_H
#define SYS32_H

#include <stdint.h>

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

/* A pointer as an ia32 argument. */
#define ADDR(p) ((long)(uintptr_t)(p))

#endif /* SYS32_H */
