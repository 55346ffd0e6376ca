/* SPDX-License-Identifier: MIT */
/* hwprof branches: the hot-branch table, keyed by perf's branch sort keys. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "cli_fleet.h"
#include "hwprof/report.h"
#include "report_tables.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "branches",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Counts every branch-stack entry under its source and target, rows keyed by\n"
		"perf's branch sort keys (as 'perf report -b --sort KEYS'), hottest first.\n"
		"Overhead is each row's share of all branch entries, as perf's branch mode.\n",
};

struct branches_opts {
	struct report_opts ro;
	const char *sort;
	uint64_t limit; /* --limit: rows shown, hottest first */
	struct hwp_branch_report_filter filter;
	enum hwp_branch_key_id keys[HWP_MAX_SORT_KEYS];
	size_t nkeys;
	const char *cycles_source; /* with a cycles or IPC key: "modelled" or "measured" (JSON/CSV) */
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct branches_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		{ .kind = OPT_KIND_STRING, .short_name = 's', .long_name = "sort", .value = &o->sort, .argh = "KEYS",
		  .values = "symbol_from symbol_to srcline_from srcline_to dso_from dso_to addr_from addr_to "
			    "mispredict in_tx abort cycles symbol dso srcline ipc_lbr type",
		  .help = "comma-separated: symbol_from, symbol_to, srcline_from, srcline_to, dso_from, dso_to, "
			  "addr_from, addr_to, mispredict, in_tx, abort, cycles, symbol, dso, srcline, ipc_lbr, "
			  "type (default: dso_from,symbol_from,dso_to,symbol_to); symbol, dso, srcline and "
			  "ipc_lbr are the branch target's, type is hwprof's; a prefix names a key as in perf "
			  "(sym, src)" },
		OPT_STRING(0, "dso", &o->filter.dso, "NAME",
			   "only rows whose source or target module is NAME (as the Shared Object columns show "
			   "it; an error if none is)"),
		OPT_STRING(0, "sym", &o->filter.sym, "TEXT", "only rows whose source or target symbol contains TEXT"),
		OPT_DOUBLE(0, "min-percent", &o->filter.min_percent, "P", 0, 100, 1, " is not a percentage",
			   "hide rows below P% of all entries"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	report_opts__init(&o->ro);
	o->sort = "dso_from,symbol_from,dso_to,symbol_to";
	o->limit = UINT64_MAX;
	memset(&o->filter, 0, sizeof(o->filter));
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	int n = hwp_branch_keys__parse(o->sort, o->keys, HWP_MAX_SORT_KEYS - 1);
	if (n < 0)
		return cli_error("branches: --sort '%s': %s", o->sort, hwp_errmsg());
	o->nkeys = (size_t)n;
	return -1;
}

