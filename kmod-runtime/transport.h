/* SPDX-License-Identifier: GPL-2.0 */
/*
 * transport.h - output and control channel of a ctap module.
 *
 * The transport owns /sys/kernel/debug/ctap/<module>/, per-CPU relay files
 * for the script's output, and /proc/ctap-<module>/.cmd, the control file
 * (see ctap_msgs.h for the protocol).  The module supplies two callbacks that run in process context,
 * from staprun's writes to .cmd.
 */
#ifndef CTAP_TRANSPORT_H
#define CTAP_TRANSPORT_H

#ifndef CTAP_USERSPACE
#include <linux/types.h>
#include <linux/compiler.h>
#endif

struct ctap_transport_ops {
	/* Arm the probes and run the begin probes, for target() target and
	 * the namespaces of process ns_pid (0: staprun's).  0 or -errno. */
	int (*start)(s32 target, s32 ns_pid);
	/* Disarm the probes and run the end probes.  Called at most once. */
	void (*stop)(void);
};

/**
 * ctap_transport_init - create the debugfs files and the relay channel
 * @name: module name, the directory under /sys/kernel/debug/ctap/
 * @ops: start/stop callbacks
 * @bulk: one output file per CPU (unordered, no lock) instead of one ordered
 * @subbuf_size: relay sub-buffer size in bytes (per CPU in bulk mode)
 * @n_subbufs: relay sub-buffers (per CPU in bulk mode)
 *
 * Returns 0 or a negative errno; on failure nothing is left behind.
 */
int ctap_transport_init(const char *name, const struct ctap_transport_ops *ops,
			bool bulk, size_t subbuf_size, size_t n_subbufs);

/**
 * ctap_transport_exit - stop the session if still running, remove the files
 *
 * Safe to call whatever state the session is in (staprun may be gone).
 */
void ctap_transport_exit(void);

/* Append raw bytes to the output.  Any context. */
void ctap_write(const void *data, size_t len);
/* A handler's output did not fit its buffer: counted, reported at the end. */
void ctap_write_cut(void);

/* While the session stops, in process context: move what the last end
 * probe could not fit in the buffer into it, waiting for staprun to read. */
void ctap_drain_output(void);

/* printf into the output.  Any context. */
__printf(1, 2) void ctap_print(const char *fmt, ...);

/* Send one line of text to staprun's stderr (warnings, errors).  Any context.
 * When staprun falls behind, such lines are dropped and counted. */
__printf(1, 2) void ctap_oob(const char *fmt, ...);

/* The same for the session's own last words (the counts of errors, skips
 * and drops): these use the control ring's reserved slots.  At most a few
 * per session. */
__printf(1, 2) void ctap_notice(const char *fmt, ...);

/* Ask staprun to run a shell command, asynchronously (system()).  Any context. */
void ctap_system(const char *cmd);

/* Ask staprun to go on in its next output file (switch_file()).  Any context. */
void ctap_switch_file(void);

/* Ask staprun to end the session (the script's exit()).  Any context. */
void ctap_request_exit(void);

/* staprun's time zone when the session started: seconds west of UTC, and
 * its abbreviation ("" if staprun sent none). */
s32 ctap_tz_gmtoff(void);
const char *ctap_tz_name(void);

/* Output dropped because the relay buffers were full. */
unsigned long ctap_transport_dropped(void);

#endif /* CTAP_TRANSPORT_H */
