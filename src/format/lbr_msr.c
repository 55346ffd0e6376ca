/* SPDX-License-Identifier: MIT */
/* Intel LBR MSR formats: names and the decoder (see include/hwprof/lbr_msr.h). */
#include <errno.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/lbr_msr.h"
#include "util/error.h"

#define BIT(n) (1ULL << (n))
#define FROM_MISPRED BIT(63)
#define FROM_IN_TX BIT(62)
#define FROM_ABORT BIT(61)
#define INFO_MISPRED BIT(63)
#define INFO_IN_TX BIT(62)
#define INFO_ABORT BIT(61)
#define INFO_CYC_VALID BIT(60) /* arch LBR */
#define INFO_BR_TYPE_SHIFT 56  /* arch LBR, 4 bits */
#define INFO_CYCLES 0xffffULL

/* perf's enum perf_branch_sample_type_... PERF_BR_* values */
enum { BR_UNKNOWN = 0, BR_COND = 1, BR_UNCOND = 2, BR_IND = 3, BR_CALL = 4, BR_IND_CALL = 5,
       BR_RET = 6 };

static const struct {
	unsigned fmt;
	const char *name;
	unsigned fields;
} formats[] = {
	{ HWP_LBR_FMT_32, "32-bit", HWP_LBR_F_ONE_MSR },
	{ HWP_LBR_FMT_LIP, "64-bit LIP", 0 },
	{ HWP_LBR_FMT_EIP, "64-bit EIP", 0 },
	{ HWP_LBR_FMT_EIP_FLAGS, "64-bit EIP with flags", HWP_LBR_F_MISPRED },
	{ HWP_LBR_FMT_EIP_FLAGS2, "64-bit EIP+flags+TSX", HWP_LBR_F_MISPRED | HWP_LBR_F_TSX },
	{ HWP_LBR_FMT_INFO, "64-bit EIP+flags+TSX+LBR_INFO",
	  HWP_LBR_F_MISPRED | HWP_LBR_F_TSX | HWP_LBR_F_CYCLES | HWP_LBR_F_INFO_MSR },
	{ HWP_LBR_FMT_TIME, "64-bit LIP+flags+cycles", HWP_LBR_F_MISPRED | HWP_LBR_F_CYCLES },
	{ HWP_LBR_FMT_INFO2, "64-bit LIP+flags+LBR_INFO",
	  HWP_LBR_F_MISPRED | HWP_LBR_F_CYCLES | HWP_LBR_F_INFO_MSR },
	{ HWP_LBR_FMT_ARCH, "architectural LBR",
	  HWP_LBR_F_MISPRED | HWP_LBR_F_TSX | HWP_LBR_F_CYCLES | HWP_LBR_F_TYPE |
		  HWP_LBR_F_INFO_MSR },
};

static int find(unsigned fmt)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == fmt)
			return (int)i;
	return -1;
}

bool hwp_lbr_format__known(unsigned fmt)
{
	return find(fmt) >= 0;
}

const char *hwp_lbr_format__name(unsigned fmt)
{
	int i = find(fmt);

	return i < 0 ? NULL : formats[i].name;
}

char *hwp_lbr_format__bits(unsigned fmt, char *buf)
{
	for (int b = 5; b >= 0; b--)
		buf[5 - b] = (fmt >> b) & 1 ? '1' : '0';
	buf[6] = 'b';
	buf[7] = 0;
	return buf;
}

unsigned hwp_lbr_format__fields(unsigned fmt)
{
	int i = find(fmt);

	return i < 0 ? 0 : formats[i].fields;
}

/* Keeps the low BITS bits of V and sign-extends bit BITS-1 (BITS < 64). */
static uint64_t sext(uint64_t v, unsigned bits)
{
	uint64_t sign = BIT(bits - 1);

	v &= BIT(bits) - 1;
	return (v ^ sign) - sign;
}

unsigned hwp_arch_lbr_br_type__perf(unsigned br_type)
{
	switch (br_type & 0xf) {
	case 0: return BR_COND;     /* JCC */
	case 1: return BR_IND;      /* NEAR_IND_JMP */
	case 2: return BR_UNCOND;   /* NEAR_REL_JMP */
	case 3: return BR_IND_CALL; /* NEAR_IND_CALL */
	case 4: return BR_CALL;     /* NEAR_REL_CALL */
	case 5: return BR_RET;      /* NEAR_RET */
	default: return BR_UNKNOWN; /* 0110b-0111b reserved, 1xxxb OTHER_BRANCH */
	}
}

static void set_mispred(struct hwp_branch_entry *e, bool mis)
{
	e->mispred = mis;
	e->predicted = !mis;
}

int hwp_lbr__decode(unsigned fmt, unsigned addr_bits, const struct hwp_lbr_msrs *m,
		    struct hwp_branch_entry *e)
{
	uint64_t from, to, info;

	if (!m || !e)
		return hwp__set_error(EINVAL, "hwp_lbr__decode: invalid argument");
	if (addr_bits == 0)
		addr_bits = 48;
	if (addr_bits != 48 && addr_bits != 57)
		return hwp__set_error(EINVAL, "LBR decode: address width %u bits (48 or 57)", addr_bits);
	if (!hwp_lbr_format__known(fmt))
		return hwp__set_error(EINVAL, "LBR decode: unknown LBR format 0x%02x", fmt);
	memset(e, 0, sizeof(*e));
	from = m->from;
	to = m->to;
	info = m->info;

	switch (fmt) {
	case HWP_LBR_FMT_32:
		e->from = from & 0xffffffffULL;
		e->to = from >> 32;
		return 0;
	case HWP_LBR_FMT_LIP:
	case HWP_LBR_FMT_EIP:
		break;
	case HWP_LBR_FMT_EIP_FLAGS:
		set_mispred(e, from & FROM_MISPRED);
		from &= ~FROM_MISPRED;
		break;
	case HWP_LBR_FMT_EIP_FLAGS2:
		set_mispred(e, from & FROM_MISPRED);
		e->in_tx = !!(from & FROM_IN_TX);
		e->abort = !!(from & FROM_ABORT);
		from &= ~(FROM_MISPRED | FROM_IN_TX | FROM_ABORT);
		break;
	case HWP_LBR_FMT_INFO:
		set_mispred(e, info & INFO_MISPRED);
		e->in_tx = !!(info & INFO_IN_TX);
		e->abort = !!(info & INFO_ABORT);
		e->cycles = (uint16_t)(info & INFO_CYCLES);
		break;
	case HWP_LBR_FMT_TIME:
		set_mispred(e, from & FROM_MISPRED);
		from &= ~FROM_MISPRED;
		e->cycles = (uint16_t)((to >> 48) & INFO_CYCLES);
		addr_bits = 48; /* TO bits 63:48 are the cycle count */
		break;
	case HWP_LBR_FMT_INFO2:
		set_mispred(e, info & INFO_MISPRED);
		e->cycles = (uint16_t)(info & INFO_CYCLES);
		break;
	case HWP_LBR_FMT_ARCH:
		set_mispred(e, info & INFO_MISPRED);
		e->in_tx = !!(info & INFO_IN_TX);
		e->abort = !!(info & INFO_ABORT);
		if (info & INFO_CYC_VALID)
			e->cycles = (uint16_t)(info & INFO_CYCLES);
		e->type = (uint8_t)hwp_arch_lbr_br_type__perf((unsigned)(info >> INFO_BR_TYPE_SHIFT));
		break;
	}
	e->from = sext(from, addr_bits);
	e->to = sext(to, addr_bits);
	return 0;
}
