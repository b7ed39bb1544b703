/*
 * threads_wait T N [M] - for -x PID under --runtime=dyninst (linked
 * dynamically): starts T threads, which wait; reads one byte from stdin
 * (the test attaches meanwhile), then lets the threads go, each calling
 * work() N times at once with the others, and starts M more (0 if not
 * given) that do the same; joins them all and exits 0.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static long n;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int started;

__attribute__((noinline)) long work(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

static void *thread(void *arg)
{
	long sum = 0;

	(void)arg;
	pthread_mutex_lock(&lock);
	while (!started)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
	for (long i = 0; i < n; i++)
		sum += work(i);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4, m = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t tids[64];
	char c;

	n = argc > 2 ? atol(argv[2]) : 1000;
	if (t < 1 || m < 0 || t + m > 64)
		return 2;
	for (int i = 0; i < t; i++)
		if (pthread_create(&tids[i], NULL, thread, NULL))
			return 1;
	if (read(0, &c, 1) < 0)
		return 1;
	pthread_mutex_lock(&lock);
	started = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = t; i < t + m; i++)
		if (pthread_create(&tids[i], NULL, thread, NULL))
			return 1;
	for (int i = 0; i < t + m; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
