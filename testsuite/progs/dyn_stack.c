/*
 * dyn_stack - a dynamically linked workload for handlers on a small
 * stack: a thread made with a 16 KiB stack (PTHREAD_STACK_MIN, as
 * programs with many threads make them) fills what its stack has free
 * with a pattern, calls work() once and prints "free F used U": the bytes
 * its stack had free below the call, and how many of them the call
 * (work() and whatever ran inside it: a probe's handler) wrote.
 * Exit 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>

#define PAINT	0xa5

__attribute__((noinline)) long work(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

static void *thread(void *arg)
{
	volatile unsigned char *lo, *sp = __builtin_frame_address(0);
	pthread_attr_t a;
	size_t size;
	void *base;

	if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &base, &size))
		return NULL;
	lo = base;
	/* below this frame and the red zone (work()'s return address) */
	sp -= 256;
	for (volatile unsigned char *p = lo; p < sp; p++)
		*p = PAINT;
	*(long *)arg = work(1);
	while (lo < sp && *lo == PAINT)
		lo++;
	printf("free %ld used %ld\n", (long)(sp - (volatile unsigned char *)base),
	       (long)(sp - lo));
	return NULL;
}

int main(void)
{
	pthread_attr_t a;
	pthread_t t;
	long r = 0;

	if (pthread_attr_init(&a) || pthread_attr_setstacksize(&a, 16384) ||
	    pthread_create(&t, &a, thread, &r) || pthread_join(t, NULL))
		return 1;
	return r != 2;
}
