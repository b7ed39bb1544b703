/*
 * test_warned - staprun/warned.c, which staprun and stapdyn use to print
 * each warning once: two different warnings whose hashes collide are
 * both printed (the hash alone kept the second from being printed), a
 * repeat is not, what is not a warning always is, and a warning
 * forgotten after WARNED_MAX others is printed again.
 */
#include <stdio.h>
#include <string.h>

#include "warned.h"
#include "unit.h"

static struct warned w;

static bool seen(const char *line)
{
	return warned_before(&w, line, strlen(line));
}

int main(void)
{
	/* The hash is h * 33 + c: "B!" and "AB" give the same value
	 * (66 * 33 + 33 = 65 * 33 + 66), and so does all that follows. */
	const char *a = "WARNING: probe B! was skipped\n";
	const char *b = "WARNING: probe AB was skipped\n";
	char line[64];

	CHECK(!seen(a), "a first warning is printed");
	CHECK(!seen(b), "a different warning whose hash is the same is printed too");
	CHECK(seen(a) && seen(b), "each of them repeated is not");
	CHECK(!seen("ERROR: x\n") && !seen("ERROR: x\n"), "an error is printed every time");
	CHECK(!warned_before(&w, "WARNING: cut", 10) && seen("WARNING: c") &&
	      !seen("WARNING: cut"), "the length is the message's");
	for (int i = 0; i < WARNED_MAX; i++) {
		snprintf(line, sizeof(line), "WARNING: number %d\n", i);
		if (seen(line))
			break;
	}
	CHECK(!seen(a), "after WARNED_MAX others, a warning is printed again");
	return unit_done();
}
