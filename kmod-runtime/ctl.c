// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the .cmd control file of a ctap module and the session's state
 * it drives (staprun's side is its ctl.c; the protocol is ctap_msgs.h).
 *
 * The file is /proc/ctap-<module>/.cmd, not beside the output in debugfs:
 * a kernel locked down (as Secure Boot locks it) refuses to open a
 * debugfs file for writing, and procfs has no such rule.  A directory of
 * the module's own: none shared with other modules to make and take away
 * (probes/procfs.c must, for SystemTap's /proc/systemtap).
 *
 * Messages to staprun are queued in a fixed ring allocated at init, so
 * that probe context never allocates; readers are woken through irq_work
 * because a probe may fire with the scheduler's locks held.  The ring
 * keeps its last CTAP_CTL_RESERVED slots for the session's own replies
 * (START, EXIT, the exit request and the final counts), so that no flood
 * of warnings can make staprun wait forever for one; lost warnings are
 * counted and reported.  The ring's lock is taken through the guards of
 * transport_internal.h.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ctap_msgs.h"
#include "transport_internal.h"

#define CTAP_CTL_SLOTS	64	/* queued control messages; more are dropped */
#define CTAP_CTL_RESERVED 8	/* of which kept for the session's own replies */

struct ctap_ctl_msg {
	struct ctap_msg_hdr hdr;
	char payload[CTAP_MSG_MAX_PAYLOAD];
};

enum ctap_state { CTAP_LOADED, CTAP_RUNNING, CTAP_STOPPED };

static struct {
	const struct ctap_transport_ops *ops;
	struct mutex state_lock;	/* serialises start/stop */
	enum ctap_state state;

	spinlock_t ring_lock;		/* the control ring below */
	struct ctap_ctl_msg *ring;
	unsigned int head, tail;	/* head: next to read; tail: next free */
	atomic_long_t ctl_dropped;
	wait_queue_head_t ctl_wait;
	struct irq_work wake_work;
	atomic_t cmd_open;		/* .cmd has one reader: staprun */
	struct work_struct stop_work;	/* EXIT: stop, then reply */

	kuid_t owner;			/* the real uid that loaded the module */
	struct proc_dir_entry *dir;	/* /proc/ctap-<module> */
	s32 tz_gmtoff;			/* from START: staprun's time zone */
	char tz_name[CTAP_TZ_NAME_LEN];
} cl;

/* ---- control ring ---- */

static void ctap_wake_readers(struct irq_work *work)
{
	wake_up_interruptible(&cl.ctl_wait);
}

static bool ctl_ring_empty(void)
{
	return READ_ONCE(cl.head) == READ_ONCE(cl.tail);
}

/*
 * A message staprun would take as a repeat of the last one still queued
 * (the ring lock is held): a warning it printed already (it prints each
 * once, as SystemTap's stapio), or a file switch, which waits for output
 * there, so that two in a row make one.  A repeat need not take a slot:
 * switch_file() in a loop would fill the ring and crowd out warnings.
 */
static bool repeats_last(u32 type, const void *payload, u32 len)
{
	const struct ctap_ctl_msg *last = &cl.ring[(cl.tail - 1) % CTAP_CTL_SLOTS];

	if (cl.tail == cl.head || last->hdr.type != type)
		return false;
	if (type == CTAP_MSG_SWITCH_FILE)
		return true;
	return type == CTAP_MSG_OOB && last->hdr.len == len && len >= 8 &&
	       !memcmp(payload, "WARNING:", 8) && !memcmp(last->payload, payload, len);
}

/* Queues one message, the ring's lock held (ctl_queue()): 1, 0 for a
 * repeat that takes no slot, -ENOSPC if there is no room for it. */
static int ctl_queue_locked(u32 type, const void *payload, u32 len, bool reserved)
{
	unsigned int room = CTAP_CTL_SLOTS - (reserved ? 0 : CTAP_CTL_RESERVED);
	struct ctap_ctl_msg *m;

	if (repeats_last(type, payload, len))
		return 0;
	if (cl.tail - cl.head >= room)
		return -ENOSPC;
	m = &cl.ring[cl.tail % CTAP_CTL_SLOTS];
	m->hdr.type = type;
	m->hdr.len = len;
	memcpy(m->payload, payload, len);
	WRITE_ONCE(cl.tail, cl.tail + 1);
	return 1;
}

/*
 * Queue one message; a script's (reserved false) may use all slots but the
 * reserved ones.  A message that does not fit is dropped and counted.
 */
/* After ctl_queue_locked(), the ring's lock dropped: wake the reader for a
 * message it must see, count one that did not fit (or found the lock
 * taken: negative). */
static void ctl_queued(int queued)
{
	if (queued < 0)
		atomic_long_inc(&cl.ctl_dropped);
	else if (queued)
		irq_work_queue(&cl.wake_work);
}

static void ctl_queue(u32 type, const void *payload, u32 len, bool reserved)
{
	unsigned long flags;
	int queued;

	len = min_t(u32, len, CTAP_MSG_MAX_PAYLOAD);
	if (!guard_lock(&cl.ring_lock, HELD_RING, &flags)) {
		ctl_queued(-EBUSY);
		return;
	}
	queued = ctl_queue_locked(type, payload, len, reserved);
	guard_unlock(&cl.ring_lock, HELD_RING, flags);
	ctl_queued(queued);
}

/*
 * A line for staprun's stderr, formatted under the ring's lock into one
 * buffer as long as a message's payload: a warn() or error() of
 * MAXSTRINGLEN bytes arrives whole (a 256-byte line on the stack cut it,
 * and its newline with it: the next message ran on).  A line cut at the
 * payload's end still ends with its newline.
 */
static char ctl_line[CTAP_MSG_MAX_PAYLOAD];

static void ctl_queue_line(bool reserved, const char *fmt, va_list ap)
{
	unsigned long flags;
	int n, queued;

	if (!guard_lock(&cl.ring_lock, HELD_RING, &flags)) {
		ctl_queued(-EBUSY);
		return;
	}
	n = vscnprintf(ctl_line, sizeof(ctl_line), fmt, ap);
	if (n == sizeof(ctl_line) - 1)
		ctl_line[n - 1] = '\n';
	else if (!n || ctl_line[n - 1] != '\n')
		ctl_line[n++] = '\n';
	queued = ctl_queue_locked(CTAP_MSG_OOB, ctl_line, n, reserved);
	guard_unlock(&cl.ring_lock, HELD_RING, flags);
	ctl_queued(queued);
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	struct ctap_ctl_msg m;
	unsigned long flags;
	size_t n;
	int ret;

	for (;;) {
		/* Process context: the guard cannot fail here. */
		guard_lock(&cl.ring_lock, HELD_RING, &flags);
		if (cl.head != cl.tail) {
			m = cl.ring[cl.head % CTAP_CTL_SLOTS];
			n = sizeof(m.hdr) + m.hdr.len;
			if (count < n) {
				guard_unlock(&cl.ring_lock, HELD_RING, flags);
				return -EMSGSIZE;
			}
			WRITE_ONCE(cl.head, cl.head + 1);
			guard_unlock(&cl.ring_lock, HELD_RING, flags);
			break;
		}
		guard_unlock(&cl.ring_lock, HELD_RING, flags);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(cl.ctl_wait, !ctl_ring_empty());
		if (ret)
			return ret;
	}
	if (copy_to_user(ubuf, &m, n))
		return -EFAULT;
	return n;
}

static __poll_t ctl_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &cl.ctl_wait, wait);
	return ctl_ring_empty() ? 0 : EPOLLIN | EPOLLRDNORM;
}

