// SPDX-License-Identifier: GPL-2.0
/*
 * netfilter.c - netfilter.hook("HOOK").pf("PF")[.priority("N")] and the
 * same with .pf first (runtime side: kmod-runtime/probes/netfilter.c): a
 * netfilter hook in the initial network namespace, run for each packet
 * that passes it.  What the netfilter.* tapset aliases are built on.
 *
 * HOOK: NF_INET_PRE_ROUTING, LOCAL_IN, FORWARD, LOCAL_OUT, POST_ROUTING
 * (and SystemTap's NF_IP_ / NF_IP6_ spellings), NF_ARP_IN/OUT/FORWARD,
 * NF_BR_*, or a number; PF: NFPROTO_IPV4, IPV6, ARP, BRIDGE or a number;
 * priority: a number, default 0.  Only a (PF, HOOK) pair the target
 * kernel has a hook table for is accepted (nf_pair_exists()).  In guru
 * mode another C identifier is taken as is, for the compiler (SystemTap's
 * rule).
 *
 * $vars: $hooknum, $skb, $in, $out (struct net_device *, may be 0),
 * $okfn, and $verdict, NF_ACCEPT (1) unless the handler sets it (guru
 * mode: NF_DROP is 0); the hook returns it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "kbtf.h"
#include "provider.h"
#include "session.h"
#include "xlate.h"

static const char *const patterns[] = {
	"netfilter.hook(string).pf(string)",
	"netfilter.pf(string).hook(string)",
	"netfilter.hook(string).pf(string).priority(string)",
	"netfilter.pf(string).hook(string).priority(string)",
	NULL
};

/* A probe's own data (derived_probe.data). */
struct nf_point {
	long hook, pf, priority;
	/* Guru mode: a name ctap does not know, passed to the C compiler as
	 * SystemTap does (a newer kernel's constant). */
	const char *hook_c, *pf_c;
};

struct name_value {
	const char *name;
	long value;
};

static const struct name_value hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 }, { "NF_INET_FORWARD", 2 },
	{ "NF_INET_LOCAL_OUT", 3 }, { "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 }, { "NF_IP_FORWARD", 2 },
	{ "NF_IP_LOCAL_OUT", 3 }, { "NF_IP_POST_ROUTING", 4 },
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 }, { "NF_IP6_FORWARD", 2 },
	{ "NF_IP6_LOCAL_OUT", 3 }, { "NF_IP6_POST_ROUTING", 4 },
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 },
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 }, { "NF_BR_FORWARD", 2 },
	{ "NF_BR_LOCAL_OUT", 3 }, { "NF_BR_POST_ROUTING", 4 },
	{ NULL, 0 }
};

static const struct name_value families[] = {
	{ "NFPROTO_IPV4", 2 }, { "NFPROTO_IPV6", 10 }, { "NFPROTO_ARP", 3 },
	{ "NFPROTO_BRIDGE", 7 }, { "PF_INET", 2 }, { "PF_INET6", 10 }, { "PF_BRIDGE", 7 },
	{ NULL, 0 }
};

extern const struct provider netfilter_provider;

/*
 * The hook tables of the initial namespace's struct netns_nf, by protocol
 * family.  nf_register_net_hook() indexes the family's table with the
 * hook number after a WARN_ON_ONCE() (a panic under panic_on_warn) for a
 * family it has no table for or a hook past its table: so only the pairs
 * the target's own struct has are accepted.  NFPROTO_INET (1) registers
 * in both the IPv4 and IPv6 tables; NFPROTO_NETDEV (5) needs a device,
 * which a script cannot name.
 */
static const struct nf_table {
	long pf;
	const char *name, *member, *member2;
} nf_tables[] = {
	{ 1, "NFPROTO_INET", "hooks_ipv4", "hooks_ipv6" },
	{ 2, "NFPROTO_IPV4", "hooks_ipv4", NULL },
	{ 3, "NFPROTO_ARP", "hooks_arp", NULL },
	{ 7, "NFPROTO_BRIDGE", "hooks_bridge", NULL },
	{ 10, "NFPROTO_IPV6", "hooks_ipv6", NULL },
	{ 12, "NFPROTO_DECNET", "hooks_decnet", NULL },
	{ 0, NULL, NULL, NULL }
};

/* How many hooks member of struct netns_nf has (an array), or 0 if the
 * target has no such member (the family is not built in). */
static long nf_table_hooks(struct btf *btf, const char *member)
{
	struct kbtf_field f;
	const struct btf_type *t;
	__u32 id;

	if (kbtf_find_type(btf, "struct netns_nf", &id) || kbtf_member(btf, id, member, &f))
		return 0;
	t = btf__type_by_id(btf, kbtf_strip(btf, f.type));
	return t && btf_is_array(t) ? (long)btf_array(t)->nelems : 0;
}

/* Whether the target kernel has a hook table for (p->pf, p->hook); else
 * reports why. */
static bool nf_pair_exists(struct elab *elab, const struct pp_match *m, const struct nf_point *p)
{
	struct btf *btf = elab_btf(elab);
	const struct nf_table *t = nf_tables;
	long n;

	while (t->name && t->pf != p->pf)
		t++;
	if (!t->name) {
		elab_error(elab, m, "netfilter protocol family %ld has no hooks a script can use "
			   "(NFPROTO_IPV4, IPV6, ARP, BRIDGE or INET)", p->pf);
		return false;
	}
	n = nf_table_hooks(btf, t->member);
	if (t->member2 && nf_table_hooks(btf, t->member2) < n)
		n = nf_table_hooks(btf, t->member2);
	if (n == 0) {
		elab_error(elab, m, "this kernel has no netfilter hooks for %s (%ld)", t->name, p->pf);
		return false;
	}
	if (p->hook >= n) {
		elab_error(elab, m, "netfilter hook %ld does not exist for %s: it has hooks 0 to %ld",
			   p->hook, t->name, n - 1);
		return false;
	}
	return true;
}

