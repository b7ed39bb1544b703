// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - files in /proc/systemtap/MODULE/ served by read and write
 * probes.
 *
 * /proc/systemtap is shared by every ctap (and SystemTap) module: the
 * first to need it makes it, and whoever stops last with it empty takes it
 * away (top_lock()).  The handlers run in the reader's or writer's process
 * context, under the file's mutex; the buffer is allocated when the
 * session arms.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "procfs.h"

#define TOP_DIR		"systemtap"

/* TOP_DIR/module: the name at run time, so that the runtime object is
 * the same for every module (translator/build/build.c caches it). */
static char mod_path[sizeof(TOP_DIR) + MODULE_NAME_LEN + 1];

static bool stopping;		/* a waiting open gives up */
static struct proc_dir_entry *mod_dir;

static int procfs_open(struct inode *inode, struct file *file)
{
#ifdef CTAP_HAVE_PDE_DATA_FUNC
	struct ctap_procfs_file *f = PDE_DATA(inode);
#else
	struct ctap_procfs_file *f = pde_data(inode);
#endif

	mutex_lock(&f->lock);
	while (f->open) {
		int ret;

		mutex_unlock(&f->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/* The stop wakes us too: proc's rundown waits for this call. */
		ret = wait_event_interruptible(f->wait, !READ_ONCE(f->open) ||
					       READ_ONCE(stopping));
		if (ret)
			return ret;
		if (READ_ONCE(stopping))
			return -ENODEV;
		mutex_lock(&f->lock);
	}
	f->open = true;
	f->needs_fill = (file->f_mode & FMODE_READ) && f->read_probe;
	mutex_unlock(&f->lock);
	file->private_data = f;
	return 0;
}

static int procfs_release(struct inode *inode, struct file *file)
{
	struct ctap_procfs_file *f = file->private_data;

	mutex_lock(&f->lock);
	f->open = false;
	mutex_unlock(&f->lock);
	wake_up_interruptible(&f->wait);
	return 0;
}

/*
 * The read probe writes $value from empty.  Not inlined: a function that
 * calls ctap_probe_run() is a handler to testsuite/lib/runtime-callees, and
 * the file operations around it (mutex_lock, copy_from_user) run in the
 * reader's process, where a probe on them is harmless.
 */
static noinline void fill(struct ctap_procfs_file *f)
{
	unsigned long arg = (unsigned long)&f->value;

	f->value.len = 0;
	f->value.buf[0] = '\0';
	ctap_probe_run(f->read_probe, NULL, &arg, 1);
	f->needs_fill = false;
}

static ssize_t procfs_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct ctap_procfs_file *f = file->private_data;
	ssize_t ret;

	mutex_lock(&f->lock);
	if (f->needs_fill)
		fill(f);
	ret = simple_read_from_buffer(buf, count, ppos, f->value.buf, f->value.len);
	mutex_unlock(&f->lock);
	return ret;
}

/* The write probes, each with the bytes written as $value (see fill()). */
static noinline void run_writers(struct ctap_procfs_file *f)
{
	unsigned long arg = (unsigned long)&f->value;

	for (int i = 0; i < f->nwrite; i++)
		ctap_probe_run(f->write_probes[i], NULL, &arg, 1);
}

/* Each write(2) is one $value for every write probe: at most bufsize - 1 bytes. */
static ssize_t procfs_write(struct file *file, const char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct ctap_procfs_file *f = file->private_data;
	size_t n = min(count, f->value.size - 1);

	if (!f->nwrite)
		return -EIO;
	mutex_lock(&f->lock);
	if (copy_from_user(f->value.buf, buf, n)) {
		mutex_unlock(&f->lock);
		return -EFAULT;
	}
	f->value.buf[n] = '\0';
	f->value.len = n;
	run_writers(f);
	f->needs_fill = (file->f_mode & FMODE_READ) && f->read_probe;
	mutex_unlock(&f->lock);
	*ppos += n;
	return n;
}

static const struct proc_ops procfs_ops = {
	.proc_open = procfs_open,
	.proc_read = procfs_read,
	.proc_write = procfs_write,
	.proc_lseek = generic_file_llseek,
	.proc_release = procfs_release,
};

/*
 * Two modules starting and stopping at once raced on /proc/systemtap:
 * one found it empty and removed it while the other, having found it
 * there, made its directory in it ("removing non-empty directory", a
 * WARN), or both found none and made it ("already registered", a WARN).
 * Every ctap module now looks and makes, or looks and removes, holding
 * the inode lock of /proc's root directory: proc itself takes no VFS
 * lock to make or remove an entry, and a path lookup in /proc may take
 * that lock, so under it nothing walks a path (lookup_one_len() and
 * dentry_open() instead).  Modules of other tools, or in another mount
 * namespace's /proc, do not take it.
 */
