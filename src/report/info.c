/* SPDX-License-Identifier: MIT */
/*
 * hwprof info's facts about one recording, as text (the header the way
 * 'perf report --header-only' and 'perf evlist -v' print it) or as one JSON
 * object: the one place its field names are defined.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/attr_names.h"
#include "hwprof/info.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "report/info_internal.h"
#include "util/error.h"

static const char *evsel_name(const struct hwp_evsel *e, char *buf, size_t len)
{
	if (e->name)
		return e->name;
	const char *t = hwp_attr_type__name(e->attr.type);
	if (t)
		snprintf(buf, len, "%s/config=0x%" PRIx64 "/", t, e->attr.config);
	else
		snprintf(buf, len, "type%u/config=0x%" PRIx64 "/", e->attr.type, e->attr.config);
	return buf;
}

/* The attr the way `perf evlist -v` prints it. */
static void format_attr(struct hwp_outbuf *o, const struct hwp_attr *a)
{
	char bits[512];

	hwp__outbuf_printf(o, "type = %u, size = %u, config = 0x%" PRIx64, a->type, a->size, a->config);
	hwp__outbuf_printf(o, ", { sample_period, sample_freq } = %" PRIu64, a->sample_period);
	hwp__outbuf_printf(o, ", sample_type = %s",
			   hwp_bits__format(a->sample_type, hwp_sample_type__bit_name, bits, sizeof(bits)));
	if (a->read_format)
		hwp__outbuf_printf(o, ", read_format = %s",
				   hwp_bits__format(a->read_format, hwp_read_format__bit_name, bits, sizeof(bits)));
	for (unsigned b = 0; b < HWP_ATTR_FLAG_COUNT; b++) {
		if (b == HWP_ATTR_PRECISE_IP || b == HWP_ATTR_PRECISE_IP + 1)
			continue;
		if ((a->flags >> b) & 1)
			hwp__outbuf_printf(o, ", %s = 1", hwp_attr_flag__name(b));
	}
	if (hwp_attr__precise_ip(a))
		hwp__outbuf_printf(o, ", precise_ip = %u", hwp_attr__precise_ip(a));
	if (a->config1)
		hwp__outbuf_printf(o, ", config1 = 0x%" PRIx64, a->config1);
	if (a->config2)
		hwp__outbuf_printf(o, ", config2 = 0x%" PRIx64, a->config2);
	if (a->config3)
		hwp__outbuf_printf(o, ", config3 = 0x%" PRIx64, a->config3);
	if (a->branch_sample_type)
		hwp__outbuf_printf(o, ", branch_sample_type = %s",
				   hwp_bits__format(a->branch_sample_type, hwp_branch_sample_type__bit_name,
						    bits, sizeof(bits)));
	if (a->sample_regs_user)
		hwp__outbuf_printf(o, ", sample_regs_user = 0x%" PRIx64, a->sample_regs_user);
	if (a->sample_stack_user)
		hwp__outbuf_printf(o, ", sample_stack_user = %u", a->sample_stack_user);
	if (a->sample_regs_intr)
		hwp__outbuf_printf(o, ", sample_regs_intr = 0x%" PRIx64, a->sample_regs_intr);
	if (a->sample_max_stack)
		hwp__outbuf_printf(o, ", sample_max_stack = %u", a->sample_max_stack);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t lost_total(const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);

	return tot->lost_events + tot->lost_samples;
}

static void text_file(struct hwp_outbuf *o, const struct hwp_reader *r)
{
	hwp__outbuf_printf(o, "# file         : %s\n", hwp_reader__path(r));
	hwp__outbuf_printf(o, "# format       : %s, %" PRIu64 " bytes\n",
			   hwp_reader__is_text(r)   ? "perf script text"
			   : hwp_reader__is_pipe(r) ? "pipe mode"
						    : "file mode",
			   hwp_reader__file_size(r));
	if (!hwp_reader__is_pipe(r) && !hwp_reader__is_text(r)) {
		hwp__outbuf_printf(o, "# data offset  : %" PRIu64 "\n", hwp_reader__data_offset(r));
		hwp__outbuf_printf(o, "# data size    : %" PRIu64 "%s\n", hwp_reader__data_size(r),
				   hwp_reader__data_size(r) ? "" : " (perf record did not finish: read to end of file)");
		hwp__outbuf_printf(o, "# attr size    : %" PRIu64 "\n", hwp_reader__file_attr_size(r) - 16);
	}
}

