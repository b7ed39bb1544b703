/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - what $var reads compile to: a probed function's arguments and
 * its return value, and reads of kernel memory that cannot oops.
 *
 * The translator resolves $file->f_path.dentry against BTF into argument
 * numbers, member offsets and sizes; at run time a read is one register
 * fetch or one copy_from_kernel_nofault() per pointer followed.  A fault
 * is a soft error of the handler, as SystemTap's.
 */
#ifndef CTAP_TARGET_H
#define CTAP_TARGET_H

#include "core/ctap_limits.h"
#include "ctap_runtime.h"

/**
 * ctap_arg - argument n (from 0) of the probed function
 * @c: the handler's context
 * @n: which argument
 *
 * In an entry probe, from the registers (and stack) as the calling
 * convention puts them; in a .return probe, as saved at entry; in a
 * tracepoint, as passed to it.
 */
static inline unsigned long ctap_arg(struct ctap_context *c, unsigned int n)
{
	if (c->args)
		return n < c->nargs ? c->args[n] : 0;
	return c->regs ? regs_get_kernel_argument(c->regs, n) : 0;
}

/*
 * Argument n (from 0) of a user function, as the x86-64 calling convention
 * puts it, from user registers at its entry: di, si, dx, cx, r8, r9, then
 * the user stack above the return address (0 if it cannot be read).
 * int_arg() and its kind in a process probe, as SystemTap's.
 */
static inline unsigned long ctap_user_arg(struct pt_regs *regs, unsigned int n)
{
	static const unsigned char in_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	unsigned long v = 0;

	if (n < ARRAY_SIZE(in_regs))
		return *(unsigned long *)((char *)regs + in_regs[n]);
	if (copy_from_user_nofault(&v, (const void __user *)(regs->sp + 8 * (n - 5)), sizeof(v)))
		return 0;
	return v;
}

/* Argument n when the family passes a string of the module there (a
 * marker's $$name); "" where it does not. */
static inline const char *ctap_arg_string(struct ctap_context *c, unsigned int n)
{
	return c->args && n < c->nargs && c->args[n] ? (const char *)c->args[n] : "";
}

/* What a .return probe's @entry parts saved: after the arguments saved at
 * entry (kprobes.c: CTAP_ENTRY_ARGS of them in the kretprobe instance;
 * syscalls.c: its 8 in the task's slot). */
static inline void *ctap_entry_saved(struct ctap_context *c)
{
	return (void *)(c->args + max_t(int, c->nargs, CTAP_ENTRY_ARGS));
}

/* The probed function's return value, in a .return probe. */
static inline unsigned long ctap_retval(struct ctap_context *c)
{
	return c->regs ? regs_return_value(c->regs) : 0;
}

/* A register-sized value as a script long, from a type of size bytes. */
static inline int64_t ctap_extend(u64 v, int size, bool is_signed)
{
	/* Each arm converts on its own: in one ?: (s32)v and (u32)v would
	 * both become u32, and -100 4294967196. */
	switch (size) {
	case 1:
		return is_signed ? (int64_t)(s8)v : (int64_t)(u8)v;
	case 2:
		return is_signed ? (int64_t)(s16)v : (int64_t)(u16)v;
	case 4:
		return is_signed ? (int64_t)(s32)v : (int64_t)(u32)v;
	default:
		return v;
	}
}

/**
 * ctap_kread - read a number of kernel memory
 * @c: the handler's context
 * @addr: where
 * @size: 1, 2, 4 or 8 bytes
 * @is_signed: sign-extend it
 * @where: the script location for the error ("identifier '$file' at ...")
 *
 * Returns the value, or 0 with the handler's error set if @addr cannot be
 * read (the caller then unwinds).
 */
static inline int64_t ctap_kread(struct ctap_context *c, unsigned long addr, int size,
				 bool is_signed, const char *where)
{
	u64 v = 0;

	if (unlikely(copy_from_kernel_nofault(&v, (const void *)addr, size))) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "read fault [man error::fault] at 0x%lx", addr);
		ctap_error(c, c->error_buf, where);
		return 0;
	}
	/* Little-endian: the low size bytes of v hold the value. */
	return ctap_extend(v, size, is_signed);
}

/* ctap_kread() of the current task's user memory: a user program's
 * $p->member (its DWARF types, translator/user/udwarf_btf.c). */
static inline int64_t ctap_uread(struct ctap_context *c, unsigned long addr, int size,
				 bool is_signed, const char *where)
{
	u64 v = 0;

	if (unlikely(copy_from_user_nofault(&v, (const void __user *)addr, size))) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "user read fault [man error::fault] at 0x%lx", addr);
		ctap_error(c, c->error_buf, where);
		return 0;
	}
	return ctap_extend(v, size, is_signed);
}

/**
 * ctap_set_reg - write a register a $var lives in (guru mode)
 * @c: the handler's context
 * @regs: the registers (the handler's, or a system call's caller's)
 * @offset: the register's offset in struct pt_regs
 * @v: the new value
 * @where: the script location for the error
 */
static inline void ctap_set_reg(struct ctap_context *c, struct pt_regs *regs, size_t offset,
				int64_t v, const char *where)
{
	if (unlikely(!regs)) {
		ctap_error(c, "no registers to write the value in", where);
		return;
	}
	*(unsigned long *)((char *)regs + offset) = v;
}

/* Set argument n, which the family reads back when the handler returns
 * (netfilter's verdict). */
static inline void ctap_set_arg(struct ctap_context *c, unsigned int n, int64_t v)
{
	if (c->args && n < c->nargs)
		((unsigned long *)c->args)[n] = v;
}

