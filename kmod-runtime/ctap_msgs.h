/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_msgs.h - the control protocol between staprun and a ctap module.
 *
 * Included by both sides: the kernel runtime (transport.c) and staprun.
 *
 * A loaded module owns a directory /sys/kernel/debug/ctap/<module>/ with
 *   trace0 .. traceN   per-CPU relay files: the script's output, raw bytes
 * (read-only: debugfs lets a locked-down kernel's readers open those), and
 * /proc/ctap-<module>/ with
 *   .cmd               the control file: framed messages in both directions
 *
 * Every control message is a struct ctap_msg_hdr followed by hdr.len bytes
 * of payload.  One write() carries exactly one message; one read() returns
 * exactly one message (read blocks until one is queued; poll() works).
 *
 * Session, as staprun drives it:
 *
 *   staprun                              module
 *   finit_module()  ------------------>  init: allocate, create files
 *   START {target pid}  -------------->  register probes, run begin probes
 *                       <--------------  START {int32 result: 0 or -errno}
 *   ... reads trace<cpu> ...             probes run, print into relay
 *                       <--------------  REQUEST_EXIT (exit() in the script)
 *   EXIT  ---------------------------->  unregister, run end probes, flush
 *                       <--------------  EXIT
 *   drain trace<cpu>, delete_module()
 *
 * OOB messages (warnings and errors, already formatted, one line each) may
 * come at any time; staprun copies them to stderr.  SYSTEM messages ask
 * staprun to run a shell command (the script's system()), without waiting.
 *
 * If staprun dies (kill -9), the module keeps running: "staprun -A NAME"
 * attaches to it again (no START: it runs already), "staprun -d NAME" stops
 * and unloads it.  The module records the real uid that loaded it; .cmd
 * opens only for that uid and root (EPERM for others): a user of a setuid
 * staprun reaches only the sessions they started.  Bulk mode (per-CPU trace files) is the module parameter
 * ctap_bulk=1, which staprun -b passes.
 */
#ifndef CTAP_MSGS_H
#define CTAP_MSGS_H

#include <linux/types.h>

#define CTAP_DEBUGFS_DIR	"ctap"
#define CTAP_PROCFS_PREFIX	"ctap-"
#define CTAP_CMD_FILE		".cmd"
#define CTAP_TRACE_PREFIX	"trace"

/*
 * Every module built on this runtime carries CTAP_MODINFO_TAG=CTAP_PROTOCOL
 * in its .modinfo (transport.c): a setuid staprun loads nothing else.  The
 * number changes when this protocol does.
 */
#define CTAP_MODINFO_TAG	"ctap_protocol"
#define CTAP_PROTOCOL		"1"

/* Largest payload of one control message (an OOB text line, say). */
#define CTAP_MSG_MAX_PAYLOAD	1024

enum ctap_msg_type {
	CTAP_MSG_START = 1,	/* to module: ctap_msg_start; reply: __s32 result */
	CTAP_MSG_EXIT,		/* to module: stop; reply: no payload, after flush */
	CTAP_MSG_REQUEST_EXIT,	/* from module: the script called exit() */
	CTAP_MSG_OOB,		/* from module: text for stderr, no trailing NUL */
	CTAP_MSG_SYSTEM,	/* from module: a shell command for system(), no NUL */
	CTAP_MSG_SWITCH_FILE,	/* from module: switch_file(), no payload */
	CTAP_MSG_MAX,
};

struct ctap_msg_hdr {
	__u32 type;		/* enum ctap_msg_type */
	__u32 len;		/* bytes of payload after this header */
};

#define CTAP_TZ_NAME_LEN	16

struct ctap_msg_start {
	__s32 target;		/* target() in the script: -c/-x pid, or 0 */
	/* staprun's local time zone now: seconds west of UTC (tz_gmtoff(),
	 * SystemTap's sign) and its abbreviation ("CET"), NUL-terminated. */
	__s32 tz_gmtoff;
	char tz_name[CTAP_TZ_NAME_LEN];
	/* staprun -N (stap --target-namespaces): the process whose pid and
	 * user namespaces ns_pid(), ns_uid()... answer in; 0: staprun's own. */
	__s32 ns_pid;
};

#endif /* CTAP_MSGS_H */
