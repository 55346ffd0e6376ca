/* SPDX-License-Identifier: MIT */
/* hwprof advise: ranked findings with their evidence and what to do. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "report_tables.h"
#include "hwprof/advise.h"
#include "hwprof/branch_report.h"

static const struct cmd_desc desc = {
	.name = "advise",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Findings, largest estimated share of the work first, each with its evidence\n"
		"and what to do about it:\n"
		"  biased-branch     a hot forward conditional branch taken most of the time\n"
		"                    (its taken probability's 95% lower bound >= --bias, 75%)\n"
		"  mispredict        a branch mispredicted per execution (lower bound >=\n"
		"                    --mispredict-rate, 10%: a 95/5 data branch mispredicts ~5%)\n"
		"  monomorphic-call  an indirect call whose top target's share has a lower\n"
		"                    bound >= --dominance (90%)\n"
		"  spread-function   a hot function whose hot blocks (90% of its work) touch\n"
		"                    >= --spread (1.5) times the cache lines their bytes need\n"
		"  multimodal-block  a block whose latency has two or more peaks (recordings\n"
		"                    with cycle counts: hwprof timing's modes); its share is\n"
		"                    of all cycles\n"
		"  dram-loads        a source line whose sampled loads come from DRAM in >=\n"
		"                    --dram-share (20%) of them (memory samples: record --mem)\n"
		"  false-sharing     a cache line with HITMs written by several threads at\n"
		"                    different offsets; memory findings' share is of all\n"
		"                    sampled load latency\n"
		"The share is of the sampled instructions executed (mispredicts: their\n"
		"penalty, --penalty cycles each, over the instructions at one per cycle);\n"
		"findings below --min-share (0.5%) and branches with fewer than\n"
		"--min-executions (200) sampled executions are left out.\n",
};

struct advise_opts {
	struct flow_opts fo;
	struct hwp_advise_opts a;
	int kind; /* -1: all */
};

/* --bias PCT and the other thresholds: a percentage in (0, 100], kept as a fraction */
#define OPT_ADVISE_PCT(l, v, h) \
	{ .kind = OPT_KIND_DOUBLE, .long_name = l, .value = OPT_PTR(double, v), .argh = "PCT", .dmin = 0, \
	  .dmax = 100, .scale = 0.01, .flags = OPT_MIN_OPEN, .err = " is not a percentage in (0, 100]", .help = h }

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct advise_opts *o)
{
	const char *kinds[HWP_FIND_KIND_NR + 1] = { NULL };
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->fo.ro),
		OPT_CHOICE(0, "kind", &o->kind, "K", kinds,
			   ": the kinds are biased-branch, mispredict, monomorphic-call, spread-function, "
			   "multimodal-block, dram-loads and false-sharing",
			   "only findings of kind K"),
		OPT_REPORT_LIMIT(&o->fo.limit),
		OPT_ADVISE_PCT("min-share", &o->a.min_share, "leave out findings below PCT% of the work (default 0.5)"),
		OPT_U64(0, "min-executions", &o->fo.min, "N", 0, UINT64_MAX, NULL,
			"leave out branches with fewer sampled executions (default 200)"),
		OPT_ADVISE_PCT("bias", &o->a.bias,
			       "biased-branch: lower bound of the taken probability (default 75)"),
		OPT_ADVISE_PCT("mispredict-rate", &o->a.mispredict_rate,
			       "mispredict: lower bound of the mispredicts per execution (default 10)"),
		OPT_ADVISE_PCT("dominance", &o->a.dominance,
			       "monomorphic-call: lower bound of the top target's share (default 90)"),
		{ .kind = OPT_KIND_DOUBLE, .long_name = "spread", .value = &o->a.spread, .argh = "X", .dmin = 1,
		  .dmax = INFINITY, .flags = OPT_MIN_OPEN, .err = " is not a ratio above 1",
		  .help = "spread-function: cache lines touched over those the bytes need (default 1.5)" },
		{ .kind = OPT_KIND_DOUBLE, .long_name = "penalty", .value = &o->a.penalty, .argh = "CYCLES",
		  .dmin = 0, .dmax = INFINITY, .flags = OPT_MIN_OPEN, .err = " is not a positive number",
		  .help = "cycles a mispredict costs (default 15)" },
		OPT_ADVISE_PCT("dram-share", &o->a.dram_share,
			       "dram-loads: share of a line's sampled loads from DRAM (default 20)"),
		OPT_REPORT_OUTPUT(&o->fo.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	for (unsigned k = 0; k < HWP_FIND_KIND_NR; k++)
		kinds[k] = hwp_finding_kind__name(k);
	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->a.sz = sizeof(o->a);
	o->kind = -1;
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	o->a.min_executions = o->fo.min > 1 ? o->fo.min : 0;
	return -1;
}