/**
 * ctap_kwrite - write a number of kernel memory (guru mode)
 * @c: the handler's context
 * @addr: where
 * @size: 1, 2, 4 or 8 bytes
 * @v: the value, of which the low @size bytes are written
 * @where: the script location for the error
 */
static inline void ctap_kwrite(struct ctap_context *c, unsigned long addr, int size, int64_t v,
			       const char *where)
{
	/* copy_to_kernel_nofault() is not exported: its parts are inline.
	 * Little-endian: the low size bytes of v are its first ones. */
	if (unlikely(addr < TASK_SIZE_MAX))
		goto fault;
	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault((void *)addr, &v, u8, fault_enabled);
		break;
	case 2:
		__put_kernel_nofault((void *)addr, &v, u16, fault_enabled);
		break;
	case 4:
		__put_kernel_nofault((void *)addr, &v, u32, fault_enabled);
		break;
	default:
		__put_kernel_nofault((void *)addr, &v, u64, fault_enabled);
		break;
	}
	pagefault_enable();
	return;
fault_enabled:
	pagefault_enable();
fault:
	snprintf(c->error_buf, sizeof(c->error_buf), "write fault [man error::fault] at 0x%lx", addr);
	ctap_error(c, c->error_buf, where);
}

/* A bitfield of width bits at bit offset shift of the word v. */
static inline int64_t ctap_bitfield(u64 v, int shift, int bits, bool is_signed)
{
	v <<= 64 - shift - bits;
	return is_signed ? (int64_t)v >> (64 - bits) : (int64_t)(v >> (64 - bits));
}

/**
 * ctap_copy_string - copy a NUL-terminated string that may not be there
 * @dst: where, @size bytes; always NUL-terminated
 * @src: a kernel address, or a user address of the current task (@user)
 * @size: the most bytes to write, NUL included (at least 1)
 * @user: @src is a user address
 *
 * Any context: reads page by page without sleeping or faulting.  Returns
 * the string's length (at most @size - 1), or -EFAULT if a byte before
 * its end could not be read.
 */
long ctap_copy_string(char *dst, unsigned long src, size_t size, bool user);

/* n bytes at src, kernel memory or the current task's (@user), without
 * faulting: 0, or non-zero if they cannot be read. */
static inline long ctap_copy_nofault(void *dst, unsigned long src, size_t n, bool user)
{
	return user ? copy_from_user_nofault(dst, (const void __user *)src, n) :
		      copy_from_kernel_nofault(dst, (const void *)src, n);
}

/* One UTF-16 (width 2) or UTF-32 (width 4) code unit at src. */
static inline long ctap_wide_unit(u32 *c, unsigned long src, int width, bool user)
{
	u16 c16;
	long rc;

	if (width == 4)
		return ctap_copy_nofault(c, src, 4, user);
	rc = ctap_copy_nofault(&c16, src, 2, user);
	*c = c16;
	return rc;
}

/**
 * ctap_copy_wide_string - a NUL-terminated UTF-16 or UTF-32 string as UTF-8
 * @dst: where, @size bytes (at least 1); always NUL-terminated
 * @src: a kernel address, or a user address of the current task (@user)
 * @width: 2 (UTF-16: a surrogate pair is one character) or 4 (UTF-32)
 * @user: @src is a user address
 * @at: set to the address of the unit that faulted or of the bad character
 * @bad: set to the character UTF-8 cannot hold (a lone surrogate, beyond
 *	 U+10FFFF)
 *
 * One unit read at a time, each without faulting; every unit gives at
 * least one byte, so at most @size - 1 units are read.  Stops at the NUL
 * or before the first character that does not fit whole.  Returns 0,
 * -EFAULT or -EILSEQ (@dst holds what came before).
 */
static inline int ctap_copy_wide_string(char *dst, size_t size, unsigned long src, int width,
					bool user, unsigned long *at, u32 *bad)
{
	size_t n = 0;
	u32 c, low;
	int len;

	dst[0] = '\0';
	while (n < size - 1) {
		*at = src;
		if (ctap_wide_unit(&c, src, width, user))
			return -EFAULT;
		if (!c)
			return 0;
		if (width == 2 && c >= 0xd800 && c <= 0xdbff) {
			*at = src + 2;
			if (ctap_wide_unit(&low, src + 2, 2, user))
				return -EFAULT;
			*at = src;
			if (low >= 0xdc00 && low <= 0xdfff) {
				c = 0x10000 + ((c & 0x3ff) << 10) + (low & 0x3ff);
				src += 2;
			}
		}
		len = ctap_utf8_put(dst + n, size - n, c);
		if (len < 0) {
			*bad = c;
			return -EILSEQ;
		}
		if (!len)
			break;
		n += len;
		src += width;
	}
	return 0;
}

/* SystemTap's *_string_utf16/_utf32(): the string at addr through
 * ctap_copy_wide_string() into out (MAXSTRINGLEN bytes), its failures as
 * SystemTap words them. */
static inline void ctap_wide_string(struct ctap_context *c, char *out, int64_t addr, int width,
				    bool user)
{
	unsigned long at = 0;
	u32 bad = 0;
	int rc = ctap_copy_wide_string(out, MAXSTRINGLEN, addr, width, user, &at, &bad);

	if (rc == -EFAULT)
		ctap_soft_error(c, "%s string copy fault at 0x%lx [man error::fault]",
				user ? "user" : "kernel", at);
	else if (rc)
		ctap_soft_error(c, "invalid UTF-%d character U+%X at 0x%lx", width * 8, bad, at);
}

#endif /* CTAP_TARGET_H */
