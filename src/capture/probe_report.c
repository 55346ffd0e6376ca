/* SPDX-License-Identifier: MIT */
/*
 * hwprof check's report of what hwp_probe__run() found: text sections and
 * the JSON object's members (the one place their names are defined).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/check.h"
#include "hwprof/lbr_msr.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "util/error.h"

static void verdict_line(struct hwp_outbuf *o, const char *what, const struct hwp_probe_verdict *v)
{
	hwp__outbuf_printf(o, "  %-17s %-4s %s\n", what, v->yes ? "yes" : "no", v->why);
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
		hwp__outbuf_puts(o, "unknown");
	else
		hwp__outbuf_printf(o, "%d", v);
}

static void text_cpu(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const struct hwp_probe_cpu *cpu = hwp_probe_info__cpu(in);
	const struct hwp_probe_kmsg *km = hwp_probe_info__kmsg(in);

	hwp__outbuf_puts(o, "CPU\n");
	if (cpu->vendor == HWP_CPU_ARM)
		hwp__outbuf_printf(o, "  %s (implementer %s, part 0x%03x, variant 0x%x, revision %u)\n",
				   cpu->model_name, cpu->vendor_id, cpu->model, cpu->family, cpu->stepping);
	else if (cpu->have_fms)
		hwp__outbuf_printf(o, "  %s family %u (0x%x) model %u (0x%x) stepping %u%s%s\n",
				   cpu->vendor_id[0] ? cpu->vendor_id : "unknown vendor", cpu->family,
				   cpu->family, cpu->model, cpu->model, cpu->stepping,
				   cpu->model_name[0] ? ": " : "", cpu->model_name);
	else
		hwp__outbuf_puts(o, "  unknown (no /proc/cpuinfo)\n");
	hwp__outbuf_printf(o, "  arch %s; %s", cpu->arch[0] ? cpu->arch : "unknown",
			   cpu->hypervisor ? "virtual machine" : "no hypervisor flag (bare metal)");
	if (cpu->hypervisor_id[0])
		hwp__outbuf_printf(o, " (hypervisor \"%s\")", cpu->hypervisor_id);
	if (cpu->perfmon_version >= 0)
		hwp__outbuf_printf(o, "; architectural perfmon version %d", cpu->perfmon_version);
	hwp__outbuf_putc(o, '\n');
	if (km->state == HWP_PROBE_READ)
		hwp__outbuf_printf(o, "  kernel log: \"%s\"\n", km->line);
	else
		hwp__outbuf_printf(o, "  kernel log: %s\n", km->err);
}

static void text_pmus(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const char *pmus_err;

	hwp__outbuf_puts(o, "\nPMUs\n");
	if (hwp_probe_info__pmus_state(in, &pmus_err) != HWP_PROBE_READ)
		hwp__outbuf_printf(o, "  %s\n", pmus_err);
	for (size_t i = 0; i < hwp_probe_info__nr_pmus(in); i++) {
		const struct hwp_probe_pmu *p = hwp_probe_info__pmu(in, i);

		hwp__outbuf_printf(o, "  %-16s type %-4d %s", p->name, p->type,
				   hwp_pmu_kind__name(p->kind));
		for (size_t c = 0; c < p->nr_caps; c++)
			hwp__outbuf_printf(o, "%*s%s=%s", c ? 1 : (int)(10 - strlen(hwp_pmu_kind__name(p->kind))), "",
					   p->caps[c].name, p->caps[c].value);
		hwp__outbuf_putc(o, '\n');
	}
	if (hwp_probe_info__nr_other_pmus(in) > 0)
		hwp__outbuf_printf(o, "  (and %zu more uncore/other PMUs)\n", hwp_probe_info__nr_other_pmus(in));
	if (!hwp_probe_info__core_pmu(in)[0])
		hwp__outbuf_puts(o, "  no hardware (core) PMU\n");
}

/* The sysctls that limit perf events, each level with what it means. */
static void text_perms(struct hwp_outbuf *o, const struct hwp_probe_perms *perms)
{
	hwp__outbuf_puts(o, "\nPermissions\n  perf_event_paranoid = ");
	print_int_or(o, perms->paranoid);
	hwp__outbuf_printf(o, " (you: %s, %s)\n", perms->privileged ? perms->privilege : "unprivileged",
			   perms->privileged ? "not limited by it" : "limited by it");
	for (int l = -1; l <= 3; l++) {
		bool cur = perms->paranoid == l || (l == 3 && perms->paranoid > 3);

		hwp__outbuf_printf(o, "  %s%3d%s  %s\n", cur ? "> " : "  ", l, l == 3 ? "+" : " ",
				   hwp_paranoid__meaning(l));
	}
	hwp__outbuf_puts(o, "  kptr_restrict = ");
	print_int_or(o, perms->kptr_restrict);
	hwp__outbuf_printf(o, " (you: %s)\n", perms->cap_syslog ? "root or CAP_SYSLOG" : "no CAP_SYSLOG");
	for (int l = 0; l <= 2; l++)
		hwp__outbuf_printf(o, "  %s%3d   %s\n", perms->kptr_restrict == l ? "> " : "  ", l,
				   hwp_kptr_restrict__meaning(l));
	hwp__outbuf_puts(o, "  perf_event_max_sample_rate = ");
	print_int_or(o, perms->max_sample_rate);
	hwp__outbuf_puts(o, perms->max_sample_rate == HWP_PROBE_UNKNOWN ? ", perf_event_mlock_kb = "
								      : " Hz, perf_event_mlock_kb = ");
	print_int_or(o, perms->mlock_kb);
	if (perms->nmi_watchdog == 1)
		hwp__outbuf_puts(o, ", nmi_watchdog = 1 (takes one counter)");
	hwp__outbuf_putc(o, '\n');
}

