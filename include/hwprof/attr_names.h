/* SPDX-License-Identifier: MIT */
/* Names of perf_event_attr bits, spelled as `perf evlist -v` spells them. */
#ifndef HWPROF_ATTR_NAMES_H
#define HWPROF_ATTR_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* Each returns the name of bit BIT, or NULL for unknown bits. */
HWP_API const char *hwp_sample_type__bit_name(unsigned bit);
HWP_API const char *hwp_branch_sample_type__bit_name(unsigned bit);
HWP_API const char *hwp_read_format__bit_name(unsigned bit);
HWP_API const char *hwp_attr_flag__name(unsigned bit); /* enum hwp_attr_flag; precise_ip is 2 bits */
HWP_API const char *hwp_attr_type__name(uint32_t type); /* hardware, software, raw, ... or NULL */

/* "IP|TID|TIME" (unknown bits as "0x..."), written to BUF; returns BUF. */
HWP_API char *hwp_bits__format(uint64_t bits, const char *(*name)(unsigned), char *buf, size_t len);

HWP_END_DECLS

#endif
