/* SPDX-License-Identifier: MIT */
/* What the report tables share. */
#include <math.h>
#include <stdint.h>

#include "report/report_internal.h"
#include "util/opts.h"

int hwp__report_add_columns(struct hwp_table *t, const struct hwp__report_column *cols, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show) < 0)
			return -1;
	return 0;
}

void hwp__report_set_real(struct hwp_table *t, size_t col, double v)
{
	if (!isnan(v))
		hwp_table__set_real(t, col, v);
}

int hwp__report_opts_load(const struct hwp_report_opts *in, struct hwp_report_opts *out)
{
	if (HWP_OPTS_LOAD(in, out, struct hwp_report_opts))
		return -1;
	if (!out->limit)
		out->limit = UINT64_MAX;
	return 0;
}
