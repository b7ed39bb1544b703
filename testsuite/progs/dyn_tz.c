/*
 * dyn_tz N [ZONE] - a dynamically linked workload for handlers that run
 * inside libc's time zone code: sets TZ to ZONE (Europe/Berlin), then N
 * times converts a time with localtime_r().  The first call reads the
 * zone's file (fopen(), malloc()) holding glibc's time zone lock, which
 * gmtime_r() and localtime_r() take too.  Silent; exit 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	struct tm tm = { 0 };

	if (setenv("TZ", argc > 2 ? argv[2] : "Europe/Berlin", 1))
		return 1;
	for (long i = 0; i < n; i++) {
		time_t t = 1700000000 + i * 3600;

		if (!localtime_r(&t, &tm))
			return 1;
	}
	__asm__ volatile("" :: "r"(tm.tm_hour));
	return 0;
}
