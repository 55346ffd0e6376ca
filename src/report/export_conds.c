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
