/*
 * uinline N - a function the compiler inlines, for .inline, .call and
 * .exported tests: clamp() is inlined at its two direct call sites in
 * main and also has an out-of-line copy, which main calls N times through
 * a pointer; step() is a static (local) function, total() a global one.
 * Per round i (1..N): clamp(i, 2, 4) inline, clamp(10 * i, 0, 25)
 * inline, clamp(-i, 0, 9) out of line, step(i), total(i).  Silent.
 */
#include <stdlib.h>

static inline __attribute__((always_inline)) int clamp(int v, int lo, int hi)
{
	__asm__ volatile("" : "+r"(v), "+r"(lo), "+r"(hi));	/* each in a register */
	return v < lo ? lo : v > hi ? hi : v;
}

/* The out-of-line copy, through a pointer the compiler cannot see through. */
static int (*volatile clamp_ptr)(int, int, int) = clamp;

__attribute__((noinline)) static long step(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

__attribute__((noinline)) long total(long i)
{
	__asm__ volatile("" ::: "memory");
	return 2 * i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;

	for (long i = 1; i <= n; i++) {
		int w = (int)(10 * i);

		__asm__ volatile("" : "+r"(w));	/* computed before the call */
		sum += clamp((int)i, 2, 4);
		sum += clamp(w, 0, 25);
		sum += clamp_ptr((int)-i, 0, 9);
		sum += step(i) + total(i);
	}
	return sum == 0;	/* keep the calls */
}
