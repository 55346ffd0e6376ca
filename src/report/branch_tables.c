/* SPDX-License-Identifier: MIT */
/* The branch tables: hot branches by perf's sort keys (hwprof branches) and
   branches ranked by mispredicts (hwprof mispredicts). */
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "hwprof/mispredicts.h"
#include "hwprof/perf_data.h"
#include "hwprof/session.h"
#include "report/report_internal.h"

/* Which sides (from, to) KEYS name. */
static void key_sides(const enum hwp_branch_key_id *keys, size_t nkeys, bool *from, bool *to)
{
	*from = *to = false;
	for (size_t k = 0; k < nkeys; k++) {
		switch (keys[k]) {
		case HWP_KEY_SYMBOL_FROM:
		case HWP_KEY_SRCLINE_FROM:
		case HWP_KEY_DSO_FROM:
		case HWP_KEY_ADDR_FROM:
			*from = true;
			break;
		case HWP_KEY_SYMBOL_TO:
		case HWP_KEY_SRCLINE_TO:
		case HWP_KEY_DSO_TO:
		case HWP_KEY_ADDR_TO:
		case HWP_KEY_SYMBOL:
		case HWP_KEY_DSO:
		case HWP_KEY_SRCLINE:
		case HWP_KEY_IPC_LBR:
			*to = true;
			break;
		default:
			break;
		}
	}
}

/* Flag keys as values for programs; -1 when the key is not one. */
static enum hwp_col_kind flag_kind(enum hwp_branch_key_id k)
{
	switch (k) {
	case HWP_KEY_MISPREDICT:
	case HWP_KEY_IN_TX:
	case HWP_KEY_ABORT:
		return HWP_COL_BOOL;
	case HWP_KEY_CYCLES:
		return HWP_COL_COUNT;
	case HWP_KEY_TYPE:
		return HWP_COL_TEXT;
	case HWP_KEY_IPC_LBR: /* ipc, then ipc_coverage_percent */
		return HWP_COL_REAL;
	default:
		return (enum hwp_col_kind)-1;
	}
}

static void set_flag(struct hwp_table *t, size_t col, enum hwp_branch_key_id k,
		     const struct hwp_branch_report *rep, const struct hwp_branch_report_row *row,
		     const char *cell)
{
	const struct hwp_branch_key *key = &row->key;
	double ipc, cov;

	switch (k) {
	case HWP_KEY_IPC_LBR: /* no symbol: both null */
		if (hwp_branch_report__ipc(rep, &key->to, &ipc, &cov)) {
			hwp_table__set_real(t, col, ipc);
			hwp_table__set_real(t, col + 1, cov);
		}
		break;
	case HWP_KEY_MISPREDICT: /* N/A (neither bit) stays null */
		if (key->mispred_state)
			hwp_table__set_count(t, col, !(key->mispred_state & 2));
		break;
	case HWP_KEY_IN_TX:
		hwp_table__set_count(t, col, key->tx & 1);
		break;
	case HWP_KEY_ABORT:
		hwp_table__set_count(t, col, (key->tx >> 1) & 1);
		break;
	case HWP_KEY_CYCLES: /* 0: not recorded, null */
		if (key->cycles)
			hwp_table__set_count(t, col, key->cycles);
		break;
	default:
		hwp_table__set_text(t, col, cell); /* type: perf's name of it */
	}
}

/*
 * Text: Overhead, Samples, one column per sort key as perf prints it.
 * JSON/CSV: percent, count, branches, the flag keys as values, then the
 * separate fields of each side (from/to) the keys name.
 */