/* ---- session state ---- */

/*
 * The time zone is taken only by the START that starts the session, before
 * any probe can read it: a later START (refused, -EBUSY) wrote it while
 * handlers read it, unterminated for the length of its memcpy.
 */
static int ctap_start(const struct ctap_msg_start *start)
{
	int ret = -EBUSY;

	mutex_lock(&cl.state_lock);
	if (cl.state == CTAP_LOADED) {
		cl.tz_gmtoff = start->tz_gmtoff;
		memcpy(cl.tz_name, start->tz_name, sizeof(cl.tz_name));
		cl.tz_name[sizeof(cl.tz_name) - 1] = '\0';
		ret = cl.ops->start(start->target, start->ns_pid);
		cl.state = ret ? CTAP_STOPPED : CTAP_RUNNING;
	}
	mutex_unlock(&cl.state_lock);
	return ret;
}

static void ctap_stop(void)
{
	unsigned long dropped;

	mutex_lock(&cl.state_lock);
	if (cl.state == CTAP_RUNNING) {
		ctap_relay_spill_begin();
		cl.ops->stop();
		ctap_relay_spill_end();
	}
	cl.state = CTAP_STOPPED;
	mutex_unlock(&cl.state_lock);
	/* Lost output and lost messages are reported, never hidden. */
	dropped = ctap_relay_take_dropped();
	if (dropped)
		ctap_notice("WARNING: %lu output writes were dropped: the output buffer was "
			    "full (a larger -s helps)\n", dropped);
	dropped = atomic_long_xchg(&cl.ctl_dropped, 0);
	if (dropped)
		ctap_notice("WARNING: %lu warning and error messages were dropped: "
			    "staprun did not read them in time\n", dropped);
	dropped = ctap_relay_take_cut();
	if (dropped)
		ctap_notice("WARNING: the output of %lu handler runs was cut: it did not fit "
			    "the handler's buffer (under --json, one statement's text must)\n",
			    dropped);
}

