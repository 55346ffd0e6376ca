/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chart_out.h"
#include "cli.h"
#include "hwprof/outbuf.h"

int chart_write_svg(const char *path, struct hwp_chart *c)
{
	struct hwp_outbuf o;
	FILE *fp;
	int werr;

	if (!c)
		return cli_error("%s", hwp_errmsg());
	if (!(fp = fopen(path, "w"))) {
		hwp_chart__delete(c);
		return cli_error("%s: %s", path, strerror(errno));
	}
	if (hwp_outbuf__init(&o, fp) < 0) {
		fclose(fp);
		hwp_chart__delete(c);
		return cli_error("out of memory");
	}
	hwp_chart__render(c, &o);
	hwp_chart__delete(c);
	werr = hwp_outbuf__finish(&o);
	if (fclose(fp) && !werr)
		werr = -errno;
	return werr ? cli_error("%s: error writing: %s", path, hwp_strerror(werr)) : 0;
}
