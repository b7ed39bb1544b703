/*
 * fuzz_runtime.c - libFuzzer target for the runtime code a script's data
 * reaches inside a probe handler: the printf engine (any format, any
 * arguments, including '*' widths and %m) and the =~ compiler and matcher
 * (any pattern, any string).  Output must stay inside its buffer, %m must
 * read no more than fits, and a match must end: the sanitizers and the
 * fuzzer's timeout check the rest.
 *
 *   testsuite/run-tests fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "regex_compile.h"

static size_t read_bytes;

static int read_fake(void *dst, int64_t addr, size_t len)
{
	memset(dst, (int)(addr & 0x7f), len);
	read_bytes += len;
	return 0;
}

/* Input: a selector byte, then two NUL-separated strings: a format and
 * its string argument, or a pattern and the string it is matched on. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *second, buf[300];
	union ctap_arg args[8];
	struct ctap_out o;
	const char *why;
	size_t n;

	if (size < 1)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	n = strlen(text);
	second = n + 1 < size - 1 ? text + n + 1 : text + n;
	if (data[0] & 1) {
		static struct ctap_regex_work work;	/* 95 KB: not on the stack */
		struct ctap_regex re;
		uint16_t caps[CTAP_REGEX_SLOTS];
		/* Bit 1: with capture slots, run by the Pike VM (matched()). */
		bool captures = data[0] & 2;

		if (regex_compile_ex(text, captures, &re, &why) == 0) {
			int64_t plain = ctap_regex_match(&re, second);

			/* Both matchers agree on whether it matches, and a match
			 * lies within the string. */
			if (captures && (ctap_regex_match_groups(&re, second, &work, caps) != plain ||
					 (plain && (caps[0] > caps[1] || caps[1] > strlen(second)))))
				abort();
			regex_free(&re);
		}
	} else {
		/* Pass 2 makes every %s argument a string, so each argument is
		 * one here (a valid pointer is also a number for %d, '*', %m). */
		for (int i = 0; i < 8; i++)
			args[i].s = data[0] & (2 << (i % 7)) ? text : second;
		read_bytes = 0;
		ctap_out_init(&o, buf, sizeof(buf));
		ctap_format(&o, text, args, 8, read_fake);
		if (o.len > sizeof(buf) || read_bytes > sizeof(buf))
			abort();
	}
	free(text);
	return 0;
}
