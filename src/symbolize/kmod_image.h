/* SPDX-License-Identifier: MIT */
/*
 * A compressed kernel module (.ko.xz, .ko.zst: how distributions install
 * them) read into memory, as perf decompresses one before reading its
 * symbols. xz needs liblzma (an optional library); zstd is always built
 * in. gzip (.ko.gz) is not read.
 */
#ifndef HWPROF_SYMBOLIZE_KMOD_IMAGE_H
#define HWPROF_SYMBOLIZE_KMOD_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when PATH names a compressed module hwprof knows (its suffix). */
bool hwp__kmod_compressed(const char *path);

/* The decompressed bytes of the file at PATH (malloc'd, *SIZE of them).
   0, or a negative errno with REASON said (not found, not the format its
   suffix names, corrupt, larger than 1 GiB decompressed, built without
   liblzma). */
int hwp__kmod_image_read(const char *path, void **image, size_t *size, char *reason, size_t reason_size);
/* The same for the N bytes at IN, compressed as NAME's suffix says (NAME
   names them in REASON). */
int hwp__kmod_image_decompress(const char *name, const uint8_t *in, size_t n, void **image, size_t *size,
			       char *reason, size_t reason_size);

#endif