/* The measure, as a sentence's evidence. */
static void evidence(const struct hwp_finding *f, char *buf, size_t len)
{
	switch (f->kind) {
	case HWP_FIND_BIASED_BRANCH:
		snprintf(buf, len, "taken %.1f%% of %" PRIu64 " sampled executions (95%% CI %.1f-%.1f%%)",
			 100 * f->value, f->samples, 100 * f->lo, 100 * f->hi);
		break;
	case HWP_FIND_MISPREDICT:
		snprintf(buf, len, "mispredicted in %.1f%% of %" PRIu64 " sampled executions (95%% CI %.1f-%.1f%%; "
			 "taken mispredicts only: a lower bound)", 100 * f->value, f->samples, 100 * f->lo, 100 * f->hi);
		break;
	case HWP_FIND_MONOMORPHIC:
		snprintf(buf, len, "one target takes %.1f%% of %" PRIu64 " sampled calls (95%% CI %.1f-%.1f%%)",
			 100 * f->value, f->samples, 100 * f->lo, 100 * f->hi);
		break;
	case HWP_FIND_DRAM_LOADS:
		snprintf(buf, len, "%" PRIu64 " of its %" PRIu64 " sampled loads (%.1f%%, 95%% CI %.1f-%.1f%%) came from "
			 "DRAM%s", f->mem_events, f->mem_loads, 100 * f->value, 100 * f->lo, 100 * f->hi,
			 f->modelled ? "; data sources modelled by the emulator's cache" : "");
		break;
	case HWP_FIND_FALSE_SHARING:
		snprintf(buf, len, "cache line 0x%" PRIx64 ": %u threads write offsets 0x%x and 0x%x; %" PRIu64
			 " of %" PRIu64 " sampled accesses HITM (found modified in another core's cache)%s",
			 f->data_addr, f->threads, f->offset[0], f->offset[1], f->mem_events, f->mem_samples,
			 f->modelled ? "; modelled by the emulator's cache" : "");
		break;
	case HWP_FIND_MULTIMODAL_BLOCK:
		snprintf(buf, len, "%.0f latency peaks in %" PRIu64 " samples: %" PRIu32 " cycles (%.0f%%) and %" PRIu32
			 " cycles (%.0f%%)%s", f->value, f->samples, f->mode_cycles[0], 100 * f->mode_share[0],
			 f->mode_cycles[1], 100 * f->mode_share[1], f->modelled ? "; cycles modelled by the emulator" : "");
		break;
	default:
		snprintf(buf, len, "its hot blocks (90%% of its work, %" PRIu64 " bytes) touch %" PRIu64
			 " cache lines where %" PRIu64 " would do (%.1fx)", f->bytes, f->lines, f->min_lines, f->value);
		break;
	}
}

static void print_text(struct hwp_symbolizer *sym, const struct hwp_finding *f, size_t n, uint64_t limit, int kind)
{
	char where[512], src[512], fn[512], ev[512], tg[512];
	uint64_t shown = 0;

	for (size_t i = 0; i < n && shown < limit; i++) {
		if (kind >= 0 && f[i].kind != kind)
			continue;
		shown++;
		hwp_loc__format_addr(sym, &f[i].loc, where, sizeof(where));
		hwp_loc__format_srcline(sym, &f[i].loc, src, sizeof(src));
		hwp_loc__format_dso(sym, &f[i].loc, fn, sizeof(fn));
		evidence(&f[i], ev, sizeof(ev));
		printf("%" PRIu64 ". %-17s %s  %s  (%s)   est. %.1f%% of the work\n", shown, hwp_finding_kind__name(f[i].kind),
		       where, src, fn, 100 * f[i].share);
		printf("   %s\n", ev);
		if (f[i].kind == HWP_FIND_FALSE_SHARING && f[i].code2.module >= 0) {
			hwp_loc__format_addr(sym, &f[i].code2, tg, sizeof(tg));
			hwp_loc__format_srcline(sym, &f[i].code2, src, sizeof(src));
			printf("   the other writer: %s  %s\n", tg, src);
		}
		if (f[i].target.module >= 0 && f[i].kind == HWP_FIND_MONOMORPHIC) {
			hwp_loc__format_addr(sym, &f[i].target, tg, sizeof(tg));
			printf("   dominant target: %s\n", tg);
		}
		printf("   -> %s\n   [technique: %s]\n\n", hwp_finding_kind__action(f[i].kind),
		       hwp_finding_kind__technique(f[i].kind));
	}
	if (!shown)
		printf("no findings above the thresholds\n");
}

