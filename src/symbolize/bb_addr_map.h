/* SPDX-License-Identifier: MIT */
/*
 * The basic-block address map clang writes with -fbasic-block-address-map
 * (section .llvm_bb_addr_map, type SHT_LLVM_BB_ADDR_MAP), as LLVM's
 * Extensions.rst describes it. One entry per function, one after another:
 *   version (u8: 1 or 2; clang 19 writes 2), features (u8: bit 0 function
 *   entry count, 1 block frequencies, 2 branch probabilities, 3 several
 *   block ranges);
 *   with bit 3: the number of ranges (ULEB128), else one range;
 *   per range: its base address (u64), the number of blocks (ULEB128),
 *     per block: its ID (ULEB128, version 2 only; version 1: its index),
 *     its offset from the end of the block before (from the range's base
 *     for the first), its size and its metadata (ULEB128 each; metadata
 *     bits: 0 return, 1 tail call, 2 EH pad, 3 can fall through, 4
 *     indirect branch);
 *   then, with bits 0-2, the PGO analysis map: the entry count (ULEB128,
 *   bit 0), and per block (every range's, in order) its frequency (bit 1)
 *   and (bit 2) its successors: a count, then ID and probability pairs.
 * The IDs are the compiler's machine block numbers, the ones clang's
 * -fbasic-block-sections=list= cluster file names.
 *
 * Nothing in the section is trusted: every read is checked against its
 * end, counts against the bytes left, sums against overflow. A bad entry
 * stops the reading with one error naming the file, the file offset of
 * the field and what is wrong with it.
 */
#ifndef HWPROF_SYMBOLIZE_BB_ADDR_MAP_H
#define HWPROF_SYMBOLIZE_BB_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

#define HWP_SHT_LLVM_BB_ADDR_MAP_V0 0x6fff4c08u /* the first format, no version byte */
#define HWP_SHT_LLVM_BB_ADDR_MAP 0x6fff4c0au

enum {
	HWP_BB_RETURN = 1,
	HWP_BB_TAIL_CALL = 2,
	HWP_BB_EH_PAD = 4,
	HWP_BB_CAN_FALL_THROUGH = 8,
	HWP_BB_INDIRECT_BRANCH = 16,
};

struct hwp__bb {
	uint64_t addr, size; /* link-time address */
	uint32_t id;
	uint32_t meta;  /* HWP_BB_* */
	uint32_t range; /* which range of its function (0: the entry's) */
};

struct hwp__bb_func {
	uint64_t addr;       /* the first range's base: the function's entry */
	size_t first, n;     /* its blocks: blocks[first .. first+n), in section order */
	uint32_t n_ranges;
	uint8_t version, features;
};

struct hwp__bb_addr_map {
	struct hwp__bb_func *funcs;
	size_t n_funcs, cap_funcs;
	struct hwp__bb *blocks;
	size_t n_blocks, cap_blocks;
};

/*
 * Parses SIZE bytes of section data (DATA, at file offset FILE_OFF of
 * NAME) into M, appending. 0, or <0 with hwp_errmsg() "NAME:
 * .llvm_bb_addr_map at offset 0x...: why" (M keeps the entries read
 * before).
 */
int hwp__bb_addr_map_parse(const uint8_t *data, size_t size, uint64_t file_off, const char *name,
			   struct hwp__bb_addr_map *m);

/*
 * Reads every SHT_LLVM_BB_ADDR_MAP section of the ELF file PATH (an
 * executable or shared object: a relocatable object's addresses are not
 * known before linking, and it is refused). -ENOENT when it has none
 * (built without -fbasic-block-address-map), other <0 for a bad file;
 * hwp_errmsg() says why.
 */
int hwp__bb_addr_map_read(const char *path, struct hwp__bb_addr_map *m);

void hwp__bb_addr_map_free(struct hwp__bb_addr_map *m);

#endif