static int top_lock(struct path *root)
{
	int ret = kern_path("/proc", LOOKUP_DIRECTORY, root);

	if (ret)
		return ret;
	inode_lock(d_inode(root->dentry));
	return 0;
}

static void top_unlock(struct path *root)
{
	inode_unlock(d_inode(root->dentry));
	path_put(root);
}

/* /proc/systemtap's dentry (dput() it), or NULL if it does not exist. */
static struct dentry *top_lookup(struct path *root)
{
	struct dentry *d = lookup_one_len(TOP_DIR, root->dentry, strlen(TOP_DIR));

	if (IS_ERR(d))
		return NULL;
	if (d_really_is_negative(d)) {
		dput(d);
		return NULL;
	}
	return d;
}

/* /proc/systemtap/MODULE, and /proc/systemtap first if nobody made it. */
static int make_dirs(void)
{
	struct dentry *top;
	struct path root;
	int ret;

	snprintf(mod_path, sizeof(mod_path), TOP_DIR "/%s", THIS_MODULE->name);
	ret = top_lock(&root);
	if (ret)
		return ret;
	top = top_lookup(&root);
	if (top)
		dput(top);
	else if (!proc_mkdir(TOP_DIR, NULL))
		ret = -ENOMEM;
	if (!ret) {
		mod_dir = proc_mkdir(mod_path, NULL);
		ret = mod_dir ? 0 : -ENOMEM;
	}
	top_unlock(&root);
	return ret;
}

struct dir_count {
	struct dir_context ctx;
	int n;
};

#ifdef CTAP_HAVE_FILLDIR_BOOL
typedef bool filldir_ret;
#define FILLDIR_GO_ON true
#else
typedef int filldir_ret;
#define FILLDIR_GO_ON 0
#endif

static filldir_ret count_entry(struct dir_context *ctx, const char *name, int len, loff_t off,
			       u64 ino, unsigned int type)
{
	struct dir_count *d = container_of(ctx, struct dir_count, ctx);

	if (!(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.'))
		d->n++;
	return FILLDIR_GO_ON;
}

/* Whether the directory top (of the mount root's) has no entries. */
static bool dir_empty(struct path *root, struct dentry *top)
{
	struct dir_count d = { .ctx.actor = count_entry };
	struct path p = { .mnt = root->mnt, .dentry = top };
	struct file *dir = dentry_open(&p, O_RDONLY | O_DIRECTORY, current_cred());
	bool empty;

	if (IS_ERR(dir))
		return false;
	empty = iterate_dir(dir, &d.ctx) == 0 && d.n == 0;
	fput(dir);
	return empty;
}

/* Take /proc/systemtap away if no module has a directory there now. */
static void remove_top_if_empty(void)
{
	struct dentry *top;
	struct path root;

	if (top_lock(&root))
		return;
	top = top_lookup(&root);
	if (top) {
		if (dir_empty(&root, top))
			remove_proc_entry(TOP_DIR, NULL);
		dput(top);
	}
	top_unlock(&root);
}

int ctap_procfs_register(struct ctap_procfs_file *files, int n)
{
	int ret = make_dirs();

	if (ret) {
		ctap_oob("ERROR: cannot create /proc/%s\n", mod_path);
		return ret;
	}
	stopping = false;
	for (int i = 0; i < n; i++) {
		struct ctap_procfs_file *f = &files[i];

		mutex_init(&f->lock);
		init_waitqueue_head(&f->wait);
		f->value.size = f->bufsize;
		f->value.buf = kvzalloc(f->bufsize, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
		if (f->value.buf)
			f->pde = proc_create_data(f->name, f->mode, mod_dir, &procfs_ops, f);
		if (!f->value.buf || !f->pde) {
			ctap_oob("ERROR: cannot create /proc/%s/%s\n", mod_path, f->name);
			ctap_procfs_unregister(files, i + 1);
			return -ENOMEM;
		}
	}
	return 0;
}

void ctap_procfs_unregister(struct ctap_procfs_file *files, int n)
{
	WRITE_ONCE(stopping, true);
	for (int i = 0; i < n; i++)
		wake_up_interruptible_all(&files[i].wait);
	/* Waits for the calls in progress and closes the files still open. */
	remove_proc_subtree(mod_path, NULL);
	mod_dir = NULL;
	for (int i = 0; i < n; i++) {
		kvfree(files[i].value.buf);
		files[i].value.buf = NULL;
		files[i].pde = NULL;
	}
	remove_top_if_empty();
}
