/*
 * vm_ops - a fixed sequence of address-space changes, for the vm.*
 * aliases' test: 3 anonymous pages mapped at the hint 0x200000000, the
 * first written; a child (fork) writes it again (a copy-on-write fault)
 * and exits; the heap grown by 64 KiB (brk); the 3 pages unmapped.
 * Silent; exits 0 when each step worked.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define HINT ((void *)(uintptr_t)0x200000000)

int main(void)
{
	char *p = mmap(HINT, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status = 1;
	pid_t child;

	if (p == MAP_FAILED)
		return 1;
	p[0] = 1;
	child = fork();
	if (child == 0) {
		p[0] = 2;
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		return 1;
	if (sbrk(65536) == (void *)-1)
		return 1;
	return munmap(p, 3 * 4096) == 0 && p == HINT ? 0 : 1;
}
