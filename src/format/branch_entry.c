/* SPDX-License-Identifier: MIT */
/*
 * perf_branch_entry's flags word (the third u64 of each entry), as laid out
 * by the kernel's uapi perf_event.h: mispred:1 predicted:1 in_tx:1 abort:1
 * cycles:16 type:4 spec:2 new_type:4 priv:3 reserved:31.
 */
#include "format/perf_data_internal.h"
#include "hwprof/perf_data.h"

#define FIELD(v, shift, bits) ((uint64_t)(v) >> (shift) & ((1ULL << (bits)) - 1))
#define PUT(v, shift, bits) (((uint64_t)(v) & ((1ULL << (bits)) - 1)) << (shift))

void hwp_branch_entry__decode(uint64_t from, uint64_t to, uint64_t flags,
			      struct hwp_branch_entry *e)
{
	e->from = from;
	e->to = to;
	e->mispred = (uint8_t)FIELD(flags, HWP_BRF_MISPRED_SHIFT, 1);
	e->predicted = (uint8_t)FIELD(flags, HWP_BRF_PREDICTED_SHIFT, 1);
	e->in_tx = (uint8_t)FIELD(flags, HWP_BRF_IN_TX_SHIFT, 1);
	e->abort = (uint8_t)FIELD(flags, HWP_BRF_ABORT_SHIFT, 1);
	e->cycles = (uint16_t)FIELD(flags, HWP_BRF_CYCLES_SHIFT, 16);
	e->type = (uint8_t)FIELD(flags, HWP_BRF_TYPE_SHIFT, 4);
	e->spec = (uint8_t)FIELD(flags, HWP_BRF_SPEC_SHIFT, 2);
	e->new_type = (uint8_t)FIELD(flags, HWP_BRF_NEW_TYPE_SHIFT, 4);
	e->priv = (uint8_t)FIELD(flags, HWP_BRF_PRIV_SHIFT, 3);
}

/* Out-of-range field values are truncated to their width (as the kernel's
   bitfields would), never spilled into the neighbouring field. */
uint64_t hwp_branch_entry__encode_flags(const struct hwp_branch_entry *e)
{
	return PUT(e->mispred, HWP_BRF_MISPRED_SHIFT, 1) |
	       PUT(e->predicted, HWP_BRF_PREDICTED_SHIFT, 1) |
	       PUT(e->in_tx, HWP_BRF_IN_TX_SHIFT, 1) |
	       PUT(e->abort, HWP_BRF_ABORT_SHIFT, 1) |
	       PUT(e->cycles, HWP_BRF_CYCLES_SHIFT, 16) |
	       PUT(e->type, HWP_BRF_TYPE_SHIFT, 4) |
	       PUT(e->spec, HWP_BRF_SPEC_SHIFT, 2) |
	       PUT(e->new_type, HWP_BRF_NEW_TYPE_SHIFT, 4) |
	       PUT(e->priv, HWP_BRF_PRIV_SHIFT, 3);
}

/* perf 6.1 util/branch.c names (x86 spelling of the ARCH_n new types). */
static const char *const branch_type_names[16] = {
	"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
};
static const char *const branch_new_type_names[8] = {
	"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5",
};

const char *hwp__branch_entry_type_name(const struct hwp_branch_entry *e)
{
	if (e->type == 15) /* PERF_BR_EXTEND_ABI */
		return e->new_type < 8 ? branch_new_type_names[e->new_type] : "(null)";
	return branch_type_names[e->type & 15];
}
