// SPDX-License-Identifier: GPL-2.0
/*
 * shm.c - the memory stapdyn and the traced processes share: the segment
 * named by CTAP_DYN_SHM (dyn_abi.h), mapped by this module's constructor
 * in every process that loads it, the allocator of the script's arrays,
 * the output ring, and the remapping of the module's CTAP_SHARED section
 * (its globals and their locks) onto the segment.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "ctap_runtime.h"
#include "dyn_abi.h"
#include "dyn_internal.h"

struct ctap_dyn_shm *ctap_dyn_shm;
static int shm_fd = -1;

/* The section the linker script (shared.ld) page-aligns; hidden, so each
 * module sees its own. */
extern char __ctap_shared_start[] __attribute__((visibility("hidden")));
extern char __ctap_shared_end[] __attribute__((visibility("hidden")));

static void *seg(uint64_t off)
{
	return (char *)ctap_dyn_shm + off;
}

/* "FD:ADDR:SIZE:OWNER"; false if absent or malformed. */
static bool parse_env(int *fd, uintptr_t *addr, uint64_t *size, pid_t *owner)
{
	const char *v = getenv(CTAP_DYN_ENV);
	long long o;

	if (!v || sscanf(v, "%d:%" SCNxPTR ":%" SCNu64 ":%lld", fd, addr, size, &o) != 4)
		return false;
	*owner = (pid_t)o;
	return true;
}

/*
 * Runs when the module is loaded: by dlopen in stapdyn, before main in a
 * -c target (LD_PRELOAD).  In stapdyn the segment is mapped already (it
 * made it); in a target it is mapped here, at the very address, or not
 * at all: MAP_FIXED_NOREPLACE never replaces a mapping the program has.
 */
__attribute__((constructor)) static void shm_attach(void)
{
	uint64_t size;
	uintptr_t addr;
	pid_t owner;
	void *p;
	int fd;

	if (!parse_env(&fd, &addr, &size, &owner))
		return;
	shm_fd = fd;
	if (owner == getpid()) {
		ctap_dyn_shm = (struct ctap_dyn_shm *)addr;
		return;
	}
	if (fd < 0) {
		/* -x PID: loaded by stapdyn's ptrace (stapdyn/attach.c), no
		 * descriptor inherited: stapdyn's own, by /proc */
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)owner, -fd);
		fd = shm_fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return;
	}
	p = mmap((void *)addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
		 fd, 0);
	if (p == MAP_FAILED || p != (void *)addr) {
		if (p != MAP_FAILED)
			munmap(p, size);	/* an old kernel's hint, not honoured */
		return;
	}
	ctap_dyn_shm = p;
	if (ctap_dyn_shm->magic != CTAP_DYN_MAGIC || ctap_dyn_shm->abi != CTAP_DYN_ABI_VERSION ||
	    ctap_dyn_map_shared(false)) {
		munmap(p, size);
		ctap_dyn_shm = NULL;
		return;
	}
	__atomic_add_fetch(&ctap_dyn_shm->attached, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ctap_dyn_shm->attached_pid, getpid(), __ATOMIC_SEQ_CST);
	/* A forked child is a process of its own: its threads take slots
	 * of their own, not copies of the parent's. */
	pthread_atfork(NULL, NULL, ctap_dyn_forget_slot);
	/* The script's process probes, before main; then process.begin. */
	ctap_dyn_uprobes_arm();
	ctap_dyn_tasks_attached();
	/* What it forks and execs loads the module too: the fd, CTAP_DYN_SHM
	 * and LD_PRELOAD stay (process.begin/end of each, tasks.c). */
}

/*
 * Map the module's CTAP_SHARED section onto the segment.  stapdyn (first)
 * copies the section's initial contents in; a target maps what stapdyn
 * has written since.  The section's address differs per process, its
 * contents (pointers into the segment, lock words) do not need to.
 */
int ctap_dyn_map_shared(bool first)
{
	size_t len = (size_t)(__ctap_shared_end - __ctap_shared_start);
	void *p;

	if (!len)
		return 0;
	if (len > ctap_dyn_shm->shared_size)
		return -ENOSPC;
	if (first)
		memcpy(seg(ctap_dyn_shm->shared_off), __ctap_shared_start, len);
	p = mmap(__ctap_shared_start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, shm_fd,
		 (off_t)ctap_dyn_shm->shared_off);
	return p == MAP_FAILED ? -errno : 0;
}

