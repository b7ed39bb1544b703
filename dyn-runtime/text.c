// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - writing the process's own code while its threads run it.
 *
 * The page is made writable (and kept executable: other threads are in
 * it) for the write and read-only again after.  Between the steps of a
 * patch (patch.c: int3 first, then the tail, then the first byte, as
 * the kernel's text_poke_bp does) every thread must stop running the
 * old bytes it may have fetched: membarrier's SYNC_CORE command makes
 * each CPU running one of our threads execute a serialising
 * instruction.  Where the kernel lacks it, the mprotect() that takes
 * write permission away does the same on x86: it flushes the other
 * CPUs' TLBs by interrupt, and the interrupt's return serialises.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "patch_int.h"

static int sync_core = -1;	/* -1 unknown, 0 no, 1 registered */

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

void ctapdyn__text_sync(void)
{
	if (sync_core < 0)
		sync_core = !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE);
	if (sync_core)
		membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE);
}

/*
 * n bytes at addr, written in order; a single byte in one store (the
 * step that makes a jump live).  0 or the -errno of mprotect().
 */
int ctapdyn__text_write(uintptr_t addr, const void *bytes, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo = addr & ~(uintptr_t)(pg - 1);
	size_t len = ((addr + n + pg - 1) & ~(uintptr_t)(pg - 1)) - lo;
	volatile uint8_t *dst = (volatile uint8_t *)addr;
	const uint8_t *src = bytes;

	if (mprotect((void *)lo, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
	__builtin___clear_cache((char *)addr, (char *)addr + n);
	if (mprotect((void *)lo, len, PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}