/* The recording machine and command, as 'perf report --header-only'. */
static void text_host(struct hwp_outbuf *o, const struct hwp_header_info *h)
{
	if (h->hostname)
		hwp__outbuf_printf(o, "# hostname : %s\n", h->hostname);
	if (h->osrelease)
		hwp__outbuf_printf(o, "# os release : %s\n", h->osrelease);
	if (h->version)
		hwp__outbuf_printf(o, "# perf version : %s\n", h->version);
	if (h->arch)
		hwp__outbuf_printf(o, "# arch : %s\n", h->arch);
	if (hwp_header_info__has(h, HWP_FEAT_NRCPUS)) {
		hwp__outbuf_printf(o, "# nrcpus online : %u\n", h->nr_cpus_online);
		hwp__outbuf_printf(o, "# nrcpus avail : %u\n", h->nr_cpus_avail);
	}
	if (h->cpudesc)
		hwp__outbuf_printf(o, "# cpudesc : %s\n", h->cpudesc);
	if (h->cpuid)
		hwp__outbuf_printf(o, "# cpuid : %s\n", h->cpuid);
	if (hwp_header_info__has(h, HWP_FEAT_TOTAL_MEM))
		hwp__outbuf_printf(o, "# total memory : %" PRIu64 " kB\n", h->total_mem_kb);
	if (h->nr_cmdline) {
		hwp__outbuf_puts(o, "# cmdline :");
		for (size_t i = 0; i < h->nr_cmdline; i++)
			hwp__outbuf_printf(o, " %s", h->cmdline[i]);
		hwp__outbuf_putc(o, '\n');
	}
}

static void text_events(struct hwp_outbuf *o, const struct hwp_reader *r)
{
	char name[128];

	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		hwp__outbuf_printf(o, "# event : name = %s, ids = %zu, ", evsel_name(e, name, sizeof(name)),
				   e->nr_ids);
		format_attr(o, &e->attr);
		hwp__outbuf_putc(o, '\n');
	}
}

static void text_pmus(struct hwp_outbuf *o, const struct hwp_header_info *h)
{
	if (h->nr_pmu_mappings) {
		hwp__outbuf_puts(o, "# pmu mappings:");
		for (size_t i = 0; i < h->nr_pmu_mappings; i++)
			hwp__outbuf_printf(o, "%s %s = %u", i ? "," : "", h->pmu_mappings[i].name,
					   h->pmu_mappings[i].type);
		hwp__outbuf_putc(o, '\n');
	}
	for (size_t i = 0; i < h->nr_pmu_caps; i++) {
		hwp__outbuf_printf(o, "# %s pmu capabilities:", h->pmu_caps[i].pmu_name);
		for (size_t j = 0; j < h->pmu_caps[i].nr_caps; j++)
			hwp__outbuf_printf(o, "%s %s", j ? "," : "", h->pmu_caps[i].caps[j]);
		hwp__outbuf_putc(o, '\n');
	}
}

/* Compression, build ids and the feature list, which ends the header. */
static void text_features(struct hwp_outbuf *o, const struct hwp_header_info *h)
{
	if (h->has_compressed)
		hwp__outbuf_printf(o, "# compressed : %s, level = %u, ratio = %u\n",
				   h->comp_type == 1 ? "Zstd" : "unknown", h->comp_level, h->comp_ratio);
	if (h->nr_build_ids) {
		hwp__outbuf_printf(o, "# build ids : %zu\n", h->nr_build_ids);
		for (size_t i = 0; i < h->nr_build_ids; i++) {
			hwp__outbuf_puts(o, "#   ");
			for (unsigned k = 0; k < h->build_ids[i].size; k++)
				hwp__outbuf_printf(o, "%02x", h->build_ids[i].id[k]);
			hwp__outbuf_printf(o, " %s\n", h->build_ids[i].filename);
		}
	}
	hwp__outbuf_puts(o, "# features :");
	for (unsigned f = 1; f < HWP_FEAT_BITS; f++)
		if (hwp_header_info__has(h, f)) {
			if (f < HWP_FEAT_LAST_KNOWN)
				hwp__outbuf_printf(o, " %s", hwp_feature__name(f));
			else
				hwp__outbuf_printf(o, " #%u", f);
		}
	hwp__outbuf_puts(o, "\n\n");
}

