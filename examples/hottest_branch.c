/* SPDX-License-Identifier: MIT */
/*
 * Opens a recording and prints its hottest branch, as `hwprof branches
 * --sort symbol_from,symbol_to` ranks them:
 *
 *     cc hottest_branch.c $(pkg-config --cflags --libs hwprof) -o hottest_branch
 *     ./hottest_branch perf.data
 *     41.52% 123456 main -> compute
 *
 * The install tests check it prints what hwprof does (tests/tools/example_expect.py):
 * expect: hwprof branches --json --sort symbol_from,symbol_to | {percent:.2f}% {count} [.] {from_symbol} -> [.] {to_symbol}
 */
#include <stdio.h>

#include <hwprof/branch_collect.h>
#include <hwprof/branch_report.h>
#include <hwprof/session.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_branch_collector *c = NULL;
	struct hwp_branch_report *rep = NULL;
	int rc = 1;

	if (!s)
		goto out;
	/* Count every branch entry by (module, offset) of source and target. */
	c = hwp_branch_collector__new(s, NULL);
	if (!c || hwp_branch_collector__read(c) < 0)
		goto out;
	/* Group the counts by symbol, symbolizing each distinct address once. */
	enum hwp_branch_key_id keys[] = { HWP_KEY_SYMBOL_FROM, HWP_KEY_SYMBOL_TO };
	rep = hwp_branch_report__new(hwp_branch_collector__table(c), hwp_session__symbolizer(s), keys, 2, NULL);
	if (!rep)
		goto out;
	const struct hwp_branch_report_row *rows;
	if (hwp_branch_report__rows(rep, &rows) == 0) {
		fprintf(stderr, "hottest_branch: %s: no branch entries\n", path);
		rc = 2;
		goto out;
	}
	uint64_t total = hwp_branch_report__total(rep);
	printf("%.2f%% %llu %s -> %s\n", 100.0 * (double)rows[0].c.count / (double)total,
	       (unsigned long long)rows[0].c.count, rows[0].cells[0], rows[0].cells[1]);
	rc = 0;
out:
	if (rc == 1)
		fprintf(stderr, "hottest_branch: %s\n", hwp_errmsg());
	hwp_branch_report__delete(rep);
	hwp_branch_collector__delete(c);
	hwp_session__delete(s);
	return rc;
}
