/* SPDX-License-Identifier: MIT */
/* Internal: perf_event_attr helpers and ring-buffer reading, shared by
   attr_build.c, recorder.c and the unit tests. */
#ifndef HWPROF_CAPTURE_ATTR_BUILD_H
#define HWPROF_CAPTURE_ATTR_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/capture.h"

/* perf record's defaults (tools/perf/builtin-record.c, 6.1) */
#define HWP_PERF_DEFAULT_FREQ 4000
#define HWP_PERF_DEFAULT_DWARF_DUMP 8192

/* x86-64 PERF_REGS_MASK: every register but DS, ES, FS, GS */
#define HWP_PERF_REGS_MASK_X86_64 0xff0fffULL
/* arm64: x0..x30, sp, pc */
#define HWP_PERF_REGS_MASK_ARM64 0x1ffffffffULL

/* The attr as the kernel takes it: the 128-byte PERF_ATTR_SIZE_VER7 layout
   (size field set to 128). */
void hwp__attr_to_kernel(const struct hwp_attr *a, uint8_t out[128]);

/* Sets or clears the bit-field flag F (enum hwp_attr_flag). */
static inline void hwp__attr_set_flag(struct hwp_attr *a, unsigned f, bool on)
{
	if (on)
		a->flags |= 1ULL << f;
	else
		a->flags &= ~(1ULL << f);
}

static inline void hwp__attr_set_precise(struct hwp_attr *a, unsigned p)
{
	a->flags = (a->flags & ~(3ULL << HWP_ATTR_PRECISE_IP)) | ((uint64_t)(p & 3) << HWP_ATTR_PRECISE_IP);
}

/*
 * Copies the records between data_tail and data_head of a perf ring buffer
 * (BASE: the control page, then DATA_SIZE bytes of data, a power of 2) to
 * EMIT, one whole record at a time (records wrapping around the end are
 * reassembled in SCRATCH, 64 KiB), then advances data_tail. Returns the
 * number of records, or <0 (a corrupt header, or EMIT's error). Used by the
 * recorder; separate so tests can feed it fake buffers.
 */
int hwp__ring_drain(uint8_t *base, size_t page, size_t data_size, uint8_t *scratch,
		    int (*emit)(void *ctx, const uint8_t *rec, size_t size), void *ctx);

#endif
