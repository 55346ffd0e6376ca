/* SPDX-License-Identifier: MIT */
/*
 * llvm_prof: the LLVM sample profile writer through the public API alone,
 * for tests until a command wraps it.
 *
 *   llvm_prof PERF.DATA [BINARY-NAME] > out.prof
 *
 * BINARY-NAME selects the module (path, base name or build-id); default:
 * the program with the most ranges.
 */
#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"
#include "hwprof/llvm_profile.h"
#include "hwprof/range_profile.h"
#include "hwprof/session.h"

int main(int argc, char **argv)
{
	struct hwp_session_opts so = { .sz = sizeof(so) };
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .no_addresses = true };
	struct hwp_session *s;
	struct hwp_branch_collector *c = NULL;
	int m, rc = 1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: llvm_prof PERF.DATA [BINARY-NAME]\n");
		return 2;
	}
	if (!(s = hwp_session__open(argv[1], &so)))
		goto fail;
	if (!(c = hwp_branch_collector__new(s, &co)) || hwp_branch_collector__read(c))
		goto fail;
	m = argc > 2 ? hwp_range_profile__find_module(c, argv[2]) : hwp_range_profile__default_module(c);
	if (m < 0 || hwp_llvm_profile__write(c, m, stdout))
		goto fail;
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "llvm_prof: %s\n", hwp_errmsg());
out:
	hwp_branch_collector__delete(c);
	hwp_session__delete(s);
	return rc;
}
