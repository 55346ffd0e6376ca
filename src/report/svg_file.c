/* SPDX-License-Identifier: MIT */
/* hwp_report__write_svg_file(): a report's chart as an SVG file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/report.h"
#include "output/chart.h"
#include "util/error.h"

int hwp_report__write_svg_file(struct hwp_chart *c, const char *path)
{
	FILE *fp;
	int err;

	if (!c)
		return -EINVAL; /* hwp_errmsg() still says why it was not made */
	if (!(fp = fopen(path, "w"))) {
		err = errno;
		hwp__chart_delete(c);
		return hwp__set_error(err, "%s: %s", path, strerror(err));
	}
	err = hwp_report__write_svg(c, fp);
	if (fclose(fp) && !err)
		err = -errno;
	return err ? hwp__set_error(-err, "%s: error writing: %s", path, hwp_strerror(err)) : 0;
}