/* Which sides (from, to) the keys name. */
static void key_sides(const struct branches_opts *o, bool *from, bool *to)
{
	*from = *to = false;
	for (size_t k = 0; k < o->nkeys; k++) {
		switch (o->keys[k]) {
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

/* Flag keys as values for programs; 0 when the key is not one. */
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
static void fill_table(struct hwp_table *t, const struct hwp_branch_report *rep,
		       struct hwp_symbolizer *sym, const struct branches_opts *o)
{
	const struct hwp_branch_report_row *rows;
	size_t nr = hwp_branch_report__rows(rep, &rows);
	uint64_t total = hwp_branch_report__total(rep);
	size_t flag_col[HWP_MAX_SORT_KEYS], from_col = 0, to_col = 0;
	bool from, to;

	hwp_table__add_column(t, "Overhead", "percent", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Samples", "count", HWP_COL_COUNT);
	for (size_t k = 0; k < o->nkeys; k++)
		hwp_table__add_column_shown(t, hwp_branch_key__title(o->keys[k]), hwp_branch_key__name(o->keys[k]),
					    HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_table__add_column_shown(t, "Branches", "branches", HWP_COL_COUNT, HWP_SHOW_DATA);
	for (size_t k = 0; k < o->nkeys; k++) {
		flag_col[k] = hwp_table__columns(t);
		if (o->keys[k] == HWP_KEY_IPC_LBR) {
			hwp_table__add_column_shown(t, "IPC", "ipc", HWP_COL_REAL, HWP_SHOW_DATA);
			hwp_table__add_column_shown(t, "IPC Coverage", "ipc_coverage_percent", HWP_COL_PERCENT,
						    HWP_SHOW_DATA);
		} else if ((int)flag_kind(o->keys[k]) >= 0) {
			hwp_table__add_column_shown(t, hwp_branch_key__title(o->keys[k]),
						    hwp_branch_key__name(o->keys[k]), flag_kind(o->keys[k]),
						    HWP_SHOW_DATA);
		}
	}
	size_t src_col = hwp_table__columns(t);
	if (o->cycles_source)
		hwp_table__add_column_shown(t, "Cycles Source", "cycles_source", HWP_COL_TEXT, HWP_SHOW_DATA);
	key_sides(o, &from, &to);
	if (from)
		from_col = hwp_report__add_loc_columns(t, HWP_LOC_FROM);
	if (to)
		to_col = hwp_report__add_loc_columns(t, HWP_LOC_TO);
	for (size_t i = 0; i < nr && i < o->limit; i++) {
		hwp_table__new_row(t);
		hwp_table__set_real(t, 0, total ? 100.0 * (double)rows[i].c.count / (double)total : 0);
		hwp_table__set_count(t, 1, rows[i].c.count);
		for (size_t k = 0; k < o->nkeys; k++)
			hwp_table__set_text(t, 2 + k, rows[i].cells[k]);
		hwp_table__set_count(t, 2 + o->nkeys, rows[i].branches);
		if (table_for_people(o->ro.fmt))
			continue; /* the rest is not shown: no symbolizing for it */
		if (o->cycles_source)
			hwp_table__set_text(t, src_col, o->cycles_source);
		for (size_t k = 0; k < o->nkeys; k++)
			if ((int)flag_kind(o->keys[k]) >= 0)
				set_flag(t, flag_col[k], o->keys[k], rep, &rows[i], rows[i].cells[k]);
		if (from)
			hwp_report__set_loc(t, from_col, sym, &rows[i].key.from);
		if (to)
			hwp_report__set_loc(t, to_col, sym, &rows[i].key.to);
	}
}

/* Whether a sort key shows source lines (srcline_from, srcline_to, ...). */
static bool shows_srclines(const struct branches_opts *o)
{
	for (size_t k = 0; k < o->nkeys; k++)
		if (!strncmp(hwp_branch_key__name(o->keys[k]), "srcline", 7))
			return true;
	return false;
}

/* Emulated recordings carry the emulator's modelled cycles: with a cycles
   or IPC key, text says so in a '#' line (as perf's notes) and JSON/CSV
   rows in cycles_source. NULL without such a key. */
static const char *cycles_source(struct report_input *in, const struct branches_opts *o)
{
	struct hwp_reader *r = hwp_session__reader(in->session);
	bool cycles = false;

	for (size_t k = 0; k < o->nkeys; k++)
		cycles |= o->keys[k] == HWP_KEY_CYCLES || o->keys[k] == HWP_KEY_IPC_LBR;
	if (!cycles)
		return NULL;
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++)
		if (hwp_evsel__modelled(hwp_reader__evsel(r, i)))
			return "modelled";
	return "measured";
}

/* The report of table T (BLOCKS: for ipc_lbr), modules symbolized by SYM;
   IN, the local recording (NULL for the fleet's rows). */
static int print_table(const struct hwp_branch_table *tab, const struct hwp_branch_table *blocks,
		       struct hwp_symbolizer *sym, struct branches_opts *o, struct report_input *in)
{
	struct hwp_branch_report_opts ro = { .sz = sizeof(ro), .filter = &o->filter, .blocks = blocks };
	struct hwp_branch_report *rep = hwp_branch_report__new_opts(tab, sym, o->keys, o->nkeys, &ro);
	struct hwp_table *t = rep ? hwp_table__new() : NULL;
	int rc;

	if (!t) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		o->cycles_source = in ? cycles_source(in, o) : NULL;
		fill_table(t, rep, sym, o);
		if (in) /* (after the rows: symbolizing them finds what is missing) */
			report_input__warn_missing(in, shows_srclines(o));
		if (o->cycles_source && !strcmp(o->cycles_source, "modelled") && o->ro.fmt == HWP_TABLE_TEXT)
			puts("# cycles modelled by hwprof's emulator (a cost model), not measured on hardware");
		rc = report_print_table(t, o->ro.fmt);
	}
	hwp_table__delete(t);
	hwp_branch_report__delete(rep);
	return rc;
}

struct hwp_table *branches_table(struct report_input *in, uint64_t limit)
{
	struct branches_opts o = { .limit = limit };
	struct hwp_branch_report_opts ro = { .sz = sizeof(ro), .filter = &o.filter };
	struct hwp_branch_report *rep;
	struct hwp_table *t;
	int n = hwp_branch_keys__parse("dso_from,symbol_from,dso_to,symbol_to", o.keys, HWP_MAX_SORT_KEYS - 1);

	if (n < 0)
		return NULL;
	o.nkeys = (size_t)n;
	o.ro.fmt = HWP_TABLE_HTML;
	rep = hwp_branch_report__new_opts(hwp_branch_collector__table(in->collector), report_input__symbolizer(in),
					  o.keys, o.nkeys, &ro);
	if (!rep || !(t = hwp_table__new())) {
		hwp_branch_report__delete(rep);
		return NULL;
	}
	fill_table(t, rep, report_input__symbolizer(in), &o);
	hwp_branch_report__delete(rep);
	return t;
}

static int print_report(struct report_input *in, struct branches_opts *o)
{
	return print_table(hwp_branch_collector__table(in->collector), hwp_branch_collector__blocks(in->collector),
			   report_input__symbolizer(in), o, in);
}

int fleet_branches(int argc, char **argv, struct fleet_source *fs)
{
	struct branches_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	for (size_t k = 0; k < o.nkeys; k++)
		if (o.keys[k] == HWP_KEY_IPC_LBR || (hwp_branch_keys__split(&o.keys[k], 1) & ~HWP_SPLIT_TYPE))
			return cli_error("fleet branches: --sort key '%s' is not kept in the fleet's rows",
					 hwp_branch_key__name(o.keys[k]));
	struct hwp_branch_table *t = NULL;
	if (!(rc = fleet_source__load(fs, o.ro.symfs, HWP_EXPORT_BRANCH)) &&
	    !(t = hwp_export__branch_table(fs->rows, HWP_EXPORT_BRANCH, fs->sym)))
		rc = cli_error("%s", hwp_errmsg());
	if (!rc)
		rc = print_table(t, NULL, fs->sym, &o, NULL);
	hwp_branch_table__delete(t);
	return rc;
}

int cmd_branches(int argc, char **argv)
{
	struct branches_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .split = hwp_branch_keys__split(o.keys, o.nkeys) };
	for (size_t k = 0; k < o.nkeys; k++)
		co.blocks |= o.keys[k] == HWP_KEY_IPC_LBR;
	struct report_input in;
	rc = report_input__load_branches(&in, &o.ro, &co);
	if (!rc && o.filter.dso)
		rc = report_input__check_dso(&in, "branches", o.ro.input, o.filter.dso);
	if (!rc)
		rc = print_report(&in, &o);
	report_input__close(&in);
	return rc;
}
