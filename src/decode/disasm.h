/* SPDX-License-Identifier: MIT */
/*
 * A function's instructions as text, decoded linearly from its start as
 * objdump (and so perf annotate) shows them: AT&T syntax on x86-64, the
 * architecture's own on AArch64. Capstone does the decoding.
 */
#ifndef HWPROF_DECODE_DISASM_H
#define HWPROF_DECODE_DISASM_H

#include <stdint.h>

struct hwp__code_file;

struct hwp__disasm_insn {
	uint64_t vaddr;      /* link-time address */
	uint8_t len;         /* bytes (1 for an undecodable byte) */
	char mnemonic[32];   /* "(bad)" for an undecodable byte, as objdump */
	char operands[160];
};

/*
 * Calls FN for each instruction of F in [VADDR, VADDR + SIZE); FN returns 0
 * to go on (anything else stops the walk and is returned). 0; -ERANGE when
 * the range is not in an executable segment of the file; -ENOTSUP built
 * without Capstone or for another architecture; -ENOMEM.
 */
typedef int (*hwp__disasm_fn)(void *ctx, const struct hwp__disasm_insn *in);
int hwp__code_file_disasm(struct hwp__code_file *f, uint64_t vaddr, uint64_t size, hwp__disasm_fn fn, void *ctx);

#endif
