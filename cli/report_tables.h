/* SPDX-License-Identifier: MIT */
/*
 * The tables of the reports, built once for their command and for the
 * HTML page (hwprof report), which shows several of them from one pass.
 * Each returns a new table (NULL: out of memory, hwp_errmsg()); FMT picks
 * the columns filled (people's display strings or the data fields).
 */
#ifndef HWPROF_CLI_REPORT_TABLES_H
#define HWPROF_CLI_REPORT_TABLES_H

#include <stdint.h>

#include "cli_flow.h"
#include "cli_report.h"
#include "hwprof/advise.h"
#include "hwprof/flow.h"
#include "hwprof/flow_diff.h"
#include "hwprof/table.h"

/* hwprof branches with its default keys, for people (cmd_branches.c). */
struct hwp_table *branches_table(struct report_input *in, uint64_t limit);
/* hwprof mispredicts (cmd_mispredicts.c); F: rates per execution when given. */
struct hwp_table *mispredicts_table(struct report_input *in, struct hwp_flow *f, uint64_t limit,
				     uint64_t min_samples, enum hwp_table_format fmt);
/* hwprof probs (cmd_probs.c) and hwprof blocks (cmd_blocks.c). */
struct hwp_table *probs_table(struct flow_input *fi, const struct flow_opts *o);
struct hwp_table *blocks_table(struct flow_input *fi, const struct flow_opts *o);
#endif
