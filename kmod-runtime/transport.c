// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - relay output and the .cmd control file of a ctap module.
 *
 * Output goes to a relay channel in no-overwrite mode: when the buffers are
 * full the data is dropped and counted (every write), never blocks a probe.  Normally the
 * channel has one global buffer (trace0) whose writers are serialised by
 * out_lock, so that output appears in the order the probes produced it,
 * whatever CPU they ran on.  In bulk mode each CPU has its own buffer
 * (trace<cpu>) with its own lock, which only its CPU and the reader take;
 * staprun merges.  staprun reads through trace_read(), which takes a
 * buffer's lock to find what was written and to mark it read (relay's
 * read takes none).  Control
 * messages to staprun are queued in a fixed ring allocated at init, so that
 * probe context never allocates; readers are woken through irq_work because
 * a probe may fire with the scheduler's locks held.  The ring keeps its last
 * CTAP_CTL_RESERVED slots for the session's own replies (START, EXIT, the
 * exit request and the final counts), so that no flood of warnings can make
 * staprun wait forever for one; lost warnings are counted and reported.
 *
 * Both locks are taken only through guard_lock(): a probe can fire inside
 * the transport (a kprobe on a function it calls, an NMI), and its handler
 * may come back here on the same CPU.  Spinning then would wait for
 * ourselves, so a re-entry drops its message and counts it instead, and so
 * does an NMI that finds a lock taken.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/relay.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/hardirq.h>
#include <linux/percpu.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/delay.h>
#include <linux/cred.h>

#include "ctap_msgs.h"
#include "transport.h"

/* staprun -b sets it: one output file per CPU, no ordering lock. */
static bool ctap_bulk;
module_param(ctap_bulk, bool, 0444);
MODULE_PARM_DESC(ctap_bulk, "bulk mode: per-CPU output files (staprun -b)");
static int ctap_buffer_mb;
module_param(ctap_buffer_mb, int, 0444);
MODULE_PARM_DESC(ctap_buffer_mb, "output buffer size in MB, per CPU in bulk mode (staprun -s)");
/* What a setuid staprun looks for before it loads a module for a user. */
MODULE_INFO(ctap_protocol, CTAP_PROTOCOL);

#define CTAP_CTL_SLOTS	64	/* queued control messages; more are dropped */
#define CTAP_CTL_RESERVED 8	/* of which kept for the session's own replies */
#define CTAP_LINE_MAX	256	/* one formatted ctap_print() */
/* End-probe output held beyond the buffer, per end probe: allocated when
 * the session stops (its pages cost ~1.3 M instructions a megabyte). */
#ifndef CTAP_SPILL_SIZE
#define CTAP_SPILL_SIZE	(1 << 20)
#endif
#define CTAP_DRAIN_WAIT_MS 10000	/* staprun not reading for this long: give up */

struct ctap_ctl_msg {
	struct ctap_msg_hdr hdr;
	char payload[CTAP_MSG_MAX_PAYLOAD];
};

enum ctap_state { CTAP_LOADED, CTAP_RUNNING, CTAP_STOPPED };

static struct {
	const struct ctap_transport_ops *ops;
	struct dentry *top;		/* /sys/kernel/debug/ctap, shared */
	struct dentry *dir;		/* .../ctap/<module> */
	struct rchan *chan;
	bool bulk;			/* per-CPU buffers, no ordering */
	spinlock_t out_lock;		/* serialises writers of the global buffer */
	atomic_long_t dropped;
	atomic_long_t cut;		/* prints cut at the handler's buffer */

	struct mutex state_lock;	/* serialises start/stop */
	struct mutex read_lock;		/* one reader of the output at a time */
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
	s32 tz_gmtoff;			/* from START: staprun's time zone */
	char tz_name[CTAP_TZ_NAME_LEN];

	/* While the session stops, output the buffer has no room for waits
	 * here (under out_lock), in order, until staprun makes room. */
	char *spill;
	size_t spill_len;		/* of CTAP_SPILL_SIZE */
} tp;

