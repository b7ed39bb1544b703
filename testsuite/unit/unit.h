/*
 * unit.h - the smallest test framework that does the job.
 *
 * Each check prints a TAP line ("ok N - what" / "not ok N - what");
 * testsuite/run-tests counts them.  A unit test program ends with
 * `return unit_done();`, which exits non-zero if any check failed.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_n, unit_failed;

#define CHECK(cond, ...) do {						\
	unit_n++;							\
	if (cond) {							\
		printf("ok %d - ", unit_n);				\
	} else {							\
		unit_failed++;						\
		printf("not ok %d - %s:%d: %s: ", unit_n, __FILE__,	\
		       __LINE__, #cond);				\
	}								\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
} while (0)

#define CHECK_INT(got, want, what) do {					\
	long long g_ = (got), w_ = (want);				\
	CHECK(g_ == w_, "%s (got %lld, want %lld)", what, g_, w_);	\
} while (0)

#define CHECK_STR(got, want, what) do {					\
	const char *g_ = (got), *w_ = (want);				\
	CHECK(g_ && !strcmp(g_, w_), "%s (got \"%s\", want \"%s\")",	\
	      what, g_ ? g_ : "(null)", w_);				\
} while (0)

static inline int unit_done(void)
{
	printf("# %d checks, %d failed\n", unit_n, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif /* UNIT_H */
