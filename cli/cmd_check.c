/* SPDX-License-Identifier: MIT */
/* hwprof check: what this machine can record (PMUs, LBR, permissions) and why not. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "hwprof/check.h"
#include "hwprof/hwprof.h"

static const char usage[] =
	"usage: hwprof check [--json]\n"
	"\n"
	"What this machine can record, and why not: the PMUs the kernel registered\n"
	"(cpu, cpu_core/cpu_atom, ibs_op/ibs_fetch, armv8_pmuv3*, arm_spe, ...) with\n"
	"their capabilities (caps/branches = branch-stack depth, max_precise, pmu_name,\n"
	"...), perf_event_paranoid and kptr_restrict and what they block, whether this\n"
	"is a virtual machine and what the kernel said about its PMU, the CPU, and on\n"
	"Intel the LBR record format (IA32_PERF_CAPABILITIES[5:0], read from\n"
	"/dev/cpu/0/msr when readable).\n"
	"\n"
	"      --json         the same facts as one JSON object\n"
	"      --sysfs DIR    read DIR instead of /sys    (for tests: a fake tree)\n"
	"      --procfs DIR   read DIR instead of /proc   (also disables cpuid)\n"
	"      --dev DIR      read DIR instead of /dev    (DIR/kmsg, DIR/cpu/0/msr)\n"
	CLI_COMMON_HELP
	"  -h, --help         this text\n";

/* What to run here to record branches (or what works instead). */
static void text_advice(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	if (!hwp_probe_info__verdict(in, HWP_CAP_HW_PMU)->yes)
		hwp_outbuf__puts(o, "No hardware PMU here, so no branch records (-b, -j, --call-graph lbr)\n"
				    "and no hardware events. Record emulated branch stacks instead:\n"
				    "  hwprof record --emulate -- PROG ARGS\n");
	else if (!hwp_probe_info__verdict(in, HWP_CAP_BRANCH_STACK)->yes)
		hwp_outbuf__puts(o, "This PMU gives no branch records. Record emulated branch stacks instead:\n"
				    "  hwprof record --emulate -- PROG ARGS\n");
	else
		hwp_outbuf__printf(o, "Branch stacks can be recorded here:\n  hwprof record -b %s-- PROG ARGS\n",
				   hwp_probe_info__verdict(in, HWP_CAP_KERNEL)->yes ? "" : "-e cycles:u ");
	if (hwp_probe_info__verdict(in, HWP_CAP_SOFTWARE)->yes &&
	    !hwp_probe_info__verdict(in, HWP_CAP_HW_PMU)->yes)
		hwp_outbuf__puts(o, "Software events work: hwprof record -e cpu-clock -- PROG ARGS\n");
}

/* Fills OPTS and *json; nonzero (the exit status) on a bad option. */
static int check_parse_opts(int argc, char **argv, struct hwp_probe_opts *opts, bool *json)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "procfs", required_argument, NULL, 'P' },
		{ "dev", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'J':
			*json = true;
			break;
		case 'S':
			opts->sysfs_root = optarg;
			break;
		case 'P':
			opts->procfs_root = optarg;
			break;
		case 'D':
			opts->dev_root = optarg;
			break;
		case ':':
			return cli_error("check: option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_error("check: unknown option '%s'; see 'hwprof check --help'",
					 argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_error("check: unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Prints INFO as text or JSON; the exit status. */
static int check_output(const struct hwp_probe_info *info, bool json)
{
	struct hwp_json_writer *jw = NULL;
	struct hwp_outbuf out;
	int rc;

	if (hwp_outbuf__init(&out, stdout) < 0 || (json && !(jw = hwp_json_writer__new(&out))))
		return cli_error("out of memory");
	if (json) {
		hwp_json_writer__begin_object(jw);
		hwp_probe_info__json_members(jw, info);
		hwp_json_writer__kv_string(jw, "advice",
					   hwp_probe_info__verdict(info, HWP_CAP_BRANCH_STACK)->yes
						   ? "hwprof record -b -- PROG ARGS"
						   : "hwprof record --emulate -- PROG ARGS");
		hwp_json_writer__end_object(jw);
	} else {
		hwp_probe_info__text(&out, info);
		text_advice(&out, info);
	}
	rc = jw ? hwp_json_writer__finish(jw) : 0;
	hwp_json_writer__delete(jw);
	int werr = hwp_outbuf__finish(&out);
	if (rc < 0)
		return cli_error("check: %s", hwp_errmsg());
	if (werr)
		return cli_error("error writing output: %s", hwp_strerror(werr));
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct hwp_probe_opts opts = { .sz = sizeof(opts) };
	struct hwp_probe_info *info;
	bool json = false;
	int rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = check_parse_opts(argc, argv, &opts, &json);
	if (rc)
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
