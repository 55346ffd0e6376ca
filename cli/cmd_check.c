/* SPDX-License-Identifier: MIT */
/* hwprof check: what this machine can record (PMUs, LBR, permissions) and why not. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "parse_options.h"
#include "hwprof/check.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "check",
};

/* What to run here to record branches (or what works instead), in BUF. */
static const char *text_advice(const struct hwp_probe_info *in, char *buf, size_t len)
{
	if (!hwp_probe_info__verdict(in, HWP_CAP_HW_PMU)->yes)
		snprintf(buf, len, "No hardware PMU here, so no branch records (-b, -j, --call-graph lbr)\n"
				   "and no hardware events. Record emulated branch stacks instead:\n"
				   "  hwprof record --emulate -- PROG ARGS\n");
	else if (!hwp_probe_info__verdict(in, HWP_CAP_BRANCH_STACK)->yes)
		snprintf(buf, len, "This PMU gives no branch records. Record emulated branch stacks instead:\n"
				   "  hwprof record --emulate -- PROG ARGS\n");
	else
		snprintf(buf, len, "Branch stacks can be recorded here:\n  hwprof record -b %s-- PROG ARGS\n",
			 hwp_probe_info__verdict(in, HWP_CAP_KERNEL)->yes ? "" : "-e cycles:u ");
	if (hwp_probe_info__verdict(in, HWP_CAP_SOFTWARE)->yes && !hwp_probe_info__verdict(in, HWP_CAP_HW_PMU)->yes)
		snprintf(buf + strlen(buf), len - strlen(buf), "Software events work: hwprof record -e cpu-clock -- "
							       "PROG ARGS\n");
	return buf;
}

/* Fills OPTS and *json; -1 to go on, else the exit status. */
static int check_parse_opts(int argc, char **argv, struct hwp_probe_opts *opts, bool *json)
{
	const struct opt table[] = {
		OPT_BOOL(0, "json", json, "the same facts as one JSON object"),
		OPT_STRING(0, "sysfs", &opts->sysfs_root, "DIR", "read DIR instead of /sys (for tests: a fake tree)"),
		OPT_STRING(0, "procfs", &opts->procfs_root, "DIR", "read DIR instead of /proc (also disables cpuid)"),
		OPT_STRING(0, "dev", &opts->dev_root, "DIR", "read DIR instead of /dev (DIR/kmsg, DIR/cpu/0/msr)"),
		OPT_COMMON(),
		OPT_END(),
	};

	return parse_options(argc, argv, &desc, table, NULL);
}

/* Prints INFO as text or JSON, with what to run here; the exit status. */
static int check_output(const struct hwp_probe_info *info, bool json)
{
	char advice[512];
	const char *run = hwp_probe_info__verdict(info, HWP_CAP_BRANCH_STACK)->yes ? "hwprof record -b -- PROG ARGS"
										 : "hwprof record --emulate -- PROG ARGS";

	if (hwp_probe_info__write(info, json ? HWP_TABLE_JSON : HWP_TABLE_TEXT, text_advice(info, advice, sizeof(advice)),
				  run, stdout) < 0)
		return cli_error("check: %s", hwp_errmsg());
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct hwp_probe_opts opts = { .sz = sizeof(opts) };
	struct hwp_probe_info *info;
	bool json = false;
	int rc;

	rc = check_parse_opts(argc, argv, &opts, &json);
	if (rc >= 0)
		return rc;
	info = hwp_probe_info__new();
	if (!info)
		return cli_error("check: %s", hwp_errmsg());
	if (hwp_probe__run(&opts, info) < 0)
		rc = cli_error("check: %s", hwp_errmsg());
	else
		rc = check_output(info, json);
	hwp_probe_info__delete(info);
	return rc;
}
