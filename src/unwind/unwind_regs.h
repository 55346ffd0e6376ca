/* SPDX-License-Identifier: MIT */
/*
 * A sample's user registers (PERF_SAMPLE_REGS_USER) as DWARF registers.
 * perf packs the registers of the attr's sample_regs_user mask, lowest bit
 * first, one u64 each; the bit numbers are the kernel's perf_regs.h
 * (arch/x86/include/uapi/asm/perf_regs.h, arch/arm64/...). The DWARF numbers
 * are the psABI's: x86-64 rax rdx rcx rbx rsi rdi rbp rsp r8-r15 = 0-15 and
 * the return address (rip) 16; AArch64 x0-x30 = 0-30, sp 31, the pc apart.
 */
#ifndef HWPROF_UNWIND_UNWIND_REGS_H
#define HWPROF_UNWIND_UNWIND_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HWP__DWARF_REGS 32 /* DWARF registers an unwinding starts from (x86-64 17, AArch64 32) */

struct hwp__dwarf_regs {
	uint16_t e_machine;           /* EM_X86_64 or EM_AARCH64 */
	unsigned nregs;               /* DWARF registers of the architecture's frame (17, 32) */
	uint64_t val[HWP__DWARF_REGS]; /* by DWARF number */
	uint32_t have;                /* bit N: val[N] was sampled */
	uint64_t pc, sp;              /* both always present (else the call fails) */
};

/* perf's regs ABI word (PERF_SAMPLE_REGS_ABI_*) */
#define HWP__REGS_ABI_NONE 0
#define HWP__REGS_ABI_32 1
#define HWP__REGS_ABI_64 2

/*
 * Maps the REGS_USER words DATA[0..SIZE) (MASK the attr's sample_regs_user,
 * ABI the sample's word) of architecture E_MACHINE into OUT. Returns 0;
 * -ENODATA: no registers (ABI none: a kernel thread's sample); -ENOTSUP: an
 * architecture or ABI not handled (32-bit processes); -EINVAL: the mask
 * lacks the pc or sp, or SIZE is short of what MASK needs.
 */
int hwp__unwind_regs(uint16_t e_machine, uint64_t abi, uint64_t mask, const uint8_t *data, size_t size,
		     struct hwp__dwarf_regs *out);

/* The DWARF number of perf's register bit BIT on E_MACHINE; -1 for none
   (flags, segment registers), -2 for the pc kept apart (AArch64). */
int hwp__unwind_perf_reg_to_dwarf(uint16_t e_machine, unsigned bit);

#endif
