/* SPDX-License-Identifier: MIT */
/*
 * perf script text input (internal to src/format).
 *
 * Turns a `perf script -F ip,brstack` dump (optionally with leading
 * `comm pid/tid time:` style fields, callchain lines, and the
 * PERF_RECORD_MMAP/MMAP2/COMM/FORK/EXIT lines of --show-mmap-events and
 * --show-task-events) into the binary perf records the reader would find in a
 * perf.data file, one at a time, in one pass over the text.
 *
 * Samples are PERF_RECORD_SAMPLE with sample_type IP|TID|BRANCH_STACK, plus
 * CALLCHAIN when the text has callchain lines. Callchains carry the kernel's
 * PERF_CONTEXT_KERNEL / PERF_CONTEXT_USER markers in front of each run of
 * kernel / user addresses (perf script does not print them; real perf.data
 * callchains always have them), so callchain_nr counts the markers too.
 */
#ifndef HWPROF_FORMAT_TEXT_INPUT_H
#define HWPROF_FORMAT_TEXT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_data.h"

struct hwp_text_input;

/* Cheap sniff of the first lines (at most 64 KiB): true when they look like
   perf script output with branch stacks, callchains or PERF_RECORD lines. */
bool hwp__text_input_looks_like(const uint8_t *buf, size_t len);

/* BUF is not copied and must outlive the object. NAME (copied) prefixes error
   messages. Returns NULL with errno set and hwp_errmsg() filled on failure. */
struct hwp_text_input *hwp__text_input_new(const uint8_t *buf, size_t len, const char *name);
void hwp__text_input_delete(struct hwp_text_input *t);

/*
 * The synthetic attr every sample uses: PERF_TYPE_HARDWARE/cycles, size 128,
 * sample_type IP|TID|BRANCH_STACK (|CALLCHAIN when the text has callchain
 * lines in its first MiB), branch_sample_type ANY (|TYPE_SAVE when the first
 * branch stack line names branch types), sample_id_all 0.
 */
const struct hwp_attr *hwp__text_input_attr(const struct hwp_text_input *t);

/*
 * Next synthesized record: PERF_RECORD_SAMPLE, or MMAP/MMAP2/COMM/FORK/EXIT
 * from PERF_RECORD_* lines, or a COMM made from a sample line's `comm pid/tid`
 * fields the first time a thread shows (or changes) its name. *REC points
 * into an internal buffer valid until the next call; *TEXT_OFFSET is the byte
 * offset in the text where the record's text starts.
 * Returns 1, 0 at the end, or <0 (sticky) on malformed text, with
 * hwp_errmsg() = "NAME: what at line N (offset 0x..)".
 */
int hwp__text_input_next(struct hwp_text_input *t, const uint8_t **rec, uint32_t *size,
			 uint64_t *text_offset);

#endif
