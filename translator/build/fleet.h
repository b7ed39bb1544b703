/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet.h - stap --remote-merge: the hosts' merged globals into one file
 * for the fleet's end probes (docs/remote.md).
 */
#ifndef FLEET_H
#define FLEET_H

/* dumps[0..ndumps): each host's "\036ctap-merge" lines, in host order
 * (modified); the merge written to path (a new file).  0, or -1 after
 * saying why. */
int fleet_merge(char *const *dumps, int ndumps, const char *path);

#endif /* FLEET_H */
