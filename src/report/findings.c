/* SPDX-License-Identifier: MIT */
/* The advisor's findings (hwprof advise): as a table, and as text for people
   (each finding with its evidence and what to do). */
#include <inttypes.h>
#include <stdio.h>

#include "hwprof/branch_report.h"
#include "report/report_internal.h"

void hwp_report__finding_evidence(const struct hwp_finding *f, char *buf, size_t len)
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

bool hwp_report__finding_callers(const struct hwp_finding *f, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!f->callers)
		return false;
	snprintf(buf, len, "%.0f%% of its %" PRIu64 " sampled stacks come from %s", 100 * f->callers_share,
		 f->function_samples, f->callers);
	return true;
}

/* Whether finding F is shown: of KIND (-1: any), at opts' DSO and SYM. */
static bool finding_kept(struct hwp_symbolizer *sym, const struct hwp_finding *f, int kind,
			 const struct hwp_report_opts *o)
{
	return (kind < 0 || f->kind == kind) && hwp_loc__matches(sym, &f->loc, o->dso, o->sym);
}

int hwp_report__print_findings(struct hwp_symbolizer *sym, const struct hwp_finding *f, size_t n, int kind,
			       const struct hwp_report_opts *opts, FILE *out)
{
	char where[512], src[512], fn[512], ev[512], tg[512];
	struct hwp_report_opts o;
	uint64_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0)
		return -1;
	for (size_t i = 0; i < n && shown < o.limit; i++) {
		if (!finding_kept(sym, &f[i], kind, &o))
			continue;
		shown++;
		hwp_loc__format_addr(sym, &f[i].loc, where, sizeof(where));
		hwp_loc__format_srcline(sym, &f[i].loc, src, sizeof(src));
		hwp_loc__format_dso(sym, &f[i].loc, fn, sizeof(fn));
		hwp_report__finding_evidence(&f[i], ev, sizeof(ev));
		fprintf(out, "%" PRIu64 ". %-17s %s  %s  (%s)   est. %.1f%% of the work\n", shown,
			hwp_finding_kind__name(f[i].kind), where, src, fn, 100 * f[i].share);
		fprintf(out, "   %s\n", ev);
		if (hwp_report__finding_callers(&f[i], ev, sizeof(ev)))
			fprintf(out, "   %s\n", ev);
		if (f[i].kind == HWP_FIND_FALSE_SHARING && f[i].code2.module >= 0) {
			hwp_loc__format_addr(sym, &f[i].code2, tg, sizeof(tg));
			hwp_loc__format_srcline(sym, &f[i].code2, src, sizeof(src));
			fprintf(out, "   the other writer: %s  %s\n", tg, src);
		}
		if (f[i].target.module >= 0 && f[i].kind == HWP_FIND_MONOMORPHIC) {
			hwp_loc__format_addr(sym, &f[i].target, tg, sizeof(tg));
			fprintf(out, "   dominant target: %s\n", tg);
		}
		fprintf(out, "   -> %s\n   [technique: %s]\n\n", hwp_finding_kind__action(f[i].kind),
			hwp_finding_kind__technique(f[i].kind));
	}
	if (!shown)
		fprintf(out, "no findings above the thresholds\n");
	return 0;
}

enum { A_RANK, A_KIND, A_SHARE, A_VALUE, A_LO, A_HI, A_SAMPLES, A_BYTES, A_LINES, A_MIN_LINES, A_MODE1,
       A_MODE1_PCT, A_MODE2, A_MODE2_PCT, A_EVENTS, A_THREADS, A_OFFSET1, A_OFFSET2, A_DATA_ADDR, A_WHERE, A_SRC,
       A_ACTION, A_TECHNIQUE, A_NCOLS };

