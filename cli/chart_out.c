/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chart_out.h"
#include "cli.h"
#include "hwprof/report.h"

int chart_write_svg(const char *path, struct hwp_chart *c)
{
	FILE *fp;
	int err;

	if (!c)
		return cli_error("%s", hwp_errmsg());
	if (!(fp = fopen(path, "w"))) {
		err = errno;
		hwp__chart_delete(c);
		return cli_error("%s: %s", path, strerror(err));
	}
	err = hwp_report__write_svg(c, fp);
	if (fclose(fp) && !err)
		err = -errno;
	return err ? cli_error("%s: error writing: %s", path, hwp_strerror(err)) : 0;
}