/* ---- the heap: arrays and contexts, in the segment ---- */

void *ctap_alloc(size_t size)
{
	uint64_t room, off;
	size_t n = (size + 63) & ~(size_t)63;

	if (!ctap_dyn_shm)
		return NULL;
	room = ctap_dyn_shm->size - ctap_dyn_shm->heap_off;
	off = __atomic_fetch_add(&ctap_dyn_shm->heap_used, n, __ATOMIC_SEQ_CST);
	if (off + n > room)
		return NULL;
	/* A memfd's pages start zeroed, and nothing is reused. */
	return seg(ctap_dyn_shm->heap_off + off);
}

void ctap_free(void *p)
{
	(void)p;	/* the segment goes with the session */
}

int ctap_reserve(size_t bytes)
{
	uint64_t room = ctap_dyn_shm ? ctap_dyn_shm->size - ctap_dyn_shm->heap_off : 0;

	if (ctap_dyn_shm && ctap_dyn_shm->heap_used + bytes <= room)
		return 0;
	fprintf(stderr, "ERROR: the script's arrays and contexts need %zu MB, more than the "
		"%" PRIu64 " MB of the shared segment (stapdyn -s)\n", bytes >> 20, room >> 20);
	return -ENOMEM;
}

/* ---- the output ring ---- */

static bool ring_lock(void)
{
	for (int tries = 0; tries <= MAXTRYLOCK; tries++) {
		int unlocked = 0;

		if (__atomic_compare_exchange_n(&ctap_dyn_shm->ring_lock, &unlocked, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		usleep(TRYLOCKDELAY);
	}
	return false;
}

static void ring_unlock(void)
{
	__atomic_store_n(&ctap_dyn_shm->ring_lock, 0, __ATOMIC_RELEASE);
}

static void ring_copy(uint64_t pos, const void *src, size_t len)
{
	char *ring = seg(ctap_dyn_shm->ring_off);
	uint64_t at = pos % ctap_dyn_shm->ring_size, first = ctap_dyn_shm->ring_size - at;

	if (first >= len) {
		memcpy(ring + at, src, len);
	} else {
		memcpy(ring + at, src, first);
		memcpy(ring, (const char *)src + first, len - first);
	}
}

void ctap_dyn_wake(void)
{
	__atomic_add_fetch(&ctap_dyn_shm->wake, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &ctap_dyn_shm->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* One record to stapdyn; a full ring (or one locked too long) drops it,
 * counted, rather than block a handler. */
void ctap_dyn_emit(unsigned int chan, const void *data, size_t len)
{
	struct ctap_dyn_rec r = { .len = (uint32_t)len, .chan = chan };
	uint64_t need = sizeof(r) + ((len + 7) & ~(size_t)7);

	if (!ctap_dyn_shm) {	/* no stapdyn: a test's direct load */
		fwrite(data, 1, len, chan == CTAP_DYN_OUT ? stdout : stderr);
		return;
	}
	if (!ring_lock()) {
		__atomic_add_fetch(&ctap_dyn_shm->dropped, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (ctap_dyn_shm->head + need - ctap_dyn_shm->tail > ctap_dyn_shm->ring_size) {
		ring_unlock();
		__atomic_add_fetch(&ctap_dyn_shm->dropped, 1, __ATOMIC_SEQ_CST);
		return;
	}
	ring_copy(ctap_dyn_shm->head, &r, sizeof(r));
	ring_copy(ctap_dyn_shm->head + sizeof(r), data, len);
	ctap_dyn_shm->head += need;
	ring_unlock();
	ctap_dyn_wake();
}

/*
 * A read of memory the script names (%m, user_string() later): through
 * the kernel, which fails cleanly on an unmapped address where a plain
 * load would kill the process the handler runs in.
 */
long ctap_dyn_read_mem(void *dst, const void *src, size_t len)
{
	struct iovec local = { dst, len }, remote = { (void *)src, len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}
