/* SPDX-License-Identifier: MIT */
/* hwprof info: header facts, events, record counts, branch-stack shape, losses. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "hwprof/attr_names.h"
#include "hwprof/file_stats.h"
#include "hwprof/hwprof.h"
#include "hwprof/outbuf.h"
#include "hwprof/sample_json.h"

static const char usage[] =
	"usage: hwprof info [-i FILE] [--json]\n"
	"\n"
	"One pass over the file: header facts (as 'perf report --header-only'),\n"
	"each event with its attr decoded, records per type and samples per event,\n"
	"the branch-stack depth histogram, which branch fields carry data\n"
	"(mispred, predicted, cycles, type, spec, ...), and lost or throttled\n"
	"samples (a warning when more than 1% were lost).\n"
	"\n"
	"  -i, --input FILE   perf.data, pipe-mode data, or perf script text\n"
	"                     (default: perf.data; '-' reads standard input)\n"
	"      --json         the same facts as one JSON object\n"
	CLI_COMMON_HELP
	"  -h, --help         this text\n";

struct info_ctx {
	struct hwp_outbuf *o;
	const struct hwp_reader *r;
	const struct hwp_file_stats *st;
};

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

	hwp_outbuf__printf(o, "type = %u, size = %u, config = 0x%" PRIx64, a->type, a->size, a->config);
	hwp_outbuf__printf(o, ", { sample_period, sample_freq } = %" PRIu64, a->sample_period);
	hwp_outbuf__printf(o, ", sample_type = %s",
			   hwp_bits__format(a->sample_type, hwp_sample_type__bit_name, bits, sizeof(bits)));
	if (a->read_format)
		hwp_outbuf__printf(o, ", read_format = %s",
				   hwp_bits__format(a->read_format, hwp_read_format__bit_name, bits, sizeof(bits)));
	for (unsigned b = 0; b < HWP_ATTR_FLAG_COUNT; b++) {
		if (b == HWP_ATTR_PRECISE_IP || b == HWP_ATTR_PRECISE_IP + 1)
			continue;
		if ((a->flags >> b) & 1)
			hwp_outbuf__printf(o, ", %s = 1", hwp_attr_flag__name(b));
	}
	if (hwp_attr__precise_ip(a))
		hwp_outbuf__printf(o, ", precise_ip = %u", hwp_attr__precise_ip(a));
	if (a->config1)
		hwp_outbuf__printf(o, ", config1 = 0x%" PRIx64, a->config1);
	if (a->config2)
		hwp_outbuf__printf(o, ", config2 = 0x%" PRIx64, a->config2);
	if (a->config3)
		hwp_outbuf__printf(o, ", config3 = 0x%" PRIx64, a->config3);
	if (a->branch_sample_type)
		hwp_outbuf__printf(o, ", branch_sample_type = %s",
				   hwp_bits__format(a->branch_sample_type, hwp_branch_sample_type__bit_name,
						    bits, sizeof(bits)));
	if (a->sample_regs_user)
		hwp_outbuf__printf(o, ", sample_regs_user = 0x%" PRIx64, a->sample_regs_user);
	if (a->sample_stack_user)
		hwp_outbuf__printf(o, ", sample_stack_user = %u", a->sample_stack_user);
	if (a->sample_regs_intr)
		hwp_outbuf__printf(o, ", sample_regs_intr = 0x%" PRIx64, a->sample_regs_intr);
	if (a->sample_max_stack)
		hwp_outbuf__printf(o, ", sample_max_stack = %u", a->sample_max_stack);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t lost_total(const struct hwp_file_stats *st)
{
	return st->lost_events + st->lost_samples;
}

static void print_text(struct info_ctx *c)
{
	struct hwp_outbuf *o = c->o;
	const struct hwp_reader *r = c->r;
	const struct hwp_file_stats *st = c->st;
	const struct hwp_header_info *h = hwp_reader__header(r);
	char name[128];

	hwp_outbuf__printf(o, "# file         : %s\n", hwp_reader__path(r));
	hwp_outbuf__printf(o, "# format       : %s, %" PRIu64 " bytes\n",
			   hwp_reader__is_text(r)   ? "perf script text"
			   : hwp_reader__is_pipe(r) ? "pipe mode"
						    : "file mode",
			   hwp_reader__file_size(r));
	if (!hwp_reader__is_pipe(r) && !hwp_reader__is_text(r)) {
		hwp_outbuf__printf(o, "# data offset  : %" PRIu64 "\n", hwp_reader__data_offset(r));
		hwp_outbuf__printf(o, "# data size    : %" PRIu64 "%s\n", hwp_reader__data_size(r),
				   hwp_reader__data_size(r) ? "" : " (perf record did not finish: read to end of file)");
		hwp_outbuf__printf(o, "# attr size    : %" PRIu64 "\n", hwp_reader__file_attr_size(r) - 16);
	}
	if (h->hostname)
		hwp_outbuf__printf(o, "# hostname : %s\n", h->hostname);
	if (h->osrelease)
		hwp_outbuf__printf(o, "# os release : %s\n", h->osrelease);
	if (h->version)
		hwp_outbuf__printf(o, "# perf version : %s\n", h->version);
	if (h->arch)
		hwp_outbuf__printf(o, "# arch : %s\n", h->arch);
	if (hwp_header_info__has(h, HWP_FEAT_NRCPUS)) {
		hwp_outbuf__printf(o, "# nrcpus online : %u\n", h->nr_cpus_online);
		hwp_outbuf__printf(o, "# nrcpus avail : %u\n", h->nr_cpus_avail);
	}
	if (h->cpudesc)
		hwp_outbuf__printf(o, "# cpudesc : %s\n", h->cpudesc);
	if (h->cpuid)
		hwp_outbuf__printf(o, "# cpuid : %s\n", h->cpuid);
	if (hwp_header_info__has(h, HWP_FEAT_TOTAL_MEM))
		hwp_outbuf__printf(o, "# total memory : %" PRIu64 " kB\n", h->total_mem_kb);
	if (h->nr_cmdline) {
		hwp_outbuf__puts(o, "# cmdline :");
		for (size_t i = 0; i < h->nr_cmdline; i++)
			hwp_outbuf__printf(o, " %s", h->cmdline[i]);
		hwp_outbuf__putc(o, '\n');
	}
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		hwp_outbuf__printf(o, "# event : name = %s, ids = %zu, ", evsel_name(e, name, sizeof(name)),
				   e->nr_ids);
		format_attr(o, &e->attr);
		hwp_outbuf__putc(o, '\n');
	}
	if (h->nr_pmu_mappings) {
		hwp_outbuf__puts(o, "# pmu mappings:");
		for (size_t i = 0; i < h->nr_pmu_mappings; i++)
			hwp_outbuf__printf(o, "%s %s = %u", i ? "," : "", h->pmu_mappings[i].name,
					   h->pmu_mappings[i].type);
		hwp_outbuf__putc(o, '\n');
	}
	for (size_t i = 0; i < h->nr_pmu_caps; i++) {
		hwp_outbuf__printf(o, "# %s pmu capabilities:", h->pmu_caps[i].pmu_name);
		for (size_t j = 0; j < h->pmu_caps[i].nr_caps; j++)
			hwp_outbuf__printf(o, "%s %s", j ? "," : "", h->pmu_caps[i].caps[j]);
		hwp_outbuf__putc(o, '\n');
	}
	if (h->has_compressed)
		hwp_outbuf__printf(o, "# compressed : %s, level = %u, ratio = %u\n",
				   h->comp_type == 1 ? "Zstd" : "unknown", h->comp_level, h->comp_ratio);
	if (h->nr_build_ids) {
		hwp_outbuf__printf(o, "# build ids : %zu\n", h->nr_build_ids);
		for (size_t i = 0; i < h->nr_build_ids; i++) {
			hwp_outbuf__puts(o, "#   ");
			for (unsigned k = 0; k < h->build_ids[i].size; k++)
				hwp_outbuf__printf(o, "%02x", h->build_ids[i].id[k]);
			hwp_outbuf__printf(o, " %s\n", h->build_ids[i].filename);
		}
	}
	hwp_outbuf__puts(o, "# features :");
	for (unsigned f = 1; f < HWP_FEAT_BITS; f++)
		if (hwp_header_info__has(h, f)) {
			if (f < HWP_FEAT_LAST_KNOWN)
				hwp_outbuf__printf(o, " %s", hwp_feature__name(f));
			else
				hwp_outbuf__printf(o, " #%u", f);
		}
	hwp_outbuf__puts(o, "\n\n");

	hwp_outbuf__puts(o, "records:\n");
	for (unsigned t = 0; t < HWP_RECORD_TYPE_MAX; t++)
		if (st->records[t])
			hwp_outbuf__printf(o, "  %-20s %12" PRIu64 "\n",
					   hwp_record_type__name(t) ? hwp_record_type__name(t) : "?",
					   st->records[t]);
	if (st->records_unknown)
		hwp_outbuf__printf(o, "  %-20s %12" PRIu64 "\n", "unknown (skipped)", st->records_unknown);
	if (st->records_compressed_inner)
		hwp_outbuf__printf(o, "  (%" PRIu64 " of these came out of compressed records)\n",
				   st->records_compressed_inner);

	hwp_outbuf__printf(o, "\nsamples: %" PRIu64 " (user %" PRIu64 ", kernel %" PRIu64 ", other %" PRIu64 ")\n",
			   st->samples, st->samples_user, st->samples_kernel, st->samples_other);
	for (size_t i = 0; i < hwp_reader__nr_evsels(r) && i < HWP_STATS_MAX_EVSELS; i++)
		hwp_outbuf__printf(o, "  %-40s %12" PRIu64 "\n",
				   evsel_name(hwp_reader__evsel(r, i), name, sizeof(name)),
				   st->samples_per_evsel[i]);
	if (st->samples_unknown_id)
		hwp_outbuf__printf(o, "  %-40s %12" PRIu64 "\n", "(unknown sample id: skipped)",
				   st->samples_unknown_id);

	if (st->samples_with_branches) {
		hwp_outbuf__printf(o, "\nbranch stacks: %" PRIu64 " samples, %" PRIu64 " entries, mean depth %.1f%s\n",
				   st->samples_with_branches, st->branch_entries,
				   (double)st->branch_entries / (double)st->samples_with_branches,
				   st->hw_idx_samples ? ", with hw_idx" : "");
		hwp_outbuf__puts(o, "  depth histogram:");
		for (unsigned d = 0; d <= HWP_STATS_MAX_DEPTH; d++)
			if (st->depth_hist[d])
				hwp_outbuf__printf(o, " %u%s:%" PRIu64, d, d == HWP_STATS_MAX_DEPTH ? "+" : "",
						   st->depth_hist[d]);
		hwp_outbuf__puts(o, "\n  fields with data (entries with a non-zero value):\n");
		for (unsigned f = 0; f < HWP_BF_COUNT; f++)
			hwp_outbuf__printf(o, "    %-10s %12" PRIu64 "  %6.2f%%%s\n", hwp_branch_field__name(f),
					   st->branch_field_nonzero[f],
					   pct(st->branch_field_nonzero[f], st->branch_entries),
					   st->branch_field_nonzero[f] || f == HWP_BF_FROM_ZERO ? "" : "  (not populated)");
	}
	hwp_outbuf__printf(o, "\nlost: %" PRIu64 " events (LOST), %" PRIu64 " samples (LOST_SAMPLES); throttled %" PRIu64 " times, unthrottled %" PRIu64 "\n",
			   st->lost_events, st->lost_samples, st->records[HWP_RECORD_THROTTLE],
			   st->records[HWP_RECORD_UNTHROTTLE]);
}

static void json_kv_str(struct hwp_outbuf *o, const char *k, const char *v, bool *first)
{
	if (!v)
		return;
	hwp_outbuf__printf(o, "%s\"%s\":", *first ? "" : ",", k);
	hwp_json__string(o, v);
	*first = false;
}

static void json_bits(struct hwp_outbuf *o, const char *k, uint64_t bits, const char *(*name)(unsigned))
{
	bool first = true;

	hwp_outbuf__printf(o, ",\"%s\":[", k);
	for (unsigned b = 0; b < 64; b++) {
		if (!((bits >> b) & 1))
			continue;
		const char *n = name(b);
		char tmp[32];
		if (!n) {
			snprintf(tmp, sizeof(tmp), "bit%u", b);
			n = tmp;
		}
		hwp_outbuf__printf(o, "%s\"%s\"", first ? "" : ",", n);
		first = false;
	}
	hwp_outbuf__putc(o, ']');
}

static void print_json(struct info_ctx *c)
{
	struct hwp_outbuf *o = c->o;
	const struct hwp_reader *r = c->r;
	const struct hwp_file_stats *st = c->st;
	const struct hwp_header_info *h = hwp_reader__header(r);
	bool first = true;
	char name[128];

	hwp_outbuf__puts(o, "{");
	json_kv_str(o, "file", hwp_reader__path(r), &first);
	json_kv_str(o, "format",
		    hwp_reader__is_text(r) ? "text" : hwp_reader__is_pipe(r) ? "pipe" : "file", &first);
	hwp_outbuf__printf(o, ",\"size\":%" PRIu64 ",\"data_offset\":%" PRIu64 ",\"data_size\":%" PRIu64,
			   hwp_reader__file_size(r), hwp_reader__data_offset(r), hwp_reader__data_size(r));
	json_kv_str(o, "hostname", h->hostname, &first);
	json_kv_str(o, "osrelease", h->osrelease, &first);
	json_kv_str(o, "version", h->version, &first);
	json_kv_str(o, "arch", h->arch, &first);
	json_kv_str(o, "cpudesc", h->cpudesc, &first);
	json_kv_str(o, "cpuid", h->cpuid, &first);
	if (hwp_header_info__has(h, HWP_FEAT_NRCPUS))
		hwp_outbuf__printf(o, ",\"nrcpus_online\":%u,\"nrcpus_avail\":%u", h->nr_cpus_online,
				   h->nr_cpus_avail);
	if (hwp_header_info__has(h, HWP_FEAT_TOTAL_MEM))
		hwp_outbuf__printf(o, ",\"total_mem_kb\":%" PRIu64, h->total_mem_kb);
	hwp_outbuf__puts(o, ",\"cmdline\":[");
	for (size_t i = 0; i < h->nr_cmdline; i++) {
		if (i)
			hwp_outbuf__putc(o, ',');
		hwp_json__string(o, h->cmdline[i]);
	}
	hwp_outbuf__puts(o, "],\"features\":[");
	first = true;
	for (unsigned f = 1; f < HWP_FEAT_BITS; f++)
		if (hwp_header_info__has(h, f)) {
			if (f < HWP_FEAT_LAST_KNOWN)
				hwp_outbuf__printf(o, "%s\"%s\"", first ? "" : ",", hwp_feature__name(f));
			else
				hwp_outbuf__printf(o, "%s\"#%u\"", first ? "" : ",", f);
			first = false;
		}
	hwp_outbuf__puts(o, "],\"build_ids\":[");
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		hwp_outbuf__printf(o, "%s[\"", i ? "," : "");
		for (unsigned k = 0; k < h->build_ids[i].size; k++)
			hwp_outbuf__printf(o, "%02x", h->build_ids[i].id[k]);
		hwp_outbuf__puts(o, "\",");
		hwp_json__string(o, h->build_ids[i].filename);
		hwp_outbuf__putc(o, ']');
	}
	hwp_outbuf__puts(o, "],\"pmu_mappings\":{");
	for (size_t i = 0; i < h->nr_pmu_mappings; i++) {
		if (i)
			hwp_outbuf__putc(o, ',');
		hwp_json__string(o, h->pmu_mappings[i].name);
		hwp_outbuf__printf(o, ":%u", h->pmu_mappings[i].type);
	}
	hwp_outbuf__puts(o, "},\"pmu_caps\":{");
	for (size_t i = 0; i < h->nr_pmu_caps; i++) {
		if (i)
			hwp_outbuf__putc(o, ',');
		hwp_json__string(o, h->pmu_caps[i].pmu_name);
		hwp_outbuf__puts(o, ":[");
		for (size_t j = 0; j < h->pmu_caps[i].nr_caps; j++) {
			if (j)
				hwp_outbuf__putc(o, ',');
			hwp_json__string(o, h->pmu_caps[i].caps[j]);
		}
		hwp_outbuf__putc(o, ']');
	}
	hwp_outbuf__puts(o, "},\"events\":[");
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		const struct hwp_attr *a = &e->attr;
		hwp_outbuf__printf(o, "%s{\"name\":", i ? "," : "");
		hwp_json__string(o, evsel_name(e, name, sizeof(name)));
		hwp_outbuf__printf(o, ",\"type\":%u,\"attr_size\":%u,\"config\":\"0x%" PRIx64 "\",\"config1\":\"0x%" PRIx64 "\",\"config2\":\"0x%" PRIx64 "\",\"sample_period_or_freq\":%" PRIu64 ",\"precise_ip\":%u,\"read_format\":\"0x%" PRIx64 "\",\"n_ids\":%zu,\"samples\":%" PRIu64,
				   a->type, a->size, a->config, a->config1, a->config2, a->sample_period,
				   hwp_attr__precise_ip(a), a->read_format, e->nr_ids,
				   i < HWP_STATS_MAX_EVSELS ? st->samples_per_evsel[i] : 0);
		json_bits(o, "sample_type", a->sample_type, hwp_sample_type__bit_name);
		json_bits(o, "branch_sample_type", a->branch_sample_type, hwp_branch_sample_type__bit_name);
		json_bits(o, "flags", a->flags & ~(3ULL << HWP_ATTR_PRECISE_IP), hwp_attr_flag__name);
		hwp_outbuf__putc(o, '}');
	}
	hwp_outbuf__puts(o, "],\"records\":{");
	first = true;
	for (unsigned t = 0; t < HWP_RECORD_TYPE_MAX; t++)
		if (st->records[t]) {
			hwp_outbuf__printf(o, "%s\"%s\":%" PRIu64, first ? "" : ",",
					   hwp_record_type__name(t) ? hwp_record_type__name(t) : "?", st->records[t]);
			first = false;
		}
	hwp_outbuf__printf(o, "},\"records_unknown\":%" PRIu64 ",\"records_from_compressed\":%" PRIu64,
			   st->records_unknown, st->records_compressed_inner);
	hwp_outbuf__printf(o, ",\"samples_total\":%" PRIu64 ",\"samples_unknown_id\":%" PRIu64 ",\"sample_ip_user_kernel\":[%" PRIu64 ",%" PRIu64 "]",
			   st->samples, st->samples_unknown_id,
			   st->samples - st->samples_unknown_id - st->samples_ip_kernel, st->samples_ip_kernel);
	hwp_outbuf__printf(o, ",\"brstack_samples\":%" PRIu64 ",\"brstack_entries\":%" PRIu64 ",\"brstack_depth_hist\":{",
			   st->samples_with_branches, st->branch_entries);
	first = true;
	for (unsigned d = 0; d <= HWP_STATS_MAX_DEPTH; d++)
		if (st->depth_hist[d]) {
			hwp_outbuf__printf(o, "%s\"%u\":%" PRIu64, first ? "" : ",", d, st->depth_hist[d]);
			first = false;
		}
	hwp_outbuf__puts(o, "},\"br_flags_nonzero\":{");
	for (unsigned f = 0; f < HWP_BF_COUNT; f++)
		hwp_outbuf__printf(o, "%s\"%s\":%" PRIu64, f ? "," : "", hwp_branch_field__name(f),
				   st->branch_field_nonzero[f]);
	hwp_outbuf__printf(o, "},\"lost_events\":%" PRIu64 ",\"lost_samples\":%" PRIu64 ",\"throttle\":%" PRIu64 ",\"unthrottle\":%" PRIu64 ",\"lost_warning\":%s}\n",
			   st->lost_events, st->lost_samples, st->records[HWP_RECORD_THROTTLE],
			   st->records[HWP_RECORD_UNTHROTTLE],
			   lost_total(st) * 100 > st->samples ? "true" : "false");
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data";
	bool json = false;
	int c;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'j':
			json = true;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("info: unexpected argument '%s'", argv[optind]);

	struct hwp_reader *r = cli_open_input(input);
	if (!r)
		return 1;
	static struct hwp_file_stats st; /* 33 KiB: keep it off the stack */
	struct hwp_event ev;
	int n, rc = 0;

	hwp_file_stats__init(&st);
	while ((n = hwp_reader__next(r, &ev)) > 0)
		hwp_file_stats__add(&st, &ev);
	if (n < 0) {
		rc = cli_error("%s", hwp_errmsg());
		hwp_reader__delete(r);
		return rc;
	}
	struct hwp_outbuf out;
	if (hwp_outbuf__init(&out, stdout) < 0) {
		hwp_reader__delete(r);
		return cli_error("out of memory");
	}
	struct info_ctx ctx = { &out, r, &st };
	if (json)
		print_json(&ctx);
	else
		print_text(&ctx);
	int werr = hwp_outbuf__finish(&out);
	if (werr)
		rc = cli_error("error writing output: %s", hwp_strerror(werr));
	if (lost_total(&st) * 100 > st.samples)
		cli_warn("%s: %" PRIu64 " samples lost (%.1f%% of %" PRIu64 " recorded): results under-count; record with a larger buffer (-m) or a lower frequency",
			 hwp_reader__path(r), lost_total(&st), pct(lost_total(&st), st.samples), st.samples);
	hwp_reader__delete(r);
	return rc;
}
