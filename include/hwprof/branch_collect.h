/* SPDX-License-Identifier: MIT */
/*
 * Counts a recording's branch-stack entries into a branch table: each
 * entry's from/to address becomes a module + file offset through the
 * session's address spaces, exactly as perf resolves branch addresses (the
 * thread's user maps first, then the kernel's).
 */
#ifndef HWPROF_BRANCH_COLLECT_H
#define HWPROF_BRANCH_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/branch_table.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_branch_collector;

struct hwp_branch_collect_stats {
	uint64_t samples;           /* samples seen */
	uint64_t ip_samples;        /* counted by opts.ip_samples */
	uint64_t branch_samples;    /* samples with a branch stack */
	uint64_t entries;           /* branch entries counted */
	uint64_t entries_with_flags; /* mispred or predicted bit set */
	bool no_flags_filter;       /* some event recorded with NO_FLAGS */
	/* Entries whose stacks carry no prediction information: NO_FLAGS, or
	   synthesized by 'perf inject --itrace' from Arm ETM / Intel PT (those
	   attrs select no branch filter; every entry says "predicted"). */
	uint64_t entries_without_prediction;
	bool synthesized_stacks;
	bool call_stack_mode;       /* some event recorded in LBR call-stack mode */
	uint64_t deepest;           /* most entries in one branch stack */
};

/*
 * Why a fall-through range [older entry's to, newer entry's from] was not
 * counted. The first reason that applies, in this order.
 */
enum hwp_range_reject {
	HWP_RANGE_ZEROED,      /* an end address is 0 (unfilled or hidden entries) */
	HWP_RANGE_WRONG_PATH,  /* either entry is marked speculative wrong-path (spec bits):
				  it did not retire */
	HWP_RANGE_DUPLICATE,   /* the newest entry repeated (Intel erratum, see opts.dup_stride) */
	HWP_RANGE_FILTERED,    /* stack recorded with a branch filter other than 'any': consecutive
				  entries are not consecutive branches */
	HWP_RANGE_UNMAPPED,    /* an end in no mapped module */
	HWP_RANGE_MODULES,     /* start and end in different modules */
	HWP_RANGE_BACKWARD,    /* end before start */
	HWP_RANGE_TOO_LONG,    /* end - start > opts.max_range */
	HWP_RANGE_CROSSES,     /* an unconditional jump, call or return before the end: it
				  cannot have run straight through (decoded) */
	HWP_RANGE_MISALIGNED,  /* decoding from start steps over end, or meets undecodable bytes */
	HWP_RANGE_NO_CODE,     /* start or end outside the executable segments of the file */
	HWP_RANGE_REJECT_NR
};

/* Short name of a reason ("backward", "crosses_branch", ...); NULL when out of range. */
HWP_API const char *hwp_range_reject__name(enum hwp_range_reject r);

struct hwp_range_stats {
	uint64_t pairs;       /* consecutive entry pairs seen (candidate ranges) */
	uint64_t accepted;    /* counted in the range table (sum of its counts) */
	uint64_t unchecked;   /* of accepted: not decoded (no binary, kernel, other machine,
				 no Capstone): kept, as llvm-profgen cannot check them either */
	uint64_t rejected[16]; /* by enum hwp_range_reject */
	size_t distinct;      /* rows of the range table */
	bool checked;         /* hwp_branch_collector__check_ranges() ran over every row */
};

struct hwp_branch_collect_opts {
	size_t sz;      /* sizeof(struct hwp_branch_collect_opts) */
	unsigned split; /* enum hwp_branch_split bits: what splits rows besides from/to */
	/* Clear the mispred/predicted bits of synthesized and NO_FLAGS stacks
	   before counting (for mispredict rates; perf's branch views keep them). */
	bool drop_meaningless_prediction;
	/* Also count basic blocks as perf's IPC does (hist__account_cycles):
	   between consecutive entries of a stack, [older to, newer from] with
	   the newer entry's cycles, for stacks with cycles recorded in ANY
	   branch mode; see hwp_branch_collector__blocks(). */
	bool blocks;
	/* Count fall-through ranges (hwp_branch_collector__ranges()): for
	   consecutive entries e[i] (older) and e[i-1] (newer) of a stack,
	   [e[i].to, e[i-1].from]. A recording in LBR call-stack mode is then
	   refused (its stacks are call chains, not branch sequences). */
	bool ranges;
	/* Longest range counted, in bytes (end - start); 0 = 1 MiB, AutoFDO's
	   bound on "bogus LBR data". */
	uint64_t max_range;
	/* The duplicated newest entry: when e[0] and e[1] are the same branch
	   and the range between them is longer than this, it is taken for the
	   erratum's copy, not a self loop (AutoFDO's
	   strip_dup_backedge_stride_limit); 0 = 0x1000. */
	uint64_t dup_stride;
	/* Do not decode: skip the crossing check (every range is "unchecked"). */
	bool no_decode;
	/* With opts.ranges: do not count sample addresses (only the AutoFDO
	   text's address section needs them; the table costs a lookup per
	   sample and grows with the distinct sampled instructions). */
	bool no_addresses;
	/* Count sample IPs per module offset (hwp__branch_collector_ip_samples()),
	   the source of profiles from IP samples alone (cpu-clock, cycles
	   without branch stacks); enum hwp_ip_samples. */
	unsigned ip_samples;
};

