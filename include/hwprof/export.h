/* SPDX-License-Identifier: MIT */
/*
 * A recording's aggregates as rows a database or any loader takes: keyed by
 * build-id (else module path) and module offsets, independent of host,
 * process and load address, so rows of many hosts add up. Kinds:
 *
 *  - branch: a taken branch (from -> to) with entries, mispredicts and
 *    cycles, and a histogram of its cycles (bucket 0: not recorded; bucket
 *    k >= 1: cycles in [2^(k-1), 2^k));
 *  - range:  a fall-through range [from, to] between consecutive entries,
 *    count = times it ran (what PGO profiles are built from);
 *  - block:  a basic block [from, to = its last instruction], executions;
 *  - cond:   a conditional branch at from (to = its target): count = taken,
 *    not_taken, entries = taken entries, mispred / predicted their bits.
 *
 * Every count is a sum: the rows of several recordings of one binary, added
 * key by key, are the rows of their merge.
 */
#ifndef HWPROF_EXPORT_H
#define HWPROF_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_collect.h"
#include "hwprof/flow.h"
#include "hwprof/symbolize.h"
#include "hwprof/timing.h"

HWP_BEGIN_DECLS

enum hwp_export_kind {
	HWP_EXPORT_BRANCH,
	HWP_EXPORT_RANGE,
	HWP_EXPORT_BLOCK,
	HWP_EXPORT_COND,
	HWP_EXPORT_KIND_NR
};
/* "branch", "range", "block", "cond"; NULL out of range. */
HWP_API const char *hwp_export_kind__name(unsigned kind);
/* The kind named NAME, or -1. */
HWP_API int hwp_export_kind__parse(const char *name);

#define HWP_EXPORT_HIST 17

struct hwp_export_row {
	uint8_t kind;              /* enum hwp_export_kind */
	uint8_t type;              /* branch rows: perf's branch type (PERF_BR_*), else 0 */
	const char *build_id;      /* hex, "" when unknown */
	const char *module;        /* path as recorded, "" when no module covered the address */
	const char *to_build_id, *to_module;
	uint64_t from, to;         /* module offsets (no module: the address) */
	uint64_t count, entries, not_taken, mispred, predicted, cycles_sum, cycles_n;
	uint64_t hist[HWP_EXPORT_HIST];
};

struct hwp_export;
struct hwp_session;

struct hwp_export_opts {
	size_t sz;        /* sizeof(struct hwp_export_opts) */
	/* What each row carries besides its counts (copied). */
	const char *host;
	int64_t window_start, window_end; /* Unix seconds */
	/* The recording's identity, from its content (0: a hash of the rows):
	   the fleet keys a recording's rows by it, so a copy, a rename or a
	   touch of a file pushed already adds nothing. */
	uint64_t recording_id;
};

/*
 * The rows of C (made with opts.ranges and split HWP_SPLIT_TYPE |
 * HWP_SPLIT_CYCLES, read) and, when FLOW is not NULL, its blocks and
 * conditional branches; modules named by C's session. Sorted by kind,
 * build-id, module, from, to, type. C must outlive the result. NULL + errno
 * (hwp_errmsg()) on failure.
 */
HWP_API struct hwp_export *hwp_export__new(struct hwp_branch_collector *c, struct hwp_flow *flow,
					   const struct hwp_export_opts *opts);
HWP_API void hwp_export__delete(struct hwp_export *e);

/* The collector options hwp_export__new() needs (ranges, split by type
   and cycles). */
HWP_API void hwp_export__collect_opts(struct hwp_branch_collect_opts *co);
/*
 * What EO leaves unset, for rows of the recording INPUT read by S: a NULL
 * host becomes the recording's hostname, else this machine's (written to
 * BUF, LEN bytes); a window_end < 0 makes both ends INPUT's modification
 * time (now for "-" or no such file); a recording_id of 0 becomes a hash
 * of INPUT's data section (of the whole file when it is not a perf.data
 * file; 0 for "-"). EO->host may point into S or BUF.
 */
HWP_API void hwp_export_opts__defaults(struct hwp_export_opts *eo, struct hwp_session *s, const char *input,
				       char *buf, size_t len);
HWP_API const struct hwp_export_row *hwp_export__rows(const struct hwp_export *e, size_t *n);
/* Adds T's block latency distributions (T of the same recording, built)
   to E: hwp_fleet__spool() sends them to the fleet's latency table, each
   value of each block with the block's instruction count. 0 or <0
   (hwp_errmsg()). */
HWP_API int hwp_export__add_timing(struct hwp_export *e, const struct hwp_timing *t);
/* Adds the call stacks of CG (hwprof/callgraph.h, of the same recording,
   read; it must outlive E) to E's pprof profile (hwp_export__write_pprof()).
   0 or <0 (hwp_errmsg()). */
struct hwp_call_graph;
HWP_API int hwp_export__add_calls(struct hwp_export *e, struct hwp_call_graph *cg);
/* The host E's rows name. */
HWP_API const char *hwp_export__host(const struct hwp_export *e);

enum hwp_export_format {
	HWP_EXPORT_TSV,  /* ClickHouse's TabSeparated: \t \n \\ escaped; arrays as [a,b] */
	HWP_EXPORT_CSV,  /* RFC 4180 */
	HWP_EXPORT_JSON, /* JSON lines: one object a row */
};
/* Writes rows [first, first + n) of E to FP (NAMES: a header line for TSV
   and CSV). 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_export__write(const struct hwp_export *e, size_t first, size_t n,
			      enum hwp_export_format f, bool names, FILE *fp);

/*
 * A gzipped pprof profile (perftools.profiles.Profile) of E's branch rows:
 * one sample per branch, its location the branch source (mapping: the
 * module with its build-id, addresses = module offsets; function and line
 * as the session's symbolizer finds them), values entries, mispredicts and
 * cycles; labels give the target and the type. With call stacks added
 * (hwp_export__add_calls()), each distinct stack is one more sample, its
 * locations leaf first (return addresses, as perf's callchains; lines: the
 * inline chain, innermost first), with two more values, "samples" and the
 * period (named after the event where one event recorded the stacks;
 * nanoseconds for cpu-clock and task-clock), the default one; the branch
 * values are 0 in them, and left out where no branch was recorded.
 * 0 or <0 (hwp_errmsg()).
 */
HWP_API int hwp_export__write_pprof(const struct hwp_export *e, FILE *fp);

HWP_END_DECLS

#endif