static void text_lbr_format(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	const struct hwp_probe_perf_caps *pc = hwp_probe_info__perf_caps(in);
	char bits[8];

	hwp__outbuf_puts(o, "\nIntel LBR format (IA32_PERF_CAPABILITIES, MSR 0x345)\n");
	if (pc->state == HWP_PROBE_READ) {
		const char *name = hwp_lbr_format__name((unsigned)pc->lbr_format);

		unsigned f = hwp_lbr_format__fields((unsigned)pc->lbr_format);

		hwp__outbuf_printf(o, "  0x%" PRIx64 ": LBR format %s, %s\n", pc->value,
				   hwp_lbr_format__bits((unsigned)pc->lbr_format, bits),
				   name ? name : "unknown to hwprof");
		if (name)
			hwp__outbuf_printf(o, "  entries carry: from, to%s%s%s%s%s\n",
					   f & HWP_LBR_F_MISPRED ? ", mispredict" : "",
					   f & HWP_LBR_F_TSX ? ", TSX in_tx/abort" : "",
					   f & HWP_LBR_F_CYCLES ? ", cycles" : "",
					   f & HWP_LBR_F_TYPE ? ", branch type" : "",
					   f & HWP_LBR_F_INFO_MSR ? " (flags in LBR_INFO MSRs)" : "");
	} else {
		hwp__outbuf_printf(o, "  %s%s%s\n", state_text(pc->state),
				   pc->err[0] ? ": " : "", pc->err);
	}
	if (hwp_probe_info__cpu(in)->flag_arch_lbr)
		hwp__outbuf_puts(o, "  architectural LBR (CPUID.07H:EDX[19])\n");
}

static void text_verdicts(struct hwp_outbuf *o, const struct hwp_probe_info *in)
{
	hwp__outbuf_puts(o, "\nCan record\n");
	verdict_line(o, "hardware PMU", hwp_probe_info__verdict(in, HWP_CAP_HW_PMU));
	verdict_line(o, "branch stacks", hwp_probe_info__verdict(in, HWP_CAP_BRANCH_STACK));
	verdict_line(o, "LBR call stacks", hwp_probe_info__verdict(in, HWP_CAP_LBR_CALLSTACK));
	verdict_line(o, "precise samples", hwp_probe_info__verdict(in, HWP_CAP_PRECISE));
	verdict_line(o, "perf events", hwp_probe_info__verdict(in, HWP_CAP_ACCESS));
	verdict_line(o, "kernel samples", hwp_probe_info__verdict(in, HWP_CAP_KERNEL));
	verdict_line(o, "kernel symbols", hwp_probe_info__verdict(in, HWP_CAP_KERNEL_SYMS));
	verdict_line(o, "software events", hwp_probe_info__verdict(in, HWP_CAP_SOFTWARE));
	hwp__outbuf_putc(o, '\n');
}

