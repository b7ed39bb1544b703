/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dyn_internal.h - between the user-space runtime's units.
 */
#ifndef CTAP_DYN_INTERNAL_H
#define CTAP_DYN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ctap_dyn_shm;
extern struct ctap_dyn_shm *ctap_dyn_shm;

/* shm.c */
int ctap_dyn_map_shared(bool first);
void ctap_dyn_emit(unsigned int chan, const void *data, size_t len);
void ctap_dyn_wake(void);
/* session.c: no handler on this thread meanwhile, none counted skipped */
void ctap_dyn_quiet(bool on);
/* session.c: a fork's child takes a handler slot of its own */
void ctap_dyn_forget_slot(void);
/* transport.c: handler runs whose output was cut, in every process */
unsigned long ctap_transport_cut(void);

/* uprobes.c: the module's process probes into this process (a target) */
void ctap_dyn_uprobes_arm(void);
bool ctap_dyn_program_is(dev_t dev, ino_t ino);
/* tasks.c: process.begin (and an exec's end) in this process (a target) */
void ctap_dyn_tasks_attached(void);

#endif /* CTAP_DYN_INTERNAL_H */
