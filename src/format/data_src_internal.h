/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/data_src.h. */
#ifndef HWPROF_FORMAT_DATA_SRC_INTERNAL_H
#define HWPROF_FORMAT_DATA_SRC_INTERNAL_H

#include "hwprof/data_src.h"

uint64_t hwp__data_src_encode(const struct hwp_data_src *d);

/*
 * perf 6.1's `perf script -F data_src` decoding after the hex value:
 * "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * Writes at most SZ bytes with a NUL; returns the length it needed.
 */
size_t hwp__data_src_format(uint64_t v, char *buf, size_t sz);

#endif
