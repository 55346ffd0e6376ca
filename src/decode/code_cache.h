/* SPDX-License-Identifier: MIT */
/*
 * Decoded instructions of the modules a recording ran, addressed by module
 * file offset (the key every aggregate uses). Walking the fall-through
 * range between two branch records needs the instructions of [start, end];
 * many distinct ranges overlap, so each instruction is decoded once with
 * Capstone (x86-64, AArch64) and kept per module: memory grows with the code
 * the ranges touch, never with the number of samples.
 */
#ifndef HWPROF_DECODE_CODE_CACHE_H
#define HWPROF_DECODE_CODE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/symbolize.h"

/* What an instruction does to the flow of control. */
enum hwp__insn_class {
	HWP_INSN_OTHER,      /* falls through */
	HWP_INSN_COND,       /* conditional branch (jcc, loop, jrcxz; b.cond, cbz, tbz) */
	HWP_INSN_JUMP,       /* direct unconditional jump */
	HWP_INSN_IND_JUMP,   /* indirect jump (switch tables, PLT, tail calls through registers) */
	HWP_INSN_CALL,       /* direct call */
	HWP_INSN_IND_CALL,   /* indirect call */
	HWP_INSN_RET,        /* return */
	HWP_INSN_SYSCALL,    /* syscall, int, sysenter, svc, iret, far jumps: leaves and
				usually comes back to the next instruction */
	HWP_INSN_BAD,        /* undecodable: one byte on x86, four on AArch64 */
	HWP_INSN_CLASS_NR
};

struct hwp__insn {
	uint64_t offset; /* module file offset */
	uint64_t target; /* the direct target as a module file offset, when has_target */
	uint8_t len;
	uint8_t cls;     /* enum hwp__insn_class */
	bool has_target; /* direct branch or call whose target is in a PT_LOAD segment */
};

/* Control cannot fall through to the next instruction (a range whose body
   holds one did not run straight through). */
static inline bool hwp__insn_is_uncond(unsigned cls)
{
	return cls == HWP_INSN_JUMP || cls == HWP_INSN_IND_JUMP || cls == HWP_INSN_CALL ||
	       cls == HWP_INSN_IND_CALL || cls == HWP_INSN_RET;
}

/* Any branch the branch records can hold as a 'from' address. */
static inline bool hwp__insn_is_branch(unsigned cls)
{
	return cls != HWP_INSN_OTHER && cls != HWP_INSN_BAD;
}

const char *hwp__insn_class_name(unsigned cls);

struct hwp__code_cache;

/* Modules are those of S (ids from hwp_symbolizer__module()); their files
   are opened on first use. NULL on ENOMEM. */
struct hwp__code_cache *hwp__code_cache_new(struct hwp_symbolizer *s);
void hwp__code_cache_delete(struct hwp__code_cache *c);

/*
 * Calls FN for each instruction of [START, END] in MODULE, decoding from
 * START: END is the offset of the last instruction (a newer branch record's
 * 'from'). FN returns 0 to go on; anything else stops the walk and is
 * returned. Returns 0 when the walk reached END exactly, or:
 *   -EILSEQ   decoding from START steps over END (END is not an instruction
 *             boundary of this path) or meets undecodable bytes (FN has seen
 *             the HWP_INSN_BAD one)
 *   -ERANGE   the range is not inside one executable segment of the file
 *   -ENOENT   no file for MODULE (kernel, missing binary)
 *   -ENOTSUP  built without Capstone, or a machine other than x86-64/AArch64
 *   -ENOMEM
 * Errors other than -EILSEQ set hwp_errmsg(); -ENOENT keeps the symbolizer's.
 */
typedef int (*hwp__insn_fn)(void *ctx, const struct hwp__insn *insn);
int hwp__code_cache_range(struct hwp__code_cache *c, int module, uint64_t start, uint64_t end,
			  hwp__insn_fn fn, void *ctx);
/* The one instruction at OFFSET into *OUT: 0, or as hwp__code_cache_range()
   (-EILSEQ: undecodable, *OUT is the HWP_INSN_BAD one). */
int hwp__code_cache_insn(struct hwp__code_cache *c, int module, uint64_t offset, struct hwp__insn *out);

/* 0 when MODULE's instructions can be decoded (its file opened), else as
   hwp__code_cache_range() fails for it. */
int hwp__code_cache_module_ok(struct hwp__code_cache *c, int module);

/*
 * A decoder of one file's instructions alone, without a cache (a linear
 * sweep over a whole binary decodes each instruction once anyway). F stays
 * the caller's. NULL (hwp_errmsg()) when the machine is not decoded or
 * built without Capstone.
 */
struct hwp__insn_decoder;
struct hwp__code_file;
struct hwp__insn_decoder *hwp__insn_decoder_new(struct hwp__code_file *f);
void hwp__insn_decoder_delete(struct hwp__insn_decoder *d);
/* The instruction at file offset OFF into *OUT: 0, -EILSEQ (undecodable:
   *OUT is the HWP_INSN_BAD one) or -ERANGE (in no executable segment). */
int hwp__insn_decoder_at(struct hwp__insn_decoder *d, uint64_t off, struct hwp__insn *out);

/* Distinct instructions decoded so far (all modules). */
size_t hwp__code_cache_size(const struct hwp__code_cache *c);

#endif
