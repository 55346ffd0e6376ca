/* SPDX-License-Identifier: MIT */
/* The location columns every report table shares. */
#include "hwprof/branch_report.h"
#include "hwprof/report.h"

/* Column keys live as long as the table: static strings per prefix. */
static const char *const names[9][HWP_REPORT_LOC_COLUMNS] = {
	[HWP_LOC_NONE] = { "module", "build_id", "offset", "vaddr", "symbol", "demangled", "sym_offset",
		       "file", "line" },
	[HWP_LOC_FROM] = { "from_module", "from_build_id", "from_offset", "from_vaddr", "from_symbol",
		       "from_demangled", "from_sym_offset", "from_file", "from_line" },
	[HWP_LOC_TO] = { "to_module", "to_build_id", "to_offset", "to_vaddr", "to_symbol", "to_demangled",
		     "to_sym_offset", "to_file", "to_line" },
	[HWP_LOC_TARGET] = { "target_module", "target_build_id", "target_offset", "target_vaddr",
			 "target_symbol", "target_demangled", "target_sym_offset", "target_file",
			 "target_line" },
	[HWP_LOC_START] = { "start_module", "start_build_id", "start_offset", "start_vaddr", "start_symbol",
			"start_demangled", "start_sym_offset", "start_file", "start_line" },
	[HWP_LOC_END] = { "end_module", "end_build_id", "end_offset", "end_vaddr", "end_symbol",
		      "end_demangled", "end_sym_offset", "end_file", "end_line" },
	[HWP_LOC_BEFORE] = { "before_module", "before_build_id", "before_offset", "before_vaddr", "before_symbol",
			 "before_demangled", "before_sym_offset", "before_file", "before_line" },
	[HWP_LOC_SECOND] = { "second_module", "second_build_id", "second_offset", "second_vaddr", "second_symbol",
			 "second_demangled", "second_sym_offset", "second_file", "second_line" },
	[HWP_LOC_AFTER] = { "after_module", "after_build_id", "after_offset", "after_vaddr", "after_symbol",
			"after_demangled", "after_sym_offset", "after_file", "after_line" },
};

static const enum hwp_col_kind kinds[HWP_REPORT_LOC_COLUMNS] = {
	HWP_COL_TEXT, HWP_COL_TEXT, HWP_COL_HEX, HWP_COL_HEX, HWP_COL_TEXT,
	HWP_COL_TEXT, HWP_COL_COUNT, HWP_COL_TEXT, HWP_COL_COUNT,
};

size_t hwp_report__add_loc_columns(struct hwp_table *t, enum hwp_loc_prefix p)
{
	size_t first = hwp_table__columns(t);

	for (size_t i = 0; i < HWP_REPORT_LOC_COLUMNS; i++)
		hwp_table__add_column_shown(t, names[p][i], names[p][i], kinds[i], HWP_SHOW_DATA);
	return first;
}

/* Unknown parts stay unset: null in JSON, empty in CSV. */
void hwp_report__set_loc(struct hwp_table *t, size_t first, struct hwp_symbolizer *s,
			const struct hwp_code_loc *l)
{
	struct hwp_loc_fields f;

	hwp_loc__fields(s, l, &f);
	hwp_table__set_text(t, first, f.module);
	hwp_table__set_text(t, first + 1, f.build_id);
	hwp_table__set_count(t, first + 2, f.offset);
	if (f.has_vaddr)
		hwp_table__set_count(t, first + 3, f.vaddr);
	hwp_table__set_text(t, first + 4, f.symbol);
	hwp_table__set_text(t, first + 5, f.demangled);
	if (f.symbol)
		hwp_table__set_count(t, first + 6, f.sym_offset);
	hwp_table__set_text(t, first + 7, f.file);
	if (f.line)
		hwp_table__set_count(t, first + 8, f.line);
}
