/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctap_bundle.h - the file `stap -p4 -m NAME -r K1 -r K2...` writes and
 * staprun loads from (translator/build/bundle.c has its layout): modules for
 * several kernels, one manifest.
 */
#ifndef CTAP_BUNDLE_H
#define CTAP_BUNDLE_H

#define CTAP_BUNDLE_MAGIC	"ctap-bundle 1\n"
/* What staprun reads of a manifest, at most. */
#define CTAP_BUNDLE_MAX_MODULES	16
#define CTAP_BUNDLE_MAX_HEADER	4096

#endif /* CTAP_BUNDLE_H */
