/*
 * kimage.c - decompress the kernel ELF out of a boot image (see kimage.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kimage.h"

static const char xz_magic[] = { (char)0xfd, '7', 'z', 'X', 'Z', 0 };

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

int kimage_elf(const char *path, char **elf, size_t *size)
{
	char *img = NULL;
	size_t img_size = 0;
	int ret = kimage_read_file(path, &img, &img_size);

	if (ret)
		return ret;
	ret = -ENOENT;
	/* The setup code before the payload may hold the magic by chance. */
	for (char *p = img; (p = memmem(p, img_size - (p - img), xz_magic, 6)); p++) {
		if (xz_decompress(p, img_size - (p - img), elf, size))
			continue;
		if (*size > 4 && !memcmp(*elf, "\177ELF", 4)) {
			ret = 0;
			break;
		}
		free(*elf);
	}
	free(img);
	return ret;
}
