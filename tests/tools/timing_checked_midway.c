/* SPDX-License-Identifier: MIT */
/*
 * A library caller that checks the collector's ranges between samples (the
 * API allows it): usage: timing_checked_midway FILE K... reads FILE with a
 * branch collector and a timing, once straight through and once per K with
 * hwp_branch_collector__check_ranges() after K samples, and prints each
 * run's blocks; exits 1 when a run's blocks or counts differ from the
 * straight run's (a check that drops a range moves the later range rows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"
#include "hwprof/timing.h"

/* One run (check after K samples; 0: none): its blocks and counts in SIG. */
static int run(const char *path, long k, char *sig, size_t len)
{
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true };
	struct hwp_branch_collector *c = s ? hwp_branch_collector__new(s, &co) : NULL;
	struct hwp_timing_opts to = { .sz = sizeof(to) };
	struct hwp_timing *t = c ? hwp_timing__new(s, c, &to) : NULL;
	struct hwp_event ev;
	const struct hwp_thread *th;
	long n = 0;
	int err = -1;

	if (!t)
		goto out;
	while (n < k && hwp_session__next(s, &ev, &th) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		n++;
		if (hwp_branch_collector__add(c, &ev, th) < 0 || hwp_timing__add(t, &ev, th) < 0)
			goto out;
	}
	if ((k && hwp_branch_collector__check_ranges(c) < 0) || hwp_timing__read(t) < 0)
		goto out;
	size_t nb, at;
	const struct hwp_timing_block *b = hwp_timing__blocks(t, &nb);
	const struct hwp_timing_stats *st = hwp_timing__stats(t);
	at = (size_t)snprintf(sig, len, "latencies %llu dropped %llu blocks", (unsigned long long)st->latencies,
			      (unsigned long long)st->dropped_by_decoding);
	for (size_t i = 0; i < nb && at < len; i++)
		at += (size_t)snprintf(sig + at, len - at, " %#llx-%#llx:%llu/%llu", (unsigned long long)b[i].start.offset,
				       (unsigned long long)b[i].end.offset, (unsigned long long)b[i].d.samples,
				       (unsigned long long)b[i].d.cycles_sum);
	err = 0;
out:
	if (err)
		fprintf(stderr, "timing_checked_midway: %s\n", hwp_errmsg());
	hwp_timing__delete(t);
	hwp_branch_collector__delete(c);
	hwp_session__delete(s);
	return err;
}

int main(int argc, char **argv)
{
	char want[4096], got[4096];
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: timing_checked_midway FILE K...\n");
		return 2;
	}
	if (run(argv[1], 0, want, sizeof(want)))
		return 2;
	printf("straight: %s\n", want);
	for (int i = 2; i < argc; i++) {
		if (run(argv[1], atol(argv[i]), got, sizeof(got)))
			return 2;
		printf("checked after %s: %s\n", argv[i], got);
		bad |= strcmp(got, want) != 0;
	}
	return bad;
}
