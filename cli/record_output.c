/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's output file, for both the hardware and the emulated path:
 * the previous recording is kept as FILE.old (by the library), and a
 * recording without samples is said to be one, with the period to lower.
 */
#include <inttypes.h>

#include "cli.h"
#include "hwprof/record_setup.h"
#include "record_opts.h"

int record_keep_old_output(const char *path)
{
	return hwp_record__keep_old_output(path) < 0 ? cli_error("record: %s", hwp_errmsg()) : 0;
}

void record_warn_no_samples(const char *prog, const char *out, const struct record_no_samples *ns)
{
	if (ns->emulated) {
		/* the events are known: say how far the program got, and a
		   period that gives about a hundred samples */
		uint64_t suggest = ns->events / 100 ? ns->events / 100 : 1;

		cli_warn("record: %s has 0 samples: %s ran %" PRIu64 " taken branches, fewer than the "
			 "period (%" PRIu64 "): lower it with -c N (-c %" PRIu64 " gives about 100 samples)",
			 out, prog, ns->events, ns->period, suggest);
	} else if (ns->freq) {
		cli_warn("record: %s has 0 samples: %s ended before the first %s sample at %" PRIu64
			 " Hz: sample more often (a higher -F) or every N events (-c N)",
			 out, prog, ns->event, ns->freq);
	} else {
		cli_warn("record: %s has 0 samples: %s ran fewer %s events than the period (%" PRIu64
			 "): lower it (-c N) or sample by frequency (-F N)",
			 out, prog, ns->event, ns->period);
	}
}
