/* SPDX-License-Identifier: MIT */
/*
 * Symbols of JIT-compiled code, as the symbolizer hands them out: a perf
 * map's (module offsets are absolute addresses: its maps are anonymous
 * memory, the identity maps) and a jitdump code load's (module offsets as
 * in the ELF image perf inject writes for it: the code from
 * HWP_JIT_TEXT_OFFSET on, one symbol over all of it, the load's debug
 * entries as its source lines).
 */
#ifndef HWPROF_SYMBOLIZE_JIT_MODULE_H
#define HWPROF_SYMBOLIZE_JIT_MODULE_H

#include <stdint.h>

#include "hwprof/symbolize.h"
#include "symbolize/jitdump.h"
#include "symbolize/perf_map.h"

/* OUT (zeroed by the caller) for OFFSET in perf map M: the name as written
   (perf 6.1 demangles no perf map name). */
void hwp__jit_module_perf_map_lookup(const struct hwp__perf_map *m, uint64_t offset, struct hwp_symbol_info *out);
/* OUT (zeroed by the caller) for OFFSET in code load C: the raw name in
   symbol, symbol_full and symbol_raw (the caller demangles, as perf
   demangles the jitted ELF's symbol), the source line when C has one. */
void hwp__jit_module_code_lookup(const struct hwp__jit_code *c, uint64_t offset, struct hwp_symbol_info *out);

#endif