static void text_records(struct hwp_outbuf *o, const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);

	hwp__outbuf_puts(o, "records:\n");
	for (unsigned t = 0; t < HWP_RECORD_TYPE_MAX; t++)
		if (hwp_file_stats__records(st, t))
			hwp__outbuf_printf(o, "  %-20s %12" PRIu64 "\n",
					   hwp_record_type__name(t) ? hwp_record_type__name(t) : "?",
					   hwp_file_stats__records(st, t));
	if (tot->records_unknown)
		hwp__outbuf_printf(o, "  %-20s %12" PRIu64 "\n", "unknown (skipped)", tot->records_unknown);
	if (tot->records_compressed_inner)
		hwp__outbuf_printf(o, "  (%" PRIu64 " of these came out of compressed records)\n",
				   tot->records_compressed_inner);
}

static void text_samples(struct hwp_outbuf *o, const struct hwp_reader *r,
			 const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);
	char name[128];

	hwp__outbuf_printf(o, "\nsamples: %" PRIu64 " (user %" PRIu64 ", kernel %" PRIu64 ", other %" PRIu64 ")\n",
			   tot->samples, tot->samples_user, tot->samples_kernel, tot->samples_other);
	for (size_t i = 0; i < hwp_reader__nr_evsels(r) && i < HWP_STATS_MAX_EVSELS; i++)
		hwp__outbuf_printf(o, "  %-40s %12" PRIu64 "\n",
				   evsel_name(hwp_reader__evsel(r, i), name, sizeof(name)),
				   hwp_file_stats__evsel_samples(st, i));
	if (tot->samples_unknown_id)
		hwp__outbuf_printf(o, "  %-40s %12" PRIu64 "\n", "(unknown sample id: skipped)",
				   tot->samples_unknown_id);
}

/* The branch-stack depth histogram and which entry fields carry data. */
static void text_branches(struct hwp_outbuf *o, const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);

	if (!tot->samples_with_branches)
		return;
	hwp__outbuf_printf(o, "\nbranch stacks: %" PRIu64 " samples, %" PRIu64 " entries, mean depth %.1f%s\n",
			   tot->samples_with_branches, tot->branch_entries,
			   (double)tot->branch_entries / (double)tot->samples_with_branches,
			   tot->hw_idx_samples ? ", with hw_idx" : "");
	hwp__outbuf_puts(o, "  depth histogram:");
	for (unsigned d = 0; d <= HWP_STATS_MAX_DEPTH; d++)
		if (hwp_file_stats__depth(st, d))
			hwp__outbuf_printf(o, " %u%s:%" PRIu64, d, d == HWP_STATS_MAX_DEPTH ? "+" : "",
					   hwp_file_stats__depth(st, d));
	hwp__outbuf_puts(o, "\n  fields with data (entries with a non-zero value):\n");
	for (unsigned f = 0; f < HWP_BF_COUNT; f++)
		hwp__outbuf_printf(o, "    %-10s %12" PRIu64 "  %6.2f%%%s\n", hwp_branch_field__name(f),
				   hwp_file_stats__branch_field(st, f),
				   pct(hwp_file_stats__branch_field(st, f), tot->branch_entries),
				   hwp_file_stats__branch_field(st, f) || f == HWP_BF_FROM_ZERO ? "" : "  (not populated)");
}

static void text_lost(struct hwp_outbuf *o, const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);

	hwp__outbuf_printf(o, "\nlost: %" PRIu64 " events (LOST), %" PRIu64 " samples (LOST_SAMPLES); throttled %" PRIu64 " times, unthrottled %" PRIu64 "\n",
			   tot->lost_events, tot->lost_samples, hwp_file_stats__records(st, HWP_RECORD_THROTTLE),
			   hwp_file_stats__records(st, HWP_RECORD_UNTHROTTLE));
}

