/* SPDX-License-Identifier: MIT */
/*
 * One step down a function's DWARF scope tree towards an address: what both
 * the symbolizer's inline chains and the LLVM profile's inline frames walk.
 */
#ifndef HWPROF_SYMBOLIZE_DWARF_SCOPE_H
#define HWPROF_SYMBOLIZE_DWARF_SCOPE_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>

/* DIEs that cover code and can hold inlined instances. */
static inline bool hwp__dwarf_is_pc_scope(int tag)
{
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* Sets *CHILD to the child scope of PARENT whose ranges hold ADDR; false
   when there is none (PARENT is the innermost). */
static inline bool hwp__dwarf_scope_child(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *child)
{
	if (dwarf_child(parent, child) != 0)
		return false;
	do {
		if (hwp__dwarf_is_pc_scope(dwarf_tag(child)) && dwarf_haspc(child, addr) == 1)
			return true;
	} while (dwarf_siblingof(child, child) == 0);
	return false;
}

#endif
