/* SPDX-License-Identifier: MIT */
/*
 * A binary's code as llvm-profgen (ProfiledBinary) sees it when it unwinds
 * samples with call stacks: the instructions found by decoding each symbol
 * of .symtab that lies in an executable section (not .plt) linearly up to
 * the next symbol or the section's end (padding included; undecodable
 * bytes skipped one at a time and not code), with
 *   - calls and returns, and the "unconditional" instructions a
 *     fall-through range may not cross (calls, returns, direct jumps);
 *   - the prolog/epilog addresses: each DWARF subprogram range's start and
 *     the instruction after it, each return and the instruction before it.
 * Addresses are link-time ones.
 */
#ifndef HWPROF_EXPORT_CS_BINARY_H
#define HWPROF_EXPORT_CS_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp__code_file;

/* llvm-profgen's "external" address: any frame or branch end outside the binary's code */
#define HWP__CS_EXTERNAL 1

/* A DWARF subprogram's address range; FUNC numbers its name (one number
   for every function of one name, as llvm-profgen's BinaryFunction). */
struct hwp__cs_func_range {
	uint64_t lo, hi;
	uint32_t func;
};

struct hwp__cs_binary {
	struct hwp__code_file *file;
	uint64_t *addr; /* instruction starts, sorted, distinct */
	uint8_t *cls;   /* each one's enum hwp__insn_class */
	uint8_t *len;   /* each one's length in bytes */
	uint64_t *target; /* a direct jump's target (0: none, or not a direct jump) */
	struct hwp__cs_func_range *funcs; /* by start; a start taken by the first in DWARF order */
	size_t nfuncs;
	size_t n;
	uint64_t *uncond; /* calls, returns and direct jumps, sorted */
	size_t nuncond;
	uint64_t *proepi; /* prolog and epilog addresses, sorted, distinct */
	size_t nproepi;
	uint64_t base; /* the first executable segment's page: what unsymbolized addresses are relative to */
};

/* Reads PATH (ELF with .symtab; DWARF for the prologs). 0 or <0 (hwp_errmsg()). */
int hwp__cs_binary_load(const char *path, struct hwp__cs_binary **out);
void hwp__cs_binary_free(struct hwp__cs_binary *b);

/* The index of the first of the sorted V[0..N) not below A (N when none). */
size_t hwp__cs_lower_bound(const uint64_t *v, size_t n, uint64_t a);
/* The index of the first instruction at or after A (n when none). */
size_t hwp__cs_binary_index(const struct hwp__cs_binary *b, uint64_t a);
bool hwp__cs_binary_is_code(const struct hwp__cs_binary *b, uint64_t a);
bool hwp__cs_binary_is_call(const struct hwp__cs_binary *b, uint64_t a);
bool hwp__cs_binary_is_return(const struct hwp__cs_binary *b, uint64_t a);
bool hwp__cs_binary_in_prolog_epilog(const struct hwp__cs_binary *b, uint64_t a);
/* The call before return address RET (the instruction before it, when a
   call); HWP__CS_EXTERNAL for it; 0 when none. */
uint64_t hwp__cs_binary_call_before(const struct hwp__cs_binary *b, uint64_t ret);
/* The function range holding A, or NULL. */
const struct hwp__cs_func_range *hwp__cs_binary_func(const struct hwp__cs_binary *b, uint64_t a);
/* Whether a call, return or direct jump lies in [START, END) (START < END). */
bool hwp__cs_binary_crosses(const struct hwp__cs_binary *b, uint64_t start, uint64_t end);

#endif
