/* SPDX-License-Identifier: MIT */
/* Internal: what other analyses share with the branch collector. */
#ifndef HWPROF_ANALYSIS_BRANCH_COLLECT_INTERNAL_H
#define HWPROF_ANALYSIS_BRANCH_COLLECT_INTERNAL_H

#include "analysis/branch_collect_struct.h"
#include "hwprof/branch_collect.h"
#include "hwprof/perf_abi.h"
#include "hwprof/session.h"
#include "util/bytes.h"

struct hwp__code_cache;

/* The collector's instruction cache (ranges already decoded stay decoded),
   made on first use; NULL on ENOMEM. Owned by the collector. */
struct hwp__code_cache *hwp__branch_collector_code_cache(struct hwp_branch_collector *c);

/* Why the fall-through range between entries I (older) and I - 1 of S,
   [START, END] (resolved), is not counted; HWP_RANGE_REJECT_NR when it is
   (before the decoding check). ALL_BRANCHES: the stack holds every taken
   branch. Inline: it runs for every branch entry, in the collector's loop
   and the timing's (a call cost a third of its instructions). */
static inline __attribute__((always_inline)) enum hwp_range_reject
hwp__branch_collector_classify(const struct hwp_branch_collector *c, const struct hwp_sample *s, uint64_t i,
			       const struct hwp_code_loc *start, const struct hwp_code_loc *end, bool all_branches)
{
	const uint8_t *older = s->branch_entries + i * 24, *newer = older - 24;
	uint64_t raw_start = ld64(older + 8), raw_end = ld64(newer);

	if (!raw_start || !raw_end)
		return HWP_RANGE_ZEROED;
	if (((ld64(older + 16) >> HWP_BRF_SPEC_SHIFT) & 3) == HWP_BR_SPEC_WRONG_PATH ||
	    ((ld64(newer + 16) >> HWP_BRF_SPEC_SHIFT) & 3) == HWP_BR_SPEC_WRONG_PATH)
		return HWP_RANGE_WRONG_PATH;
	if (i == 1 && ld64(older) == raw_end && raw_start == ld64(newer + 8) &&
	    (raw_end < raw_start || raw_end - raw_start > c->o.dup_stride))
		/* Some Intel parts (Skylake) record the newest branch twice. A
		   real self loop also repeats it, but its body is short: like
		   AutoFDO, a repeat spanning more than dup_stride is the copy. */
		return HWP_RANGE_DUPLICATE;
	if (!all_branches)
		return HWP_RANGE_FILTERED;
	if (start->module < 0 || end->module < 0)
		return HWP_RANGE_UNMAPPED;
	if (start->module != end->module)
		return HWP_RANGE_MODULES;
	if (end->offset < start->offset)
		return HWP_RANGE_BACKWARD;
	if (end->offset - start->offset > c->o.max_range)
		return HWP_RANGE_TOO_LONG;
	return HWP_RANGE_REJECT_NR;
}

/*
 * The resolved sources (*FROM) and targets (*TO) of the branch stack of
 * EV's sample, which C has just added (or, if it has not, resolved now
 * through C's resolver for thread TH): what the paths and the timing
 * walk, resolved once per sample for all of them. Valid until C's next
 * sample. 0 or <0 (hwp_errmsg()). hwp__branch_collector_keep_locs(C)
 * first, once.
 */
struct hwp_event;
struct hwp_thread;
void hwp__branch_collector_keep_locs(struct hwp_branch_collector *c);
int hwp__branch_collector_locs(struct hwp_branch_collector *c, const struct hwp_event *ev,
			       const struct hwp_thread *th, const struct hwp_code_loc **from,
			       const struct hwp_code_loc **to);

/* The row of C's ranges table each entry I >= 1 of S's stack counted its
   range [to[I], from[I - 1]] in (UINT32_MAX: rejected), when C has just
   added S and counts ranges; else NULL. Valid until C's next sample. A
   check of the ranges (hwp_branch_collector__check_ranges(), public: a
   caller may check between samples) that drops rows moves the later ones:
   *MOVED counts such checks, so that an index kept across samples is
   dropped when it changes. */
const uint32_t *hwp__branch_collector_range_rows(const struct hwp_branch_collector *c, const struct hwp_sample *s,
						 uint32_t *moved);

/* The symbolizer of C's modules (its session's, or the one it was made
   with), and the name of its input for messages. */
struct hwp_symbolizer *hwp__branch_collector_symbolizer(const struct hwp_branch_collector *c);
const char *hwp__branch_collector_name(const struct hwp_branch_collector *c);

/* The session C reads (NULL for one made from tables). */
struct hwp_session *hwp__branch_collector_session(const struct hwp_branch_collector *c);

/* With opts.ranges: the samples' own addresses (IPs) of samples with a
   branch stack, rows keyed from = to = the address (AutoFDO's address
   counts). NULL without (or with opts.no_addresses). */
const struct hwp_branch_table *hwp__branch_collector_addresses(const struct hwp_branch_collector *c);

/* The events whose samples opts.ip_samples counted, in the order first
   seen; *NR of them (at most 16 are kept). */
const struct hwp_evsel *const *hwp__branch_collector_ip_events(const struct hwp_branch_collector *c,
									 size_t *nr);

/* With opts.ip_samples: the samples' IPs, rows keyed from = to = the
   address, count = samples (one row per distinct address: the table grows
   with the code sampled, not with the recording). NULL without. */
const struct hwp_branch_table *hwp__branch_collector_ip_samples(const struct hwp_branch_collector *c);
/* With opts.ip_samples HWP_IP_SAMPLES_BY_EVENT: the same per event, the key's
   type field the event's index in hwp__branch_collector_ip_events(). NULL
   without. */
const struct hwp_branch_table *hwp__branch_collector_ip_samples_by_event(const struct hwp_branch_collector *c);

/*
 * A parallel pass (branch_merge.c): parts count shares of one session's
 * samples, each resolving through its own RES (with its own module ids),
 * then merge into a collector that has counted nothing, which ends as the
 * sequential pass's would (before hwp_branch_collector__check_ranges()).
 */
struct hwp__resolver;
struct hwp__module_ids;
struct hwp_branch_collector *hwp__branch_collector_new_part(struct hwp_session *s,
							    const struct hwp_branch_collect_opts *opts,
							    struct hwp__resolver *res);
/* hwp_branch_collector__add() for the sample numbered SEQ in the
   sequential order (each part gets increasing numbers). */
int hwp__branch_collector_add_at(struct hwp_branch_collector *c, const struct hwp_event *ev,
				 const struct hwp_thread *th, uint64_t seq);
/* Merges PARTS[0..N) (IDS[k]: part k's module numbers) into DST: 0 or <0. */
int hwp__branch_collector_merge(struct hwp_branch_collector *dst, struct hwp_branch_collector *const *parts,
				struct hwp__module_ids *const *ids, size_t n);

#endif
