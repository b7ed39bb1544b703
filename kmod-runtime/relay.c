// SPDX-License-Identifier: GPL-2.0
/*
 * relay.c - the output of a ctap module: a relay channel in no-overwrite
 * mode, read by staprun (its relay.c).
 *
 * When the buffers are full the data is dropped and counted (every
 * write), never blocks a probe.  While no staprun is attached (staprun -L,
 * the flight recorder, or a staprun killed) the channel overwrites the
 * oldest sub-buffer instead, as SystemTap's does, so that the buffers
 * hold the newest output for the next staprun -A.
 *
 * Normally the channel has one global buffer (trace0) whose writers are
 * serialised by out_lock, so that output appears in the order the probes
 * produced it, whatever CPU they ran on.  In bulk mode each CPU has its own buffer (trace<cpu>) with its
 * own lock, which only its CPU and the reader take; staprun merges.
 * staprun reads through trace_read(), which takes a buffer's lock to find
 * what was written and to mark it read (relay's read takes none).  The
 * locks are taken through the guards of transport_internal.h.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/relay.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ctap_msgs.h"
#include "transport_internal.h"

#define CTAP_LINE_MAX	256	/* one formatted ctap_print() */
/* End-probe output held beyond the buffer, per end probe: allocated when
 * the session stops (its pages cost ~1.3 M instructions a megabyte). */
#ifndef CTAP_SPILL_SIZE
#define CTAP_SPILL_SIZE	(1 << 20)
#endif
#define CTAP_DRAIN_WAIT_MS 10000	/* staprun not reading for this long: give up */

static struct {
	struct rchan *chan;
	bool bulk;			/* per-CPU buffers, no ordering */
	spinlock_t out_lock;		/* serialises writers of the global buffer */
	atomic_long_t dropped;
	atomic_long_t cut;		/* prints cut at the handler's buffer */
	bool overwrite;			/* nobody attached: keep the newest */
	struct mutex read_lock;		/* one reader of the output at a time */

	/* While the session stops, output the buffer has no room for waits
	 * here (under out_lock), in order, until staprun makes room. */
	char *spill;
	size_t spill_len;		/* of CTAP_SPILL_SIZE */
} rl;

/*
 * Each relay buffer has a lock, held by whoever writes to it or switches
 * its sub-buffers, and by the reader while it takes what was written: the
 * global buffer's is out_lock; in bulk mode each CPU's buffer has its own,
 * which only that CPU's writers and the reader take.
 */
static DEFINE_PER_CPU(spinlock_t, bulk_lock);

