/*
 * ufuncs N - call three user functions with known arguments N times each,
 * for uprobe tests: add(i, 10 * i) returns 11 * i, scale(-i) returns
 * -2 * i, and greet(name) returns the length of "hello, " + name.  Silent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) int scale(int x)
{
	__asm__ volatile("" ::: "memory");
	return 2 * x;
}

__attribute__((noinline)) size_t greet(const char *name)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "hello, %s", name);
	return strlen(buf);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0;

	for (long i = 1; i <= n; i++)
		sum += add(i, 10 * i) + scale(-i) + (long)greet(i % 2 ? "odd" : "even");
	return sum == 0;	/* keep the calls */
}
