/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the fall-through reports (probs, blocks, paths). */
#ifndef HWPROF_CLI_FLOW_H
#define HWPROF_CLI_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_report.h"
#include "hwprof/flow.h"
#include "hwprof/paths.h"
#include "hwprof/advise.h"
#include "hwprof/callgraph.h"
#include "hwprof/mem.h"
#include "hwprof/timing.h"

/* Options every fall-through report takes. */
struct flow_opts {
	struct report_opts ro;
	const char *dso;     /* --dso NAME */
	const char *sym;     /* --sym TEXT */
	uint64_t limit;      /* --limit N */
	uint64_t min;        /* --min-executions N */
	bool infer;          /* --infer */
	bool no_infer;       /* --no-infer */
};

/* --infer and --no-infer of the reports that show counts (blocks, probs,
   paths). */
#define OPT_FLOW_INFER(fo)                                                                      \
	OPT_BOOL(0, "infer", &(fo)->infer,                                                       \
		 "flow-consistent counts: each function's block counts and branch directions "   \
		 "adjusted to conserve flow with the least change to the samples (-v: the profile " \
		 "bias per function before and after); the default for branch stacks of 16 "       \
		 "entries or fewer"),                                                              \
	OPT_BOOL(0, "no-infer", &(fo)->no_infer, "the sampled counts, never adjusted")

/* --dso, --sym, --min-executions, --limit of the fall-through reports. */
#define OPT_FLOW_FILTER(fo)                                                                      \
	OPT_STRING(0, "dso", &(fo)->dso, "NAME",                                                 \
		   "only rows in module NAME (as perf's Shared Object column names it; an error " \
		   "if no branch is in it)"),                                                      \
	OPT_STRING(0, "sym", &(fo)->sym, "TEXT", "only rows whose symbol contains TEXT"),       \
	OPT_U64(0, "min-executions", &(fo)->min, "N", 0, UINT64_MAX, NULL,                      \
		"hide rows with fewer sampled executions (default 1)"),                          \
	OPT_REPORT_LIMIT(&(fo)->limit)

void flow_opts__init(struct flow_opts *o);
/* Parses a command that takes only the common and the flow options
   (blocks, paths): 0 help printed, 1 bad usage (said), -1 go on. */
int flow_opts__parse(int argc, char **argv, const struct cmd_desc *cmd, struct flow_opts *o);

/* The recording counted with ranges, and its flow analysis. */
struct flow_input {
	struct report_input in;
	struct hwp_flow *flow;
	struct hwp_paths *paths; /* when asked */
	struct hwp_timing *timing; /* when asked and the recording has cycle counts */
	struct hwp_call_graph *calls; /* when asked: the samples' call stacks (maybe none) */
	/* when asked: the precise memory samples (NULL when there are none);
	   a recording of memory samples alone then loads without a flow (NULL) */
	struct hwp_mem_report *mem;
};

/* What flow_input__load() builds besides the flow analysis, all read in
   the same pass. */
enum {
	FLOW_WITH_PATHS = HWP_ANALYSIS_PATHS,
	FLOW_WITH_TIMING = HWP_ANALYSIS_TIMING,
	FLOW_WITH_CALLS = HWP_ANALYSIS_CALLS,
	FLOW_WITH_MEM = HWP_ANALYSIS_MEM,
	FLOW_WITH_IPS = HWP_ANALYSIS_IPS,
};

/* Loads O's input (printing errors, naming CMD): branches and ranges (and
   what WITH asks for: FLOW_WITH_*), then the walk. Returns the exit code (0: go on);
   flow_input__close() always. */
int flow_input__load(struct flow_input *fi, const struct flow_opts *o, const char *cmd, unsigned with);
void flow_input__close(struct flow_input *fi);
/* The findings of every analysis FI holds (flow, timing, memory), for
   advise and the HTML report. NULL: hwp_errmsg() says why. */
struct hwp_advisor *flow_input__advisor(struct flow_input *fi, const struct hwp_advise_opts *opts);
/* Whether L passes --dso and --sym. */
bool flow_input__keep(struct flow_input *fi, const struct flow_opts *o, const struct hwp_code_loc *l);
/* The same for a location symbolized by SYM. */
bool flow_input__keep_loc(struct hwp_symbolizer *sym, const struct flow_opts *o, const struct hwp_code_loc *l);
/* hwprof probs' option parser (-1: go on, else the exit code) and its
   table of conditional branches C[0..N) (sorted), for the fleet's too. */
int probs_parse_opts(int argc, char **argv, struct flow_opts *o, bool *indirect);
int probs_print_conds(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
		      const struct flow_opts *o);
/* One note (stderr, as warnings) on what the counts cover: ranges
   rejected by reason, ranges not decoded. */
void flow_input__note(struct flow_input *fi);
/* When the counts were inferred: the note of cli_flow_auto_note() unless
   --infer asked, then after -v one line per function (the hottest first)
   with its profile bias before and after. */
void flow_input__bias(struct flow_input *fi, const struct flow_opts *o);
/* One line (unless -q): C's short branch stacks made inference the default. */
void cli_flow_auto_note(const struct hwp_branch_collector *c);
/* *FO for --infer (INFER) and --no-infer (NO_INFER) of command CMD: the
   default infers where it helps. 0, or the exit code after both. */
int cli_flow_opts(bool infer, bool no_infer, const char *cmd, struct hwp_flow_opts *fo);
/* When F (NULL: none) inferred its counts: the note of
   cli_flow_auto_note() unless --infer ASKED, and -v's bias lines. */
void cli_flow_inferred(const struct hwp_flow *f, const struct hwp_branch_collector *c, bool asked);
/* After -v, for F (made with opts.infer): the hottest 20 functions. */
void cli_flow_bias(const struct hwp_flow *f);

#endif