void hwp__info_text(struct hwp_outbuf *o, const struct hwp_reader *r, const struct hwp_file_stats *st)
{
	const struct hwp_header_info *h = hwp_reader__header(r);

	text_file(o, r);
	text_host(o, h);
	text_events(o, r);
	text_pmus(o, h);
	text_features(o, h);
	text_records(o, st);
	text_samples(o, r, st);
	text_branches(o, st);
	text_lost(o, st);
}

/* Names of the bits set in BITS ("bitN" for unnamed ones). */
static void json_bits(struct hwp_json_writer *j, const char *k, uint64_t bits,
		      const char *(*name)(unsigned))
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_begin_array(j);
	for (unsigned b = 0; b < 64; b++) {
		const char *n;
		char tmp[32];

		if (!((bits >> b) & 1))
			continue;
		if (!(n = name(b))) {
			snprintf(tmp, sizeof(tmp), "bit%u", b);
			n = tmp;
		}
		hwp__json_writer_string(j, n);
	}
	hwp__json_writer_end_array(j);
}

/* A member only when V is known. */
static void kv_str_if(struct hwp_json_writer *j, const char *k, const char *v)
{
	if (v)
		hwp__json_writer_kv_string(j, k, v);
}

static void json_strings(struct hwp_json_writer *j, const char *k, const char *const *v, size_t n)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < n; i++)
		hwp__json_writer_string(j, v[i]);
	hwp__json_writer_end_array(j);
}

static void json_features(struct hwp_json_writer *j, const struct hwp_header_info *h)
{
	char feat[16];

	hwp__json_writer_key(j, "features");
	hwp__json_writer_begin_array(j);
	for (unsigned f = 1; f < HWP_FEAT_BITS; f++) {
		if (!hwp_header_info__has(h, f))
			continue;
		if (f < HWP_FEAT_LAST_KNOWN) {
			hwp__json_writer_string(j, hwp_feature__name(f));
		} else {
			snprintf(feat, sizeof(feat), "#%u", f);
			hwp__json_writer_string(j, feat);
		}
	}
	hwp__json_writer_end_array(j);
}

/* [["HEX", "FILE"], ...] */
static void json_build_ids(struct hwp_json_writer *j, const struct hwp_header_info *h)
{
	char hex[2 * sizeof(h->build_ids[0].id) + 1];

	hwp__json_writer_key(j, "build_ids");
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		unsigned n = h->build_ids[i].size < sizeof(h->build_ids[i].id) ? h->build_ids[i].size
									       : sizeof(h->build_ids[i].id);

		for (unsigned k = 0; k < n; k++)
			snprintf(hex + 2 * k, 3, "%02x", h->build_ids[i].id[k]);
		hex[2 * n] = 0;
		hwp__json_writer_begin_array(j);
		hwp__json_writer_string(j, hex);
		hwp__json_writer_string(j, h->build_ids[i].filename);
		hwp__json_writer_end_array(j);
	}
	hwp__json_writer_end_array(j);
}

static void json_pmus(struct hwp_json_writer *j, const struct hwp_header_info *h)
{
	hwp__json_writer_key(j, "pmu_mappings");
	hwp__json_writer_begin_object(j);
	for (size_t i = 0; i < h->nr_pmu_mappings; i++)
		hwp__json_writer_kv_u64(j, h->pmu_mappings[i].name, h->pmu_mappings[i].type);
	hwp__json_writer_end_object(j);
	hwp__json_writer_key(j, "pmu_caps");
	hwp__json_writer_begin_object(j);
	for (size_t i = 0; i < h->nr_pmu_caps; i++)
		json_strings(j, h->pmu_caps[i].pmu_name, h->pmu_caps[i].caps, h->pmu_caps[i].nr_caps);
	hwp__json_writer_end_object(j);
}

