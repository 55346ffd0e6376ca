/* SPDX-License-Identifier: MIT */
/* hwprof pgo: profiles for compilers and post-link optimizers, one binary at a time. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"
#include "cli_flow.h"
#include "cli_report.h"
#include "hwprof/cs_profile.h"
#include "hwprof/hwprof.h"
#include "hwprof/pgo.h"
#include "hwprof/propeller.h"
#include "hwprof/range_profile.h"
#include "hwprof/session.h"
#include "hwprof/stale.h"

static const struct cmd_desc desc = {
	.name = "pgo",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct pgo_opts {
	struct report_opts ro;
	int format; /* enum hwp_pgo_format, -1 unset */
	const char *binary, *output;
	const char *symbol_order; /* --symbol-order FILE (propeller) */
	bool ip_samples; /* --ip-samples */
	bool infer;      /* --infer */
	bool no_infer;   /* --no-infer */
	bool cs_flat;    /* --cs-flat */
	bool cs_no_preinline; /* --cs-no-preinliner */
	bool ips;        /* write the IP-sample profile (set after reading) */
	struct hwp_branch_collect_opts co; /* how the recording was read (again, to place the binary) */
	const char *from; /* --from URL */
	const char *matched_from; /* --matched-from OLD: the recorded binary, --binary the one profiled */
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct pgo_opts *o, struct fleet_source *fs)
{
	const char *names[HWP_PGO_NR_FORMATS + 1] = { NULL };
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		{ .kind = OPT_KIND_CHOICE, .long_name = "format", .value = &o->format, .argh = "F", .choices = names,
		  .flags = OPT_REQUIRED,
		  .err = ": the formats are 'llvm', 'bolt', 'bolt-pa', 'autofdo', 'propeller' and 'llvm-cs'",
		  .help = "'llvm': LLVM's sample profile (text) as llvm-profgen writes it, for clang "
			   "-fprofile-sample-use= (the binary needs DWARF; -fdebug-info-for-profiling); 'bolt': "
			   "BOLT's fdata as perf2bolt writes it (taken branches with mispredicts, fall-through edges "
			   "of the blocks each range runs over) for llvm-bolt -data=; 'bolt-pa': BOLT's "
			   "pre-aggregated text (B and F lines) for perf2bolt --pa and llvm-bolt --pa; 'autofdo': "
			  "AutoFDO's unsymbolized text, as 'hwprof ranges --format autofdo'; 'propeller': the "
			  "cluster file of clang -fbasic-block-sections=list= (the blocks of a binary built with "
			  "-fbasic-block-address-map laid out by ext-TSP, blocks never run split off cold); 'llvm-cs': "
			  "CSSPGO's probe-based sample profile as llvm-profgen writes it, for a binary built with clang "
			  "-fpseudo-probe-for-profiling" },
		OPT_STRING(0, "binary", &o->binary, "PATH",
			   "the binary to profile; its build-id must be the recorded one (default: the main "
			   "executable; with --matched-from, a later build)"),
		OPT_STRING(0, "matched-from", &o->matched_from, "OLD",
			   "a stale profile: the recording is of OLD, an earlier build of the program; its counts "
			   "are matched onto --binary NEW (functions by name and CFG hash, blocks by opcode and "
			   "callee anchors) and the profile written at NEW's addresses; unmatched code is left "
			   "out, and one line says how much of the profile was matched (-v: per function)"),
		OPT_STRING('o', "output", &o->output, "FILE", "write the profile to FILE (default: stdout)"),
		OPT_STRING(0, "symbol-order", &o->symbol_order, "FILE",
			   "with --format propeller: also write the function order that lld's "
			   "--symbol-ordering-file reads to FILE"),
		OPT_REPORT_SYMFS(&o->ro),
		OPT_BOOL(0, "ip-samples", &o->ip_samples,
			 "profile the samples' IPs even when the recording has branch stacks"),
		OPT_BOOL(0, "cs-flat", &o->cs_flat,
			 "with --format llvm-cs: one flat profile per calling context, as llvm-profgen writes "
			 "with --csspgo-preinliner=0 --gen-cs-nested-profile=0 --csprof-merge-cold-context=0 "
			 "(no pre-inliner, no cold-context merge, not nested)"),
		OPT_BOOL(0, "cs-no-preinliner", &o->cs_no_preinline,
			 "with --format llvm-cs: without llvm-profgen's pre-inliner, as its --csspgo-preinliner=0 "
			 "writes: contexts under the hot threshold merged into base profiles, the others nested"),
		OPT_BOOL(0, "infer", &o->infer,
			 "flow-consistent counts (as 'hwprof blocks --infer'): the profile of each function's "
			 "block counts and branches adjusted to conserve flow with the least change to the "
			 "samples; -v prints the profile bias per function before and after ('llvm', 'bolt' "
			 "and 'bolt-pa' from branch stacks); the default for branch stacks of 16 entries or "
			 "fewer"),
		OPT_BOOL(0, "no-infer", &o->no_infer,
			 "the sampled counts, never adjusted (the profile llvm-profgen and perf2bolt write)"),
		OPT_STRING(0, "from", &o->from, "URL",
			   "instead of a recording: the rows 'hwprof push' sent to the ClickHouse server at URL, "
			   "summed over hosts (with --build-id, the binary to profile; --hosts, --since, --until "
			   "and --table select rows as for 'hwprof fleet')"),
		OPT_FLEET_FILTER(fs),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	for (int i = 0; i < HWP_PGO_NR_FORMATS; i++)
		names[i] = hwp_pgo__format_name(i);
	memset(o, 0, sizeof(*o));
	report_opts__init(&o->ro);
	o->format = -1;
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (!o->from && (fs->flt.build_id || fs->hosts_arg || fs->flt.since || fs->flt.until || fs->table))
		return cli_error("pgo: --build-id, --hosts, --since, --until and --table select the rows of --from URL");
	if (o->format < 0)
		return cli_error("pgo: which profile? --format llvm, bolt, bolt-pa, autofdo, propeller or llvm-cs");
	if (o->matched_from && (!o->binary || o->from || o->ip_samples))
		return cli_error("pgo: --matched-from OLD carries a branch-stack recording of OLD over to --binary NEW: "
				 "give --binary, and neither --from nor --ip-samples");
	if (o->matched_from && (o->format == HWP_PGO_AUTOFDO || o->format == HWP_PGO_LLVM_CS))
		return cli_error("pgo: --matched-from: the %s format needs %s, which are not matched onto NEW: "
				 "--format llvm writes the profile clang reads",
				 o->format == HWP_PGO_AUTOFDO ? "autofdo" : "llvm-cs",
				 o->format == HWP_PGO_AUTOFDO ? "sample addresses" : "call contexts and pseudo-probes");
	if (o->symbol_order && o->format != HWP_PGO_PROPELLER)
		return cli_error("pgo: --symbol-order is Propeller's function order: give it with --format propeller");
	if (o->format == HWP_PGO_PROPELLER && o->ip_samples)
		return cli_error("pgo: --format propeller lays out basic blocks by the edges between them, which "
				 "IP samples do not have: leave out --ip-samples");
	if (o->infer && o->no_infer)
		return cli_error("pgo: --infer and --no-infer: give one");
	if (o->infer && o->from)
		return cli_error("pgo: --infer: the rows of --from URL are summed counts per branch and range, without "
				 "the binaries' blocks the inference balances: infer from a recording");
	if (o->infer && (o->format == HWP_PGO_AUTOFDO || o->format == HWP_PGO_PROPELLER || o->ip_samples))
		return cli_error("pgo: --infer adjusts the counts of branch stacks into 'llvm', 'bolt' or 'bolt-pa' "
				 "profiles (AutoFDO's text keeps the recorded addresses)");
	return -1;
}

