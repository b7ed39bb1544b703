/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes.h - process("PATH").function("f")[.return]: a table of uprobes
 * and uretprobes that the generated module declares, each a file and an
 * offset in it (the translator read the symbol from the file's ELF).
 */
#ifndef CTAP_UPROBES_H
#define CTAP_UPROBES_H

#include <linux/uprobes.h>

#include "ctap_runtime.h"

struct ctap_uprobe {
	const struct ctap_probe *probe;
	const char *path;
	loff_t offset;
	bool is_return;
	struct uprobe_consumer uc;
	struct inode *inode;		/* held while registered */
};

/**
 * ctap_uprobes_register - register a table of uprobes
 * @ups: the table
 * @n: its length
 *
 * Process context.  Returns 0, or the first failure's -errno after
 * unregistering the others and sending an error that names the probe
 * point (a missing file, say).
 */
int ctap_uprobes_register(struct ctap_uprobe *ups, int n);
void ctap_uprobes_unregister(struct ctap_uprobe *ups, int n);

#endif /* CTAP_UPROBES_H */
