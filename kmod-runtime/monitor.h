/* SPDX-License-Identifier: GPL-2.0 */
/*
 * monitor.h - stap --monitor's side of the module: the monitor_status
 * JSON and monitor_control's commands (monitor.c; the generated handlers
 * of the two files call these, holding every global's lock).
 */
#ifndef CTAP_MONITOR_H
#define CTAP_MONITOR_H

#include "ctap_runtime.h"

/* session.c's, for monitor.c. */
struct ctap_stat *ctap_timing_stat(int i);
size_t ctap_reserved(void);

#ifdef CTAP_MONITOR
/* From the module's load to its unload; -ENOMEM or 0. */
int ctap_monitor_init(const struct ctap_module *m);
void ctap_monitor_free(void);
#else
static inline int ctap_monitor_init(const struct ctap_module *m) { return 0; }
static inline void ctap_monitor_free(void) { }
#endif

/*
 * monitor_status's read handler: begin (o over the file's buffer, the
 * head written), then each global as name and value, then end (the
 * probes, the closing).  A global's value that does not fit is said so.
 */
void ctap_monitor_begin(struct ctap_context *c, struct ctap_out *o);
void ctap_monitor_name(struct ctap_out *o, const char *name, bool first);
void ctap_monitor_stat(struct ctap_out *o, const struct ctap_stat *st);
void ctap_monitor_map(struct ctap_out *o, struct ctap_map *m);
void ctap_monitor_end(struct ctap_context *c, struct ctap_out *o);

/* monitor_control's write handler: true for "clear" (the caller resets
 * the globals); "pause", "resume", an index and "quit" done here. */
bool ctap_monitor_control(struct ctap_context *c, const char *cmd);

#endif /* CTAP_MONITOR_H */
