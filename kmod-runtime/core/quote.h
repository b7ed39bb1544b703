/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quote.h - text as SystemTap's text_str() and *_quoted() functions show
 * it (see quote.c).  Portable: the host unit tests run it.
 */
#ifndef CTAP_QUOTE_H
#define CTAP_QUOTE_H

#include "portable.h"

/**
 * ctap_quote - escape text for printing
 * @out: where, @size bytes (at least 8), always NUL-terminated
 * @in: the text, @inlen bytes of it at most
 * @outlen: the most characters to write, quotes included (0: @size - 1)
 * @quoted: surround with double quotes; cut text ends "..." after them
 * @buffer: @in is a buffer: a NUL byte is shown, not the end
 */
void ctap_quote(char *out, size_t size, const char *in, size_t inlen, size_t outlen,
		bool quoted, bool buffer);

/**
 * ctap_utf8_put - one code point as UTF-8 (SystemTap's *_utf16/_utf32 readers)
 * @out: where, @size bytes; the bytes are followed by a NUL
 * @c: the code point
 *
 * Returns the bytes written (1 to 4), 0 if they and the NUL do not fit,
 * or -1 for a UTF-16 surrogate or a value beyond U+10FFFF (RFC 3629).
 */
int ctap_utf8_put(char *out, size_t size, uint32_t c);

#endif /* CTAP_QUOTE_H */