/*
 * The module --binary names. A recording with no mapping for it (perf
 * script text, a process attached to late) is read again with the binary
 * placed where its code explains the recorded branches.
 */
static int binary_module(struct report_input *in, const struct pgo_opts *o)
{
	struct hwp_pgo_placement pl;
	int module = hwp_pgo__binary_module(in->collector, o->binary, &pl);

	if (module != -EAGAIN)
		return module;
	if (!strcmp(o->ro.input, "-")) {
		cli_error("%s: no mapping for it in the recording, which must be read twice to "
			  "place it: give the recording as a file, not on standard input", o->binary);
		return -EIO; /* said */
	}
	cli_warn("%s: no mapping for it in %s: placed at load bias 0x%" PRIx64
		 " (%.1f%% of the sampled branches there agree with its code)",
		 o->binary, o->ro.input, pl.bias, 100.0 * (double)pl.matched / (double)pl.tried);
	report_input__close(in);
	if (report_input__open(in, &o->ro, &o->co))
		return -EIO;
	if (hwp_session__assume_mapped(in->session, o->binary, pl.bias) < 0 ||
	    hwp_branch_collector__read_jobs(in->collector, o->ro.jobs) < 0) {
		cli_error("%s", hwp_errmsg());
		return -EIO;
	}
	if (report_input__check_read(in, &o->ro))
		return -EIO;
	return hwp_range_profile__module_for_file(in->collector, o->binary);
}

