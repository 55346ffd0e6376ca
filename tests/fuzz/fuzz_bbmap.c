/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the .llvm_bb_addr_map reader
 * (src/symbolize/bb_addr_map.c): any bytes as the section's data. Either
 * whole function entries, every block inside the parsed vector, blocks of
 * one range following each other without overflow, or one error line
 * naming the input and an offset inside it (the entries before the bad
 * one kept).
 */
#include "fuzz_common.h"
#include "symbolize/bb_addr_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwp__bb_addr_map m = { 0 };
	const uint64_t base = 0x1000; /* the section's file offset, as named in errors */
	int rc = hwp__bb_addr_map_parse(data, size, base, FUZZ_NAME, &m);

	if (rc < 0) {
		unsigned long long at;
		const char *msg = hwp_errmsg();
		const char *o = strstr(msg, "offset 0x");

		fz_check_error(rc);
		if (rc != -ENOMEM && (!o || sscanf(o, "offset 0x%llx", &at) != 1 || at < base || at > base + size))
			abort();
	}
	for (size_t f = 0; f < m.n_funcs; f++) {
		const struct hwp__bb_func *fn = &m.funcs[f];

		if (fn->first > m.n_blocks || fn->n > m.n_blocks - fn->first || !fn->n_ranges ||
		    (fn->version != 1 && fn->version != 2))
			abort();
		for (size_t i = fn->first; i < fn->first + fn->n; i++) {
			const struct hwp__bb *b = &m.blocks[i];

			if (b->range >= fn->n_ranges || b->addr + b->size < b->addr)
				abort();
			if (i > fn->first && b->range == m.blocks[i - 1].range &&
			    b->addr < m.blocks[i - 1].addr + m.blocks[i - 1].size)
				abort(); /* the blocks of a range follow each other */
			fz_sink += b->addr ^ b->size ^ b->id ^ b->meta;
		}
	}
	if (m.n_funcs && !m.funcs)
		abort();
	hwp__bb_addr_map_free(&m);
	return 0;
}
