/* SPDX-License-Identifier: MIT */
/*
 * Intel LBR record formats and a decoder for raw LBR MSR values.
 *
 * The format is IA32_PERF_CAPABILITIES (MSR 0x345) bits [5:0] (Intel SDM
 * vol. 3B ch. 18, "Last Branch, Call Stack, Interrupt, and Exception
 * Recording"; 0x3f with architectural LBR). Each LBR entry is a FROM/TO MSR
 * pair, plus an LBR_INFO MSR on the formats that have one. The decoder turns
 * the raw MSR values of one entry into a hwp_branch_entry the way the
 * kernel's arch/x86/events/intel/lbr.c does: flag bits are stripped from the
 * address and the address is sign-extended from its width (48-bit, or 57-bit
 * with 5-level paging).
 *
 * Bit layouts (FROM/TO/INFO):
 *   000000b 32-bit       one MSR: FROM in bits 31:0, TO in bits 63:32
 *   000001b 64-bit LIP   FROM, TO: address, sign-extended
 *   000010b 64-bit EIP   same (EIP = LIP in 64-bit mode: CS base is 0)
 *   000011b EIP+flags    FROM bit 63 MISPRED
 *   000100b +TSX         FROM bit 63 MISPRED, 62 IN_TX, 61 TSX_ABORT
 *   000101b +LBR_INFO    FROM, TO plain; INFO bit 63 MISPRED, 62 IN_TX,
 *                        61 TSX_ABORT, 15:0 cycle count
 *   000110b LIP+flags+cycles  FROM bit 63 MISPRED; TO bits 63:48 cycle
 *                        count, 47:0 address
 *   000111b LIP+flags+LBR_INFO  INFO bit 63 MISPRED, 15:0 cycle count
 *   111111b arch LBR     LBR_x_INFO bit 63 MISPRED, 62 IN_TX, 61 TSX_ABORT,
 *                        60 CYC_CNT_VALID, 59:56 BR_TYPE, 15:0 CYC_CNT
 * (The SDM's Nehalem table words MISPRED backwards; the kernel, perf and
 * later SDM editions read a set bit as "mispredicted", as done here.)
 */
#ifndef HWPROF_LBR_MSR_H
#define HWPROF_LBR_MSR_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"

HWP_BEGIN_DECLS

#define HWP_MSR_IA32_PERF_CAPABILITIES 0x345

enum hwp_lbr_format {
	HWP_LBR_FMT_32 = 0x00,         /* 000000b */
	HWP_LBR_FMT_LIP = 0x01,        /* 000001b */
	HWP_LBR_FMT_EIP = 0x02,        /* 000010b */
	HWP_LBR_FMT_EIP_FLAGS = 0x03,  /* 000011b */
	HWP_LBR_FMT_EIP_FLAGS2 = 0x04, /* 000100b */
	HWP_LBR_FMT_INFO = 0x05,       /* 000101b */
	HWP_LBR_FMT_TIME = 0x06,       /* 000110b */
	HWP_LBR_FMT_INFO2 = 0x07,      /* 000111b */
	HWP_LBR_FMT_ARCH = 0x3f,       /* 111111b: architectural LBR */
};

/* What an entry of a format carries (hwp_lbr_format__fields()). */
enum hwp_lbr_field {
	HWP_LBR_F_MISPRED = 1u << 0, /* mispredicted / predicted */
	HWP_LBR_F_TSX = 1u << 1,     /* in_tx, abort */
	HWP_LBR_F_CYCLES = 1u << 2,  /* elapsed core cycles */
	HWP_LBR_F_TYPE = 1u << 3,    /* branch type (arch LBR BR_TYPE) */
	HWP_LBR_F_INFO_MSR = 1u << 4, /* flags come from an LBR_INFO MSR */
	HWP_LBR_F_ONE_MSR = 1u << 5, /* FROM and TO share one MSR (32-bit) */
};

/* The LBR format field of an IA32_PERF_CAPABILITIES value. */
static inline unsigned hwp_perf_capabilities__lbr_format(uint64_t v)
{
	return (unsigned)(v & 0x3f);
}

/* True for the formats above. */
HWP_API bool hwp_lbr_format__known(unsigned fmt);
/* The SDM's name: "64-bit EIP+flags+TSX+LBR_INFO", or NULL when unknown. */
HWP_API const char *hwp_lbr_format__name(unsigned fmt);
/* "000101b" (the 6 bits in binary) into BUF (at least 8 bytes); returns BUF. */
HWP_API char *hwp_lbr_format__bits(unsigned fmt, char *buf);
/* enum hwp_lbr_field bits; 0 for unknown formats. */
HWP_API unsigned hwp_lbr_format__fields(unsigned fmt);

/* Raw MSR values of one LBR entry. INFO is ignored by formats without one;
   for the 32-bit format FROM holds the whole record and TO is ignored. */
struct hwp_lbr_msrs {
	uint64_t from;
	uint64_t to;
	uint64_t info;
};

/*
 * Decodes one entry. ADDR_BITS is the linear-address width the addresses
 * are sign-extended from: 48, or 57 with 5-level paging (0 means 48; the
 * 000110b format always has 48, its TO bits 63:48 being the cycle count).
 * Fields a format does not carry are left 0 (mispred and predicted both 0
 * mean "unknown", as in perf). Arch LBR: cycles only when CYC_CNT_VALID is
 * set; BR_TYPE is mapped to perf's PERF_BR_* type (OTHER_BRANCH: 0).
 * Returns 0, or -EINVAL for an unknown format or width.
 */
HWP_API int hwp_lbr__decode(unsigned fmt, unsigned addr_bits, const struct hwp_lbr_msrs *m,
		    struct hwp_branch_entry *e);

/* Arch LBR BR_TYPE (LBR_INFO bits 59:56) to perf's PERF_BR_* value. */
HWP_API unsigned hwp_arch_lbr_br_type__perf(unsigned br_type);

HWP_END_DECLS

#endif
