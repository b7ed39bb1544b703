/*
 * o0_recurse - built -O0 (static, no PIE): parameters live in the stack
 * frame, stored there by each function's prologue, so a probe must read
 * them after it (SystemTap probes a function after its prologue).  Calls
 * the recursive sum_to(3) and fib(4), then scale(7, 3), once.  Silent.
 */
long sum_to(int a)
{
	if (a <= 0)
		return 0;
	return a + sum_to(a - 1);
}

int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

long scale(long x, int by)
{
	long r = x * by;

	return r;
}

int main(void)
{
	long s = sum_to(3);
	int f = fib(4);

	return (int)(s + f + scale(7, 3)) == 6 + 3 + 21 ? 0 : 1;
}
