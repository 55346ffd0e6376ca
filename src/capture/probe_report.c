/* SPDX-License-Identifier: MIT */
/*
 * hwprof check's report of what hwp_probe__run() found: text sections and
 * the JSON object's members (the one place their names are defined).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/check.h"
#include "hwprof/lbr_msr.h"

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

static void text_cpu(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const struct hwp_probe_cpu *cpu = hwp_probe_info__cpu(in);
	const struct hwp_probe_kmsg *km = hwp_probe_info__kmsg(in);

	hwp_outbuf__puts(o, "CPU\n");
	if (cpu->vendor == HWP_CPU_ARM)
		hwp_outbuf__printf(o, "  %s (implementer %s, part 0x%03x, variant 0x%x, revision %u)\n",
				   cpu->model_name, cpu->vendor_id, cpu->model, cpu->family, cpu->stepping);
	else if (cpu->have_fms)
		hwp_outbuf__printf(o, "  %s family %u (0x%x) model %u (0x%x) stepping %u%s%s\n",
				   cpu->vendor_id[0] ? cpu->vendor_id : "unknown vendor", cpu->family,
				   cpu->family, cpu->model, cpu->model, cpu->stepping,
				   cpu->model_name[0] ? ": " : "", cpu->model_name);
	else
		hwp_outbuf__puts(o, "  unknown (no /proc/cpuinfo)\n");
	hwp_outbuf__printf(o, "  arch %s; %s", cpu->arch[0] ? cpu->arch : "unknown",
			   cpu->hypervisor ? "virtual machine" : "no hypervisor flag (bare metal)");
	if (cpu->hypervisor_id[0])
		hwp_outbuf__printf(o, " (hypervisor \"%s\")", cpu->hypervisor_id);
	if (cpu->perfmon_version >= 0)
		hwp_outbuf__printf(o, "; architectural perfmon version %d", cpu->perfmon_version);
	hwp_outbuf__putc(o, '\n');
	if (km->state == HWP_PROBE_READ)
		hwp_outbuf__printf(o, "  kernel log: \"%s\"\n", km->line);
	else
		hwp_outbuf__printf(o, "  kernel log: %s\n", km->err);
}

static void text_pmus(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const char *pmus_err;

	hwp_outbuf__puts(o, "\nPMUs\n");
	if (hwp_probe_info__pmus_state(in, &pmus_err) != HWP_PROBE_READ)
		hwp_outbuf__printf(o, "  %s\n", pmus_err);
	for (size_t i = 0; i < hwp_probe_info__nr_pmus(in); i++) {
		const struct hwp_probe_pmu *p = hwp_probe_info__pmu(in, i);

		hwp_outbuf__printf(o, "  %-16s type %-4d %s", p->name, p->type,
				   hwp_pmu_kind__name(p->kind));
		for (size_t c = 0; c < p->nr_caps; c++)
			hwp_outbuf__printf(o, "%*s%s=%s", c ? 1 : (int)(10 - strlen(hwp_pmu_kind__name(p->kind))), "",
					   p->caps[c].name, p->caps[c].value);
		hwp_outbuf__putc(o, '\n');
	}
	if (hwp_probe_info__nr_other_pmus(in) > 0)
		hwp_outbuf__printf(o, "  (and %zu more uncore/other PMUs)\n", hwp_probe_info__nr_other_pmus(in));
	if (!hwp_probe_info__core_pmu(in)[0])
		hwp_outbuf__puts(o, "  no hardware (core) PMU\n");
}

/* The sysctls that limit perf events, each level with what it means. */
static void text_perms(struct hwp_outbuf *o, const struct hwp_probe_perms *perms)
{
	hwp_outbuf__puts(o, "\nPermissions\n  perf_event_paranoid = ");
	print_int_or(o, perms->paranoid);
	hwp_outbuf__printf(o, " (you: %s, %s)\n", perms->privileged ? perms->privilege : "unprivileged",
			   perms->privileged ? "not limited by it" : "limited by it");
	for (int l = -1; l <= 3; l++) {
		bool cur = perms->paranoid == l || (l == 3 && perms->paranoid > 3);

		hwp_outbuf__printf(o, "  %s%3d%s  %s\n", cur ? "> " : "  ", l, l == 3 ? "+" : " ",
				   hwp_paranoid__meaning(l));
	}
	hwp_outbuf__puts(o, "  kptr_restrict = ");
	print_int_or(o, perms->kptr_restrict);
	hwp_outbuf__printf(o, " (you: %s)\n", perms->cap_syslog ? "root or CAP_SYSLOG" : "no CAP_SYSLOG");
	for (int l = 0; l <= 2; l++)
		hwp_outbuf__printf(o, "  %s%3d   %s\n", perms->kptr_restrict == l ? "> " : "  ", l,
				   hwp_kptr_restrict__meaning(l));
	hwp_outbuf__puts(o, "  perf_event_max_sample_rate = ");
	print_int_or(o, perms->max_sample_rate);
	hwp_outbuf__puts(o, perms->max_sample_rate == HWP_PROBE_UNKNOWN ? ", perf_event_mlock_kb = "
								      : " Hz, perf_event_mlock_kb = ");
	print_int_or(o, perms->mlock_kb);
	if (perms->nmi_watchdog == 1)
		hwp_outbuf__puts(o, ", nmi_watchdog = 1 (takes one counter)");
	hwp_outbuf__putc(o, '\n');
}

