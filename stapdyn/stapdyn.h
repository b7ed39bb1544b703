/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapdyn.h - between stapdyn's units (docs/userspace.md).
 */
#ifndef STAPDYN_H
#define STAPDYN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../dyn-runtime/dyn_abi.h"

struct dyn_module {
	void *handle;
	struct ctap_dyn_shm *shm;
	int fd;
	ctap_dyn_init_fn init;
	ctap_dyn_exit_fn exit;
	ctap_dyn_start_fn start;
	ctap_dyn_stop_fn stop;
	ctap_dyn_param_fn set_param;
	ctap_dyn_report_fn report;
	ctap_dyn_reap_fn reap;
};

/* module.c: the segment, then the module in it; 0 or -errno (said why). */
int module_load(struct dyn_module *m, const char *path, size_t seg_mb, int verbose);
void module_unload(struct dyn_module *m);

/* attach.c: -x PID, the module loaded into it with ptrace; 0 or -errno
 * (said why). */
int attach_load(pid_t pid, const char *module, int seg_fd, const struct ctap_dyn_shm *shm);

#endif /* STAPDYN_H */
