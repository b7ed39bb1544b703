/*
 * sig_ops - one of each signal operation, for the signal.* aliases' test:
 * a SIGUSR1 handler installed (sigaction), SIGUSR2 blocked (sigprocmask),
 * then sent by kill (left pending: sigpending), SIGUSR1 sent by tgkill
 * and tkill (each handled), a POSIX timer firing SIGALRM (a queued
 * sigqueue, handled), and SIGUSR2 unblocked (handled).  Silent; exits 0
 * when every handler ran.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

int main(void)
{
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;
	sigset_t set, pending;
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR2);
	sigpending(&pending);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	syscall(SYS_tkill, gettid(), SIGUSR1);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1000000;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) == 0 &&
	    timer_settime(timer, 0, &its, NULL) == 0)
		while (handled < 3)
			pause();
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return handled == 4 && sigismember(&pending, SIGUSR2) ? 0 : 1;
}
