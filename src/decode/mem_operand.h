/* SPDX-License-Identifier: MIT */
/*
 * The memory operand of one instruction, for naming the data it touches:
 * base and index registers as DWARF numbers (what location lists name),
 * scale and displacement; a RIP-relative operand resolved to its link-time
 * address. Capstone does the decoding (x86-64, AArch64).
 */
#ifndef HWPROF_DECODE_MEM_OPERAND_H
#define HWPROF_DECODE_MEM_OPERAND_H

#include <stdbool.h>
#include <stdint.h>

struct hwp__code_file;

struct hwp__mem_operand {
	int base, index;  /* DWARF register numbers; -1: none */
	unsigned scale;
	int64_t disp;
	bool absolute;    /* RIP-relative, or no base and no index: ADDR is the link-time address */
	uint64_t addr;
	bool stack_op;    /* push, pop, call, ret, leave...: an implicit access to the stack */
	bool stack_base;  /* the base is the stack or frame pointer */
};

/*
 * Decodes the instruction at file offset OFF of F and fills *OP with its
 * (first) memory operand. 1: found; 0: the instruction has none that names
 * an address (OP->stack_op may still be set); -ERANGE: OFF is not in an
 * executable segment; -EILSEQ undecodable; -ENOTSUP without Capstone or for
 * another machine; -ENOMEM.
 */
int hwp__code_file_mem_operand(struct hwp__code_file *f, uint64_t off, struct hwp__mem_operand *op);

/*
 * What an instruction does to the registers, for following a pointer from
 * where DWARF names it to where it is used (perf's type tracking, done here
 * on the instructions in address order): copies, constant adjustments,
 * address computations and loads into a register; every other register
 * written is clobbered.
 */
enum hwp__reg_effect {
	HWP_REG_OTHER,  /* WRITTEN's registers are clobbered */
	HWP_REG_COPY,   /* DST = SRC */
	HWP_REG_ADD,    /* DST += IMM */
	HWP_REG_LEA,    /* DST = address of MEM: base (+ index * scale) + disp, or absolute */
	HWP_REG_LOAD,   /* DST = the 8 bytes at MEM */
	HWP_REG_CALL,   /* the caller-saved registers are clobbered */
};

struct hwp__insn_regs {
	uint64_t offset, vaddr;
	uint8_t len;
	enum hwp__reg_effect effect;
	int dst, src;              /* DWARF register numbers */
	int64_t imm;
	uint32_t written;          /* DWARF registers 0-31 written (bit mask) */
	int has_mem;               /* 1: MEM below is the instruction's memory operand */
	struct hwp__mem_operand mem;
};

/* Calls FN for each instruction of F from file offset START up to and
   including the one at END (decoded linearly); FN returns 0 to go on. 0;
   -EILSEQ when decoding steps over END or meets undecodable bytes; else as
   hwp__code_file_mem_operand(). */
typedef int (*hwp__insn_regs_fn)(void *ctx, const struct hwp__insn_regs *in);
int hwp__code_file_walk_regs(struct hwp__code_file *f, uint64_t start, uint64_t end, hwp__insn_regs_fn fn,
			     void *ctx);

#endif
