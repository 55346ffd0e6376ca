/* SPDX-License-Identifier: MIT */
/* The conditional-branch rows of an export (the fleet's) as the flow
   analysis's conditional branches, for the probabilities and mispredict
   tables without a walk. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/flow_internal.h"
#include "hwprof/fleet.h"
#include "report/report_internal.h"
#include "util/error.h"

struct hwp_flow_cond *hwp_report__export_conds(const struct hwp_export *e, struct hwp_symbolizer *sym, size_t *nc)
{
	size_t n, nt = 0, k = 0;
	const struct hwp_export_row *r = hwp_export__rows(e, &n);
	struct hwp_branch_table *t = hwp_export__branch_table(e, HWP_EXPORT_COND, sym);
	const struct hwp_branch_row *tr = t ? hwp_branch_table__rows(t, &nt) : NULL;
	struct hwp_flow_cond *c = calloc(n ? n : 1, sizeof(*c));

	*nc = 0;
	if (!t || !c) {
		free(c);
		hwp_branch_table__delete(t);
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	/* the table gave each cond row its modules; those rows and the table's
	   are one to one, in order */
	for (size_t i = 0; i < n && k < nt; i++) {
		if (r[i].kind != HWP_EXPORT_COND)
			continue;
		c[k].site = tr[k].key.from;
		c[k].target = tr[k].key.to;
		if (!*r[i].to_module && !r[i].to)
			c[k].target.module = -1;
		c[k].taken = r[i].count;
		c[k].not_taken = r[i].not_taken;
		c[k].taken_entries = r[i].entries;
		c[k].taken_with_info = r[i].mispred + r[i].predicted;
		c[k].taken_mispredicted = r[i].mispred;
		hwp_flow_cond__finish(&c[k], 0);
		k++;
	}
	hwp_branch_table__delete(t);
	*nc = k;
	return c;
}

void hwp_report__sort_conds_by_executions(struct hwp_flow_cond *c, size_t n)
{
	hwp__flow_sort_conds(c, n); /* the order of hwp_flow__conds() */
}

/* E's branch rows as one table (a recording's is not split by type), and
   its range rows: the tables a collector of all those recordings holds. */
static struct hwp_branch_collector *export_collector(const struct hwp_export *e, struct hwp_symbolizer *sym)
{
	struct hwp_branch_table *split = hwp_export__branch_table(e, HWP_EXPORT_BRANCH, sym);
	struct hwp_branch_table *tab = split ? hwp_branch_table__new(0) : NULL;
	struct hwp_branch_table *ranges = tab ? hwp_export__branch_table(e, HWP_EXPORT_RANGE, sym) : NULL;
	struct hwp_branch_collector *col = NULL;
	size_t ns = 0;
	const struct hwp_branch_row *sr = ranges ? hwp_branch_table__rows(split, &ns) : NULL;

	for (size_t i = 0; i < ns; i++)
		if (hwp_branch_table__add_row(tab, &sr[i]) < 0)
			goto out;
	if (ranges) {
		col = hwp_branch_collector__from_tables(sym, "fleet", tab, ranges);
		tab = ranges = NULL; /* the collector's now */
	}
out:
	hwp_branch_table__delete(split);
	hwp_branch_table__delete(tab);
	hwp_branch_table__delete(ranges);
	return col;
}

struct hwp_table *hwp_report__export_mispredicts(const struct hwp_export *e, struct hwp_symbolizer *sym,
						 const struct hwp_report_opts *o, bool *per_exec)
{
	struct hwp_branch_collector *col = export_collector(e, sym);
	struct hwp_flow *flow = NULL;
	struct hwp_flow_cond *c = NULL;
	struct hwp_exec_source es = { 0 };
	struct hwp_table *t = NULL;

	if (!col)
		return NULL;
	/* with the binaries at hand, the walk over the summed ranges gives the
	   executions exactly as for one recording of them all; without, the
	   conditional branches' rows do */
	if (hwp_branch_table__size(hwp_branch_collector__ranges(col)) &&
	    (flow = hwp_flow__new(col, NULL)) && hwp_flow__stats(flow)->ranges_walked) {
		es.flow = flow;
	} else {
		if (!(c = hwp_report__export_conds(e, sym, &es.nconds)))
			goto out;
		hwp_report__sort_conds_by_site(c, es.nconds);
		es.conds = c;
	}
	*per_exec = es.flow || es.nconds;
	t = hwp_report__mispredicts(sym, hwp_branch_collector__table(col), *per_exec ? &es : NULL, o);
out:
	free(c);
	hwp_flow__delete(flow);
	hwp_branch_collector__delete(col);
	return t;
}
