// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - the shared segment and the module: stapdyn makes the memfd,
 * maps it at an address of its choosing, names it in the environment
 * (CTAP_DYN_SHM, inherited by the -c child) and then dlopens the module,
 * whose constructor (dyn-runtime/shm.c) finds it there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "stapdyn.h"

/*
 * Far from where the kernel puts a program's and its libraries' mappings
 * (top-down below the stack) and its heap (after the executable), so a
 * target started later most likely has the range free too; tried at
 * several places, MAP_FIXED_NOREPLACE, never over a mapping.
 */
#define SEG_BASE	0x3f0000000000UL
#define SEG_STEP	0x010000000000UL

#define RING_SIZE	(4UL << 20)
#define SHARED_SIZE	(1UL << 20)

static void *map_segment(int fd, size_t size)
{
	for (int i = 0; i < 16; i++) {
		void *want = (void *)(SEG_BASE + i * SEG_STEP);
		void *p = mmap(want, size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);

		if (p == want)
			return p;
		if (p != MAP_FAILED)
			munmap(p, size);
	}
	return NULL;
}

/* The local time zone now, DST included, as staprun reads it for the
 * kernel module (staprun/staprun.c). */
static void set_zone(struct ctap_dyn_shm *h)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm))
		return;
	h->tz_gmtoff = (int32_t)-tm.tm_gmtoff;
	snprintf(h->tz_name, sizeof(h->tz_name), "%s", tm.tm_zone ? tm.tm_zone : "");
}

static int make_segment(struct dyn_module *m, size_t size)
{
	struct ctap_dyn_shm *h;
	char env[128];

	/* Not close-on-exec: the -c child's constructor maps it. */
	m->fd = memfd_create("ctap-dyn", 0);
	if (m->fd < 0 || ftruncate(m->fd, (off_t)size))
		return -errno;
	h = map_segment(m->fd, size);
	if (!h)
		return -ENOMEM;
	h->magic = CTAP_DYN_MAGIC;
	h->abi = CTAP_DYN_ABI_VERSION;
	h->size = size;
	h->ring_off = 4096;
	h->ring_size = RING_SIZE;
	h->shared_off = h->ring_off + RING_SIZE;
	h->shared_size = SHARED_SIZE;
	h->heap_off = h->shared_off + SHARED_SIZE;
	set_zone(h);
	m->shm = h;
	snprintf(env, sizeof(env), "%d:%lx:%zu:%d", m->fd, (unsigned long)h, size, (int)getpid());
	return setenv(CTAP_DYN_ENV, env, 1) ? -errno : 0;
}

static void *sym(struct dyn_module *m, const char *name, const char *path)
{
	void *p = dlsym(m->handle, name);

	if (!p)
		fprintf(stderr, "ERROR: %s is not a ctap --runtime=dyninst module (no %s)\n",
			path, name);
	return p;
}

int module_load(struct dyn_module *m, const char *path, size_t seg_mb, int verbose)
{
	int ret = make_segment(m, seg_mb << 20);
	char here[4096];

	if (ret) {
		fprintf(stderr, "ERROR: cannot make the shared segment: %s\n", strerror(-ret));
		return ret;
	}
	/* "NAME.so" is a file here, not a library for the loader to search */
	if (!strchr(path, '/') && (size_t)snprintf(here, sizeof(here), "./%s", path) < sizeof(here))
		path = here;
	m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!m->handle) {
		fprintf(stderr, "ERROR: cannot load %s: %s\n", path, dlerror());
		return -ENOENT;
	}
	if (!(m->init = (ctap_dyn_init_fn)sym(m, "ctap_dyn_module_init", path)) ||
	    !(m->exit = (ctap_dyn_exit_fn)sym(m, "ctap_dyn_module_exit", path)) ||
	    !(m->start = (ctap_dyn_start_fn)sym(m, "ctap_dyn_start", path)) ||
	    !(m->stop = (ctap_dyn_stop_fn)sym(m, "ctap_dyn_stop", path)) ||
	    !(m->set_param = (ctap_dyn_param_fn)sym(m, "ctap_dyn_set_param", path)) ||
	    !(m->report = (ctap_dyn_report_fn)sym(m, "ctap_dyn_report", path)) ||
	    !(m->reap = (ctap_dyn_reap_fn)sym(m, "ctap_dyn_reap", path)))
		return -EINVAL;
	if (verbose)
		fprintf(stderr, "stapdyn: loaded %s, segment %zu MB at %p\n", path, seg_mb,
			(void *)m->shm);
	return 0;
}

void module_unload(struct dyn_module *m)
{
	if (m->handle)
		dlclose(m->handle);
}
