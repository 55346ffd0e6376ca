/* SPDX-License-Identifier: MIT */
/* hwprof check: what this machine can record (PMUs, LBR, permissions) and why not. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hwprof/hwprof.h"
#include "hwprof/lbr_msr.h"
#include "hwprof/probe.h"
#include "hwprof/outbuf.h"
#include "hwprof/sample_json.h"

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

static void verdict_line(struct hwp_outbuf *o, const char *what, const struct hwp_probe_verdict *v)
{
	hwp_outbuf__printf(o, "  %-17s %-4s %s\n", what, v->yes ? "yes" : "no", v->why);
}

static const char *state_text(enum hwp_probe_state s)
{
	switch (s) {
	case HWP_PROBE_READ: return "read";
	case HWP_PROBE_ABSENT: return "absent";
	case HWP_PROBE_UNREADABLE: return "unreadable";
	case HWP_PROBE_NOT_TRIED: break;
	}
	return "not applicable";
}

static void print_int_or(struct hwp_outbuf *o, int v)
{
	if (v == HWP_PROBE_UNKNOWN)
		hwp_outbuf__puts(o, "unknown");
	else
		hwp_outbuf__printf(o, "%d", v);
}

static void print_text(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	char bits[8];

	hwp_outbuf__puts(o, "CPU\n");
	if (in->vendor == HWP_CPU_ARM)
		hwp_outbuf__printf(o, "  %s (implementer %s, part 0x%03x, variant 0x%x, revision %u)\n",
				   in->model_name, in->vendor_id, in->model, in->family, in->stepping);
	else if (in->have_fms)
		hwp_outbuf__printf(o, "  %s family %u (0x%x) model %u (0x%x) stepping %u%s%s\n",
				   in->vendor_id[0] ? in->vendor_id : "unknown vendor", in->family,
				   in->family, in->model, in->model, in->stepping,
				   in->model_name[0] ? ": " : "", in->model_name);
	else
		hwp_outbuf__puts(o, "  unknown (no /proc/cpuinfo)\n");
	hwp_outbuf__printf(o, "  arch %s; %s", in->arch[0] ? in->arch : "unknown",
			   in->hypervisor ? "virtual machine" : "no hypervisor flag (bare metal)");
	if (in->hypervisor_id[0])
		hwp_outbuf__printf(o, " (hypervisor \"%s\")", in->hypervisor_id);
	if (in->perfmon_version >= 0)
		hwp_outbuf__printf(o, "; architectural perfmon version %d", in->perfmon_version);
	hwp_outbuf__putc(o, '\n');
	if (in->kmsg == HWP_PROBE_READ)
		hwp_outbuf__printf(o, "  kernel log: \"%s\"\n", in->kmsg_line);
	else
		hwp_outbuf__printf(o, "  kernel log: %s\n", in->kmsg_err);

	hwp_outbuf__puts(o, "\nPMUs\n");
	if (in->pmus_state != HWP_PROBE_READ)
		hwp_outbuf__printf(o, "  %s\n", in->pmus_err);
	for (size_t i = 0; i < in->nr_pmus; i++) {
		const struct hwp_probe_pmu *p = &in->pmus[i];

		hwp_outbuf__printf(o, "  %-16s type %-4d %s", p->name, p->type,
				   hwp_pmu_kind__name(p->kind));
		for (size_t c = 0; c < p->nr_caps; c++)
			hwp_outbuf__printf(o, "%*s%s=%s", c ? 1 : (int)(10 - strlen(hwp_pmu_kind__name(p->kind))), "",
					   p->caps[c].name, p->caps[c].value);
		hwp_outbuf__putc(o, '\n');
	}
	if (in->nr_other_pmus > 0)
		hwp_outbuf__printf(o, "  (and %zu more uncore/other PMUs)\n", in->nr_other_pmus);
	if (!in->core_pmu[0])
		hwp_outbuf__puts(o, "  no hardware (core) PMU\n");

	hwp_outbuf__puts(o, "\nPermissions\n  perf_event_paranoid = ");
	print_int_or(o, in->paranoid);
	hwp_outbuf__printf(o, " (you: %s, %s)\n", in->privileged ? in->privilege : "unprivileged",
			   in->privileged ? "not limited by it" : "limited by it");
	for (int l = -1; l <= 3; l++) {
		bool cur = in->paranoid == l || (l == 3 && in->paranoid > 3);

		hwp_outbuf__printf(o, "  %s%3d%s  %s\n", cur ? "> " : "  ", l, l == 3 ? "+" : " ",
				   hwp_paranoid__meaning(l));
	}
	hwp_outbuf__puts(o, "  kptr_restrict = ");
	print_int_or(o, in->kptr_restrict);
	hwp_outbuf__printf(o, " (you: %s)\n", in->cap_syslog ? "root or CAP_SYSLOG" : "no CAP_SYSLOG");
	for (int l = 0; l <= 2; l++)
		hwp_outbuf__printf(o, "  %s%3d   %s\n", in->kptr_restrict == l ? "> " : "  ", l,
				   hwp_kptr_restrict__meaning(l));
	hwp_outbuf__puts(o, "  perf_event_max_sample_rate = ");
	print_int_or(o, in->max_sample_rate);
	hwp_outbuf__puts(o, in->max_sample_rate == HWP_PROBE_UNKNOWN ? ", perf_event_mlock_kb = "
								      : " Hz, perf_event_mlock_kb = ");
	print_int_or(o, in->mlock_kb);
	if (in->nmi_watchdog == 1)
		hwp_outbuf__puts(o, ", nmi_watchdog = 1 (takes one counter)");
	hwp_outbuf__putc(o, '\n');

	hwp_outbuf__puts(o, "\nIntel LBR format (IA32_PERF_CAPABILITIES, MSR 0x345)\n");
	if (in->perf_caps_state == HWP_PROBE_READ) {
		const char *name = hwp_lbr_format__name((unsigned)in->lbr_format);

		unsigned f = hwp_lbr_format__fields((unsigned)in->lbr_format);

		hwp_outbuf__printf(o, "  0x%" PRIx64 ": LBR format %s, %s\n", in->perf_capabilities,
				   hwp_lbr_format__bits((unsigned)in->lbr_format, bits),
				   name ? name : "unknown to hwprof");
		if (name)
			hwp_outbuf__printf(o, "  entries carry: from, to%s%s%s%s%s\n",
					   f & HWP_LBR_F_MISPRED ? ", mispredict" : "",
					   f & HWP_LBR_F_TSX ? ", TSX in_tx/abort" : "",
					   f & HWP_LBR_F_CYCLES ? ", cycles" : "",
					   f & HWP_LBR_F_TYPE ? ", branch type" : "",
					   f & HWP_LBR_F_INFO_MSR ? " (flags in LBR_INFO MSRs)" : "");
	} else {
		hwp_outbuf__printf(o, "  %s%s%s\n", state_text(in->perf_caps_state),
				   in->perf_caps_err[0] ? ": " : "", in->perf_caps_err);
	}
	if (in->flag_arch_lbr)
		hwp_outbuf__puts(o, "  architectural LBR (CPUID.07H:EDX[19])\n");

	hwp_outbuf__puts(o, "\nCan record\n");
	verdict_line(o, "hardware PMU", &in->hw_pmu);
	verdict_line(o, "branch stacks", &in->branch_stack);
	verdict_line(o, "LBR call stacks", &in->lbr_callstack);
	verdict_line(o, "precise samples", &in->precise);
	verdict_line(o, "perf events", &in->access);
	verdict_line(o, "kernel samples", &in->kernel);
	verdict_line(o, "kernel symbols", &in->kernel_syms);
	verdict_line(o, "software events", &in->software);
	hwp_outbuf__putc(o, '\n');

	if (!in->hw_pmu.yes)
		hwp_outbuf__puts(o, "No hardware PMU here, so no branch records (-b, -j, --call-graph lbr)\n"
				    "and no hardware events. Record emulated branch stacks instead:\n"
				    "  hwprof record --emulate -- PROG ARGS\n");
	else if (!in->branch_stack.yes)
		hwp_outbuf__puts(o, "This PMU gives no branch records. Record emulated branch stacks instead:\n"
				    "  hwprof record --emulate -- PROG ARGS\n");
	else
		hwp_outbuf__printf(o, "Branch stacks can be recorded here:\n  hwprof record -b %s-- PROG ARGS\n",
				   in->kernel.yes ? "" : "-e cycles:u ");
	if (in->software.yes && !in->hw_pmu.yes)
		hwp_outbuf__puts(o, "Software events work: hwprof record -e cpu-clock -- PROG ARGS\n");
}

static void jstr(struct hwp_outbuf *o, const char *k, const char *v)
{
	hwp_outbuf__printf(o, ",\"%s\":", k);
	if (v)
		hwp_json__string(o, v);
	else
		hwp_outbuf__puts(o, "null");
}

static void jint(struct hwp_outbuf *o, const char *k, int v)
{
	if (v == HWP_PROBE_UNKNOWN)
		hwp_outbuf__printf(o, ",\"%s\":null", k);
	else
		hwp_outbuf__printf(o, ",\"%s\":%d", k, v);
}

static void jbool(struct hwp_outbuf *o, const char *k, bool v)
{
	hwp_outbuf__printf(o, ",\"%s\":%s", k, v ? "true" : "false");
}

static void jverdict(struct hwp_outbuf *o, const char *k, const struct hwp_probe_verdict *v)
{
	hwp_outbuf__printf(o, ",\"%s\":{\"yes\":%s,\"why\":", k, v->yes ? "true" : "false");
	hwp_json__string(o, v->why);
	hwp_outbuf__putc(o, '}');
}

static void print_json(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	char bits[8];

	hwp_outbuf__puts(o, "{\"cpu\":{\"vendor\":");
	hwp_json__string(o, hwp_cpu_vendor__name(in->vendor));
	jstr(o, "vendor_id", in->vendor_id);
	if (in->have_fms)
		hwp_outbuf__printf(o, ",\"family\":%u,\"model\":%u,\"stepping\":%u", in->family,
				   in->model, in->stepping);
	jstr(o, "model_name", in->model_name);
	jstr(o, "arch", in->arch);
	jbool(o, "hypervisor", in->hypervisor);
	jstr(o, "hypervisor_id", in->hypervisor_id[0] ? in->hypervisor_id : NULL);
	jbool(o, "cpuid_used", in->cpuid_used);
	hwp_outbuf__printf(o, ",\"perfmon_version\":%d", in->perfmon_version);
	hwp_outbuf__puts(o, ",\"flags\":[");
	{
		const char *names[] = { "pdcm", "arch_lbr", "arch_perfmon", "ibs", "perfctr_core",
					"amd_lbr_v2" };
		bool vals[] = { in->flag_pdcm, in->flag_arch_lbr, in->flag_arch_perfmon, in->flag_ibs,
				in->flag_perfctr_core, in->flag_amd_lbr_v2 };
		bool first = true;

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			if (vals[i]) {
				hwp_outbuf__printf(o, "%s\"%s\"", first ? "" : ",", names[i]);
				first = false;
			}
	}
	hwp_outbuf__puts(o, "]},\"kernel_log\":{\"state\":");
	hwp_json__string(o, state_text(in->kmsg));
	jstr(o, "line", in->kmsg == HWP_PROBE_READ ? in->kmsg_line : NULL);
	jstr(o, "error", in->kmsg == HWP_PROBE_READ ? NULL : in->kmsg_err);
	hwp_outbuf__puts(o, "},\"pmus\":[");
	for (size_t i = 0; i < in->nr_pmus; i++) {
		const struct hwp_probe_pmu *p = &in->pmus[i];

		hwp_outbuf__printf(o, "%s{\"name\":", i ? "," : "");
		hwp_json__string(o, p->name);
		hwp_outbuf__printf(o, ",\"type\":%d,\"kind\":\"%s\",\"branches\":%d,\"max_precise\":%d",
				   p->type, hwp_pmu_kind__name(p->kind), p->branches, p->max_precise);
		jstr(o, "pmu_name", p->pmu_name[0] ? p->pmu_name : NULL);
		hwp_outbuf__puts(o, ",\"caps\":{");
		for (size_t c = 0; c < p->nr_caps; c++) {
			if (c)
				hwp_outbuf__putc(o, ',');
			hwp_json__string(o, p->caps[c].name);
			hwp_outbuf__putc(o, ':');
			hwp_json__string(o, p->caps[c].value);
		}
		hwp_outbuf__puts(o, "}}");
	}
	hwp_outbuf__printf(o, "],\"other_pmus\":%zu", in->nr_other_pmus);
	jstr(o, "pmus_error", in->pmus_state == HWP_PROBE_READ ? NULL : in->pmus_err);
	hwp_outbuf__printf(o, ",\"permissions\":{\"privileged\":%s", in->privileged ? "true" : "false");
	jstr(o, "privilege", in->privilege[0] ? in->privilege : NULL);
	jint(o, "perf_event_paranoid", in->paranoid);
	jstr(o, "paranoid_meaning", hwp_paranoid__meaning(in->paranoid));
	hwp_outbuf__puts(o, ",\"paranoid_levels\":{");
	for (int l = -1; l <= 3; l++) {
		hwp_outbuf__printf(o, "%s\"%d%s\":", l > -1 ? "," : "", l, l == 3 ? "+" : "");
		hwp_json__string(o, hwp_paranoid__meaning(l));
	}
	hwp_outbuf__putc(o, '}');
	jint(o, "kptr_restrict", in->kptr_restrict);
	jstr(o, "kptr_restrict_meaning", hwp_kptr_restrict__meaning(in->kptr_restrict));
	jint(o, "perf_event_max_sample_rate", in->max_sample_rate);
	jint(o, "perf_event_mlock_kb", in->mlock_kb);
	jint(o, "nmi_watchdog", in->nmi_watchdog);
	hwp_outbuf__puts(o, "},\"perf_capabilities\":{\"state\":");
	hwp_json__string(o, state_text(in->perf_caps_state));
	if (in->perf_caps_state == HWP_PROBE_READ) {
		const char *name = hwp_lbr_format__name((unsigned)in->lbr_format);

		hwp_outbuf__printf(o, ",\"value\":\"0x%" PRIx64 "\",\"lbr_format\":%d", in->perf_capabilities,
				   in->lbr_format);
		jstr(o, "lbr_format_bits", hwp_lbr_format__bits((unsigned)in->lbr_format, bits));
		jstr(o, "lbr_format_name", name);
	} else {
		jstr(o, "error", in->perf_caps_err);
	}
	hwp_outbuf__puts(o, "},\"can\":{\"branch_depth\":");
	hwp_outbuf__printf(o, "%d", in->branch_depth);
	jstr(o, "core_pmu", in->core_pmu[0] ? in->core_pmu : NULL);
	jverdict(o, "hardware_pmu", &in->hw_pmu);
	jverdict(o, "branch_stacks", &in->branch_stack);
	jverdict(o, "lbr_call_stacks", &in->lbr_callstack);
	jverdict(o, "precise_samples", &in->precise);
	jverdict(o, "perf_events", &in->access);
	jverdict(o, "kernel_samples", &in->kernel);
	jverdict(o, "kernel_symbols", &in->kernel_syms);
	jverdict(o, "software_events", &in->software);
	hwp_outbuf__puts(o, "},\"advice\":");
	hwp_json__string(o, in->branch_stack.yes ? "hwprof record -b -- PROG ARGS"
						 : "hwprof record --emulate -- PROG ARGS");
	hwp_outbuf__puts(o, "}\n");
}

int cmd_check(int argc, char **argv)
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
	struct hwp_probe_opts opts = { .sz = sizeof(opts) };
	bool json = false;
	int c, rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'J':
			json = true;
			break;
		case 'S':
			opts.sysfs_root = optarg;
			break;
		case 'P':
			opts.procfs_root = optarg;
			break;
		case 'D':
			opts.dev_root = optarg;
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

	struct hwp_probe_info *info = calloc(1, sizeof(*info));
	if (!info)
		return cli_error("out of memory");
	if ((rc = hwp_probe__run(&opts, info)) < 0) {
		free(info);
		return cli_error("check: %s", hwp_errmsg());
	}
	struct hwp_outbuf out;
	if (hwp_outbuf__init(&out, stdout) < 0) {
		free(info);
		return cli_error("out of memory");
	}
	if (json)
		print_json(&out, info);
	else
		print_text(&out, info);
	free(info);
	int werr = hwp_outbuf__finish(&out);
	if (werr)
		return cli_error("error writing output: %s", hwp_strerror(werr));
	return 0;
}
