/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of hwprof: a streaming writer over an hwp_outbuf that
 * tracks nesting and commas itself, and the one RFC 8259 string escaper.
 *
 *     struct hwp_json_writer *j = hwp__json_writer_new(&out);
 *     hwp__json_writer_begin_object(j);
 *     hwp__json_writer_kv_string(j, "module", path);
 *     hwp__json_writer_kv_hex(j, "offset", off);        // "offset":"0x1f00"
 *     hwp__json_writer_key(j, "targets");
 *     hwp__json_writer_begin_array(j);
 *     ...
 *     hwp__json_writer_end_array(j);
 *     hwp__json_writer_end_object(j);                  // then '\n'
 *     err = hwp__json_writer_finish(j);                // 0, or -EINVAL on misuse
 *     hwp__json_writer_delete(j);
 *
 * Every complete top-level value is followed by a newline, so a sequence of
 * top-level objects is JSON Lines. Misuse (a value in an object without a
 * key, a key in an array, a closing that does not match) stops the output
 * and is reported by hwp__json_writer_finish().
 *
 * Strings: '"' and '\\' are escaped with a backslash, control characters
 * (U+0000..U+001F) as \u00xx (lower-case hex); valid UTF-8 passes through
 * unchanged; each byte that does not start a valid UTF-8 sequence (stray
 * continuation bytes, overlong forms, surrogates, code points past U+10FFFF,
 * truncated sequences) is replaced by U+FFFD, so the output is always valid
 * UTF-8 and the same input always gives the same output.
 */
#ifndef HWPROF_JSON_H
#define HWPROF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "outbuf.h"

HWP_BEGIN_DECLS

/* S (NUL-terminated; NULL writes null) as a quoted, escaped JSON string. */
void hwp__json_quote(struct hwp_outbuf *o, const char *s);
/* The same for LEN bytes at S (which may hold NUL bytes: \u0000). */
void hwp__json_quote_len(struct hwp_outbuf *o, const char *s, size_t len);

struct hwp_json_writer;

/* NULL + errno (ENOMEM, EINVAL) and hwp_errmsg(). O must outlive the writer. */
struct hwp_json_writer *hwp__json_writer_new(struct hwp_outbuf *o);
/* 0 when every container was closed and nothing was misused, else -EINVAL
   (message set). Writes nothing. */
int hwp__json_writer_finish(const struct hwp_json_writer *j);
void hwp__json_writer_delete(struct hwp_json_writer *j);

void hwp__json_writer_begin_object(struct hwp_json_writer *j);
void hwp__json_writer_end_object(struct hwp_json_writer *j);
void hwp__json_writer_begin_array(struct hwp_json_writer *j);
void hwp__json_writer_end_array(struct hwp_json_writer *j);
/* The next member's name (escaped like any string). */
void hwp__json_writer_key(struct hwp_json_writer *j, const char *k);

/* Values: in an array, or after a key. */
void hwp__json_writer_string(struct hwp_json_writer *j, const char *s); /* NULL: null */
void hwp__json_writer_u64(struct hwp_json_writer *j, uint64_t v);
void hwp__json_writer_i64(struct hwp_json_writer *j, int64_t v);
/* Shortest form that reads back as V; NaN and infinities as null. */
void hwp__json_writer_double(struct hwp_json_writer *j, double v);
void hwp__json_writer_bool(struct hwp_json_writer *j, bool v);
void hwp__json_writer_null(struct hwp_json_writer *j);
/* An address: the string "0x1f00" (lower-case, no leading zeros). */
void hwp__json_writer_hex(struct hwp_json_writer *j, uint64_t v);

/* key + value in one call. */
void hwp__json_writer_kv_string(struct hwp_json_writer *j, const char *k, const char *s);
void hwp__json_writer_kv_u64(struct hwp_json_writer *j, const char *k, uint64_t v);
void hwp__json_writer_kv_i64(struct hwp_json_writer *j, const char *k, int64_t v);
void hwp__json_writer_kv_bool(struct hwp_json_writer *j, const char *k, bool v);
void hwp__json_writer_kv_hex(struct hwp_json_writer *j, const char *k, uint64_t v);

HWP_END_DECLS

#endif
