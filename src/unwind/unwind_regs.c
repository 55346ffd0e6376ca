/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "unwind/unwind_regs.h"
#include "util/bytes.h"

/* x86-64: perf's bits (AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS,
   then R8-R15 from bit 16) to DWARF numbers; IP is the return-address
   column 16. */
static const signed char x86_64_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15,
};
#define X86_64_IP 8
#define X86_64_SP 7
/* AArch64: X0-X29 and LR (X30) are bits 0-30 and DWARF 0-30, SP bit 31 =
   DWARF 31, PC bit 32 (no DWARF number: the frame's pc). */
#define ARM64_SP 31
#define ARM64_PC 32

int hwp__unwind_perf_reg_to_dwarf(uint16_t e_machine, unsigned bit)
{
	switch (e_machine) {
	case EM_X86_64:
		return bit < sizeof(x86_64_dwarf) ? x86_64_dwarf[bit] : -1;
	case EM_AARCH64:
		return bit < ARM64_PC ? (int)bit : bit == ARM64_PC ? -2 : -1;
	default:
		return -1;
	}
}

int hwp__unwind_regs(uint16_t e_machine, uint64_t abi, uint64_t mask, const uint8_t *data, size_t size,
		     struct hwp__dwarf_regs *out)
{
	unsigned pc_bit, sp_bit;

	memset(out, 0, sizeof(*out));
	if (abi == HWP__REGS_ABI_NONE)
		return -ENODATA;
	if (abi != HWP__REGS_ABI_64)
		return -ENOTSUP;
	switch (e_machine) {
	case EM_X86_64:
		out->nregs = 17;
		pc_bit = X86_64_IP;
		sp_bit = X86_64_SP;
		break;
	case EM_AARCH64:
		out->nregs = 32;
		pc_bit = ARM64_PC;
		sp_bit = ARM64_SP;
		break;
	default:
		return -ENOTSUP;
	}
	if (!(mask >> pc_bit & 1) || !(mask >> sp_bit & 1) ||
	    (uint64_t)__builtin_popcountll(mask) > size / 8)
		return -EINVAL;
	out->e_machine = e_machine;
	size_t k = 0;
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(mask >> bit & 1))
			continue;
		uint64_t v = ld64(data + 8 * k++);
		int d = hwp__unwind_perf_reg_to_dwarf(e_machine, bit);
		if (bit == pc_bit)
			out->pc = v;
		if (bit == sp_bit)
			out->sp = v;
		if (d >= 0 && (unsigned)d < out->nregs) {
			out->val[d] = v;
			out->have |= 1u << d;
		}
	}
	return 0;
}