/* ---- locks that a probe re-entering the transport cannot deadlock on ---- */

enum { HELD_RING = 1, HELD_OUT = 2 };
static DEFINE_PER_CPU(unsigned int, held);	/* which locks this CPU holds */

/*
 * Lock with interrupts already off (NULL: no lock, only the re-entry
 * guard).  False, with nothing held, if this CPU holds the lock already (a
 * probe fired inside the transport) or if an NMI finds it taken.
 */
static bool guard_take(spinlock_t *lock, unsigned int bit)
{
	if (__this_cpu_read(held) & bit)
		return false;
	if (lock) {
		if (in_nmi()) {
			if (!spin_trylock(lock))
				return false;
		} else {
			spin_lock(lock);
		}
	}
	__this_cpu_or(held, bit);
	return true;
}

/* Interrupts off, then guard_take(); on failure interrupts are restored. */
static bool guard_lock(spinlock_t *lock, unsigned int bit, unsigned long *flags)
{
	local_irq_save(*flags);
	if (guard_take(lock, bit))
		return true;
	local_irq_restore(*flags);
	return false;
}

static void guard_unlock(spinlock_t *lock, unsigned int bit, unsigned long flags)
{
	__this_cpu_and(held, ~bit);
	if (lock)
		spin_unlock(lock);
	local_irq_restore(flags);
}

/*
 * Each relay buffer has a lock, held by whoever writes to it or switches
 * its sub-buffers, and by the reader while it takes what was written: the
 * global buffer's is out_lock; in bulk mode each CPU's buffer has its own,
 * which only that CPU's writers and the reader take.
 */
static DEFINE_PER_CPU(spinlock_t, bulk_lock);

static spinlock_t *buf_lock(struct rchan_buf *buf)
{
	return tp.bulk ? per_cpu_ptr(&bulk_lock, buf->cpu) : &tp.out_lock;
}

/*
 * Interrupts off and the lock of the buffer this CPU writes to taken
 * (chosen with interrupts off, so that it stays this CPU's).  Returns the
 * lock for guard_unlock(), or NULL with nothing held when the guard refuses.
 */
static spinlock_t *output_guard(unsigned long *flags)
{
	spinlock_t *lock;

	local_irq_save(*flags);
	lock = tp.bulk ? this_cpu_ptr(&bulk_lock) : &tp.out_lock;
	if (guard_take(lock, HELD_OUT))
		return lock;
	local_irq_restore(*flags);
	return NULL;
}

/* ---- control ring ---- */

static void ctap_wake_readers(struct irq_work *work)
{
	wake_up_interruptible(&tp.ctl_wait);
}

static bool ctl_ring_empty(void)
{
	return READ_ONCE(tp.head) == READ_ONCE(tp.tail);
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
	const struct ctap_ctl_msg *last = &tp.ring[(tp.tail - 1) % CTAP_CTL_SLOTS];

	if (tp.tail == tp.head || last->hdr.type != type)
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
	if (tp.tail - tp.head >= room)
		return -ENOSPC;
	m = &tp.ring[tp.tail % CTAP_CTL_SLOTS];
	m->hdr.type = type;
	m->hdr.len = len;
	memcpy(m->payload, payload, len);
	WRITE_ONCE(tp.tail, tp.tail + 1);
	return 1;
}

/*
 * Queue one message; a script's (reserved false) may use all slots but the
 * reserved ones.  A message that does not fit is dropped and counted.
 */