/* Propeller's cluster file to -o and its function order to --symbol-order. */
static int write_propeller(struct hwp_branch_collector *c, int module, const struct pgo_opts *o)
{
	FILE *cf = stdout, *of = NULL;
	struct hwp_propeller_stats st;
	int rc = 0;

	if (o->output && strcmp(o->output, "-") && !(cf = fopen(o->output, "w")))
		return cli_error("%s: cannot write: %s", o->output, strerror(errno));
	if (o->symbol_order && !(of = fopen(o->symbol_order, "w")))
		rc = cli_error("%s: cannot write: %s", o->symbol_order, strerror(errno));
	else if (hwp_propeller__write(c, module, cf, of, &st) < 0)
		rc = cli_error("%s", hwp_errmsg());
	else
		cli_info("propeller: %llu of %llu functions laid out (%llu blocks run, %llu cold; %llu kept in "
			 "address order, too large for ext-TSP), %llu left out (a name two functions share); "
			 "ext-TSP score %.4g -> %.4g",
			 (unsigned long long)st.profiled, (unsigned long long)st.functions,
			 (unsigned long long)st.hot_blocks, (unsigned long long)st.cold_blocks,
			 (unsigned long long)st.address_order, (unsigned long long)st.ambiguous, st.score_before,
			 st.score_after);
	if (of && fclose(of) && !rc)
		rc = cli_error("%s: write failed: %s", o->symbol_order, strerror(errno));
	if (cf != stdout && fclose(cf) && !rc)
		rc = cli_error("%s: write failed: %s", o->output, strerror(errno));
	return rc;
}

static int write_plain(struct hwp_branch_collector *c, int module, const struct pgo_opts *o)
{
	if (o->format == HWP_PGO_PROPELLER && !o->ips)
		return write_propeller(c, module, o);
	return hwp_pgo__write_file(c, module, o->format, o->ips, o->output) < 0 ? cli_error("%s", hwp_errmsg()) : 0;
}

/* Whether the recording read into IN gets flow-consistent counts without
   --infer (a format whose counts inference adjusts, short branch stacks);
   if so, says it. */
static bool infer_by_default(struct report_input *in, const struct pgo_opts *o)
{
	bool adjusted = o->format == HWP_PGO_LLVM || o->format == HWP_PGO_BOLT || o->format == HWP_PGO_BOLT_PA;

	if (o->infer || o->no_infer || o->ips || !adjusted || !hwp_flow__infer_helps(in->collector))
		return false;
	cli_flow_auto_note(in->collector);
	return true;
}

