/* SPDX-License-Identifier: MIT */
/*
 * What `hwprof info` says about recordings: the header facts (as
 * 'perf report --header-only'), each event with its attr decoded, records per
 * type and samples per event, the branch-stack depth histogram, which branch
 * fields carry data, lost and throttled samples. As text or as one JSON
 * object whose field names are defined here, once.
 *
 *     const char *in[] = { "a.data", "b.data" };
 *     hwp_info__write_inputs(in, 2, HWP_TABLE_JSON, stdout);
 *
 * Several recordings: each one's facts, then a merged summary saying what
 * came from where (per input its samples, branch samples and records; per
 * module, a binary by build-id else by path, the samples from each input).
 */
#ifndef HWPROF_INFO_H
#define HWPROF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hwprof/file_stats.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"
#include "hwprof/table.h"

HWP_BEGIN_DECLS

/* R's header and events with what ST counted in it, to OUT as FMT
   (HWP_TABLE_TEXT or HWP_TABLE_JSON). 0, or <0 with hwp_errmsg(). */
HWP_API int hwp_info__write(const struct hwp_reader *r, const struct hwp_file_stats *st,
			    enum hwp_table_format fmt, FILE *out);

/* True when ST counted more than 1% of its samples lost; then the warning
   (what was lost, why the results under-count, what to do) goes to BUF. */
HWP_API bool hwp_info__lost_warning(const char *path, const struct hwp_file_stats *st, char *buf,
				    size_t size);

/*
 * Reads PATHS[0..N) ("-": standard input, at most once) and writes their
 * facts to OUT as FMT. One input: exactly hwp_info__write(). Several: each
 * input's facts headed by its path, then the merged summary (JSON: an object
 * with "inputs", one hwp_info__write() object each, and "merged"). A lost
 * warning goes to the log (HWP_LOG_WARN) for each input that has one.
 * 0, or <0 with hwp_errmsg() naming the file and the cause.
 */
HWP_API int hwp_info__write_inputs(const char *const *paths, size_t n, enum hwp_table_format fmt,
				   FILE *out);

HWP_END_DECLS

#endif
