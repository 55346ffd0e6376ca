/* SPDX-License-Identifier: MIT */
/* What the report tables share. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "output/outbuf.h"
#include "output/render.h"
#include "output/chart.h"
#include "output/outbuf.h"
#include "report/report_internal.h"
#include "util/error.h"
#include "util/error.h"
#include "util/opts.h"

/* A report column's unit, from its key: the JSON members name their unit
   as a suffix (taken_percent, median_cycles, size_bytes ...). */
static const char *unit_of(const char *key, enum hwp_col_kind kind)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "percent", "%" }, { "cycles", "cycles" }, { "bytes", "bytes" }, { "size", "bytes" },
		{ "_ns", "ns" },    { "ipc", "instructions/cycle" },
	};
	size_t n = strlen(key);

	if (kind == HWP_COL_PERCENT)
		return "%";
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t m = strlen(units[i].suffix);

		if (n >= m && !strcmp(key + n - m, units[i].suffix))
			return units[i].unit;
	}
	return NULL;
}

int hwp__report_add_columns(struct hwp_table *t, const struct hwp__report_column *cols, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t col = hwp_table__columns(t);

		if (hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show) < 0 ||
		    hwp_table__set_unit(t, col, unit_of(cols[k].key, cols[k].kind)) < 0)
			return -1;
	}
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

int hwp__report_print(const struct hwp_table *t, enum hwp_table_format fmt, FILE *out)
{
	struct hwp_outbuf o;
	int err;

	fflush(out); /* the outbuf writes to the descriptor: after what stdio holds */
	if (hwp__outbuf_init(&o, out) < 0)
		return hwp__set_error(ENOMEM, "out of memory");
	hwp__table_render(t, fmt, &o);
	if ((err = hwp__outbuf_finish(&o)))
		return hwp__set_error(-err, "error writing output: %s", hwp_strerror(err));
	return 0;
}

int hwp_report__write_svg(struct hwp_chart *c, FILE *fp)
{
	struct hwp_outbuf o;

	if (!c)
		return -EINVAL;
	if (hwp__outbuf_init(&o, fp) < 0) {
		hwp__chart_delete(c);
		return hwp__set_error(ENOMEM, "chart: out of memory");
	}
	hwp__chart_render(c, &o);
	hwp__chart_delete(c);
	int werr = hwp__outbuf_finish(&o);
	return werr ? hwp__set_error(-werr, "error writing: %s", hwp_strerror(werr)) : 0;
}
