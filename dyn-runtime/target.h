/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - $vars of the user-space runtime: none yet.  Process probes
 * (the next step, docs/userspace.md) will read them here, fault-safe.
 */
#ifndef CTAP_DYN_TARGET_H
#define CTAP_DYN_TARGET_H

#include "ctap_runtime.h"

#endif /* CTAP_DYN_TARGET_H */
