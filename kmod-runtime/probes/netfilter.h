/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netfilter.h - netfilter.hook("HOOK").pf("PF"): a table of netfilter
 * hooks in the initial network namespace, each running its probe for
 * every packet that passes, and returning the verdict the handler left.
 */
#ifndef CTAP_NETFILTER_H
#define CTAP_NETFILTER_H

#include <linux/netfilter.h>

#include "ctap_runtime.h"

struct ctap_nf_hook {
	const struct ctap_probe *probe;
	unsigned int hooknum;
	u8 pf;
	int priority;
	struct nf_hook_ops ops;
	bool registered;
};

/**
 * ctap_netfilter_register - register a table of hooks
 * @hooks: the table
 * @n: its length
 *
 * Process context.  Returns 0, or the first failure's -errno after
 * unregistering the others and sending an error that names the probe.
 */
int ctap_netfilter_register(struct ctap_nf_hook *hooks, int n);
void ctap_netfilter_unregister(struct ctap_nf_hook *hooks, int n);

#endif /* CTAP_NETFILTER_H */