static void probe_text(struct hwp_outbuf *o, const struct hwp_probe_info *in)
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
	hwp__json_writer_key(j, k);
	if (v == HWP_PROBE_UNKNOWN)
		hwp__json_writer_null(j);
	else
		hwp__json_writer_i64(j, v);
}

/* S, or null when empty. */
static void kv_str_or_null(struct hwp_json_writer *j, const char *k, const char *s)
{
	hwp__json_writer_kv_string(j, k, s && s[0] ? s : NULL);
}

static void kv_verdict(struct hwp_json_writer *j, const char *k, const struct hwp_probe_verdict *v)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_bool(j, "yes", v->yes);
	hwp__json_writer_kv_string(j, "why", v->why);
	hwp__json_writer_end_object(j);
}

static void json_cpu(struct hwp_json_writer *j, const struct hwp_probe_cpu *cpu)
{
	const char *names[] = { "pdcm", "arch_lbr", "arch_perfmon", "ibs", "perfctr_core",
				"amd_lbr_v2" };
	bool vals[] = { cpu->flag_pdcm, cpu->flag_arch_lbr, cpu->flag_arch_perfmon, cpu->flag_ibs,
			cpu->flag_perfctr_core, cpu->flag_amd_lbr_v2 };

	hwp__json_writer_key(j, "cpu");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_string(j, "vendor", hwp_cpu_vendor__name(cpu->vendor));
	hwp__json_writer_kv_string(j, "vendor_id", cpu->vendor_id);
	if (cpu->have_fms) {
		hwp__json_writer_kv_u64(j, "family", cpu->family);
		hwp__json_writer_kv_u64(j, "model", cpu->model);
		hwp__json_writer_kv_u64(j, "stepping", cpu->stepping);
	}
	hwp__json_writer_kv_string(j, "model_name", cpu->model_name);
	hwp__json_writer_kv_string(j, "arch", cpu->arch);
	hwp__json_writer_kv_bool(j, "hypervisor", cpu->hypervisor);
	kv_str_or_null(j, "hypervisor_id", cpu->hypervisor_id);
	hwp__json_writer_kv_bool(j, "cpuid_used", cpu->cpuid_used);
	hwp__json_writer_kv_i64(j, "perfmon_version", cpu->perfmon_version);
	hwp__json_writer_key(j, "flags");
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i])
			hwp__json_writer_string(j, names[i]);
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

static void json_pmus(struct hwp_json_writer *j, const struct hwp_probe_info *in)
{
	const char *err;

	hwp__json_writer_key(j, "pmus");
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < hwp_probe_info__nr_pmus(in); i++) {
		const struct hwp_probe_pmu *p = hwp_probe_info__pmu(in, i);

		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_string(j, "name", p->name);
		hwp__json_writer_kv_i64(j, "type", p->type);
		hwp__json_writer_kv_string(j, "kind", hwp_pmu_kind__name(p->kind));
		hwp__json_writer_kv_i64(j, "branches", p->branches);
		hwp__json_writer_kv_i64(j, "max_precise", p->max_precise);
		kv_str_or_null(j, "pmu_name", p->pmu_name);
		hwp__json_writer_key(j, "caps");
		hwp__json_writer_begin_object(j);
		for (size_t c = 0; c < p->nr_caps; c++)
			hwp__json_writer_kv_string(j, p->caps[c].name, p->caps[c].value);
		hwp__json_writer_end_object(j);
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_kv_u64(j, "other_pmus", hwp_probe_info__nr_other_pmus(in));
	hwp__json_writer_kv_string(j, "pmus_error",
				   hwp_probe_info__pmus_state(in, &err) == HWP_PROBE_READ ? NULL : err);
}

