/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softfloat.h - IEEE-754 binary64 arithmetic on bit patterns held in a
 * u64, with integers only: the kernel must not touch the FPU in a probe
 * handler.  SystemTap's fp_* tapset functions (tapsets/floatingpoint.stp).
 *
 * Round to nearest, ties to even, as the hardware's default; NaNs as
 * SystemTap's SoftFloat build makes them: 0x7ff8000000000000 when an
 * operation invents one, else the operand's, quieted (a signaling one
 * first).  Portable: the host unit test checks every operation against
 * the C library's double arithmetic.
 */
#ifndef CTAP_SOFTFLOAT_H
#define CTAP_SOFTFLOAT_H

#include "portable.h"

#define CTAP_F64_DEFAULT_NAN	0x7ff8000000000000ull

uint64_t ctap_f64_add(uint64_t a, uint64_t b);
uint64_t ctap_f64_sub(uint64_t a, uint64_t b);
uint64_t ctap_f64_mul(uint64_t a, uint64_t b);
uint64_t ctap_f64_div(uint64_t a, uint64_t b);
/* IEEE's remainder: a - n * b, n the quotient rounded to nearest even. */
uint64_t ctap_f64_rem(uint64_t a, uint64_t b);
uint64_t ctap_f64_sqrt(uint64_t a);

/* Comparisons: false where either is a NaN; -0 equals +0. */
bool ctap_f64_eq(uint64_t a, uint64_t b);
bool ctap_f64_le(uint64_t a, uint64_t b);
bool ctap_f64_lt(uint64_t a, uint64_t b);

uint64_t ctap_f64_from_i64(int64_t v);
/* binary32 bits (the low 32 of v) widened: exact. */
uint64_t ctap_f64_from_f32(uint32_t v);

/*
 * a rounded to an integer in mode: 0 to nearest even, 1 toward zero, 2
 * down, 3 up, 4 to nearest with ties away from zero, 6 to odd (others as
 * 1).  Out of range: INT64_MAX or INT64_MIN by the sign; a NaN: 0.
 */
int64_t ctap_f64_to_i64(uint64_t a, int mode);

/*
 * a in decimal into out (size bytes, NUL-ended): "-" if negative, the
 * integer part, ".", then max(precision, 1) digits, the last rounded half
 * up; "nan", "inf", "-inf".
 */
void ctap_f64_to_str(char *out, size_t size, uint64_t a, int64_t precision);

/*
 * s as SystemTap's string_to_fp() reads it: [+-]digits[.digits][e[+-]digits],
 * each part optional, computed with the operations above in its order
 * (so the result is its bits).  false if characters follow.
 */
bool ctap_f64_from_str(const char *s, uint64_t *out);

#endif /* CTAP_SOFTFLOAT_H */
