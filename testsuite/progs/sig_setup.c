/*
 * sig_setup - known signal dispositions, for signal tapset tests: a
 * SIGUSR1 handler with SA_SIGINFO|SA_RESTART that blocks SIGINT and
 * SIGTERM, SIGPIPE ignored, SIGUSR2 blocked; then one getpid() (where a
 * probe can look) and exit.
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_usr1(int sig, siginfo_t *info, void *ctx)
{
	(void)sig, (void)info, (void)ctx;
}

int main(void)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGUSR1, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, NULL);
	syscall(SYS_getpid);
	return 0;
}
