/*
 * fork_exec - for process.begin/end under --runtime=dyninst (linked
 * dynamically, as LD_PRELOAD needs): forks a child that execs this
 * program again as "fork_exec 0", waits for it, forks a child that calls
 * leaf() and exits, waits for it, then calls leaf() itself.  "fork_exec 0"
 * calls leaf() and exits.  Each leaf() call is one hit; exit status 0.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int who)
{
	__asm__ volatile("" ::: "memory");
	return who;
}

static int wait_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc > 1 && atoi(argv[1]) == 0)
		return leaf(0);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "fork_exec", "0", (char *)NULL);
		_exit(127);
	}
	if (!wait_ok(pid))
		return 1;
	pid = fork();
	if (pid == 0)
		exit(leaf(0));
	if (!wait_ok(pid))
		return 1;
	return leaf(0);
}
