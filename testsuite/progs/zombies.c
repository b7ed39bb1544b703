/*
 * zombies N [MS] - fork N children that exit at once, keep them unreaped
 * (zombies, each holding its task_struct) for MS milliseconds, then reap
 * them.  A workload of many tasks that ended inside a system call, none
 * of whose task_structs a later task can take over meanwhile.  Silent.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long ms = argc > 2 ? atol(argv[2]) : 0;

	for (long i = 0; i < n; i++)
		if (fork() == 0)
			_exit(0);
	usleep(ms * 1000);
	while (wait(NULL) > 0)
		;
	return 0;
}
