/*
 * proc_tree - a fixed tree of tasks for process.begin/end tests: the
 * process forks a child; the child starts a thread and joins it, then
 * execs "getpid_loop 1" (from the directory of argv[0]); the parent waits
 * for it, then starts and joins a thread of its own.  Every step waits for
 * the one before, so the order of events is fixed.  Exits 0; silent.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread(void *arg)
{
	return arg;
}

static void run_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread, NULL) == 0)
		pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	char path[256];
	const char *slash = strrchr(argv[0], '/');
	pid_t pid;

	snprintf(path, sizeof(path), "%.*sgetpid_loop", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0]);
	pid = fork();
	if (pid == 0) {
		run_thread();
		execl(path, "getpid_loop", "1", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	run_thread();
	return 0;
}
