/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/report.h"

int cg_input__load(struct cg_input *in, const char *cmd, const char *const *paths, size_t npaths, const char *symfs,
		  const struct hwp_call_graph_opts *co, unsigned jobs)
{
	const char *path = paths[0];
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = symfs, .no_inline = co->no_inline };
	struct hwp_call_graph_stats st = { .sz = sizeof(st) };

	memset(in, 0, sizeof(*in));
	in->session = hwp_session__open_inputs(paths, npaths, &so);
	if (!in->session)
		return cli_error("%s", hwp_errmsg());
	in->cg = hwp_call_graph__new(in->session, co);
	if (!in->cg || hwp_call_graph__read_jobs(in->cg, jobs) < 0)
		return cli_error("%s", hwp_errmsg());
	hwp_call_graph__stats(in->cg, &st);
	if (!st.samples && co->samples == HWP_CG_HITM)
		return cli_error("%s: no memory sample hit a line modified in another cache (HITM)", path);
	if (!st.samples && (co->samples || co->latency))
		return cli_error("%s: no memory samples (record with 'hwprof record --mem', 'perf mem record' or "
				 "'perf c2c record', with -g or --call-graph dwarf for their stacks)", path);
	if (!st.samples)
		return cli_error("%s: no samples", path);
	if (!st.with_callchain)
		cli_warn("%s: no sample has a call stack (record with 'perf record -g' or '--call-graph lbr'): "
			 "%s shows the sampled functions only", path, cmd);
	if (st.user_stacks)
		cli_warn("%s: %" PRIu64 " of %" PRIu64 " samples carry a user stack to unwind (--call-graph dwarf), "
			 "which hwprof does not unwind yet: their stacks are the kernel part and the sampled function "
			 "only (perf report unwinds them; record with --call-graph fp or lbr for stacks hwprof reads)",
			 path, st.user_stacks, st.samples);
	if (st.discarded)
		cli_warn("%s: %" PRIu64 " callchains with an unknown context marker were dropped, as perf drops them",
			 path, st.discarded);
	return 0;
}

void cg_input__close(struct cg_input *in)
{
	hwp_call_graph__delete(in->cg);
	hwp_session__delete(in->session);
	memset(in, 0, sizeof(*in));
}

void cg_input__warn_missing(struct cg_input *in)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(in->session);
	char buf[1024];

	if (sym && hwp_symbolizer__missing_symbols_warning(sym, buf, sizeof(buf)))
		cli_warn("%s", buf);
}

int cg_children_report(const char *cmd, const struct report_opts *ro, unsigned samples, bool latency,
		       uint64_t limit)
{
	struct hwp_call_graph_opts co = { .sz = sizeof(co), .samples = samples, .latency = latency };
	struct hwp_report_opts tro = { .sz = sizeof(tro), .fmt = ro->fmt, .limit = limit ? limit : UINT64_MAX };
	struct cg_input in;
	size_t n;
	const char *const *inputs = report_opts__inputs(ro, &n);
	int rc = cg_input__load(&in, cmd, inputs, n, ro->symfs, &co, ro->jobs);

	if (!rc) {
		struct hwp_table *t = hwp_report__callgraph(hwp_session__symbolizer(in.session), in.cg, &tro);

		rc = t ? report_print_table(t, tro.fmt) : cli_error("%s", hwp_errmsg());
		hwp_table__delete(t);
		if (!rc)
			cg_input__warn_missing(&in);
	}
	cg_input__close(&in);
	return rc;
}