static void ctl_queue(u32 type, const void *payload, u32 len, bool reserved)
{
	unsigned long flags;
	int queued;

	len = min_t(u32, len, CTAP_MSG_MAX_PAYLOAD);
	if (!guard_lock(&tp.ring_lock, HELD_RING, &flags))
		goto dropped;
	queued = ctl_queue_locked(type, payload, len, reserved);
	guard_unlock(&tp.ring_lock, HELD_RING, flags);
	if (queued < 0)
		goto dropped;
	if (queued)
		irq_work_queue(&tp.wake_work);
	return;
dropped:
	atomic_long_inc(&tp.ctl_dropped);
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

	if (!guard_lock(&tp.ring_lock, HELD_RING, &flags))
		goto dropped;
	n = vscnprintf(ctl_line, sizeof(ctl_line), fmt, ap);
	if (n == sizeof(ctl_line) - 1)
		ctl_line[n - 1] = '\n';
	else if (!n || ctl_line[n - 1] != '\n')
		ctl_line[n++] = '\n';
	queued = ctl_queue_locked(CTAP_MSG_OOB, ctl_line, n, reserved);
	guard_unlock(&tp.ring_lock, HELD_RING, flags);
	if (queued < 0)
		goto dropped;
	if (queued)
		irq_work_queue(&tp.wake_work);
	return;
dropped:
	atomic_long_inc(&tp.ctl_dropped);
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
		guard_lock(&tp.ring_lock, HELD_RING, &flags);
		if (tp.head != tp.tail) {
			m = tp.ring[tp.head % CTAP_CTL_SLOTS];
			n = sizeof(m.hdr) + m.hdr.len;
			if (count < n) {
				guard_unlock(&tp.ring_lock, HELD_RING, flags);
				return -EMSGSIZE;
			}
			WRITE_ONCE(tp.head, tp.head + 1);
			guard_unlock(&tp.ring_lock, HELD_RING, flags);
			break;
		}
		guard_unlock(&tp.ring_lock, HELD_RING, flags);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(tp.ctl_wait, !ctl_ring_empty());
		if (ret)
			return ret;
	}
	if (copy_to_user(ubuf, &m, n))
		return -EFAULT;
	return n;
}

static __poll_t ctl_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &tp.ctl_wait, wait);
	return ctl_ring_empty() ? 0 : EPOLLIN | EPOLLRDNORM;
}

/* ---- session state ---- */

static int ctap_start(s32 target)
{
	int ret = -EBUSY;

	mutex_lock(&tp.state_lock);
	if (tp.state == CTAP_LOADED) {
		ret = tp.ops->start(target);
		tp.state = ret ? CTAP_STOPPED : CTAP_RUNNING;
	}
	mutex_unlock(&tp.state_lock);
	return ret;
}

/*
 * __relay_write(), but knowing whether the data went in: relay drops a
 * write silently when the sub-buffer switch finds the buffer full
 * (subbuf_start says no), so the switch is done here and its answer kept.
 */
static bool relay_write_counted(struct rchan *chan, const void *data, size_t len)
{
	struct rchan_buf *buf = *this_cpu_ptr(chan->buf);

	if (!buf || len > chan->subbuf_size)
		return false;
	/* Full already (the last switch failed) and still full: the switch
	 * would fail again, at ten times the cost of asking. */
	if (buf->offset == chan->subbuf_size + 1 && relay_buf_full(buf))
		return false;
	if (buf->offset + len > chan->subbuf_size && !relay_switch_subbuf(buf, len))
		return false;
	memcpy(buf->data + buf->offset, data, len);
	buf->offset += len;
	return true;
}

/*
 * The end probes may print more than the buffer holds (a big report at
 * exit is what end probes are for): what does not fit goes to a spill
 * buffer, which ctap_drain_output() moves into the relay, in process
 * context after each end probe, as staprun reads.  staprun keeps reading
 * until EXIT's reply, which comes after the stop.  If it stops reading,
 * what is left is dropped and counted.
 */
static void spill_begin(void)
{
	char *buf = vmalloc(CTAP_SPILL_SIZE);
	unsigned long flags;
	spinlock_t *lock;

	if (!buf)
		return;
	/* Process context: the guard cannot refuse. */
	lock = output_guard(&flags);
	tp.spill = buf;
	tp.spill_len = 0;
	guard_unlock(lock, HELD_OUT, flags);
}