static spinlock_t *buf_lock(struct rchan_buf *buf)
{
	return rl.bulk ? per_cpu_ptr(&bulk_lock, buf->cpu) : &rl.out_lock;
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
	lock = rl.bulk ? this_cpu_ptr(&bulk_lock) : &rl.out_lock;
	if (guard_take(lock, HELD_OUT))
		return lock;
	local_irq_restore(*flags);
	return NULL;
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
	if (buf->offset == chan->subbuf_size + 1 && !rl.overwrite && relay_buf_full(buf))
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
void ctap_relay_spill_begin(void)
{
	char *buf = vmalloc(CTAP_SPILL_SIZE);
	unsigned long flags;
	spinlock_t *lock;

	if (!buf)
		return;
	/* Process context: the guard cannot refuse. */
	lock = output_guard(&flags);
	rl.spill = buf;
	rl.spill_len = 0;
	guard_unlock(lock, HELD_OUT, flags);
}

void ctap_drain_output(void)
{
	unsigned long flags, waited = 0;
	size_t done = 0, len;
	spinlock_t *lock;

	/* Process context: the guards cannot refuse. */
	lock = output_guard(&flags);
	len = rl.spill_len;
	guard_unlock(lock, HELD_OUT, flags);
	while (done < len && waited < CTAP_DRAIN_WAIT_MS) {
		size_t n = min_t(size_t, len - done, rl.chan->subbuf_size / 2);
		bool ok;

		lock = output_guard(&flags);
		ok = relay_write_counted(rl.chan, rl.spill + done, n);
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
		atomic_long_inc(&rl.dropped);
	lock = output_guard(&flags);
	rl.spill_len = 0;
	guard_unlock(lock, HELD_OUT, flags);
}

void ctap_relay_spill_end(void)
{
	unsigned long flags;
	spinlock_t *lock;
	char *buf;

	ctap_drain_output();
	lock = output_guard(&flags);
	buf = rl.spill;
	rl.spill = NULL;
	guard_unlock(lock, HELD_OUT, flags);
	vfree(buf);
}

void ctap_write_cut(void)
{
	atomic_long_inc(&rl.cut);
}

/*
 * After overwrite mode the writer may have come round to (or past) the
 * oldest unread sub-buffer: reading starts at the oldest one it has not
 * touched again, the one after the sub-buffer it writes, if it writes.
 * The buffer's lock is held.
 */
static void skip_overwritten(struct rchan_buf *buf)
{
	size_t n = buf->chan->n_subbufs;
	size_t ready = buf->subbufs_produced - buf->subbufs_consumed;
	bool writing = buf->offset <= buf->chan->subbuf_size;

	if (ready > n || (ready == n && writing)) {
		buf->subbufs_consumed = buf->subbufs_produced - n + writing;
		buf->bytes_consumed = 0;
	}
}

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

	skip_overwritten(buf);
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
 * which happens after the copy.  One reader at a time, and only the
 * attached staprun's: in overwrite mode (nobody attached) writers do come
 * back, so a read then returns nothing and the output stays for -A.
 */
static ssize_t trace_read(struct file *filp, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	spinlock_t *lock = buf_lock(buf);
	unsigned long flags;
	ssize_t done = 0;

	mutex_lock(&rl.read_lock);
	while (done < count && !READ_ONCE(rl.overwrite)) {
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
	mutex_unlock(&rl.read_lock);
	return done;
}

/* relay's file operations (open, poll, release) with the read above, and
 * no mmap or splice, which would read without the lock. */
static struct file_operations trace_fops;

static struct dentry *create_buf_file(const char *filename, struct dentry *parent,
				      umode_t mode, struct rchan_buf *buf,
				      int *is_global)
{
	*is_global = !rl.bulk;
	return debugfs_create_file(filename, 0400, parent, buf, &trace_fops);
}

static int remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

/* No-overwrite mode: a full buffer drops new data rather than old (the
 * write that found it full is counted by ctap_write).  Overwrite mode
 * (nobody attached) reuses the oldest sub-buffer. */
static int subbuf_start(struct rchan_buf *buf, void *subbuf, void *prev_subbuf,
			size_t prev_padding)
{
	return rl.overwrite || !relay_buf_full(buf);
}

/*
 * staprun attaches (false) or goes (true).  Set under every buffer's lock,
 * which writers hold while they switch sub-buffers: once this returns with
 * false, no writer overwrites what the attached reader copies.
 */
void ctap_relay_overwrite(bool on)
{
	unsigned long flags;
	int cpu;

	/* Process context: the guards cannot refuse. */
	if (!rl.bulk) {
		guard_lock(&rl.out_lock, HELD_OUT, &flags);
		WRITE_ONCE(rl.overwrite, on);
		guard_unlock(&rl.out_lock, HELD_OUT, flags);
		return;
	}
	for_each_possible_cpu(cpu) {
		spinlock_t *lock = per_cpu_ptr(&bulk_lock, cpu);

		guard_lock(lock, HELD_OUT, &flags);
		WRITE_ONCE(rl.overwrite, on);
		guard_unlock(lock, HELD_OUT, flags);
	}
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

	if (!rl.chan)
		return;
	lock = output_guard(&flags);
	if (!lock) {
		atomic_long_inc(&rl.dropped);
		return;
	}
	while (len) {
		size_t n = min_t(size_t, len, rl.chan->subbuf_size);

		/* Once output spills, the rest follows it, so the order holds. */
		if (rl.spill_len || !relay_write_counted(rl.chan, p, n)) {
			if (rl.spill && rl.spill_len + n <= CTAP_SPILL_SIZE) {
				memcpy(rl.spill + rl.spill_len, p, n);
				rl.spill_len += n;
			} else {
				atomic_long_inc(&rl.dropped);
			}
		}
		p += n;
		len -= n;
	}
	guard_unlock(lock, HELD_OUT, flags);
}

void ctap_print(const char *fmt, ...)
{
	char line[CTAP_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ctap_write(line, n);
}

unsigned long ctap_transport_dropped(void)
{
	return atomic_long_read(&rl.dropped);
}

unsigned long ctap_relay_take_dropped(void)
{
	return atomic_long_xchg(&rl.dropped, 0);
}

unsigned long ctap_relay_take_cut(void)
{
	return atomic_long_xchg(&rl.cut, 0);
}

int ctap_relay_open(struct dentry *dir, bool bulk, size_t subbuf_size, size_t n_subbufs)
{
	int cpu;

	rl.bulk = bulk;
	spin_lock_init(&rl.out_lock);
	for_each_possible_cpu(cpu)
		spin_lock_init(per_cpu_ptr(&bulk_lock, cpu));
	trace_fops = relay_file_operations;
	trace_fops.owner = THIS_MODULE;
	trace_fops.read = trace_read;
	trace_fops.mmap = NULL;
	trace_fops.splice_read = NULL;
	mutex_init(&rl.read_lock);
	rl.chan = relay_open(CTAP_TRACE_PREFIX, dir, subbuf_size, n_subbufs, &relay_cbs, NULL);
	return rl.chan ? 0 : -ENOMEM;
}

void ctap_relay_close(void)
{
	relay_close(rl.chan);
	rl.chan = NULL;
}
