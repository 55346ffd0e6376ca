/* SPDX-License-Identifier: MIT */
/*
 * Opens a recording and prints its hottest branch, as `hwprof branches
 * --sort symbol_from,symbol_to` ranks them:
 *
 *     cc hottest_branch.c $(pkg-config --cflags --libs hwprof) -o hottest_branch
 *     ./hottest_branch perf.data
 *     41.52% 123456 main -> compute
 */
#include <errno.h>
#include <stdio.h>

#include <hwprof/branch_collect.h>
#include <hwprof/branch_report.h>
#include <hwprof/hwprof.h>
#include <hwprof/perf_data.h>
#include <hwprof/symbolize.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	struct hwp_reader_opts ro = { .sz = sizeof(ro) };
	struct hwp_symbolizer_opts so = { .sz = sizeof(so) };
	struct hwp_reader *r = hwp_reader__open(path, &ro);
	struct hwp_symbolizer *sym = NULL;
	struct hwp_branch_collector *c = NULL;
	struct hwp_branch_report *rep = NULL;
	enum hwp_branch_key_id keys[] = { HWP_KEY_SYMBOL_FROM, HWP_KEY_SYMBOL_TO };
	int rc = 1;

	if (!r || !(sym = hwp_symbolizer__new(&so)))
		goto out;
	/* Count every branch entry by (module, offset) of source and target. */
	c = hwp_branch_collector__new(sym, hwp_branch_keys__split(keys, 2), hwp_reader__header(r));
	if (!c || hwp_branch_collector__read(c, r) < 0)
		goto out;
	/* Group the counts by symbol, symbolizing each distinct address once. */
	rep = hwp_branch_report__new(hwp_branch_collector__table(c), sym, keys, 2, NULL);
	if (!rep)
		goto out;
	const struct hwp_branch_report_row *rows;
	if (hwp_branch_report__rows(rep, &rows) == 0) {
		hwp_set_error(ENOENT, "%s: no branch entries", path);
		goto out;
	}
	uint64_t total = hwp_branch_report__total(rep);
	printf("%.2f%% %llu %s -> %s\n", 100.0 * (double)rows[0].c.count / (double)total,
	       (unsigned long long)rows[0].c.count, rows[0].cells[0], rows[0].cells[1]);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "hottest_branch: %s\n", hwp_errmsg());
	hwp_branch_report__delete(rep);
	hwp_branch_collector__delete(c);
	hwp_symbolizer__delete(sym);
	hwp_reader__delete(r);
	return rc;
}
