/* SPDX-License-Identifier: MIT */
/* hwprof branches: the hot-branch table, keyed by perf's branch sort keys. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "cli_fleet.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "branches",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
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

/* Whether a sort key shows source lines (srcline_from, srcline_to, ...). */
static bool shows_srclines(const struct branches_opts *o)
{
	for (size_t k = 0; k < o->nkeys; k++)
		if (!strncmp(hwp_branch_key__name(o->keys[k]), "srcline", 7))
			return true;
	return false;
}

/* The report of table T (BLOCKS: for ipc_lbr), modules symbolized by SYM;
   IN, the local recording (NULL for the fleet's rows). Emulated recordings
   carry the emulator's modelled cycles: with a cycles or IPC key, text says
   so in a '#' line (as perf's notes) and JSON/CSV rows in cycles_source. */
static int print_table(const struct hwp_branch_table *tab, const struct hwp_branch_table *blocks,
		       struct hwp_symbolizer *sym, struct branches_opts *o, struct report_input *in)
{
	struct hwp_branch_report_opts ro = { .sz = sizeof(ro), .filter = &o->filter, .blocks = blocks };
	struct hwp_branch_report *rep = hwp_branch_report__new_opts(tab, sym, o->keys, o->nkeys, &ro);
	struct hwp_report_opts to = { .sz = sizeof(to), .fmt = o->ro.fmt, .limit = o->limit };
	struct hwp_table *t = NULL;
	int rc;

	o->cycles_source = in ? hwp_report__cycles_source(in->session, o->keys, o->nkeys) : NULL;
	if (!rep || !(t = hwp_report__branches(sym, rep, o->keys, o->nkeys, o->cycles_source, &to))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (in) /* (after the rows: symbolizing them finds what is missing) */
			report_input__warn_missing(in, shows_srclines(o));
		if (o->cycles_source && !strcmp(o->cycles_source, "modelled") && o->ro.fmt == HWP_TABLE_TEXT)
			puts("# cycles modelled by hwprof's emulator (a cost model), not measured on hardware");
		rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	}
	hwp_table__delete(t);
	hwp_branch_report__delete(rep);
	return rc;
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