enum { A_RANK, A_KIND, A_SHARE, A_VALUE, A_LO, A_HI, A_SAMPLES, A_BYTES, A_LINES, A_MIN_LINES, A_MODE1,
       A_MODE1_PCT, A_MODE2, A_MODE2_PCT, A_EVENTS, A_THREADS, A_OFFSET1, A_OFFSET2, A_DATA_ADDR, A_WHERE, A_SRC,
       A_ACTION, A_TECHNIQUE, A_NCOLS };

struct hwp_table *advise_table(struct hwp_symbolizer *sym, const struct hwp_finding *f, size_t n, uint64_t limit,
			       int kind, enum hwp_table_format fmt)
{
	static const struct {
		const char *title, *key;
		enum hwp_col_kind kind;
	} cols[A_NCOLS] = {
		[A_RANK] = { "Rank", "rank", HWP_COL_COUNT },
		[A_KIND] = { "Kind", "kind", HWP_COL_TEXT },
		[A_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT },
		[A_VALUE] = { "Value", "value_percent", HWP_COL_PERCENT },
		[A_LO] = { "Low", "low_percent", HWP_COL_PERCENT },
		[A_HI] = { "High", "high_percent", HWP_COL_PERCENT },
		[A_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT },
		[A_BYTES] = { "Hot Bytes", "hot_bytes", HWP_COL_COUNT },
		[A_LINES] = { "Lines", "cache_lines", HWP_COL_COUNT },
		[A_MIN_LINES] = { "Lines Needed", "cache_lines_needed", HWP_COL_COUNT },
		[A_MODE1] = { "Fast Mode", "fast_mode_cycles", HWP_COL_COUNT },
		[A_MODE1_PCT] = { "Fast %", "fast_mode_percent", HWP_COL_PERCENT },
		[A_MODE2] = { "Slow Mode", "slow_mode_cycles", HWP_COL_COUNT },
		[A_MODE2_PCT] = { "Slow %", "slow_mode_percent", HWP_COL_PERCENT },
		[A_EVENTS] = { "Events", "events", HWP_COL_COUNT },
		[A_THREADS] = { "Threads", "threads", HWP_COL_COUNT },
		[A_OFFSET1] = { "Offset", "offset1", HWP_COL_HEX },
		[A_OFFSET2] = { "Offset 2", "offset2", HWP_COL_HEX },
		[A_DATA_ADDR] = { "Data Address", "data_addr", HWP_COL_HEX },
		[A_WHERE] = { "Where", "where", HWP_COL_TEXT },
		[A_SRC] = { "Source Line", "srcline", HWP_COL_TEXT },
		[A_ACTION] = { "Action", "action", HWP_COL_TEXT },
		[A_TECHNIQUE] = { "Technique", "technique", HWP_COL_TEXT },
	};
	struct hwp_table *t = hwp_table__new();
	uint64_t shown = 0;
	char buf[1024];

	if (!t)
		return NULL;
	for (size_t k = 0; k < A_NCOLS; k++)
		hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind,
					    k == A_WHERE || k == A_SRC ? HWP_SHOW_TEXT : HWP_SHOW_ALL);
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET);
	hwp_report__add_loc_columns(t, HWP_LOC_SECOND);
	for (size_t i = 0; i < n && shown < limit; i++) {
		/* a spread is a ratio and a multimodal block counts peaks, not percentages */
		bool spread = f[i].kind == HWP_FIND_SPREAD_FUNCTION || f[i].kind == HWP_FIND_MULTIMODAL_BLOCK;

		if (kind >= 0 && f[i].kind != kind)
			continue;
		hwp_table__new_row(t);
		hwp_table__set_count(t, A_RANK, ++shown);
		hwp_table__set_text(t, A_KIND, hwp_finding_kind__name(f[i].kind));
		hwp_table__set_real(t, A_SHARE, 100 * f[i].share);
		hwp_table__set_real(t, A_VALUE, spread ? f[i].value : 100 * f[i].value);
		if (!spread) {
			hwp_table__set_real(t, A_LO, 100 * f[i].lo);
			hwp_table__set_real(t, A_HI, 100 * f[i].hi);
		} else if (f[i].kind == HWP_FIND_SPREAD_FUNCTION) {
			hwp_table__set_count(t, A_BYTES, f[i].bytes);
			hwp_table__set_count(t, A_LINES, f[i].lines);
			hwp_table__set_count(t, A_MIN_LINES, f[i].min_lines);
		} else if (f[i].kind == HWP_FIND_MULTIMODAL_BLOCK) {
			hwp_table__set_count(t, A_MODE1, f[i].mode_cycles[0]);
			hwp_table__set_real(t, A_MODE1_PCT, 100 * f[i].mode_share[0]);
			hwp_table__set_count(t, A_MODE2, f[i].mode_cycles[1]);
			hwp_table__set_real(t, A_MODE2_PCT, 100 * f[i].mode_share[1]);
		}
		hwp_table__set_count(t, A_SAMPLES, f[i].samples);
		if (f[i].kind == HWP_FIND_DRAM_LOADS || f[i].kind == HWP_FIND_FALSE_SHARING)
			hwp_table__set_count(t, A_EVENTS, f[i].mem_events); /* DRAM loads, HITMs */
		if (f[i].kind == HWP_FIND_FALSE_SHARING) {
			hwp_table__set_count(t, A_THREADS, f[i].threads);
			hwp_table__set_count(t, A_OFFSET1, f[i].offset[0]);
			hwp_table__set_count(t, A_OFFSET2, f[i].offset[1]);
			hwp_table__set_count(t, A_DATA_ADDR, f[i].data_addr);
		}
		hwp_table__set_text(t, A_ACTION, hwp_finding_kind__action(f[i].kind));
		hwp_table__set_text(t, A_TECHNIQUE, hwp_finding_kind__technique(f[i].kind));
		if (table_for_people(fmt)) {
			hwp_loc__format_addr(sym, &f[i].loc, buf, sizeof(buf));
			hwp_table__set_text(t, A_WHERE, buf);
			hwp_loc__format_srcline(sym, &f[i].loc, buf, sizeof(buf));
			hwp_table__set_text(t, A_SRC, buf);
			continue;
		}
		hwp_report__set_loc(t, A_NCOLS, sym, &f[i].loc);
		if (f[i].target.module >= 0)
			hwp_report__set_loc(t, A_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &f[i].target);
		if (f[i].code2.module >= 0)
			hwp_report__set_loc(t, A_NCOLS + 2 * HWP_REPORT_LOC_COLUMNS, sym, &f[i].code2);
	}
	return t;
}

