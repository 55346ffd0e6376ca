/* SPDX-License-Identifier: MIT */
/* Plumbing shared by callgraph and flame: a recording's call graph, read. */
#ifndef HWPROF_CLI_CALLGRAPH_H
#define HWPROF_CLI_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/callgraph.h"
#include "hwprof/session.h"

struct cg_input {
	struct hwp_session *session;
	struct hwp_call_graph *cg;
};

/* Opens PATH and counts its call stacks; prints the error (naming CMD) and
   returns non-zero on failure. cg_input__close() in any case. */
int cg_input__load(struct cg_input *in, const char *cmd, const char *const *paths, size_t npaths, const char *symfs,
		  bool no_inline, bool stitch_lbr);
void cg_input__close(struct cg_input *in);
/* One warning line when some modules' symbols are missing. */
void cg_input__warn_missing(struct cg_input *in);
/* One warning line when user stacks (--call-graph dwarf) could not be
   unwound to their end: how many, why, what to record or give instead. */
void cg_warn_unwind(const char *path, const struct hwp_call_graph_stats *st);
#endif
