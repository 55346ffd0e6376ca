/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for a kernel module's file (src/symbolize/kmod_image.c,
 * src/symbolize/kmod_file.c): the first byte picks the form of the rest,
 * 0 a .ko as is, 1 a .ko.zst, 2 a .ko.xz. Either the module's .text
 * symbols, each found again at its start, or a negative errno with a
 * reason naming the input.
 */
#include "fuzz_common.h"
#include "symbolize/kmod_file.h"
#include "symbolize/kmod_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "fuzz.ko", "fuzz.ko.zst", "fuzz.ko.xz" };
	const uint64_t base = 0xffffffffc0000000ULL;
	struct hwp__kmod_file *k = NULL;
	char reason[512] = "";
	void *image = NULL;
	size_t n = 0;
	int rc;

	if (!size)
		return 0;
	const char *name = names[data[0] % 3];
	if (data[0] % 3) {
		rc = hwp__kmod_image_decompress(name, data + 1, size - 1, &image, &n, reason, sizeof(reason));
		if (rc < 0) {
			if (!strstr(reason, name) || image || n)
				abort();
			return 0;
		}
	} else if (size > 1 && (image = malloc(size - 1))) {
		memcpy(image, data + 1, size - 1);
		n = size - 1;
	} else {
		return 0;
	}
	rc = hwp__kmod_file_from_image(name, image, n, NULL, 0, base, &k, reason, sizeof(reason));
	if (rc < 0) {
		if (k || !strstr(reason, name))
			abort();
		return 0;
	}
	size_t count = hwp__kmod_file_count(k);
	for (uint64_t a = base; a < base + 4096; a += 7) {
		struct hwp_sym *s = hwp__kmod_file_find(k, a);

		if (s && (a < s->start || !s->name))
			abort();
		fz_sink += s ? s->start : 0;
	}
	fz_sink += count + hwp__kmod_file_text_offset(k);
	hwp__kmod_file_delete(k);
	return 0;
}