void ctap_drain_output(void)
{
	unsigned long flags, waited = 0;
	size_t done = 0, len;
	spinlock_t *lock;

	/* Process context: the guards cannot refuse. */
	lock = output_guard(&flags);
	len = tp.spill_len;
	guard_unlock(lock, HELD_OUT, flags);
	while (done < len && waited < CTAP_DRAIN_WAIT_MS) {
		size_t n = min_t(size_t, len - done, tp.chan->subbuf_size / 2);
		bool ok;

		lock = output_guard(&flags);
		ok = relay_write_counted(tp.chan, tp.spill + done, n);
		guard_unlock(lock, HELD_OUT, flags);
		if (ok) {
			done += n;
			waited = 0;
			continue;
		}
		msleep(20);	/* staprun reads, and makes room */
		waited += 20;
	}
	if (done < len)
		atomic_long_inc(&tp.dropped);
	lock = output_guard(&flags);
	tp.spill_len = 0;
	guard_unlock(lock, HELD_OUT, flags);
}

static void spill_end(void)
{
	unsigned long flags;
	spinlock_t *lock;
	char *buf;

	ctap_drain_output();
	lock = output_guard(&flags);
	buf = tp.spill;
	tp.spill = NULL;
	guard_unlock(lock, HELD_OUT, flags);
	vfree(buf);
}

static void ctap_stop(void)
{
	unsigned long dropped;

	mutex_lock(&tp.state_lock);
	if (tp.state == CTAP_RUNNING) {
		spill_begin();
		tp.ops->stop();
		spill_end();
	}
	tp.state = CTAP_STOPPED;
	mutex_unlock(&tp.state_lock);
	/* Lost output and lost messages are reported, never hidden. */
	dropped = atomic_long_xchg(&tp.dropped, 0);
	if (dropped)
		ctap_notice("WARNING: %lu output writes were dropped: the output buffer was "
			    "full (a larger -s helps)\n", dropped);
	dropped = atomic_long_xchg(&tp.ctl_dropped, 0);
	if (dropped)
		ctap_notice("WARNING: %lu warning and error messages were dropped: "
			    "staprun did not read them in time\n", dropped);
	dropped = atomic_long_xchg(&tp.cut, 0);
	if (dropped)
		ctap_notice("WARNING: the output of %lu handler runs was cut: it did not fit "
			    "the handler's buffer (under --json, one statement's text must)\n",
			    dropped);
}

void ctap_write_cut(void)
{
	atomic_long_inc(&tp.cut);
}

static void stop_work_fn(struct work_struct *work)
{
	ctap_stop();
	ctl_queue(CTAP_MSG_EXIT, NULL, 0, true);
}

s32 ctap_tz_gmtoff(void)
{
	return tp.tz_gmtoff;
}

