/*
 * pie_globals N - a program built as PIE (Debian's default: loaded at a
 * random address) with globals for @var: N rounds, each setting round
 * and the struct last, then calling tick() with the round, then bump(),
 * which adds 10 to round_no.  Silent.
 */
#include <stdlib.h>

struct mark {
	long round;
	const char *name;
};

long round_no;
struct mark last;
static const char *const names[] = { "zero", "one", "two", "three" };

__attribute__((noinline)) long tick(long r)
{
	__asm__ volatile("" ::: "memory");
	return r + last.round;
}

/* No parameters: a .return probe has nothing else to read at its entry. */
__attribute__((noinline)) void bump(void)
{
	__asm__ volatile("" ::: "memory");
	round_no += 10;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0;

	for (long i = 1; i <= n; i++) {
		round_no = i;
		last.round = i;
		last.name = names[i % 4];
		sum += last.name[0];	/* its page is in: a probe reads without faulting */
		sum += tick(i);
		bump();
	}
	return sum == 0;
}
