/* SPDX-License-Identifier: MIT */
/* A place in a program as hwprof keys it: module + file offset. */
#ifndef HWPROF_CODE_LOC_H
#define HWPROF_CODE_LOC_H

#include <stdint.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* MODULE is an id from hwp_symbolizer__module() (-1 when no mapping covers
   the address: OFFSET is then the raw address); OFFSET is the file offset
   (for the kernel module, the absolute kernel address). The same binary
   loaded at different addresses in different processes has one key. */
struct hwp_code_loc {
	int32_t module;
	uint8_t cpumode; /* HWP_MISC_USER / HWP_MISC_KERNEL of the map found */
	uint64_t offset;
	uint64_t addr; /* the address as recorded (first seen; differs per process) */
};

HWP_END_DECLS

#endif