static void text_lbr_format(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const struct hwp_probe_perf_caps *pc = hwp_probe_info__perf_caps(in);
	char bits[8];

	hwp_outbuf__puts(o, "\nIntel LBR format (IA32_PERF_CAPABILITIES, MSR 0x345)\n");
	if (pc->state == HWP_PROBE_READ) {
		const char *name = hwp_lbr_format__name((unsigned)pc->lbr_format);

		unsigned f = hwp_lbr_format__fields((unsigned)pc->lbr_format);

		hwp_outbuf__printf(o, "  0x%" PRIx64 ": LBR format %s, %s\n", pc->value,
				   hwp_lbr_format__bits((unsigned)pc->lbr_format, bits),
				   name ? name : "unknown to hwprof");
		if (name)
			hwp_outbuf__printf(o, "  entries carry: from, to%s%s%s%s%s\n",
					   f & HWP_LBR_F_MISPRED ? ", mispredict" : "",
					   f & HWP_LBR_F_TSX ? ", TSX in_tx/abort" : "",
					   f & HWP_LBR_F_CYCLES ? ", cycles" : "",
					   f & HWP_LBR_F_TYPE ? ", branch type" : "",
					   f & HWP_LBR_F_INFO_MSR ? " (flags in LBR_INFO MSRs)" : "");
	} else {
		hwp_outbuf__printf(o, "  %s%s%s\n", state_text(pc->state),
				   pc->err[0] ? ": " : "", pc->err);
	}
	if (hwp_probe_info__cpu(in)->flag_arch_lbr)
		hwp_outbuf__puts(o, "  architectural LBR (CPUID.07H:EDX[19])\n");
}

static void text_verdicts(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	hwp_outbuf__puts(o, "\nCan record\n");
	verdict_line(o, "hardware PMU", hwp_probe_info__verdict(in, HWP_CAP_HW_PMU));
	verdict_line(o, "branch stacks", hwp_probe_info__verdict(in, HWP_CAP_BRANCH_STACK));
	verdict_line(o, "LBR call stacks", hwp_probe_info__verdict(in, HWP_CAP_LBR_CALLSTACK));
	verdict_line(o, "precise samples", hwp_probe_info__verdict(in, HWP_CAP_PRECISE));
	verdict_line(o, "perf events", hwp_probe_info__verdict(in, HWP_CAP_ACCESS));
	verdict_line(o, "kernel samples", hwp_probe_info__verdict(in, HWP_CAP_KERNEL));
	verdict_line(o, "kernel symbols", hwp_probe_info__verdict(in, HWP_CAP_KERNEL_SYMS));
	verdict_line(o, "software events", hwp_probe_info__verdict(in, HWP_CAP_SOFTWARE));
	hwp_outbuf__putc(o, '\n');
}

void hwp_probe_info__text(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	text_cpu(o, in);
	text_pmus(o, in);
	text_perms(o, hwp_probe_info__perms(in));
	text_lbr_format(o, in);
	text_verdicts(o, in);
}

