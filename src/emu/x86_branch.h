/* SPDX-License-Identifier: MIT */
/* Control-flow classification of one x86-64 instruction (the plugin's decoder). */
#ifndef HWPROF_EMU_X86_BRANCH_H
#define HWPROF_EMU_X86_BRANCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Classifies the instruction of N bytes at P (guest address PC; N is the
 * length QEMU decoded) as an enum hwp_emu_kind. For direct branches (COND,
 * JMP, CALL) *TARGET is set to the branch target, else to 0.
 */
unsigned hwp__emu_classify(const uint8_t *p, size_t n, uint64_t pc, uint64_t *target);

#endif
