/* SPDX-License-Identifier: MIT */
/*
 * The type and field of the data an instruction touches, from DWARF (as
 * perf annotate --data-type names them): the object a register points to
 * when a variable or parameter of pointer type is held in that register at
 * that address (its location list says so), or the global or static
 * variable holding an address; then the member at the offset, through
 * nested structs and arrays.
 */
#ifndef HWPROF_SYMBOLIZE_DATA_TYPE_H
#define HWPROF_SYMBOLIZE_DATA_TYPE_H

#include <stdbool.h>
#include <stdint.h>

struct hwp_elf_module;
struct hwp__dtype_globals;

struct hwp__data_type {
	char type[128];   /* "struct counters", "long", "int *": the outermost struct, union or
			     class around the offset (arrays stepped through), else the object's */
	char member[160]; /* "y", "in.z", "" when the offset names no member */
	char var[96];     /* the variable or parameter, "" when none is named */
	uint64_t offset;  /* bytes into TYPE */
};

/*
 * The object register REG (a DWARF register number) points to at link-time
 * address PC, accessed DISP bytes in (INDEXED: plus an index register
 * scaled, so the offset is taken modulo the object's size): found when a
 * variable or parameter in scope at PC is located in REG there and has a
 * pointer type. 1 found (*OUT), 0 not, -ENOMEM.
 */
int hwp__elf_module_type_in_reg(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp, bool indexed,
				struct hwp__data_type *out);

/*
 * The local variable on the stack that byte DISP past stack or frame pointer
 * REG (DWARF 7 or 6) falls in at PC: a variable whose location there is
 * DW_OP_fbreg from a frame base that is the CFA (the CFA from the binary's
 * .eh_frame at PC), or DW_OP_breg of REG itself. 1 found, 0 not.
 */
int hwp__elf_module_type_on_stack(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp,
				  struct hwp__data_type *out);

/* The global or static variable (DW_OP_addr) whose object holds link-time
   address ADDR and the member there. 1 found, 0 not, -ENOMEM. The index
   of the module's variables is built on first use. */
int hwp__elf_module_type_at(struct hwp_elf_module *m, uint64_t addr, struct hwp__data_type *out);

/*
 * For following a pointer through the instructions (analysis/mem_types.c):
 * a type is named by its DIE's offset in the module's DWARF (0: none).
 */
struct hwp__reg_ptr {
	uint64_t pointee; /* the pointed-to type's DIE */
	const char *var;  /* the variable or parameter (the module's string) */
};
/* Where the pointer variables and parameters of the function around PC
   (its blocks and inlined calls included) are held in a register: [LO,
   HI) link-time addresses, REG 0-31; DEPTH: how deep in the function's
   scopes (a deeper one is the inner variable). */
struct hwp__reg_range {
	uint64_t lo, hi;
	int reg, depth;
	struct hwp__reg_ptr p;
};
/* *OUT (malloc'd, the caller frees) gets them, *N how many. 0 or -ENOMEM. */
int hwp__elf_module_reg_ranges(struct hwp_elf_module *m, uint64_t pc, struct hwp__reg_range **out, size_t *n);
/* Names byte OFF of an object of type POINTEE (taken modulo its size when
   it lies outside: an element of an array of them). 1 or 0. */
int hwp__elf_module_describe(struct hwp_elf_module *m, uint64_t pointee, int64_t off, struct hwp__data_type *out);
/* The pointed-to type of the pointer at byte OFF of an object of type
   POINTEE, or of the global variable holding ADDR (POINTEE 0): 0 when
   that is not a pointer. */
uint64_t hwp__elf_module_loaded_pointee(struct hwp_elf_module *m, uint64_t pointee, int64_t off, uint64_t addr);

void hwp__dtype_globals_free(struct hwp__dtype_globals *g);

#endif