/* INT, or null when it could not be read. */
static void kv_int(struct hwp_json_writer *j, const char *k, int v)
{
	hwp_json_writer__key(j, k);
	if (v == HWP_PROBE_UNKNOWN)
		hwp_json_writer__null(j);
	else
		hwp_json_writer__i64(j, v);
}

/* S, or null when empty. */
static void kv_str_or_null(struct hwp_json_writer *j, const char *k, const char *s)
{
	hwp_json_writer__kv_string(j, k, s && s[0] ? s : NULL);
}

static void kv_verdict(struct hwp_json_writer *j, const char *k, const struct hwp_probe_verdict *v)
{
	hwp_json_writer__key(j, k);
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_bool(j, "yes", v->yes);
	hwp_json_writer__kv_string(j, "why", v->why);
	hwp_json_writer__end_object(j);
}

static void json_cpu(struct hwp_json_writer *j, const struct hwp_probe_cpu *cpu)
{
	const char *names[] = { "pdcm", "arch_lbr", "arch_perfmon", "ibs", "perfctr_core",
				"amd_lbr_v2" };
	bool vals[] = { cpu->flag_pdcm, cpu->flag_arch_lbr, cpu->flag_arch_perfmon, cpu->flag_ibs,
			cpu->flag_perfctr_core, cpu->flag_amd_lbr_v2 };

	hwp_json_writer__key(j, "cpu");
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_string(j, "vendor", hwp_cpu_vendor__name(cpu->vendor));
	hwp_json_writer__kv_string(j, "vendor_id", cpu->vendor_id);
	if (cpu->have_fms) {
		hwp_json_writer__kv_u64(j, "family", cpu->family);
		hwp_json_writer__kv_u64(j, "model", cpu->model);
		hwp_json_writer__kv_u64(j, "stepping", cpu->stepping);
	}
	hwp_json_writer__kv_string(j, "model_name", cpu->model_name);
	hwp_json_writer__kv_string(j, "arch", cpu->arch);
	hwp_json_writer__kv_bool(j, "hypervisor", cpu->hypervisor);
	kv_str_or_null(j, "hypervisor_id", cpu->hypervisor_id);
	hwp_json_writer__kv_bool(j, "cpuid_used", cpu->cpuid_used);
	hwp_json_writer__kv_i64(j, "perfmon_version", cpu->perfmon_version);
	hwp_json_writer__key(j, "flags");
	hwp_json_writer__begin_array(j);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i])
			hwp_json_writer__string(j, names[i]);
	hwp_json_writer__end_array(j);
	hwp_json_writer__end_object(j);
}

static void json_pmus(struct hwp_json_writer *j, const struct hwp_probe_info *in)
{
	const char *err;

	hwp_json_writer__key(j, "pmus");
	hwp_json_writer__begin_array(j);
	for (size_t i = 0; i < hwp_probe_info__nr_pmus(in); i++) {
		const struct hwp_probe_pmu *p = hwp_probe_info__pmu(in, i);

		hwp_json_writer__begin_object(j);
		hwp_json_writer__kv_string(j, "name", p->name);
		hwp_json_writer__kv_i64(j, "type", p->type);
		hwp_json_writer__kv_string(j, "kind", hwp_pmu_kind__name(p->kind));
		hwp_json_writer__kv_i64(j, "branches", p->branches);
		hwp_json_writer__kv_i64(j, "max_precise", p->max_precise);
		kv_str_or_null(j, "pmu_name", p->pmu_name);
		hwp_json_writer__key(j, "caps");
		hwp_json_writer__begin_object(j);
		for (size_t c = 0; c < p->nr_caps; c++)
			hwp_json_writer__kv_string(j, p->caps[c].name, p->caps[c].value);
		hwp_json_writer__end_object(j);
		hwp_json_writer__end_object(j);
	}
	hwp_json_writer__end_array(j);
	hwp_json_writer__kv_u64(j, "other_pmus", hwp_probe_info__nr_other_pmus(in));
	hwp_json_writer__kv_string(j, "pmus_error",
				   hwp_probe_info__pmus_state(in, &err) == HWP_PROBE_READ ? NULL : err);
}

