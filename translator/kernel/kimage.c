// SPDX-License-Identifier: GPL-2.0
/*
 * kimage.c - decompress the kernel ELF out of a boot image (see kimage.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <zstd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kimage.h"

/* Debian compresses its kernels with XZ up to 6.1 and with zstd from 6.12 on. */
static const char xz_magic[] = { (char)0xfd, '7', 'z', 'X', 'Z', 0 };
static const char zstd_magic[] = { 0x28, (char)0xb5, 0x2f, (char)0xfd };

int kimage_read_file(const char *path, char **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, len = 0;
	struct stat st;
	char *buf;
	ssize_t got;

	if (fd < 0)
		return -errno;
	/* The size when the file has one; /proc files say 0 and are read
	 * until their end. */
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		cap = st.st_size + 1;
	buf = malloc(cap);
	while (buf && (got = read(fd, buf + len, cap - len - 1)) > 0) {
		char *bigger;

		len += got;
		if (len + 1 < cap)
			continue;
		bigger = realloc(buf, cap *= 2);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (got < 0) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	*data = buf;
	*size = len;
	return 0;
}

/* Decompress the XZ stream at in; the output grows as needed. */
static int xz_decompress(const char *in, size_t in_size, char **out, size_t *out_size)
{
	lzma_stream zs = LZMA_STREAM_INIT;
	size_t cap = 64 << 20;
	lzma_ret r;

	if (lzma_stream_decoder(&zs, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	*out = malloc(cap);
	zs.next_in = (const uint8_t *)in;
	zs.avail_in = in_size;
	zs.next_out = (uint8_t *)*out;
	zs.avail_out = cap;
	while ((r = lzma_code(&zs, LZMA_FINISH)) == LZMA_OK || r == LZMA_BUF_ERROR) {
		size_t used = cap - zs.avail_out;
		char *bigger;

		if (zs.avail_out) /* stuck with room to spare: truncated input */
			break;
		bigger = realloc(*out, cap *= 2);
		if (!bigger)
			break;
		*out = bigger;
		zs.next_out = (uint8_t *)*out + used;
		zs.avail_out = cap - used;
	}
	*out_size = cap - zs.avail_out;
	lzma_end(&zs);
	if (r != LZMA_STREAM_END) {
		free(*out);
		return -EINVAL;
	}
	return 0;
}

/* Decompress the zstd frame at in; the output grows as needed. */
static int zstd_decompress(const char *in, size_t in_size, char **out, size_t *out_size)
{
	ZSTD_DStream *zs = ZSTD_createDStream();
	ZSTD_inBuffer src = { in, in_size, 0 };
	ZSTD_outBuffer dst = { NULL, 64 << 20, 0 };
	size_t left = 1;

	if (!zs)
		return -ENOMEM;
	dst.dst = malloc(dst.size);
	while (dst.dst && left) {
		left = ZSTD_decompressStream(zs, &dst, &src);
		if (ZSTD_isError(left) || (left && src.pos == src.size && dst.pos < dst.size))
			break;	/* corrupt, or truncated input */
		if (left && dst.pos == dst.size) {
			char *bigger = realloc(dst.dst, dst.size *= 2);

			if (!bigger)
				break;
			dst.dst = bigger;
		}
	}
	ZSTD_freeDStream(zs);
	if (!dst.dst || left) {
		free(dst.dst);
		return dst.dst ? -EINVAL : -ENOMEM;
	}
	*out = dst.dst;
	*out_size = dst.pos;
	return 0;
}

/* The first stream with magic in img that decompresses to an ELF file;
 * the setup code before the payload may hold the magic by chance. */
static int first_elf(const char *img, size_t img_size, const char *magic, size_t magic_len,
		     int (*decompress)(const char *, size_t, char **, size_t *),
		     char **elf, size_t *size)
{
	for (const char *p = img; (p = memmem(p, img_size - (p - img), magic, magic_len)); p++) {
		if (decompress(p, img_size - (p - img), elf, size))
			continue;
		if (*size > 4 && !memcmp(*elf, "\177ELF", 4))
			return 0;
		free(*elf);
	}
	return -ENOENT;
}

int kimage_read_unpacked(const char *path, char **data, size_t *size)
{
	char *raw;
	size_t raw_size;
	int ret = kimage_read_file(path, &raw, &raw_size);

	if (ret)
		return ret;
	if (raw_size > sizeof(xz_magic) && !memcmp(raw, xz_magic, sizeof(xz_magic)))
		ret = xz_decompress(raw, raw_size, data, size);
	else if (raw_size > sizeof(zstd_magic) && !memcmp(raw, zstd_magic, sizeof(zstd_magic)))
		ret = zstd_decompress(raw, raw_size, data, size);
	else {
		*data = raw;
		*size = raw_size;
		return 0;
	}
	free(raw);
	return ret;
}

int kimage_elf(const char *path, char **elf, size_t *size)
{
	char *img = NULL;
	size_t img_size = 0;
	int ret = kimage_read_file(path, &img, &img_size);

	if (ret)
		return ret;
	ret = first_elf(img, img_size, xz_magic, sizeof(xz_magic), xz_decompress, elf, size);
	if (ret)
		ret = first_elf(img, img_size, zstd_magic, sizeof(zstd_magic), zstd_decompress,
				elf, size);
	free(img);
	return ret;
}
