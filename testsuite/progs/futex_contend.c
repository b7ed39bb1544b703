/*
 * futex_contend THREADS ROUNDS - lock contention with a known shape, for
 * futexcont.stp: THREADS threads each take one mutex ROUNDS times and
 * hold it 1 ms, so all but the holder sleep in futex(FUTEX_WAIT) on it.
 * Silent; exits non-zero if a thread cannot start.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long rounds;

static void *worker(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		nanosleep(&ms, NULL);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	rounds = argc > 2 ? atol(argv[2]) : 20;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
