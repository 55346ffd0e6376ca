/* SPDX-License-Identifier: MIT */
/* Symbols of JIT-compiled code. See jit_module.h. */
#include "symbolize/jit_module.h"

void hwp__jit_module_perf_map_lookup(const struct hwp__perf_map *m, uint64_t offset, struct hwp_symbol_info *out)
{
	const struct hwp_sym *sym = hwp__perf_map_find(m, offset);

	out->vaddr = offset;
	if (!sym)
		return;
	out->symbol = out->symbol_full = out->symbol_raw = sym->name;
	out->sym_start = sym->start;
	out->sym_size = sym->end - sym->start;
	out->sym_offset = offset - sym->start;
}

void hwp__jit_module_code_lookup(const struct hwp__jit_code *c, uint64_t offset, struct hwp_symbol_info *out)
{
	out->vaddr = offset;
	/* the symbol covers the code; the rest of the map (unwinding data) has none */
	if (offset < HWP_JIT_TEXT_OFFSET || offset - HWP_JIT_TEXT_OFFSET >= c->code_size)
		return;
	uint64_t rel = offset - HWP_JIT_TEXT_OFFSET;

	out->symbol = out->symbol_full = out->symbol_raw = c->name;
	out->sym_start = HWP_JIT_TEXT_OFFSET;
	out->sym_size = c->code_size;
	out->sym_offset = rel;
	/* the entries' addresses are where the code was loaded (moves keep them) */
	const struct hwp__jit_line *l = hwp__jitdump_line(c, c->code_addr + rel);
	if (l && l->line && l->file[0]) {
		out->file = l->file;
		out->line = l->line;
	}
}
