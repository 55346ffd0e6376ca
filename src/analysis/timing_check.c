/* SPDX-License-Identifier: MIT */
/*
 * hwp_timing__check(): whether a timing has anything to show, and when it
 * has not, why, in the terms of the recording (the filter it was recorded
 * with, the CPU, how its stacks were made).
 */
#include <errno.h>
#include <inttypes.h>

#include "analysis/timing_internal.h"
#include "hwprof/timing.h"
#include "util/error.h"

/* Why ST counted no cycles: the most specific first (a filter the
   recording chose, then the source of its stacks). */
static const char *why_no_cycles(const struct hwp_timing_stats *st)
{
	if (st->no_cycles_filter)
		return "it was recorded with no_cycles (perf record -j ...,no_cycles)";
	if (st->synthesized)
		return "its branch stacks were synthesized from an instruction trace (Arm ETM or Intel PT "
		       "through 'perf inject'), which carries no cycle counts";
	if (st->amd)
		return "it was recorded on an AMD CPU, whose branch records (LBRv2, BRS) carry no cycle counts";
	if (st->call_stack && !st->stacks)
		return "its stacks are LBR call stacks (call chains), recorded without cycles";
	return "every entry's count is 0 (unknown): Intel CPUs record LBR cycles from Skylake on";
}

int hwp_timing__check(const struct hwp_timing *t, const char *input)
{
	const struct hwp_timing_stats *st = hwp_timing__stats(t);

	if (hwp_timing__source(t) == HWP_CYCLES_NONE)
		return hwp__set_error(ENODATA, "%s: the branch records carry no cycle counts: %s. There is "
				      "nothing to time (hwprof branches and hwprof probs work without cycles)",
				      input, why_no_cycles(st));
	if (!st->latencies && !st->iterations)
		return hwp__set_error(ENODATA, "%s: no block latency: of %" PRIu64 " pairs of consecutive "
				      "branch entries, %" PRIu64 " have a range that cannot be used (the statistics "
				      "of hwprof ranges say why) and %" PRIu64 " have no cycle count%s", input, st->pairs,
				      st->rejected, st->unknown_cycles, st->filtered_stacks
				      ? "; stacks recorded with a branch filter other than 'any' are not "
					"sequences of branches" : "");
	if (st->modelled && st->measured)
		hwp__log(HWP_LOG_WARN, "%s mixes modelled (emulated) and measured cycles", input);
	if (st->dropped_by_decoding)
		hwp__log(HWP_LOG_WARN, "%" PRIu64 " latency samples dropped: their ranges could not have run "
			 "straight through (decoded)", st->dropped_by_decoding);
	return 0;
}