static int print_data(struct hwp_symbolizer *sym, const struct hwp_finding *f, size_t n, uint64_t limit, int kind,
		      enum hwp_table_format fmt)
{
	struct hwp_table *t = advise_table(sym, f, n, limit, kind, fmt);
	int rc;

	if (!t)
		return cli_error("out of memory");
	rc = report_print_table(t, fmt);
	hwp_table__delete(t);
	return rc;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct flow_input fi;
	struct hwp_advisor *a = NULL;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o.fo, "advise", FLOW_WITH_TIMING | FLOW_WITH_MEM);
	if (!rc && !(a = flow_input__advisor(&fi, &o.a)))
		rc = cli_error("%s", hwp_errmsg());
	if (!rc) {
		struct hwp_symbolizer *sym = report_input__symbolizer(&fi.in);
		size_t n;
		const struct hwp_finding *f = hwp_advisor__findings(a, &n);

		if (fi.flow)
			flow_input__note(&fi);
		report_input__warn_missing(&fi.in, true);
		if (o.fo.ro.fmt == HWP_TABLE_TEXT)
			print_text(sym, f, n, o.fo.limit, o.kind);
		else
			rc = print_data(sym, f, n, o.fo.limit, o.kind, o.fo.ro.fmt);
	}
	hwp_advisor__delete(a);
	flow_input__close(&fi);
	return rc;
}
