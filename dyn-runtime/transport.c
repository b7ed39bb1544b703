// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - kmod-runtime/transport.h's interface in user space: what
 * handlers write goes into the shared segment's ring (shm.c), which
 * stapdyn drains to stdout (or -o) and stderr.  A record is written
 * whole or dropped and counted; stapdyn reports the drops at the end.
 */
#define _GNU_SOURCE
#include "ctap_runtime.h"
#include "dyn_abi.h"
#include "dyn_internal.h"

void ctap_write(const void *data, size_t len)
{
	ctap_dyn_emit(CTAP_DYN_OUT, data, len);
}

/* Counted in the segment: the handler may run in any target process, the
 * end report in stapdyn's. */
void ctap_write_cut(void)
{
	if (ctap_dyn_shm)
		__atomic_add_fetch(&ctap_dyn_shm->cut, 1, __ATOMIC_RELAXED);
}

/* The ring is drained by stapdyn as it fills: nothing to push here. */
void ctap_drain_output(void)
{
}

static void vemit(unsigned int chan, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n > 0)
		ctap_dyn_emit(chan, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void ctap_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(CTAP_DYN_OUT, fmt, ap);
	va_end(ap);
}

void ctap_oob(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(CTAP_DYN_ERR, fmt, ap);
	va_end(ap);
}

void ctap_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(CTAP_DYN_ERR, fmt, ap);
	va_end(ap);
}

/* system(): as staprun, the command runs beside the session, its output
 * straight to stapdyn's stdout; the handler does not wait for it. */
void ctap_system(const char *cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		pid_t grandchild = fork();

		if (grandchild == 0) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* A record in the ring: what was printed before it stays in this file,
 * what follows goes to the next, in the order the handlers wrote them. */
void ctap_switch_file(void)
{
	ctap_dyn_emit(CTAP_DYN_SWITCH, "", 0);
}

/* stapdyn's zone, as the kernel runtime has staprun's (dyn_abi.h); UTC
 * for a module loaded without stapdyn. */
s32 ctap_tz_gmtoff(void)
{
	return ctap_dyn_shm ? ctap_dyn_shm->tz_gmtoff : 0;
}

const char *ctap_tz_name(void)
{
	return ctap_dyn_shm ? ctap_dyn_shm->tz_name : "UTC";
}

unsigned long ctap_transport_dropped(void)
{
	return ctap_dyn_shm ? (unsigned long)ctap_dyn_shm->dropped : 0;
}

unsigned long ctap_transport_cut(void)
{
	return ctap_dyn_shm ? (unsigned long)ctap_dyn_shm->cut : 0;
}