const char *ctap_tz_name(void)
{
	return tp.tz_name;
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
		tp.tz_gmtoff = start.tz_gmtoff;
		memcpy(tp.tz_name, start.tz_name, sizeof(tp.tz_name));
		tp.tz_name[sizeof(tp.tz_name) - 1] = '\0';
		result = ctap_start(start.target);
		ctl_queue(CTAP_MSG_START, &result, sizeof(result), true);
		break;
	case CTAP_MSG_EXIT:
		/* Asynchronously: staprun goes on reading the end probes'
		 * output while they run; the reply says they are done. */
		schedule_work(&tp.stop_work);
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
 * than stealing the first one's messages.
 */
static int ctl_open(struct inode *inode, struct file *file)
{
	kuid_t uid = current_uid();

	if (!uid_eq(uid, tp.owner) && !uid_eq(uid, GLOBAL_ROOT_UID))
		return -EPERM;
	return atomic_cmpxchg(&tp.cmd_open, 0, 1) ? -EBUSY : 0;
}

static int ctl_release(struct inode *inode, struct file *file)
{
	atomic_set(&tp.cmd_open, 0);
	return 0;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.release = ctl_release,
	.read = ctl_read,
	.write = ctl_write,
	.poll = ctl_poll,
	.llseek = noop_llseek,
};

/* ---- relay ---- */

/*
 * Where the next unread bytes of buf are (*from) and how many, at most len
 * (0: none), stepping over sub-buffers read to their end; the buffer's
 * lock is held.  The sub-buffer being written is read up to where writing
 * stands.  relay's own read() takes no lock: run beside a sub-buffer
 * switch on another CPU, it once saw the new sub-buffer counted as
 * produced while the write position still named the old one, and
 * returned a whole unwritten sub-buffer, NUL bytes, as output.
 */
static size_t relay_peek(struct rchan_buf *buf, size_t len, const char **from)
{
	size_t size = buf->chan->subbuf_size;

	for (;;) {
		size_t sub = buf->subbufs_consumed % buf->chan->n_subbufs;
		bool writing = buf->subbufs_consumed == buf->subbufs_produced;
		size_t end;

		if (!writing)
			end = size - buf->padding[sub];
		else if (buf->offset > size)	/* full: no sub-buffer started */
			end = 0;
		else
			end = buf->offset;
		if (buf->bytes_consumed < end) {
			*from = (const char *)buf->start + sub * size + buf->bytes_consumed;
			return min(end - buf->bytes_consumed, len);
		}
		if (writing)
			return 0;
		buf->subbufs_consumed++;
		buf->bytes_consumed = 0;
	}
}

/*
 * read() of trace<N>: never blocks; 0 when nothing is there.  The bytes are
 * copied out without the lock: writers append past them, and cannot come
 * back to their sub-buffer before it is marked read (no-overwrite mode),
 * which happens after the copy.  One reader at a time.
 */
static ssize_t trace_read(struct file *filp, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	spinlock_t *lock = buf_lock(buf);
	unsigned long flags;
	ssize_t done = 0;

	mutex_lock(&tp.read_lock);
	while (done < count) {
		const char *from;
		size_t n;

		/* Process context: the guard cannot refuse. */
		guard_lock(lock, HELD_OUT, &flags);
		n = relay_peek(buf, count - done, &from);
		guard_unlock(lock, HELD_OUT, flags);
		if (!n)
			break;
		if (copy_to_user(ubuf + done, from, n)) {
			done = done ? done : -EFAULT;	/* the bytes stay unread */
			break;
		}
		guard_lock(lock, HELD_OUT, &flags);
		buf->bytes_consumed += n;
		guard_unlock(lock, HELD_OUT, flags);
		done += n;
	}
	mutex_unlock(&tp.read_lock);
	return done;
}

/* relay's file operations (open, poll, release) with the read above, and
 * no mmap or splice, which would read without the lock. */
static struct file_operations trace_fops;

static struct dentry *create_buf_file(const char *filename, struct dentry *parent,
				      umode_t mode, struct rchan_buf *buf,
				      int *is_global)
{
	*is_global = !tp.bulk;
	return debugfs_create_file(filename, 0400, parent, buf, &trace_fops);
}

static int remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

/* No-overwrite mode: a full buffer drops new data rather than old (the
 * write that found it full is counted by ctap_write). */
static int subbuf_start(struct rchan_buf *buf, void *subbuf, void *prev_subbuf,
			size_t prev_padding)
{
	return !relay_buf_full(buf);
}

/* not const: relay_open() takes it so in older kernels */
static struct rchan_callbacks relay_cbs = {
	.subbuf_start = subbuf_start,
	.create_buf_file = create_buf_file,
	.remove_buf_file = remove_buf_file,
};

void ctap_write(const void *data, size_t len)
{
	const char *p = data;
	unsigned long flags;
	spinlock_t *lock;

	if (!tp.chan)
		return;
	lock = output_guard(&flags);
	if (!lock) {
		atomic_long_inc(&tp.dropped);
		return;
	}
	while (len) {
		size_t n = min_t(size_t, len, tp.chan->subbuf_size);

		/* Once output spills, the rest follows it, so the order holds. */
		if (tp.spill_len || !relay_write_counted(tp.chan, p, n)) {
			if (tp.spill && tp.spill_len + n <= CTAP_SPILL_SIZE) {
				memcpy(tp.spill + tp.spill_len, p, n);
				tp.spill_len += n;
			} else {
				atomic_long_inc(&tp.dropped);
			}
		}
		p += n;
		len -= n;
	}
	guard_unlock(lock, HELD_OUT, flags);
}

/* Format one line on the stack and hand it to the output or to staprun. */
enum line_dest { TO_OUTPUT, TO_STDERR, TO_STDERR_RESERVED };

static void send_line(enum line_dest to, const char *fmt, va_list ap)
{
	char line[CTAP_LINE_MAX];
	int n;

	if (to != TO_OUTPUT) {
		ctl_queue_line(to == TO_STDERR_RESERVED, fmt, ap);
		return;
	}
	n = vscnprintf(line, sizeof(line), fmt, ap);
	ctap_write(line, n);
}

void ctap_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_line(TO_OUTPUT, fmt, ap);
	va_end(ap);
}

