/* SPDX-License-Identifier: MIT */
/* perf_event_attr decoding for every ABI size (VER0 = 64 bytes ... VER8 and beyond). */
#include <string.h>

#include "format/perf_data_internal.h"
#include "format/reader_internal.h"
#include "util/bytes.h"

/* Size the attr claims for itself; 0 means VER0. Clamped to what is there. */
size_t hwp__attr_wire_size(const uint8_t *p, size_t avail)
{
	uint32_t sz;

	if (avail < 8)
		return 0;
	sz = ld32(p + 4);
	if (sz == 0)
		sz = HWP_ATTR_SIZE_VER0;
	return sz;
}

/* Decodes the first AVAIL bytes; fields beyond AVAIL stay zero (older ABI). */
void hwp__attr_decode(const uint8_t *p, size_t avail, struct hwp_attr *a)
{
	uint8_t buf[HWP_ATTR_SIZE_KNOWN];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, p, avail < sizeof(buf) ? avail : sizeof(buf));
	memset(a, 0, sizeof(*a));
	a->type = ld32(buf + 0);
	a->size = ld32(buf + 4);
	a->config = ld64(buf + 8);
	a->sample_period = ld64(buf + 16);
	a->sample_type = ld64(buf + 24);
	a->read_format = ld64(buf + 32);
	a->flags = ld64(buf + 40);
	a->wakeup_events = ld32(buf + 48);
	a->bp_type = ld32(buf + 52);
	a->config1 = ld64(buf + 56);
	a->config2 = ld64(buf + 64);
	a->branch_sample_type = ld64(buf + 72);
	a->sample_regs_user = ld64(buf + 80);
	a->sample_stack_user = ld32(buf + 88);
	a->clockid = (int32_t)ld32(buf + 92);
	a->sample_regs_intr = ld64(buf + 96);
	a->aux_watermark = ld32(buf + 104);
	a->sample_max_stack = ld16(buf + 108);
	a->aux_sample_size = ld32(buf + 112);
	a->sig_data = ld64(buf + 120);
	a->config3 = ld64(buf + 128);
}

/* Writes A as a perf_event_attr of SIZE bytes (at most VER8; fields past SIZE
   are dropped, as an older ABI does not have them). */
void hwp__attr_encode(const struct hwp_attr *a, uint8_t *out, size_t size)
{
	uint8_t buf[HWP_ATTR_SIZE_KNOWN];

	memset(buf, 0, sizeof(buf));
	st32(buf + 0, a->type);
	st32(buf + 4, (uint32_t)size);
	st64(buf + 8, a->config);
	st64(buf + 16, a->sample_period);
	st64(buf + 24, a->sample_type);
	st64(buf + 32, a->read_format);
	st64(buf + 40, a->flags);
	st32(buf + 48, a->wakeup_events);
	st32(buf + 52, a->bp_type);
	st64(buf + 56, a->config1);
	st64(buf + 64, a->config2);
	st64(buf + 72, a->branch_sample_type);
	st64(buf + 80, a->sample_regs_user);
	st32(buf + 88, a->sample_stack_user);
	st32(buf + 92, (uint32_t)a->clockid);
	st64(buf + 96, a->sample_regs_intr);
	st32(buf + 104, a->aux_watermark);
	st16(buf + 108, a->sample_max_stack);
	st32(buf + 112, a->aux_sample_size);
	st64(buf + 120, a->sig_data);
	st64(buf + 128, a->config3);
	memset(out, 0, size);
	memcpy(out, buf, size < sizeof(buf) ? size : sizeof(buf));
}