/* The profile of C: of its flow-consistent counts with --infer or INFER. */
static int write_with(struct hwp_branch_collector *c, int module, const struct pgo_opts *o, bool infer)
{
	struct hwp_flow_opts fo = { .sz = sizeof(fo), .infer = true };
	struct hwp_flow *f;
	struct hwp_branch_collector *consistent;
	int rc;

	if (!o->infer && !infer)
		return write_plain(c, module, o);
	/* --infer: the profile of the flow-consistent counts */
	if (hwp_branch_collector__check_ranges(c) < 0 || !(f = hwp_flow__new(c, &fo)))
		return cli_error("%s", hwp_errmsg());
	cli_flow_bias(f);
	if (!(consistent = hwp_flow__consistent_collector(f, c))) {
		hwp_flow__delete(f);
		return cli_error("%s", hwp_errmsg());
	}
	rc = hwp_pgo__write_file(consistent, module, o->format, false, o->output) < 0 ? cli_error("%s", hwp_errmsg())
										     : 0;
	hwp_branch_collector__delete(consistent);
	hwp_flow__delete(f);
	return rc;
}

static void stale_func(void *ctx, const struct hwp_stale_func *f)
{
	(void)ctx;
	cli_info("stale: %s -> %s: %s, %u of %u blocks, %llu of %llu branch counts, %llu of %llu instructions run",
		 f->name, f->new_name ? f->new_name : "-", hwp_stale__how_name(f->how), f->blocks_matched, f->blocks,
		 (unsigned long long)f->branches_matched, (unsigned long long)f->branches,
		 (unsigned long long)f->insns_matched, (unsigned long long)f->insns);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

/* --matched-from OLD: the recording's counts of OLD moved onto --binary NEW. */
static int write_stale(struct report_input *in, const struct pgo_opts *o)
{
	struct hwp_stale_stats st;
	struct hwp_branch_collector *c;
	int rc, module, nm;
	struct pgo_opts oo = *o;

	oo.binary = o->matched_from;
	if ((module = binary_module(in, &oo)) == -EIO)
		return 1; /* said */
	if (module < 0)
		return cli_error("%s", hwp_errmsg());
	if (!(c = hwp_stale__match(in->collector, module, o->matched_from, o->binary, &nm, &st, stale_func, NULL)))
		return cli_error("%s", hwp_errmsg());
	if (!cli_quiet())
		fprintf(stderr,
			"hwprof: stale profile: %llu of %llu functions run matched (%llu same, %llu edited, %llu renamed), "
			"%llu left unprofiled; matched: %.1f%% of the taken-branch counts (%llu of %llu), %.1f%% of the "
			"instructions run (%llu of %llu)\n",
			(unsigned long long)(st.functions - st.by_how[HWP_STALE_UNMATCHED]),
			(unsigned long long)st.functions, (unsigned long long)st.by_how[HWP_STALE_SAME],
			(unsigned long long)st.by_how[HWP_STALE_EDITED], (unsigned long long)st.by_how[HWP_STALE_RENAMED],
			(unsigned long long)st.by_how[HWP_STALE_UNMATCHED], pct(st.branches_matched, st.branches),
			(unsigned long long)st.branches_matched, (unsigned long long)st.branches,
			pct(st.insns_matched, st.insns), (unsigned long long)st.insns_matched,
			(unsigned long long)st.insns);
	rc = write_with(c, nm, o, infer_by_default(in, o));
	hwp_branch_collector__delete(c);
	return rc;
}

/* Samples with call chains: CSSPGO's contexts, from a second pass over
   the recordings now that the binary is known. */
static int write_cs(struct report_input *in, int module, const struct pgo_opts *o)
{
	const char *path = hwp_symbolizer__module_file(report_input__symbolizer(in), module);
	struct hwp_cs_opts co = { .sz = sizeof(co), .symfs = o->ro.symfs,
				  .format = o->cs_flat		? HWP_CS_FORMAT_PROBES_FLAT
					    : o->cs_no_preinline ? HWP_CS_FORMAT_PROBES_NESTED
								 : HWP_CS_FORMAT_PROBES };
	FILE *fp = stdout;
	size_t n;
	const char *const *inputs = report_opts__inputs(&o->ro, &n);
	int err;

	if (!path)
		return cli_error("%s", hwp_errmsg());
	if (o->output && strcmp(o->output, "-") && !(fp = fopen(o->output, "w")))
		return cli_error("%s: cannot write: %s", o->output, strerror(errno));
	err = hwp_cs_profile__write(inputs, n, path, &co, fp);
	if (fp != stdout && fclose(fp) && !err)
		return cli_error("%s: write failed: %s", o->output, strerror(errno));
	return err < 0 ? cli_error("%s", hwp_errmsg()) : 0;
}

static int write_profile(struct report_input *in, const struct pgo_opts *o)
{
	if (o->matched_from)
		return write_stale(in, o);
	int module = o->binary ? binary_module(in, o) : hwp_range_profile__default_module(in->collector);

	if (module == -EIO)
		return 1; /* said */
	if (module < 0)
		return cli_error("%s", hwp_errmsg());
	if (o->format == HWP_PGO_LLVM_CS && !o->infer && (hwp_session__sample_types(in->session) & HWP_SAMPLE_CALLCHAIN))
		return write_cs(in, module, o);
	return write_with(in->collector, module, o, infer_by_default(in, o));
}

/* Reads the recording; decides between the branch-stack profile and the
   IP-sample one (O->ips). Returns -1 to go on, else the exit code. */
static int load(struct report_input *in, struct pgo_opts *o)
{
	hwp_pgo__collect_opts(o->format, o->ip_samples, &o->co);
	int rc = report_input__open(in, &o->ro, &o->co);

	if (rc)
		return rc;
	if (hwp_branch_collector__read_jobs(in->collector, o->ro.jobs) < 0)
		return cli_error("%s", hwp_errmsg());
	o->ips = hwp_pgo__ip_profile(in->collector, o->ip_samples);
	if (o->ips && o->infer)
		return cli_error("pgo: --infer: %s has no branch stacks to infer counts from", o->ro.input);
	if (!o->ips)
		return report_input__check_read(in, &o->ro) ? 1 : -1;
	if (o->format == HWP_PGO_PROPELLER)
		return cli_error("pgo: %s: no branch stacks: Propeller's block layout needs the taken branches and "
				 "fall-through ranges of branch records (record -b, or --emulate)", o->ro.input);
	if (o->format == HWP_PGO_LLVM_CS)
		return cli_error("pgo: %s: CSSPGO's probe profile counts probes along branch-stack ranges: a "
				 "recording without branch stacks has none (--format llvm writes the IP-sample profile)",
				 o->ro.input);
	if (o->format == HWP_PGO_BOLT_PA)
		return cli_error("pgo: %s: BOLT's pre-aggregated text (B, F and f lines) has no line for IP "
				 "samples without branch stacks: --format bolt writes them as perf2bolt -nl does",
				 o->ro.input);
	cli_warn("%s: %s %llu IP samples: the profile is weaker than one from branch stacks (%s)", o->ro.input,
		 o->ip_samples ? "--ip-samples: from" : "no branch stacks: from",
		 (unsigned long long)hwp_branch_collector__stats(in->collector)->ip_samples,
		 hwp_pgo__ip_samples_lack(o->format));
	return -1;
}

/*
 * pgo --from: the fleet's branch and range rows, per recording, as the
 * tables a collector of each recording would hold (every module's: a
 * profile counts branches into the binary from others too), the binary's
 * module by its build-id, and the sum of the recordings' profiles (what
 * llvm-profdata merge or merge-fdata makes of the local profiles: neither
 * format's profile of summed counts is the sum of the profiles).
 */
static int pgo_from(const struct pgo_opts *o, struct fleet_source *fs, const char *build_id)
{
	struct hwp_symbolizer_opts so = { .sz = sizeof(so), .symfs = o->ro.symfs };
	struct hwp_branch_collector **cs = NULL;
	struct hwp_export **recs;
	size_t n, nc = 0;
	int rc = 0, module = -1;

	if (o->format == HWP_PGO_AUTOFDO)
		return cli_error("pgo: --from: the autofdo format needs sample addresses, which the rows do not keep");
	fs->flt.build_id = NULL; /* every module's rows */
	fs->flt.kind = -1;
	if (!(recs = hwp_fleet__fetch_recordings(fs->fleet, &fs->flt, &n)))
		return cli_error("pgo: --from: %s", hwp_errmsg());
	if (!(fs->sym = hwp_symbolizer__new(&so)) || !(cs = calloc(n ? n : 1, sizeof(*cs)))) {
		rc = cli_error("%s", fs->sym ? "out of memory" : hwp_errmsg());
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		int m;
		struct hwp_branch_collector *c = hwp_pgo__rows_collector(recs[i], fs->sym, hwp_fleet__url(fs->fleet),
									 build_id, &m);

		if (!c && errno == ENOENT)
			continue; /* a recording without the binary adds nothing */
		if (!c)
			rc = cli_error("%s", hwp_errmsg());
		else if (module >= 0 && m != module)
			rc = cli_error("pgo: --from: build-id %s names two binaries in the rows", build_id);
		else
			cs[nc++] = c, module = m;
		if (rc && c)
			hwp_branch_collector__delete(c);
	}
	if (!rc && !nc)
		rc = cli_error("pgo: --from %s: no rows of build-id %s%s", hwp_fleet__url(fs->fleet), build_id,
			       fs->flt.nhosts || fs->flt.since || fs->flt.until ? " for these hosts and times" : "");
	if (!rc && hwp_pgo__write_sum(cs, nc, module, o->format, o->output) < 0)
		rc = cli_error("%s", hwp_errmsg());
out:
	for (size_t i = 0; i < nc; i++)
		hwp_branch_collector__delete(cs[i]);
	free(cs);
	for (size_t i = 0; i < n; i++)
		hwp_export__delete(recs[i]);
	free(recs);
	return rc;
}

int cmd_pgo(int argc, char **argv)
{
	struct pgo_opts o;
	struct fleet_source fs;
	int rc;

	fleet_source__init(&fs);
	if ((rc = parse_opts(argc, argv, &o, &fs)) >= 0)
		return rc;
	if (o.from) { /* instead of a recording: the fleet's rows */
		const char *bid = fs.flt.build_id;

		if (!(rc = fleet_source__connect(&fs, "pgo", o.from))) {
			if (!bid)
				rc = cli_error("pgo: --from: which binary? give its --build-id");
			else if (o.binary)
				rc = cli_error("pgo: --from: the binary is named by --build-id, not --binary");
			else if (o.ip_samples)
				rc = cli_error("pgo: --from: the fleet's rows keep no IP samples");
			else
				rc = pgo_from(&o, &fs, bid);
		}
		fleet_source__close(&fs);
		return rc;
	}
	struct report_input in;
	rc = load(&in, &o);
	if (rc < 0) {
		const struct hwp_range_stats *st = hwp_branch_collector__range_stats(in.collector);

		if (!o.ips && st->unchecked)
			cli_warn("%llu of %llu accepted ranges were not decoded (binary missing, kernel, or no decoder)",
				 (unsigned long long)st->unchecked, (unsigned long long)st->accepted);
		if (o.format == HWP_PGO_LLVM_CS && !o.ips && o.infer &&
		    (hwp_session__sample_types(in.session) & HWP_SAMPLE_CALLCHAIN))
			cli_warn("%s: --infer: the probe profile without calling contexts, from the flow-consistent "
				 "branch-stack counts", o.ro.input);
		rc = write_profile(&in, &o);
	}
	report_input__close(&in);
	return rc;
}