struct hwp_table *hwp_report__branches(struct hwp_symbolizer *sym, const struct hwp_branch_report *rep,
				       const enum hwp_branch_key_id *keys, size_t nkeys, const char *cycles_source,
				       const struct hwp_report_opts *opts)
{
	const struct hwp_branch_report_row *rows;
	size_t nr = hwp_branch_report__rows(rep, &rows);
	uint64_t total = hwp_branch_report__total(rep);
	size_t flag_col[HWP_MAX_SORT_KEYS], from_col = 0, to_col = 0;
	struct hwp_report_opts o;
	struct hwp_table *t;
	bool from, to;

	if (nkeys > HWP_MAX_SORT_KEYS || hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	hwp_table__add_column(t, "Overhead", "percent", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Samples", "count", HWP_COL_COUNT);
	for (size_t k = 0; k < nkeys; k++)
		hwp_table__add_column_shown(t, hwp_branch_key__title(keys[k]), hwp_branch_key__name(keys[k]),
					    HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_table__add_column_shown(t, "Branches", "branches", HWP_COL_COUNT, HWP_SHOW_DATA);
	for (size_t k = 0; k < nkeys; k++) {
		flag_col[k] = hwp_table__columns(t);
		if (keys[k] == HWP_KEY_IPC_LBR) {
			hwp_table__add_column_shown(t, "IPC", "ipc", HWP_COL_REAL, HWP_SHOW_DATA);
			hwp_table__add_column_shown(t, "IPC Coverage", "ipc_coverage_percent", HWP_COL_PERCENT,
						    HWP_SHOW_DATA);
		} else if ((int)flag_kind(keys[k]) >= 0) {
			hwp_table__add_column_shown(t, hwp_branch_key__title(keys[k]), hwp_branch_key__name(keys[k]),
						    flag_kind(keys[k]), HWP_SHOW_DATA);
		}
	}
	size_t src_col = hwp_table__columns(t);
	if (cycles_source)
		hwp_table__add_column_shown(t, "Cycles Source", "cycles_source", HWP_COL_TEXT, HWP_SHOW_DATA);
	key_sides(keys, nkeys, &from, &to);
	if (from)
		from_col = hwp_report__add_loc_columns(t, HWP_LOC_FROM);
	if (to)
		to_col = hwp_report__add_loc_columns(t, HWP_LOC_TO);
	for (size_t i = 0; i < nr && i < o.limit; i++) {
		hwp_table__new_row(t);
		hwp_table__set_real(t, 0, total ? 100.0 * (double)rows[i].c.count / (double)total : 0);
		hwp_table__set_count(t, 1, rows[i].c.count);
		for (size_t k = 0; k < nkeys; k++)
			hwp_table__set_text(t, 2 + k, rows[i].cells[k]);
		hwp_table__set_count(t, 2 + nkeys, rows[i].branches);
		if (hwp_report__for_people(o.fmt))
			continue; /* the rest is not shown: no symbolizing for it */
		if (cycles_source)
			hwp_table__set_text(t, src_col, cycles_source);
		for (size_t k = 0; k < nkeys; k++)
			if ((int)flag_kind(keys[k]) >= 0)
				set_flag(t, flag_col[k], keys[k], rep, &rows[i], rows[i].cells[k]);
		if (from)
			hwp_report__set_loc(t, from_col, sym, &rows[i].key.from);
		if (to)
			hwp_report__set_loc(t, to_col, sym, &rows[i].key.to);
	}
	return t;
}

const char *hwp_report__cycles_source(struct hwp_session *s, const enum hwp_branch_key_id *keys, size_t nkeys)
{
	struct hwp_reader *r = s ? hwp_session__reader(s) : NULL;
	bool cycles = false;

	for (size_t k = 0; k < nkeys; k++)
		cycles |= keys[k] == HWP_KEY_CYCLES || keys[k] == HWP_KEY_IPC_LBR;
	if (!cycles || !r)
		return NULL;
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++)
		if (hwp_evsel__modelled(hwp_reader__evsel(r, i)))
			return "modelled";
	return "measured";
}

/* Counts for everyone; display strings for text; separate fields of the
   branch and of its top target for programs. */
enum {
	M_MISPRED, M_SHARE, M_SAMPLED, M_RATE, M_LO, M_HI, M_BRANCH, M_SRC, M_TOP, M_TARGETS, M_TOP_COUNT,
	M_EXEC, M_BASIS, M_NCOLS
};

static const struct hwp__report_column mispredict_cols[M_NCOLS] = {
	[M_MISPRED] = { "Mispredicts", "mispredicted", HWP_COL_COUNT, HWP_SHOW_ALL },
	[M_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[M_SAMPLED] = { "Sampled", "sampled", HWP_COL_COUNT, HWP_SHOW_ALL },
	[M_RATE] = { "Rate", "rate_percent", HWP_COL_PERCENT, HWP_SHOW_ALL }, /* titled by its basis */
	[M_LO] = { "95% CI low", "rate_low_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[M_HI] = { "95% CI high", "rate_high_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[M_BRANCH] = { "Branch", "branch", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[M_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[M_TOP] = { "Top Target", "top_target", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[M_TARGETS] = { "Targets", "targets", HWP_COL_COUNT, HWP_SHOW_ALL },
	[M_TOP_COUNT] = { "Top Target Count", "target_count", HWP_COL_COUNT, HWP_SHOW_DATA },
	[M_EXEC] = { "Executions", "executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[M_BASIS] = { "Rate Basis", "rate_basis", HWP_COL_TEXT, HWP_SHOW_DATA },
};

/* Per execution (ranges available): the rate column says so; without, the
   executions column is not shown in text. */
static int mispredict_columns(struct hwp_table *t, bool per_exec)
{
	for (size_t k = 0; k < M_NCOLS; k++) {
		const char *title = mispredict_cols[k].title;
		enum hwp_col_show show = mispredict_cols[k].show;

		if (k == M_RATE)
			title = per_exec ? "Rate/exec" : "Rate/taken";
		if (k == M_EXEC && !per_exec)
			show = HWP_SHOW_DATA;
		if (hwp_table__add_column_shown(t, title, mispredict_cols[k].key, mispredict_cols[k].kind, show) < 0)
			return -1;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);   /* the branch: module, build_id, offset, ... */
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET); /* its most frequent target */
	return 0;
}

static int by_site(const void *a, const void *b)
{
	const struct hwp_flow_cond *x = a, *y = b;

	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

void hwp_report__sort_conds_by_site(struct hwp_flow_cond *c, size_t n)
{
	qsort(c, n, sizeof(*c), by_site);
}

static const struct hwp_flow_cond *cond_at(const struct hwp_exec_source *es, const struct hwp_code_loc *site)
{
	struct hwp_flow_cond key = { .site = *site };

	if (es->flow)
		return hwp_flow__cond_at(es->flow, site);
	return es->conds ? bsearch(&key, es->conds, es->nconds, sizeof(key), by_site) : NULL;
}

/* The rate per execution of R's branch, when ES knows how often it ran: a
   conditional branch's from the walk (or the rows), any other branch's is
   its taken rate (it is taken whenever it runs). False: per taken
   execution only. */
static bool per_execution(const struct hwp_exec_source *es, const struct hwp_mispredict_row *r, uint64_t *exec,
			  double *rate, double *lo, double *hi)
{
	const struct hwp_flow_cond *c;
	struct hwp_flow *f = es ? es->flow : NULL;

	if (!es || r->site.module < 0)
		return false;
	if ((c = cond_at(es, &r->site))) {
		if (c->mispred_per_exec != c->mispred_per_exec) /* NaN: no bits */
			return false;
		*exec = c->executions;
		*rate = c->mispred_per_exec;
		*lo = c->mispred_per_exec_lo;
		*hi = c->mispred_per_exec_hi;
		return true;
	}
	/* any other branch is taken whenever it runs; a conditional one no
	   range ran over, or code that cannot be decoded, is unknown (and the
	   fleet's rows do not say what a branch is) */
	if (!f)
		return false;
	int kind = hwp_flow__branch_kind(f, &r->site);
	if (kind < 0 || kind == HWP_FLOW_END_COND || kind == HWP_FLOW_END_FALLTHROUGH ||
	    kind == HWP_FLOW_END_OTHER)
		return false;
	*exec = r->sampled;
	*rate = r->rate;
	*lo = r->rate_lo;
	*hi = r->rate_hi;
	return true;
}

static void mispredict_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_mispredict_row *r,
			   enum hwp_table_format fmt, const struct hwp_exec_source *es)
{
	char buf[1024];
	uint64_t exec = 0;
	double rate = r->rate, lo = r->rate_lo, hi = r->rate_hi;
	bool pe = per_execution(es, r, &exec, &rate, &lo, &hi);

	hwp_table__new_row(t);
	hwp_table__set_count(t, M_MISPRED, r->mispredicted);
	hwp_table__set_real(t, M_SHARE, 100 * r->share);
	hwp_table__set_count(t, M_SAMPLED, r->sampled);
	hwp_table__set_real(t, M_RATE, 100 * rate);
	hwp_table__set_real(t, M_LO, 100 * lo);
	hwp_table__set_real(t, M_HI, 100 * hi);
	if (pe)
		hwp_table__set_count(t, M_EXEC, exec);
	hwp_table__set_text(t, M_BASIS, pe ? "execution" : "taken");
	hwp_table__set_count(t, M_TARGETS, r->targets);
	hwp_table__set_count(t, M_TOP_COUNT, r->top_target_count);
	if (!hwp_report__for_people(fmt)) {
		hwp_report__set_loc(t, M_NCOLS, sym, &r->site);
		hwp_report__set_loc(t, M_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->top_target);
		return;
	}
	hwp_loc__format_addr(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, M_BRANCH, buf);
	hwp_loc__format_srcline(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, M_SRC, buf);
	hwp_loc__format_addr(sym, &r->top_target, buf, sizeof(buf));
	hwp_table__set_text(t, M_TOP, buf);
}

struct hwp_table *hwp_report__mispredicts(struct hwp_symbolizer *sym, const struct hwp_branch_table *tab,
					  const struct hwp_exec_source *es, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	size_t nr;
	uint64_t total, shown = 0;
	struct hwp_mispredict_row *rows;
	struct hwp_table *t;

	if (hwp__report_opts_load(opts, &o) < 0)
		return NULL;
	if (!(rows = hwp_mispredicts__build(tab, &nr, &total)))
		return NULL;
	if (!(t = hwp_table__new()) || mispredict_columns(t, es != NULL) < 0) {
		hwp_table__delete(t);
		free(rows);
		return NULL;
	}
	for (size_t i = 0; i < nr && shown < o.limit; i++) {
		if (rows[i].sampled < o.min_executions || !hwp_loc__matches(sym, &rows[i].site, o.dso, o.sym))
			continue;
		mispredict_row(t, sym, &rows[i], o.fmt, es);
		shown++;
	}
	free(rows);
	return t;
}

const char *hwp_report__mispredicts_note(bool per_exec)
{
	return per_exec ? "# Rate/exec: per execution; conditional branches count their not-taken runs and only taken "
			  "mispredicts (a lower bound)"
			: "# Rate/taken: per taken execution; no fall-through ranges, so not-taken runs are unknown";
}
