/* SPDX-License-Identifier: MIT */
/*
 * The data type of a memory access (perf annotate --data-type): the
 * sampled instruction's memory operand (Capstone) traced to a variable or
 * parameter of pointer type held in its base register at that address
 * (DWARF location lists), or a local in the stack frame, or its
 * RIP-relative address or the sample's data address inside a global or
 * static variable, or the base register followed through the function
 * from where DWARF names a pointer; then the member at the offset.
 * Unknown when none of these says.
 */
#ifndef HWPROF_ANALYSIS_MEM_TYPES_H
#define HWPROF_ANALYSIS_MEM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/code_loc.h"
#include "hwprof/symbolize.h"
#include "symbolize/data_type.h"

enum hwp__dtype_how {
	HWP_DTYPE_UNKNOWN,
	HWP_DTYPE_REGISTER, /* a pointer variable or parameter in the base register */
	HWP_DTYPE_GLOBAL,   /* a global or static variable holds the address */
	HWP_DTYPE_TRACKED,  /* the base register followed from where DWARF names its pointer */
	HWP_DTYPE_STACK_VAR, /* a local variable in the stack frame (CFA or frame-pointer based) */
	HWP_DTYPE_STACK_OP, /* push, pop, call, ret: the stack, no declared object */
};

/* Asks for the types of instructions, following registers through their
   functions: asked in address order (by module, then offset), each
   function is walked once. NULL: out of memory. */
struct hwp__mem_typer;
struct hwp__mem_typer *hwp__mem_typer_new(struct hwp_symbolizer *sym);
void hwp__mem_typer_delete(struct hwp__mem_typer *t);

/* The type of the data the instruction at CODE touches; DATA_MODULE and
   DATA_OFFSET (module file offset; DATA_MODULE < 0: none) are a sample's
   data address. Returns how it was found (*OUT filled when not unknown). */
enum hwp__dtype_how hwp__mem_typer_find(struct hwp__mem_typer *t, const struct hwp_code_loc *code,
					int32_t data_module, uint64_t data_offset, struct hwp__data_type *out);

#endif