void ctap_oob(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_line(TO_STDERR, fmt, ap);
	va_end(ap);
}

void ctap_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_line(TO_STDERR_RESERVED, fmt, ap);
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

unsigned long ctap_transport_dropped(void)
{
	return atomic_long_read(&tp.dropped);
}

/* ---- init / exit ---- */

int ctap_transport_init(const char *name, const struct ctap_transport_ops *ops,
			bool bulk, size_t subbuf_size, size_t n_subbufs)
{
	int ret = -ENOMEM;
	int cpu;

	tp.ops = ops;
	tp.owner = current_uid();	/* module init runs in the loader's context */
	tp.bulk = bulk || ctap_bulk;
	if (ctap_buffer_mb > 0 && ctap_buffer_mb < 4096)
		n_subbufs = max_t(size_t, 2, ((size_t)ctap_buffer_mb << 20) / subbuf_size);
	spin_lock_init(&tp.out_lock);
	for_each_possible_cpu(cpu)
		spin_lock_init(per_cpu_ptr(&bulk_lock, cpu));
	trace_fops = relay_file_operations;
	trace_fops.owner = THIS_MODULE;
	trace_fops.read = trace_read;
	trace_fops.mmap = NULL;
	trace_fops.splice_read = NULL;
	tp.state = CTAP_LOADED;
	mutex_init(&tp.state_lock);
	mutex_init(&tp.read_lock);
	spin_lock_init(&tp.ring_lock);
	init_waitqueue_head(&tp.ctl_wait);
	init_irq_work(&tp.wake_work, ctap_wake_readers);
	INIT_WORK(&tp.stop_work, stop_work_fn);

	tp.ring = kcalloc(CTAP_CTL_SLOTS, sizeof(*tp.ring), GFP_KERNEL);
	if (!tp.ring)
		goto out;

	/* The shared parent stays: another ctap module may be using it. */
	tp.top = debugfs_lookup(CTAP_DEBUGFS_DIR, NULL);
	if (!tp.top)
		tp.top = debugfs_create_dir(CTAP_DEBUGFS_DIR, NULL);
	else
		dput(tp.top);
	if (IS_ERR(tp.top)) {
		ret = PTR_ERR(tp.top);
		goto out_ring;
	}
	tp.dir = debugfs_create_dir(name, tp.top);
	if (IS_ERR(tp.dir)) {
		ret = PTR_ERR(tp.dir);	/* -EEXIST: a stale directory */
		goto out_ring;
	}
	tp.chan = relay_open(CTAP_TRACE_PREFIX, tp.dir, subbuf_size, n_subbufs,
			     &relay_cbs, NULL);
	if (!tp.chan)
		goto out_dir;
	debugfs_create_file(CTAP_CMD_FILE, 0600, tp.dir, NULL, &ctl_fops);
	return 0;

out_dir:
	debugfs_remove(tp.dir);
out_ring:
	kfree(tp.ring);
out:
	pr_err("%s: transport init failed: %d\n", THIS_MODULE->name, ret);
	return ret;
}

void ctap_transport_exit(void)
{
	flush_work(&tp.stop_work);	/* an EXIT being handled */
	ctap_stop();
	irq_work_sync(&tp.wake_work);
	relay_close(tp.chan);
	tp.chan = NULL;
	debugfs_remove(tp.dir);
	kfree(tp.ring);
}