static void json_perms(struct hwp_json_writer *j, const struct hwp_probe_perms *pm)
{
	char level[16];

	hwp_json_writer__key(j, "permissions");
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_bool(j, "privileged", pm->privileged);
	kv_str_or_null(j, "privilege", pm->privilege);
	kv_int(j, "perf_event_paranoid", pm->paranoid);
	hwp_json_writer__kv_string(j, "paranoid_meaning", hwp_paranoid__meaning(pm->paranoid));
	hwp_json_writer__key(j, "paranoid_levels");
	hwp_json_writer__begin_object(j);
	for (int l = -1; l <= 3; l++) {
		snprintf(level, sizeof(level), "%d%s", l, l == 3 ? "+" : "");
		hwp_json_writer__kv_string(j, level, hwp_paranoid__meaning(l));
	}
	hwp_json_writer__end_object(j);
	kv_int(j, "kptr_restrict", pm->kptr_restrict);
	hwp_json_writer__kv_string(j, "kptr_restrict_meaning",
				   hwp_kptr_restrict__meaning(pm->kptr_restrict));
	kv_int(j, "perf_event_max_sample_rate", pm->max_sample_rate);
	kv_int(j, "perf_event_mlock_kb", pm->mlock_kb);
	kv_int(j, "nmi_watchdog", pm->nmi_watchdog);
	hwp_json_writer__end_object(j);
}

static void json_perf_caps(struct hwp_json_writer *j, const struct hwp_probe_perf_caps *pc)
{
	char bits[8];

	hwp_json_writer__key(j, "perf_capabilities");
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_string(j, "state", state_text(pc->state));
	if (pc->state == HWP_PROBE_READ) {
		hwp_json_writer__kv_hex(j, "value", pc->value);
		hwp_json_writer__kv_i64(j, "lbr_format", pc->lbr_format);
		hwp_json_writer__kv_string(j, "lbr_format_bits",
					   hwp_lbr_format__bits((unsigned)pc->lbr_format, bits));
		hwp_json_writer__kv_string(j, "lbr_format_name",
					   hwp_lbr_format__name((unsigned)pc->lbr_format));
	} else {
		hwp_json_writer__kv_string(j, "error", pc->err);
	}
	hwp_json_writer__end_object(j);
}

void hwp_probe_info__json_members(struct hwp_json_writer *j, const struct hwp_probe_info *in)
{
	static const struct {
		const char *key;
		enum hwp_capability cap;
	} verdicts[] = {
		{ "hardware_pmu", HWP_CAP_HW_PMU },      { "branch_stacks", HWP_CAP_BRANCH_STACK },
		{ "lbr_call_stacks", HWP_CAP_LBR_CALLSTACK }, { "precise_samples", HWP_CAP_PRECISE },
		{ "perf_events", HWP_CAP_ACCESS },       { "kernel_samples", HWP_CAP_KERNEL },
		{ "kernel_symbols", HWP_CAP_KERNEL_SYMS }, { "software_events", HWP_CAP_SOFTWARE },
	};
	const struct hwp_probe_kmsg *km = hwp_probe_info__kmsg(in);

	json_cpu(j, hwp_probe_info__cpu(in));
	hwp_json_writer__key(j, "kernel_log");
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_string(j, "state", state_text(km->state));
	hwp_json_writer__kv_string(j, "line", km->state == HWP_PROBE_READ ? km->line : NULL);
	hwp_json_writer__kv_string(j, "error", km->state == HWP_PROBE_READ ? NULL : km->err);
	hwp_json_writer__end_object(j);
	json_pmus(j, in);
	json_perms(j, hwp_probe_info__perms(in));
	json_perf_caps(j, hwp_probe_info__perf_caps(in));
	hwp_json_writer__key(j, "can");
	hwp_json_writer__begin_object(j);
	hwp_json_writer__kv_i64(j, "branch_depth", hwp_probe_info__branch_depth(in));
	kv_str_or_null(j, "core_pmu", hwp_probe_info__core_pmu(in));
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++)
		kv_verdict(j, verdicts[i].key, hwp_probe_info__verdict(in, verdicts[i].cap));
	hwp_json_writer__end_object(j);
}

