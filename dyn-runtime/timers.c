// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - timer.* probes in user space: one thread of stapdyn runs
 * every timer of the table, sleeping (CLOCK_MONOTONIC, absolute) until
 * the earliest is due.  A period is counted from when it was due, not
 * from when its handler ended, so a slow handler does not drift the
 * rate; one that falls more than a period behind skips to now.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "ctap_runtime.h"
#include "probes/timers.h"

static struct {
	pthread_t thread;
	struct ctap_timer *ts;
	int n;
	int stop;			/* set by unregister, read by the thread */
	bool running;
	u64 rand_state;
} tm;

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + (u64)t.tv_nsec;
}

/* xorshift: .randomize(M) needs spread, not secrecy. */
static u64 next_random(void)
{
	tm.rand_state ^= tm.rand_state << 13;
	tm.rand_state ^= tm.rand_state >> 7;
	tm.rand_state ^= tm.rand_state << 17;
	return tm.rand_state;
}

static u64 period(const struct ctap_timer *t)
{
	return t->interval_ns + (t->randomize_ns ? next_random() % (t->randomize_ns + 1) : 0);
}

static void sleep_until(u64 ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000ULL),
			      .tv_nsec = (long)(ns % 1000000000ULL) };

	/* EINTR: unregister's wake-up; the loop looks at stop and the clock. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
}

static void wake_handler(int sig)
{
	(void)sig;
}

static void *timer_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&tm.stop, __ATOMIC_ACQUIRE)) {
		u64 next = UINT64_MAX, now;

		for (int i = 0; i < tm.n; i++)
			next = min(next, tm.ts[i].next_ns);
		sleep_until(next);
		if (__atomic_load_n(&tm.stop, __ATOMIC_ACQUIRE))
			break;
		now = now_ns();
		for (int i = 0; i < tm.n; i++) {
			struct ctap_timer *t = &tm.ts[i];

			if (t->next_ns > now)
				continue;
			ctap_probe_run(t->probe, NULL, NULL, 0);
			t->next_ns += period(t);
			if (t->next_ns < now)
				t->next_ns = now + period(t);
		}
	}
	return NULL;
}

int ctap_timers_register(struct ctap_timer *ts, int n)
{
	u64 now = now_ns();
	int ret;

	tm.ts = ts;
	tm.n = n;
	tm.stop = 0;
	tm.rand_state = now | 1;
	for (int i = 0; i < n; i++)
		ts[i].next_ns = now + period(&ts[i]);
	/* A handler, not SIG_IGN: an ignored signal interrupts no sleep. */
	sigaction(SIGURG, &(struct sigaction){ .sa_handler = wake_handler }, NULL);
	ret = pthread_create(&tm.thread, NULL, timer_thread, NULL);
	if (ret)
		return -ret;
	tm.running = true;
	return 0;
}

/*
 * The thread may be asleep for a whole period (a timer.s(60)): it is
 * woken by SIGURG (whose handler does nothing), and
 * looks at stop before running anything.
 */
void ctap_timers_unregister(struct ctap_timer *ts, int n)
{
	(void)ts;
	(void)n;
	if (!tm.running)
		return;
	__atomic_store_n(&tm.stop, 1, __ATOMIC_RELEASE);
	pthread_kill(tm.thread, SIGURG);
	pthread_join(tm.thread, NULL);
	tm.running = false;
}
