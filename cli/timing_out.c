/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "hwprof/report.h"
#include "timing_out.h"
#include "hwprof/chart.h"
#include "hwprof/outbuf.h"

int timing_write_svg(const char *path, const char *title, const struct hwp_timing_dist *d,
		     enum hwp_cycles_source src, const char *what)
{
	struct hwp_chart *c = hwp_report__timing_chart(title, d, src, what);

	if (!c)
		return cli_error("%s", hwp_errmsg());
	FILE *fp = fopen(path, "w");
	if (!fp) {
		hwp_chart__delete(c);
		return cli_error("%s: %s", path, strerror(errno));
	}
	struct hwp_outbuf o;
	if (hwp_outbuf__init(&o, fp) < 0) {
		fclose(fp);
		hwp_chart__delete(c);
		return cli_error("out of memory");
	}
	hwp_chart__render(c, &o);
	hwp_chart__delete(c);
	int werr = hwp_outbuf__finish(&o);
	if (fclose(fp) && !werr)
		werr = -errno;
	if (werr)
		return cli_error("%s: error writing: %s", path, hwp_strerror(werr));
	return 0;
}