static void json_header(struct hwp_json_writer *j, const struct hwp_reader *r)
{
	const struct hwp_header_info *h = hwp_reader__header(r);

	kv_str_if(j, "file", hwp_reader__path(r));
	hwp__json_writer_kv_string(j, "format", hwp_reader__is_text(r)   ? "text"
						: hwp_reader__is_pipe(r) ? "pipe"
									 : "file");
	hwp__json_writer_kv_u64(j, "size", hwp_reader__file_size(r));
	hwp__json_writer_kv_u64(j, "data_offset", hwp_reader__data_offset(r));
	hwp__json_writer_kv_u64(j, "data_size", hwp_reader__data_size(r));
	kv_str_if(j, "hostname", h->hostname);
	kv_str_if(j, "osrelease", h->osrelease);
	kv_str_if(j, "version", h->version);
	kv_str_if(j, "arch", h->arch);
	kv_str_if(j, "cpudesc", h->cpudesc);
	kv_str_if(j, "cpuid", h->cpuid);
	if (hwp_header_info__has(h, HWP_FEAT_NRCPUS)) {
		hwp__json_writer_kv_u64(j, "nrcpus_online", h->nr_cpus_online);
		hwp__json_writer_kv_u64(j, "nrcpus_avail", h->nr_cpus_avail);
	}
	if (hwp_header_info__has(h, HWP_FEAT_TOTAL_MEM))
		hwp__json_writer_kv_u64(j, "total_mem_kb", h->total_mem_kb);
	json_strings(j, "cmdline", h->cmdline, h->nr_cmdline);
	json_features(j, h);
	json_build_ids(j, h);
	json_pmus(j, h);
}

static void json_events(struct hwp_json_writer *j, const struct hwp_reader *r,
			const struct hwp_file_stats *st)
{
	char name[128];

	hwp__json_writer_key(j, "events");
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		const struct hwp_attr *a = &e->attr;

		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_string(j, "name", evsel_name(e, name, sizeof(name)));
		hwp__json_writer_kv_u64(j, "type", a->type);
		hwp__json_writer_kv_u64(j, "attr_size", a->size);
		hwp__json_writer_kv_hex(j, "config", a->config);
		hwp__json_writer_kv_hex(j, "config1", a->config1);
		hwp__json_writer_kv_hex(j, "config2", a->config2);
		hwp__json_writer_kv_u64(j, "sample_period_or_freq", a->sample_period);
		hwp__json_writer_kv_u64(j, "precise_ip", hwp_attr__precise_ip(a));
		hwp__json_writer_kv_hex(j, "read_format", a->read_format);
		hwp__json_writer_kv_u64(j, "n_ids", e->nr_ids);
		hwp__json_writer_kv_u64(j, "samples", hwp_file_stats__evsel_samples(st, i));
		json_bits(j, "sample_type", a->sample_type, hwp_sample_type__bit_name);
		json_bits(j, "branch_sample_type", a->branch_sample_type,
			  hwp_branch_sample_type__bit_name);
		json_bits(j, "flags", a->flags & ~(3ULL << HWP_ATTR_PRECISE_IP), hwp_attr_flag__name);
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
}

