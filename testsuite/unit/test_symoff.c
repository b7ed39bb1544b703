// SPDX-License-Identifier: GPL-2.0
/*
 * test_symoff.c - ctap_asked_address() (kmod-runtime/core/symoff.h): the
 * address a kprobe was asked for, FUNC+OFFSET, from where the kernel put
 * it and the kernel's name for that place (sprint_symbol()).  A DWARF
 * statement's statics and @var count from it: on an IBT kernel (6.12) a
 * probe asked for at FUNC+0 is placed past the endbr64, at FUNC+4.
 */
#include <stdint.h>

#include "unit.h"
#include "core/symoff.h"

/* 6.12's vfs_read, link-time (System.map-6.12.111+deb12-amd64) */
#define VFS_READ	0xffffffff81453e50UL

static unsigned long asked(unsigned long probed, const char *symoff, unsigned long offset)
{
	unsigned long a = 0;

	return ctap_asked_address(probed, symoff, offset, &a) ? 1 : a;
}

int main(void)
{
	unsigned long a;

	/* the kernel moved the entry probe past endbr64: FUNC itself */
	CHECK(asked(VFS_READ + 4, "vfs_read+0x4/0x1a0", 0) == VFS_READ,
	      "IBT: a probe asked for at vfs_read+0 and placed at +4 counts from vfs_read");
	/* without IBT (6.1) the kernel leaves it where asked */
	CHECK(asked(VFS_READ, "vfs_read+0x0/0x1a0", 0) == VFS_READ, "no IBT: FUNC+0 stays");
	/* an offset inside: placed where asked, 4 included (endbr's end) */
	CHECK(asked(VFS_READ + 0x2a, "vfs_read+0x2a/0x1a0", 0x2a) == VFS_READ + 0x2a,
	      "FUNC+0x2a stays");
	CHECK(asked(VFS_READ + 4, "vfs_read+0x4/0x1a0", 4) == VFS_READ + 4, "FUNC+4 stays");
	/* a module's function, named with its module after it */
	CHECK(asked(0xffffffffc0a01004UL, "load_misc_binary+0x4/0x5d0 [binfmt_misc]", 0) ==
	      0xffffffffc0a01000UL, "a module's function: IBT's +4 undone");
	/* hex digits, and names with dots (a compiler's clone) */
	CHECK(asked(VFS_READ + 0xabc, "f.isra.0+0xabc/0xfff", 0) == VFS_READ, "f.isra.0+0xabc");
	/* what the kernel would not print: refused, *asked untouched */
	a = 7;
	CHECK_INT(ctap_asked_address(VFS_READ, "vfs_read", 0, &a), -EINVAL, "no offset");
	CHECK_INT(a, 7, "no offset: nothing written");
	CHECK_INT(ctap_asked_address(VFS_READ, "0xffffffff81453e50", 0, &a), -EINVAL,
		  "an address without a symbol");
	CHECK_INT(ctap_asked_address(VFS_READ, "vfs_read+4/0x1a0", 0, &a), -EINVAL, "no 0x");
	CHECK_INT(ctap_asked_address(VFS_READ, "vfs_read+0x/0x1a0", 0, &a), -EINVAL, "no digits");
	CHECK_INT(ctap_asked_address(VFS_READ, "vfs_read+0x4g/0x1a0", 0, &a), -EINVAL, "not hex");
	CHECK_INT(ctap_asked_address(VFS_READ, "vfs_read+0x11111111111111111/0x1", 0, &a), -EINVAL,
		  "an offset past 64 bits");
	CHECK_INT(ctap_asked_address(0x10, "f+0x20/0x40", 0, &a), -EINVAL, "past the address");
	return unit_done();
}
