// SPDX-License-Identifier: GPL-2.0
/*
 * calendar.c - seconds since the epoch to a broken-down UTC date, for
 * ctime() under --runtime=dyninst: the kernel's time64_to_tm() in user
 * space.  Not libc's gmtime_r(): glibc's takes its time zone lock (as
 * localtime_r() does), and a handler may run in a target thread that
 * holds it (a probe inside localtime_r() or tzset(), or on malloc() while
 * libc reads a zone file) or in a signal handler: it hung.  Arithmetic
 * alone, no lock, no libc state (transok/dyninst_tz_lock).
 */
#include "ctap_platform.h"

/* Days since 1970-01-01 to a Gregorian date, by 400-year eras that start
 * on March 1st (so that a leap day is the last day of its "year"). */
static void civil(int64_t days, struct tm *tm)
{
	int64_t z = days + 719468;	/* days since 0000-03-01 */
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;				/* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* from March 1st */
	int64_t mp = (5 * doy + 2) / 153;			/* 0 is March */
	int64_t year = yoe + era * 400 + (mp >= 10);
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10);
	tm->tm_year = (int)(year - 1900);
	tm->tm_yday = (int)(mp < 10 ? doy + 59 + leap : doy - 306);
}

void time64_to_tm(time64_t t, int offset, struct tm *tm)
{
	int64_t secs = t + offset, days = secs / 86400, rem = secs % 86400;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	memset(tm, 0, sizeof(*tm));
	tm->tm_hour = (int)(rem / 3600);
	tm->tm_min = (int)(rem % 3600 / 60);
	tm->tm_sec = (int)(rem % 60);
	tm->tm_wday = (int)(((days % 7) + 11) % 7);	/* 1970-01-01 was a Thursday */
	civil(days, tm);
}