/* *out: s as a name of table t (NULL: none), or as a number from min to
 * max; false if it is neither. */
static bool lookup(const struct name_value *t, const char *s, long min, long max, long *out)
{
	char *end;

	for (; t && t->name; t++)
		if (!strcmp(t->name, s)) {
			*out = t->value;
			return true;
		}
	*out = strtol(s, &end, 0);
	return *s && !*end && *out >= min && *out <= max;
}

/* s if guru mode may hand it to the compiler as a constant (a C
 * identifier), else NULL. */
static const char *guru_name(struct elab *elab, const char *s)
{
	if (!elab_session(elab)->opt.guru || (!isalpha((unsigned char)*s) && *s != '_'))
		return NULL;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return NULL;
	return s;
}

/* The argument of the component called name. */
static const char *component(const struct pp_match *m, const char *name)
{
	for (int i = 0; i < m->ncomps; i++)
		if (!strcmp(m->comps[i]->name, name))
			return m->comps[i]->arg->str;
	return NULL;
}

/* BTF type ids of the $vars, looked up once per pass. */
struct nf_types {
	__u32 uint, skb, dev, ulong;
};

static const struct nf_types *types(struct elab *elab, struct btf *btf)
{
	void **slot = elab_provider_state(elab, &netfilter_provider);
	struct nf_types *t = *slot;
	const __u32 *pointers;

	if (t)
		return t;
	t = arena_new(elab_arena(elab), struct nf_types);
	pointers = kbtf_pointer_index(elab_arena(elab), btf);
	kbtf_find_ctype(btf, pointers, "unsigned int", &t->uint);
	kbtf_find_ctype(btf, pointers, "unsigned long", &t->ulong);
	if (kbtf_find_ctype(btf, pointers, "struct sk_buff *", &t->skb))
		t->skb = t->ulong;
	if (kbtf_find_ctype(btf, pointers, "struct net_device *", &t->dev))
		t->dev = t->ulong;
	*slot = t;
	return t;
}

static int netfilter_resolve(struct elab *elab, const struct pp_match *m)
{
	struct arena *a = elab_arena(elab);
	const char *hook = component(m, "hook"), *pf = component(m, "pf");
	const char *prio = component(m, "priority");
	struct nf_point *p = arena_new(a, struct nf_point);
	struct btf *btf = elab_btf(elab);
	const struct nf_types *t;
	struct derived_probe *d;
	struct probe_var *v;

	if (!btf)
		return -EINVAL;
	if (!lookup(hooks, hook, 0, 7, &p->hook) && !(p->hook_c = guru_name(elab, hook))) {
		elab_error(elab, m, "unknown netfilter hook '%s'", hook);
		return -EINVAL;
	}
	if (!lookup(families, pf, 0, 12, &p->pf) && !(p->pf_c = guru_name(elab, pf))) {
		elab_error(elab, m, "unknown netfilter protocol family '%s'", pf);
		return -EINVAL;
	}
	if (prio && !lookup(NULL, prio, -0x7fffffff, 0x7fffffff, &p->priority)) {
		elab_error(elab, m, "a netfilter priority is a number, not '%s'", prio);
		return -EINVAL;
	}
	if (!p->hook_c && !p->pf_c && !nf_pair_exists(elab, m, p))
		return -EINVAL;
	t = types(elab, btf);
	d = elab_add(elab, m, prio ? arena_printf(a, "netfilter.hook(\"%s\").pf(\"%s\").priority(\"%s\")",
					       hook, pf, prio)
				: arena_printf(a, "netfilter.hook(\"%s\").pf(\"%s\")", hook, pf));
	d->data = p;
	elab_add_var(elab, d, "$hooknum", "unsigned int", t->uint, 0);
	elab_add_var(elab, d, "$skb", "struct sk_buff*", t->skb, 1);
	elab_add_var(elab, d, "$in", "struct net_device*", t->dev, 2);
	elab_add_var(elab, d, "$out", "struct net_device*", t->dev, 3);
	elab_add_var(elab, d, "$okfn", "long unsigned int", t->ulong, 4);
	v = elab_add_var(elab, d, "$verdict", "unsigned int", t->uint, 5);
	v->in_args = true;	/* the hook returns what the handler leaves there */
	return 1;
}

static void netfilter_emit(struct xlate *x, const struct derived_probe *const *d, int n)
{
	emit_c(x, "static struct ctap_nf_hook nf_hooks[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct nf_point *p = d[i]->data;

		emit_c(x, "\t{ .probe = %s, .hooknum = %s, .pf = %s, .priority = %ld },\n",
		       emit_probe_ref(x, d[i]),
		       p->hook_c ? p->hook_c : arena_printf(x->a, "%ld", p->hook),
		       p->pf_c ? p->pf_c : arena_printf(x->a, "%ld", p->pf), p->priority);
	}
	emit_table_family(x, "nf_hooks", "ctap_netfilter_register", "ctap_netfilter_unregister");
}

const struct provider netfilter_provider = {
	.name = "netfilter",
	.family = "CTAP_FAMILY_NETFILTER",
	.patterns = patterns,
	.runtime = "probes/netfilter",
	.resolve = netfilter_resolve,
	.emit = netfilter_emit,
};