/* Which samples' IPs opts.ip_samples counts. */
enum hwp_ip_samples {
	HWP_IP_SAMPLES_NONE,          /* none (default) */
	HWP_IP_SAMPLES_WITHOUT_STACK, /* samples without a branch stack or with an empty one:
					 nearly free for branch recordings */
	HWP_IP_SAMPLES_ALL,           /* every sample, with a branch stack or not */
	HWP_IP_SAMPLES_BY_EVENT,      /* the same, and per event too (annotate's columns) */
};

/* Counts into a new table; S resolves addresses (it must outlive the
   collector). NULL + errno (hwp_errmsg()) on failure. */
HWP_API struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_session *s,
							       const struct hwp_branch_collect_opts *opts);
HWP_API void hwp_branch_collector__delete(struct hwp_branch_collector *c);
/*
 * A collector over counts made elsewhere (other machines' recordings, a
 * database: see fleet.h): TABLE the taken branches, RANGES (may be NULL)
 * the fall-through ranges (checked ones), modules registered in SYM (it
 * must outlive the collector); NAME names the input in messages. What the
 * profile writers (llvm_profile.h, bolt_profile.h, range_profile.h) read;
 * nothing to read or add. Takes the tables (also on failure). NULL + errno.
 */
HWP_API struct hwp_branch_collector *hwp_branch_collector__from_tables(struct hwp_symbolizer *sym, const char *name,
								       struct hwp_branch_table *table,
								       struct hwp_branch_table *ranges);
/* Counts one sample of S (from hwp_session__next()); other records are ignored. */
HWP_API int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev,
				      const struct hwp_thread *th);
/* Reads the rest of the session. Returns 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_branch_collector__read(struct hwp_branch_collector *c);
/*
 * The same on JOBS threads (0: the CPUs this process may use, fewer on a
 * small file: one per 4 MiB), with the
 * same counts and rows in the same order, to the byte. One thread when C
 * counted samples before or the session is not one file-mode perf.data
 * without compressed records (the log says why, at HWP_LOG_INFO).
 */
HWP_API int hwp_branch_collector__read_jobs(struct hwp_branch_collector *c, unsigned jobs);
HWP_API const struct hwp_branch_table *hwp_branch_collector__table(const struct hwp_branch_collector *c);
HWP_API const struct hwp_branch_collect_stats *hwp_branch_collector__stats(const struct hwp_branch_collector *c);
/* The blocks counted with opts.blocks (NULL without): rows keyed from =
   block start, to = block end (the branch ending it), same module, start
   before end; count = executions, cycles_sum = their cycles. */
HWP_API const struct hwp_branch_table *hwp_branch_collector__blocks(const struct hwp_branch_collector *c);

/*
 * The fall-through ranges counted with opts.ranges (NULL without): rows
 * keyed from = range start (older entry's target), to = range end (newer
 * entry's source: the offset of the range's last instruction), same
 * module, start <= end; count = times the range ran. Only ranges that
 * passed every check; hwp_branch_collector__read() runs the decoding check
 * at its end; after hwp_branch_collector__add() calls, run
 * hwp_branch_collector__check_ranges() first.
 */
HWP_API const struct hwp_branch_table *hwp_branch_collector__ranges(const struct hwp_branch_collector *c);
/* Decodes each distinct range not yet checked (once) and moves the counts
   of those that cannot have run straight through to their reason. 0 or <0
   (ENOMEM; hwp_errmsg()). */
HWP_API int hwp_branch_collector__check_ranges(struct hwp_branch_collector *c);
/* The events whose samples opts.ip_samples counted, in the order first
   seen; *NR of them (at most 16 are kept). */
HWP_API const struct hwp_range_stats *hwp_branch_collector__range_stats(const struct hwp_branch_collector *c);

HWP_END_DECLS

#endif