static void json_perms(struct hwp_json_writer *j, const struct hwp_probe_perms *pm)
{
	char level[16];

	hwp__json_writer_key(j, "permissions");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_bool(j, "privileged", pm->privileged);
	kv_str_or_null(j, "privilege", pm->privilege);
	kv_int(j, "perf_event_paranoid", pm->paranoid);
	hwp__json_writer_kv_string(j, "paranoid_meaning", hwp_paranoid__meaning(pm->paranoid));
	hwp__json_writer_key(j, "paranoid_levels");
	hwp__json_writer_begin_object(j);
	for (int l = -1; l <= 3; l++) {
		snprintf(level, sizeof(level), "%d%s", l, l == 3 ? "+" : "");
		hwp__json_writer_kv_string(j, level, hwp_paranoid__meaning(l));
	}
	hwp__json_writer_end_object(j);
	kv_int(j, "kptr_restrict", pm->kptr_restrict);
	hwp__json_writer_kv_string(j, "kptr_restrict_meaning",
				   hwp_kptr_restrict__meaning(pm->kptr_restrict));
	kv_int(j, "perf_event_max_sample_rate", pm->max_sample_rate);
	kv_int(j, "perf_event_mlock_kb", pm->mlock_kb);
	kv_int(j, "nmi_watchdog", pm->nmi_watchdog);
	hwp__json_writer_end_object(j);
}

static void json_perf_caps(struct hwp_json_writer *j, const struct hwp_probe_perf_caps *pc)
{
	char bits[8];

	hwp__json_writer_key(j, "perf_capabilities");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_string(j, "state", state_text(pc->state));
	if (pc->state == HWP_PROBE_READ) {
		hwp__json_writer_kv_hex(j, "value", pc->value);
		hwp__json_writer_kv_i64(j, "lbr_format", pc->lbr_format);
		hwp__json_writer_kv_string(j, "lbr_format_bits",
					   hwp_lbr_format__bits((unsigned)pc->lbr_format, bits));
		hwp__json_writer_kv_string(j, "lbr_format_name",
					   hwp_lbr_format__name((unsigned)pc->lbr_format));
	} else {
		hwp__json_writer_kv_string(j, "error", pc->err);
	}
	hwp__json_writer_end_object(j);
}

static void probe_json_members(struct hwp_json_writer *j, const struct hwp_probe_info *in)
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
	hwp__json_writer_key(j, "kernel_log");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_string(j, "state", state_text(km->state));
	hwp__json_writer_kv_string(j, "line", km->state == HWP_PROBE_READ ? km->line : NULL);
	hwp__json_writer_kv_string(j, "error", km->state == HWP_PROBE_READ ? NULL : km->err);
	hwp__json_writer_end_object(j);
	json_pmus(j, in);
	json_perms(j, hwp_probe_info__perms(in));
	json_perf_caps(j, hwp_probe_info__perf_caps(in));
	hwp__json_writer_key(j, "can");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_i64(j, "branch_depth", hwp_probe_info__branch_depth(in));
	kv_str_or_null(j, "core_pmu", hwp_probe_info__core_pmu(in));
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++)
		kv_verdict(j, verdicts[i].key, hwp_probe_info__verdict(in, verdicts[i].cap));
	hwp__json_writer_end_object(j);
}


int hwp_probe_info__write(const struct hwp_probe_info *info, enum hwp_table_format fmt, const char *advice_text,
			  const char *advice_json, FILE *fp)
{
	struct hwp_json_writer *jw = NULL;
	struct hwp_outbuf out;
	int rc = 0;

	if (hwp__outbuf_init(&out, fp) < 0 ||
	    (fmt == HWP_TABLE_JSON && !(jw = hwp__json_writer_new(&out))))
		return hwp__set_error(ENOMEM, "check: out of memory");
	if (jw) {
		hwp__json_writer_begin_object(jw);
		probe_json_members(jw, info);
		if (advice_json)
			hwp__json_writer_kv_string(jw, "advice", advice_json);
		hwp__json_writer_end_object(jw);
		rc = hwp__json_writer_finish(jw);
		hwp__json_writer_delete(jw);
	} else {
		probe_text(&out, info);
		if (advice_text)
			hwp__outbuf_puts(&out, advice_text);
	}
	int werr = hwp__outbuf_finish(&out);
	if (rc < 0)
		return rc;
	return werr ? hwp__set_error(werr, "error writing output: %s", hwp_strerror(werr)) : 0;
}
