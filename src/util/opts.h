/* SPDX-License-Identifier: MIT */
/*
 * Size-versioned option structs, validated as libbpf's OPTS_VALID does: the
 * caller sets .sz = sizeof(its struct). A zero size is refused (the field
 * was forgotten); a size larger than this library's struct is accepted only
 * when every byte past what this library knows is zero (a newer caller that
 * uses no newer option); a smaller, older size is accepted and the missing
 * fields read as zero. NULL opts means all defaults.
 */
#ifndef HWPROF_UTIL_OPTS_H
#define HWPROF_UTIL_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* Checks OPTS (first field: size_t sz) against KNOWN_SIZE and copies it into
   OUT (KNOWN_SIZE bytes, zero-filled, OUT->sz = KNOWN_SIZE). WHAT names the
   struct in the error message. Returns 0 or -EINVAL (message set). */
int hwp__opts_load(const void *opts, size_t known_size, void *out, const char *what);

/* TYPE is the struct type, named in the message: HWP_OPTS_LOAD(opts, &o, struct hwp_x_opts). */
#define HWP_OPTS_LOAD(opts, out, type) hwp__opts_load((opts), sizeof(type), (out), #type)

/*
 * Result structs the caller hands in to be filled start with size_t sz as
 * well, set by the caller to sizeof(its struct). The library fills a whole
 * struct of its own, RES (KNOWN_SIZE bytes), which begin() loads from what OUT
 * holds (fields OUT lacks read as zero) and end() stores back: an older,
 * smaller caller struct gets the fields it has, a newer, larger one reads the
 * fields this library does not know as zero, OUT->sz stays the caller's.
 */
int hwp__result_begin(const void *out, void *res, size_t known_size, const char *what);
void hwp__result_end(void *out, const void *res, size_t known_size);

/* HWP_RESULT_BEGIN(out, &res, struct hwp_x_result): 0 or -EINVAL (message set). */
#define HWP_RESULT_BEGIN(out, res, type) hwp__result_begin((out), (res), sizeof(type), #type)

#endif