static void json_counts(struct hwp_json_writer *j, const struct hwp_file_stats *st)
{
	const struct hwp_file_totals *tot = hwp_file_stats__totals(st);
	char depth[16];

	hwp__json_writer_key(j, "records");
	hwp__json_writer_begin_object(j);
	for (unsigned t = 0; t < HWP_RECORD_TYPE_MAX; t++)
		if (hwp_file_stats__records(st, t))
			hwp__json_writer_kv_u64(j, hwp_record_type__name(t) ? hwp_record_type__name(t) : "?",
						hwp_file_stats__records(st, t));
	hwp__json_writer_end_object(j);
	hwp__json_writer_kv_u64(j, "records_unknown", tot->records_unknown);
	hwp__json_writer_kv_u64(j, "records_from_compressed", tot->records_compressed_inner);
	hwp__json_writer_kv_u64(j, "samples_total", tot->samples);
	hwp__json_writer_kv_u64(j, "samples_unknown_id", tot->samples_unknown_id);
	hwp__json_writer_key(j, "sample_ip_user_kernel");
	hwp__json_writer_begin_array(j);
	hwp__json_writer_u64(j, tot->samples - tot->samples_unknown_id - tot->samples_ip_kernel);
	hwp__json_writer_u64(j, tot->samples_ip_kernel);
	hwp__json_writer_end_array(j);
	hwp__json_writer_kv_u64(j, "brstack_samples", tot->samples_with_branches);
	hwp__json_writer_kv_u64(j, "brstack_entries", tot->branch_entries);
	hwp__json_writer_key(j, "brstack_depth_hist");
	hwp__json_writer_begin_object(j);
	for (unsigned d = 0; d <= HWP_STATS_MAX_DEPTH; d++)
		if (hwp_file_stats__depth(st, d)) {
			snprintf(depth, sizeof(depth), "%u", d);
			hwp__json_writer_kv_u64(j, depth, hwp_file_stats__depth(st, d));
		}
	hwp__json_writer_end_object(j);
	hwp__json_writer_key(j, "br_flags_nonzero");
	hwp__json_writer_begin_object(j);
	for (unsigned f = 0; f < HWP_BF_COUNT; f++)
		hwp__json_writer_kv_u64(j, hwp_branch_field__name(f), hwp_file_stats__branch_field(st, f));
	hwp__json_writer_end_object(j);
	hwp__json_writer_kv_u64(j, "lost_events", tot->lost_events);
	hwp__json_writer_kv_u64(j, "lost_samples", tot->lost_samples);
	hwp__json_writer_kv_u64(j, "throttle", hwp_file_stats__records(st, HWP_RECORD_THROTTLE));
	hwp__json_writer_kv_u64(j, "unthrottle", hwp_file_stats__records(st, HWP_RECORD_UNTHROTTLE));
	hwp__json_writer_kv_bool(j, "lost_warning", lost_total(st) * 100 > tot->samples);
}

void hwp__info_json(struct hwp_json_writer *j, const struct hwp_reader *r, const struct hwp_file_stats *st)
{
	hwp__json_writer_begin_object(j);
	json_header(j, r);
	json_events(j, r, st);
	json_counts(j, st);
	hwp__json_writer_end_object(j);
}

bool hwp_info__lost_warning(const char *path, const struct hwp_file_stats *st, char *buf, size_t size)
{
	uint64_t samples = hwp_file_stats__totals(st)->samples;

	if (lost_total(st) * 100 <= samples)
		return false;
	snprintf(buf, size,
		 "%s: %" PRIu64 " samples lost (%.1f%% of %" PRIu64 " recorded): results under-count; record with a larger buffer or a lower frequency",
		 path, lost_total(st), pct(lost_total(st), samples), samples);
	return true;
}

int hwp__info_check_format(enum hwp_table_format fmt)
{
	if (fmt != HWP_TABLE_TEXT && fmt != HWP_TABLE_JSON)
		return hwp__set_error(EINVAL, "info: only text and JSON output");
	return 0;
}

int hwp__info_finish(struct hwp_outbuf *o, struct hwp_json_writer *j)
{
	int rc = 0;

	if (j && hwp__json_writer_finish(j) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", hwp_errmsg()); /* the message is rewritten below */
		rc = hwp__set_error(EINVAL, "info: %s", why);
	}
	int werr = hwp__outbuf_finish(o);
	if (werr && !rc)
		rc = hwp__set_error(werr, "error writing output: %s", hwp_strerror(werr));
	hwp__json_writer_delete(j);
	return rc;
}

int hwp_info__write(const struct hwp_reader *r, const struct hwp_file_stats *st, enum hwp_table_format fmt,
		    FILE *out)
{
	struct hwp_json_writer *j = NULL;
	struct hwp_outbuf o;

	if (hwp__info_check_format(fmt) < 0)
		return -EINVAL;
	if (hwp__outbuf_init(&o, out) < 0)
		return hwp__set_error(ENOMEM, "out of memory");
	if (fmt == HWP_TABLE_JSON && !(j = hwp__json_writer_new(&o))) {
		hwp__outbuf_finish(&o);
		return hwp__set_error(ENOMEM, "out of memory");
	}
	if (j)
		hwp__info_json(j, r, st);
	else
		hwp__info_text(&o, r, st);
	return hwp__info_finish(&o, j);
}
