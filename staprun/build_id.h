/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build_id.h - the GNU build id in a block of ELF notes: what tells two
 * builds of one kernel release apart.  staprun reads the running kernel's
 * (/sys/kernel/notes) to pick a bundle's module; the translator reads a
 * remote host's (stap --remote) and a vmlinux's note sections.  Linked
 * by both.
 */
#ifndef CTAP_BUILD_ID_H
#define CTAP_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>

bool notes_build_id(const void *notes, size_t n, char *hex, size_t size);

#endif /* CTAP_BUILD_ID_H */