static const struct hwp__report_column finding_cols[A_NCOLS] = {
	[A_RANK] = { "Rank", "rank", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_KIND] = { "Kind", "kind", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_VALUE] = { "Value", "value_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_LO] = { "Low", "low_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_HI] = { "High", "high_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_BYTES] = { "Hot Bytes", "hot_bytes", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_LINES] = { "Lines", "cache_lines", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_MIN_LINES] = { "Lines Needed", "cache_lines_needed", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_MODE1] = { "Fast Mode", "fast_mode_cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_MODE1_PCT] = { "Fast %", "fast_mode_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_MODE2] = { "Slow Mode", "slow_mode_cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_MODE2_PCT] = { "Slow %", "slow_mode_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_EVENTS] = { "Events", "events", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_THREADS] = { "Threads", "threads", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_OFFSET1] = { "Offset", "offset1", HWP_COL_HEX, HWP_SHOW_ALL },
	[A_OFFSET2] = { "Offset 2", "offset2", HWP_COL_HEX, HWP_SHOW_ALL },
	[A_DATA_ADDR] = { "Data Address", "data_addr", HWP_COL_HEX, HWP_SHOW_ALL },
	[A_WHERE] = { "Where", "where", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[A_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[A_ACTION] = { "Action", "action", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_TECHNIQUE] = { "Technique", "technique", HWP_COL_TEXT, HWP_SHOW_ALL },
};

/* The caller columns (after the location columns), only where a finding
   has callers: a report without call stacks keeps its columns. */
enum { C_CALLERS, C_CALLERS_PCT, C_CALLERS_SAMPLES, C_FUNCTION_SAMPLES, C_NCOLS };
static const struct hwp__report_column caller_cols[C_NCOLS] = {
	[C_CALLERS] = { "Callers", "callers", HWP_COL_TEXT, HWP_SHOW_ALL },
	[C_CALLERS_PCT] = { "Callers %", "callers_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_CALLERS_SAMPLES] = { "Callers Samples", "callers_samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[C_FUNCTION_SAMPLES] = { "Function Samples", "function_samples", HWP_COL_COUNT, HWP_SHOW_ALL },
};
#define CALLER_COL0 (A_NCOLS + 3 * HWP_REPORT_LOC_COLUMNS)

static void finding_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_finding *f,
			uint64_t rank, enum hwp_table_format fmt, bool callers)
{
	/* a spread is a ratio and a multimodal block counts peaks, not percentages */
	bool spread = f->kind == HWP_FIND_SPREAD_FUNCTION || f->kind == HWP_FIND_MULTIMODAL_BLOCK;
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_count(t, A_RANK, rank);
	hwp_table__set_text(t, A_KIND, hwp_finding_kind__name(f->kind));
	hwp_table__set_real(t, A_SHARE, 100 * f->share);
	hwp_table__set_real(t, A_VALUE, spread ? f->value : 100 * f->value);
	if (!spread) {
		hwp_table__set_real(t, A_LO, 100 * f->lo);
		hwp_table__set_real(t, A_HI, 100 * f->hi);
	} else if (f->kind == HWP_FIND_SPREAD_FUNCTION) {
		hwp_table__set_count(t, A_BYTES, f->bytes);
		hwp_table__set_count(t, A_LINES, f->lines);
		hwp_table__set_count(t, A_MIN_LINES, f->min_lines);
	} else if (f->kind == HWP_FIND_MULTIMODAL_BLOCK) {
		hwp_table__set_count(t, A_MODE1, f->mode_cycles[0]);
		hwp_table__set_real(t, A_MODE1_PCT, 100 * f->mode_share[0]);
		hwp_table__set_count(t, A_MODE2, f->mode_cycles[1]);
		hwp_table__set_real(t, A_MODE2_PCT, 100 * f->mode_share[1]);
	}
	hwp_table__set_count(t, A_SAMPLES, f->samples);
	if (f->kind == HWP_FIND_DRAM_LOADS || f->kind == HWP_FIND_FALSE_SHARING)
		hwp_table__set_count(t, A_EVENTS, f->mem_events); /* DRAM loads, HITMs */
	if (f->kind == HWP_FIND_FALSE_SHARING) {
		hwp_table__set_count(t, A_THREADS, f->threads);
		hwp_table__set_count(t, A_OFFSET1, f->offset[0]);
		hwp_table__set_count(t, A_OFFSET2, f->offset[1]);
		hwp_table__set_count(t, A_DATA_ADDR, f->data_addr);
	}
	hwp_table__set_text(t, A_ACTION, hwp_finding_kind__action(f->kind));
	hwp_table__set_text(t, A_TECHNIQUE, hwp_finding_kind__technique(f->kind));
	if (callers && f->callers) {
		hwp_table__set_text(t, CALLER_COL0 + C_CALLERS, f->callers);
		hwp_table__set_real(t, CALLER_COL0 + C_CALLERS_PCT, 100 * f->callers_share);
		hwp_table__set_count(t, CALLER_COL0 + C_CALLERS_SAMPLES, f->callers_samples);
		hwp_table__set_count(t, CALLER_COL0 + C_FUNCTION_SAMPLES, f->function_samples);
	}
	if (hwp_report__for_people(fmt)) {
		hwp_loc__format_addr(sym, &f->loc, buf, sizeof(buf));
		hwp_table__set_text(t, A_WHERE, buf);
		hwp_loc__format_srcline(sym, &f->loc, buf, sizeof(buf));
		hwp_table__set_text(t, A_SRC, buf);
		return;
	}
	hwp_report__set_loc(t, A_NCOLS, sym, &f->loc);
	if (f->target.module >= 0)
		hwp_report__set_loc(t, A_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &f->target);
	if (f->code2.module >= 0)
		hwp_report__set_loc(t, A_NCOLS + 2 * HWP_REPORT_LOC_COLUMNS, sym, &f->code2);
}

struct hwp_table *hwp_report__findings(struct hwp_symbolizer *sym, const struct hwp_finding *f, size_t n,
				       int kind, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	struct hwp_table *t;
	uint64_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, finding_cols, A_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET);
	hwp_report__add_loc_columns(t, HWP_LOC_SECOND); /* false sharing's other writer */
	bool callers = false;
	for (size_t i = 0; i < n; i++)
		callers |= f[i].callers && finding_kept(sym, &f[i], kind, &o);
	if (callers && hwp__report_add_columns(t, caller_cols, C_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	for (size_t i = 0; i < n && shown < o.limit; i++)
		if (finding_kept(sym, &f[i], kind, &o))
			finding_row(t, sym, &f[i], ++shown, o.fmt, callers);
	return t;
}