static void stop_work_fn(struct work_struct *work)
{
	ctap_stop();
	ctl_queue(CTAP_MSG_EXIT, NULL, 0, true);
}

s32 ctap_tz_gmtoff(void)
{
	return cl.tz_gmtoff;
}

const char *ctap_tz_name(void)
{
	return cl.tz_name;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct ctap_msg_hdr hdr;
	struct ctap_msg_start start;
	s32 result;

	if (count < sizeof(hdr) || copy_from_user(&hdr, ubuf, sizeof(hdr)))
		return -EINVAL;
	if (hdr.len != count - sizeof(hdr))
		return -EINVAL;

	switch (hdr.type) {
	case CTAP_MSG_START:
		if (hdr.len != sizeof(start) ||
		    copy_from_user(&start, ubuf + sizeof(hdr), sizeof(start)))
			return -EINVAL;
		result = ctap_start(&start);
		ctl_queue(CTAP_MSG_START, &result, sizeof(result), true);
		break;
	case CTAP_MSG_EXIT:
		/* Asynchronously: staprun goes on reading the end probes'
		 * output while they run; the reply says they are done. */
		schedule_work(&cl.stop_work);
		break;
	default:
		return -EINVAL;
	}
	return count;
}

/*
 * The session is its owner's: a setuid staprun opens this file as root for
 * any user, so the real uid decides.  Only the user who loaded the module
 * (or root) may stop it or attach to it.  One staprun at a time: a second
 * one (-A, -d beside a live session) is told the channel is busy rather
 * than stealing the first one's messages.  While nobody has the file open
 * (staprun -L, a staprun gone) the output overwrites its oldest part
 * (relay.c), as SystemTap's flight recorder: the attach turns that off
 * before staprun reads.
 */
