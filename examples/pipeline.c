/* SPDX-License-Identifier: MIT */
/*
 * One pass over several recordings: the top finding of `hwprof advise` and
 * the hottest conditional branch's taken probability (`hwprof probs`' first
 * row), with the counts of every recording added up:
 *
 *     cc pipeline.c $(pkg-config --cflags --libs hwprof) -o pipeline
 *     ./pipeline a.data b.data
 *
 * The install tests check it prints what hwprof does (tests/tools/example_expect.py):
 * inputs: 2
 * expect: hwprof advise --json | top finding: {kind} at {symbol}+{sym_offset:#x} (line {line}), est. {share_percent:.1f}% of the work || top finding: none
 * expect: hwprof probs --json | hottest branch: {symbol}+{sym_offset:#x} (line {line}) taken {taken_percent:.2f}% of {executions} executions
 */
#include <stdio.h>

#include <hwprof/branch_report.h>
#include <hwprof/pipeline.h>

int main(int argc, char **argv)
{
	struct hwp_pipeline_opts o = { .sz = sizeof(o), .analyses = HWP_ANALYSIS_FLOW | HWP_ANALYSIS_TIMING |
							 HWP_ANALYSIS_MEM };
	struct hwp_advise_opts ao = { .sz = sizeof(ao) };
	struct hwp_advisor *a = NULL;
	struct hwp_loc_fields l;
	size_t n;
	int rc = 1;

	struct hwp_pipeline *p = hwp_pipeline__open((const char *const *)argv + 1, (size_t)argc - 1, &o);
	if (!p || hwp_pipeline__run(p) < 0 || !(a = hwp_pipeline__advise(p, &ao)))
		goto out;
	struct hwp_symbolizer *s = hwp_pipeline__symbolizer(p);
	const struct hwp_finding *f = hwp_advisor__findings(a, &n);
	if (n) {
		hwp_loc__fields(s, &f->loc, &l);
		printf("top finding: %s at %s+%#llx (line %u), est. %.1f%% of the work\n",
		       hwp_finding_kind__name(f->kind), l.symbol ? l.symbol : "?", (unsigned long long)l.sym_offset, l.line, 100 * f->share);
	} else {
		printf("top finding: none\n");
	}
	const struct hwp_flow_cond *c = hwp_flow__conds(hwp_pipeline__flow(p), &n);
	if (n) {
		hwp_loc__fields(s, &c->site, &l);
		printf("hottest branch: %s+%#llx (line %u) taken %.2f%% of %llu executions\n", l.symbol ? l.symbol : "?",
		       (unsigned long long)l.sym_offset, l.line, 100 * c->p_taken, (unsigned long long)c->executions);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "pipeline: %s\n", hwp_errmsg());
	hwp_advisor__delete(a);
	hwp_pipeline__delete(p);
	return rc;
}
