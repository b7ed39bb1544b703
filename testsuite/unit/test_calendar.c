/*
 * test_calendar - dyn-runtime/calendar.c's time64_to_tm(), ctime()'s
 * lock-free conversion under --runtime=dyninst: every field as libc's
 * gmtime_r() gives it (the test may take libc's lock; a handler may
 * not), over ctime()'s whole 32-bit range and past 2100 and 2400.
 */
#include "ctap_platform.h"	/* first: its _GNU_SOURCE */
#include "unit.h"

/* The first t where the two differ, or 0x7fffffffffffffff. */
static int64_t first_difference(int64_t from, int64_t to, int64_t step, int offset)
{
	for (int64_t t = from; t <= to; t += step) {
		time_t lt = t + offset;
		struct tm want, got;

		gmtime_r(&lt, &want);
		time64_to_tm(t, offset, &got);
		if (got.tm_sec != want.tm_sec || got.tm_min != want.tm_min ||
		    got.tm_hour != want.tm_hour || got.tm_mday != want.tm_mday ||
		    got.tm_mon != want.tm_mon || got.tm_year != want.tm_year ||
		    got.tm_wday != want.tm_wday || got.tm_yday != want.tm_yday)
			return t;
	}
	return INT64_MAX;
}

int main(void)
{
	struct tm tm;

	time64_to_tm(0, 0, &tm);
	CHECK(tm.tm_year == 70 && tm.tm_mon == 0 && tm.tm_mday == 1 && tm.tm_wday == 4 &&
	      tm.tm_hour == 0, "the epoch is Thursday 1970-01-01 00:00:00");
	time64_to_tm(-1, 0, &tm);
	CHECK(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31 && tm.tm_hour == 23 &&
	      tm.tm_sec == 59 && tm.tm_wday == 3 && tm.tm_yday == 364,
	      "a second before it is Wednesday 1969-12-31 23:59:59");
	time64_to_tm(951782400, 0, &tm);	/* 2000-02-29: 400 years make a leap year */
	CHECK(tm.tm_mon == 1 && tm.tm_mday == 29 && tm.tm_yday == 59, "2000-02-29 exists");
	time64_to_tm(0, -18000, &tm);
	CHECK(tm.tm_year == 69 && tm.tm_hour == 19, "an offset moves the date (EST's epoch)");
	/* A prime step visits every hour, minute and second in turn. */
	CHECK_INT(first_difference(INT32_MIN, INT32_MAX, 8191, 0), INT64_MAX,
		  "as gmtime_r() from 1901 to 2038, every 8191 s");
	CHECK_INT(first_difference(INT32_MIN, INT32_MAX, 86399 * 7 + 1, -3600), INT64_MAX,
		  "as gmtime_r() with an offset");
	CHECK_INT(first_difference(4102444800LL - 86400 * 400, 13569465600LL, 86399, 0),
		  INT64_MAX, "as gmtime_r() around 2100 (not leap) and 2400 (leap)");
	CHECK_INT(first_difference(-62135596800LL, -62135596800LL + 86400 * 1000, 86401, 0),
		  INT64_MAX, "as gmtime_r() in year 1");
	return unit_done();
}
