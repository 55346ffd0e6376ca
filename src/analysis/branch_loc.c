/* SPDX-License-Identifier: MIT */
/*
 * One branch location (module + offset) two ways: as perf 6.1's sort keys
 * print it (text output), and as separate fields for programs (JSON/CSV:
 * module path, build-id, offsets, raw symbol, file, line).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_loc.h"
#include "decode/insn_starts.h"
#include "symbolize/symbolizer_internal.h"

#include "hwprof/branch_report.h"
#include "hwprof/perf_data.h"

static char level_char(const struct hwp_code_loc *l)
{
	return l->cpumode == HWP_MISC_KERNEL ? 'k' : '.';
}

static bool lookup(struct hwp_symbolizer *s, const struct hwp_code_loc *l, struct hwp_symbol_info *si)
{
	memset(si, 0, sizeof(*si));
	return l->module >= 0 && hwp_symbolizer__lookup(s, l->module, l->offset, si) == 0;
}

/* perf's "%-#.16llx" of the address in its map (a kernel module's is the
   offset in it): 0 prints as 16 zeros, without "0x" */
static void format_unresolved(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	uint64_t at = l->module >= 0 ? hwp__symbolizer_perf_address(s, l->module, l->offset) : l->offset;

	snprintf(buf, len, "[%c] %#.16" PRIx64, level_char(l), at);
}

void hwp__loc_format_branch_sym(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.symbol)
		snprintf(buf, len, "[%c] %s", level_char(l), si.symbol);
	else
		snprintf(buf, len, "[%c] %#.16" PRIx64, level_char(l), l->addr);
}

void hwp_loc__format_symbol(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.symbol)
		snprintf(buf, len, "[%c] %s", level_char(l), si.symbol);
	else
		format_unresolved(s, l, buf, len);
}

void hwp_loc__format_addr(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.symbol && si.sym_offset)
		snprintf(buf, len, "[%c] %s+%#" PRIx64, level_char(l), si.symbol, si.sym_offset);
	else if (si.symbol)
		snprintf(buf, len, "[%c] %s", level_char(l), si.symbol);
	else
		format_unresolved(s, l, buf, len);
}

void hwp_loc__format_dso(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s", l->module >= 0 ? hwp_symbolizer__module_short_name(s, l->module) : "[unknown]");
}

/*
 * perf 6.1's map__srcline(): "file:line" (base name) when the line is known.
 * Without one, perf's addr2line child (binutils, BFD) still answers from the
 * symbol table when a function symbol of the address's section starts at or
 * below it: "file:0" with the FILE symbol's name ("crtstuff.c:0"), "??:0"
 * without one (stripped libraries, global symbols). Otherwise perf prints
 * "sym+N" (decimal) inside a symbol, else "dso[vaddr]"; "??:0" when no map
 * covers the address. Rows group by this text, as perf's srcline keys
 * compare it.
 */
void hwp_loc__format_srcline(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;
	struct hwp__code_file *f;
	const char *file;

	if (l->module < 0) {
		snprintf(buf, len, "??:0");
	} else if (lookup(s, l, &si) && si.file) {
		const char *base = strrchr(si.file, '/');
		snprintf(buf, len, "%s:%u", base ? base + 1 : si.file, si.line);
	} else if (si.vaddr && (f = hwp__symbolizer_code_file(s, l->module)) &&
		   hwp__code_file_a2l_function(f, si.vaddr, &file) > 0) {
		const char *base = file ? strrchr(file, '/') : NULL;
		snprintf(buf, len, "%s:0", !file ? "??" : base ? base + 1 : file);
	} else if (si.symbol) {
		snprintf(buf, len, "%s+%" PRIu64, si.symbol, si.sym_offset);
	} else {
		uint64_t vaddr = l->offset;

		hwp_symbolizer__module_vaddr(s, l->module, l->offset, &vaddr);
		snprintf(buf, len, "%s[%" PRIx64 "]", hwp_symbolizer__module_short_name(s, l->module), vaddr);
	}
}


void hwp_loc__fields(struct hwp_symbolizer *s, const struct hwp_code_loc *l, struct hwp_loc_fields *f)
{
	struct hwp_symbol_info si;

	memset(f, 0, sizeof(*f));
	f->offset = l->offset;
	if (l->module < 0)
		return;
	f->module = hwp_symbolizer__module_name(s, l->module);
	if (lookup(s, l, &si)) {
		f->has_vaddr = true;
		f->vaddr = si.vaddr;
		f->symbol = si.symbol_raw ? si.symbol_raw : si.symbol;
		f->demangled = si.symbol_full; /* the signature: text shows perf's name */
		f->sym_offset = si.sym_offset;
		f->file = si.file;
		f->line = si.line;
	}
	/* after the lookup: a module without a recorded build-id gets its file's */
	f->build_id = hwp_symbolizer__module_build_id(s, l->module);
}

bool hwp_loc__matches(struct hwp_symbolizer *s, const struct hwp_code_loc *l, const char *dso, const char *sym)
{
	if (dso) {
		char name[512];

		hwp_loc__format_dso(s, l, name, sizeof(name));
		if (strcmp(name, dso))
			return false;
	}
	if (sym) {
		struct hwp_loc_fields f;

		hwp_loc__fields(s, l, &f);
		if (!(f.symbol && strstr(f.symbol, sym)) && !(f.demangled && strstr(f.demangled, sym)))
			return false;
	}
	return true;
}
