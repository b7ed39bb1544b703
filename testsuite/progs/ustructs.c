/*
 * ustructs N - user structures for $var->member tests: builds a list of
 * three points and calls walk(head) and area(&box) N times, then the
 * recursive fact(4) once (@entry in recursion).  Silent.
 */
#include <stdlib.h>

struct point {
	int x, y;
	const char *name;
	struct point *next;
	unsigned char tag[4];
};

struct box {
	struct point corner[2];
	long serial;
};

/* Globals for @var: a counter walk() updates, and a structure. */
long walks;
struct point home = { 10, 20, "home", NULL, { 7, 7, 7, 7 } };

__attribute__((noinline)) long walk(struct point *p)
{
	long sum = 0;

	walks++;
	for (; p; p = p->next)
		sum += p->x * p->y;
	__asm__ volatile("" ::: "memory");
	return sum;
}

__attribute__((noinline)) long area(const struct box *b)
{
	__asm__ volatile("" ::: "memory");
	return (long)(b->corner[1].x - b->corner[0].x) * (b->corner[1].y - b->corner[0].y);
}

__attribute__((noinline)) long fact(long n)
{
	long r;

	if (n <= 1)
		return 1;
	r = fact(n - 1);
	__asm__ volatile("" : "+r"(r));	/* a real call each level, no loop */
	return n * r;
}

int main(int argc, char **argv)
{
	static struct point c = { 5, 6, "third", NULL, { 3, 3, 3, 3 } };
	static struct point b = { 3, 4, "second", &c, { 2, 2, 2, 2 } };
	static struct point a = { 1, 2, "first", &b, { 1, 2, 3, 4 } };
	static struct box box = { { { 0, 0, "origin", NULL, { 0 } }, { 7, 9, "far", NULL, { 9 } } }, 42 };
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;

	for (long i = 0; i < n; i++)
		sum += walk(&a) + area(&box);
	return sum + fact(4) + home.x == 0;
}
