/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes.h - process("PATH").function("f")[.return] and
 * process("PATH").mark("m"): a table of uprobes and uretprobes that the
 * generated module declares, each a file and an offset in it (the
 * translator read the symbol or the marker's note from the file's ELF).
 * The table and a hit's run are both runtimes' (uprobe_table.h); here is
 * what the kernel keeps of an entry while it is registered.
 */
#ifndef CTAP_UPROBES_H
#define CTAP_UPROBES_H

#include <linux/uprobes.h>

#include "ctap_runtime.h"

struct ctap_uprobe_rt {
	struct uprobe_consumer entry_uc;	/* at entry_offset */
#ifdef CTAP_HAVE_UPROBE_HANDLE
	struct uprobe *entry_uprobe;
#endif
	struct uprobe_consumer uc;
	struct inode *inode;		/* held while registered */
#ifdef CTAP_HAVE_UPROBE_HANDLE
	struct uprobe *uprobe;		/* what uprobe_register() returned */
#endif
};

#include "probes/uprobe_table.h"

#ifndef __uninitialized		/* compiler_attributes.h's, from 5.19 */
#define __uninitialized
#endif
#ifndef __no_stack_protector
#define __no_stack_protector
#endif

#endif /* CTAP_UPROBES_H */
