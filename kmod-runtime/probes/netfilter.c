// SPDX-License-Identifier: GPL-2.0
/*
 * netfilter.c - register netfilter hooks and run their probes.
 *
 * A hook runs in softirq or process context, under RCU, for each packet.
 * The probe's arguments are $hooknum, $skb, $in, $out, $okfn and
 * $verdict; the hook returns the verdict as the handler left it (only
 * NF_DROP or NF_ACCEPT: a script cannot steal or queue a packet).
 */
#include <net/net_namespace.h>

#include "netfilter.h"

#define NF_ARGS 6

static noinline unsigned int nf_probe_run(const struct ctap_nf_hook *h, struct sk_buff *skb,
					  const struct nf_hook_state *state)
{
	unsigned long args[NF_ARGS] = {
		state->hook, (unsigned long)skb, (unsigned long)state->in,
		(unsigned long)state->out, (unsigned long)state->okfn, NF_ACCEPT,
	};

	ctap_probe_run(h->probe, NULL, args, NF_ARGS);
	return args[5] == NF_DROP ? NF_DROP : NF_ACCEPT;
}

static unsigned int nf_hook_hit(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	return nf_probe_run(priv, skb, state);
}

int ctap_netfilter_register(struct ctap_nf_hook *hooks, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ctap_nf_hook *h = &hooks[i];

		memset(&h->ops, 0, sizeof(h->ops));
		h->ops.hook = nf_hook_hit;
		h->ops.priv = h;
		h->ops.pf = h->pf;
		h->ops.hooknum = h->hooknum;
		h->ops.priority = h->priority;
		ret = nf_register_net_hook(&init_net, &h->ops);
		if (ret) {
			ctap_probe_refused(h->probe, false, "(rc %d)", ret);
			ctap_netfilter_unregister(hooks, i);
			return ret;
		}
		h->registered = true;
	}
	return 0;
}

void ctap_netfilter_unregister(struct ctap_nf_hook *hooks, int n)
{
	for (int i = 0; i < n; i++) {
		if (!hooks[i].registered)
			continue;
		nf_unregister_net_hook(&init_net, &hooks[i].ops);
		hooks[i].registered = false;
	}
}
