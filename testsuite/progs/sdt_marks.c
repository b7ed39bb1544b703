/*
 * sdt_marks - a program with <sys/sdt.h> markers for run/sdt_marks: no
 * arguments, arguments in registers, on the stack and in a global of
 * several sizes and signs, a string, and one marker behind its semaphore
 * (it fires only while a probe on it is armed, and passes the count).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

/* With _SDT_HAS_SEMAPHORES every marker has one; only "gated" tests its own. */
#define SEMAPHORE(name) unsigned short ctap_##name##_semaphore __attribute__((section(".probes")))
SEMAPHORE(nothing);
SEMAPHORE(args);
SEMAPHORE(global);
SEMAPHORE(gated);
SEMAPHORE(stack);
volatile int ctap_counter = 1000;

/* Unoptimised: the arguments are memory operands, "-4@-20(%rbp)". */
static void __attribute__((noinline, optimize("O0"))) on_stack(int i, long big)
{
	STAP_PROBE2(ctap, stack, i, big);
}

static void __attribute__((noinline)) step(int i, long big, const char *s)
{
	signed char small = (signed char)(-i - 1);
	unsigned char byte = (unsigned char)(250 + i);

	STAP_PROBE(ctap, nothing);
	STAP_PROBE5(ctap, args, i, big, s, small, byte);
	STAP_PROBE1(ctap, global, ctap_counter);
	if (ctap_gated_semaphore)
		STAP_PROBE2(ctap, gated, i, ctap_gated_semaphore);
	on_stack(i, big);
	ctap_counter++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++)
		step(i, -5000000000L - i, "marker string");
	return 0;
}