static int ctl_open(struct inode *inode, struct file *file)
{
	kuid_t uid = current_uid();

	if (!uid_eq(uid, cl.owner) && !uid_eq(uid, GLOBAL_ROOT_UID))
		return -EPERM;
	if (atomic_cmpxchg(&cl.cmd_open, 0, 1))
		return -EBUSY;
	if (!try_module_get(THIS_MODULE)) {	/* being unloaded */
		atomic_set(&cl.cmd_open, 0);
		return -ENODEV;
	}
	ctap_relay_overwrite(false);
	return 0;
}

static int ctl_release(struct inode *inode, struct file *file)
{
	ctap_relay_overwrite(true);
	atomic_set(&cl.cmd_open, 0);
	module_put(THIS_MODULE);	/* procfs's rundown waits for us to return */
	return 0;
}

/*
 * An open .cmd holds a reference to the module (ctl_open()): procfs's
 * rundown at unload waits only for the operations in progress, and
 * would wait forever for a read blocked until a message comes (rmmod
 * hung until the reader went away); a poll() or epoll waiter keeps its
 * entry on cl.ctl_wait, the module's memory, after ->poll returned, and
 * removed it from freed memory after an unload; an EXIT written after
 * the unload's flush_work() queued stop_work to run in a freed module.
 * staprun closes the file before it unloads; rmmod of a session that a
 * staprun is attached to says the module is in use, as SystemTap's.
 */
static const struct proc_ops ctl_fops = {
	.proc_open = ctl_open,
	.proc_release = ctl_release,
	.proc_read = ctl_read,
	.proc_write = ctl_write,
	.proc_poll = ctl_poll,
	.proc_lseek = noop_llseek,
};

/* ---- lines and requests to staprun ---- */

void ctap_oob(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_queue_line(false, fmt, ap);
	va_end(ap);
}

void ctap_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_queue_line(true, fmt, ap);
	va_end(ap);
}

void ctap_system(const char *cmd)
{
	ctl_queue(CTAP_MSG_SYSTEM, cmd, min_t(size_t, strlen(cmd), CTAP_MSG_MAX_PAYLOAD), false);
}

void ctap_switch_file(void)
{
	ctl_queue(CTAP_MSG_SWITCH_FILE, NULL, 0, false);
}

void ctap_request_exit(void)
{
	ctl_queue(CTAP_MSG_REQUEST_EXIT, NULL, 0, true);
}

/* ---- init / exit ---- */

int ctap_ctl_init(const struct ctap_transport_ops *ops)
{
	cl.ops = ops;
	cl.owner = current_uid();	/* module init runs in the loader's context */
	cl.state = CTAP_LOADED;
	mutex_init(&cl.state_lock);
	spin_lock_init(&cl.ring_lock);
	init_waitqueue_head(&cl.ctl_wait);
	init_irq_work(&cl.wake_work, ctap_wake_readers);
	INIT_WORK(&cl.stop_work, stop_work_fn);
	cl.ring = kcalloc(CTAP_CTL_SLOTS, sizeof(*cl.ring), GFP_KERNEL);
	return cl.ring ? 0 : -ENOMEM;
}

int ctap_ctl_create_file(const char *name)
{
	char dir[MODULE_NAME_LEN + sizeof(CTAP_PROCFS_PREFIX)];

	snprintf(dir, sizeof(dir), CTAP_PROCFS_PREFIX "%s", name);
	cl.dir = proc_mkdir(dir, NULL);
	if (!cl.dir)
		return -EEXIST;		/* a stale directory, or no memory */
	if (!proc_create(CTAP_CMD_FILE, 0600, cl.dir, &ctl_fops)) {
		proc_remove(cl.dir);
		cl.dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

void ctap_ctl_remove_file(void)
{
	proc_remove(cl.dir);	/* waits for operations, releases open files */
	cl.dir = NULL;
}

void ctap_ctl_stop(void)
{
	flush_work(&cl.stop_work);	/* an EXIT being handled */
	ctap_stop();
	irq_work_sync(&cl.wake_work);
}

void ctap_ctl_free(void)
{
	kfree(cl.ring);
	cl.ring = NULL;
}
