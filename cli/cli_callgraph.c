/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/report.h"

/* The user stacks (--call-graph dwarf) whose unwinding ended before their
   outermost frame: said once, with how many and what to do about each. */
void cg_warn_unwind(const char *path, const struct hwp_call_graph_stats *st)
{
	uint64_t short_ = st->unwind_stack_short, bin = st->unwind_no_binary, none = st->unwind_no_stack,
		 stop = st->unwind_stopped;
	uint64_t bad = short_ + bin + none + stop;
	char msg[1536];
	size_t len = 0;

	if (st->user_stacks)
		cli_info("%s: %" PRIu64 " user stacks unwound to %" PRIu64 " frames, %" PRIu64
			 " of them from cached unwinding rules alone (the rest through libdwfl)",
			 path, st->user_stacks, st->unwind_frames, st->unwind_by_rules);
	if (!st->user_stacks || !bad)
		return;
	/* perf takes at most 65528 bytes (a multiple of 8 below 64 KiB) */
	uint64_t more = st->unwind_stack_size * 4 > 65528 ? 65528 : st->unwind_stack_size * 4;
#define ADD(...) len += (size_t)snprintf(msg + len, len < sizeof(msg) ? sizeof(msg) - len : 0, __VA_ARGS__)
	ADD("%s: %" PRIu64 " of %" PRIu64 " user stacks (--call-graph dwarf) end before their outermost frame:", path,
	    bad, st->user_stacks);
	if (short_ && more > st->unwind_stack_size)
		ADD(" %" PRIu64 " ran past their %" PRIu64 "-byte stack copy (record with --call-graph dwarf,%" PRIu64
		    ");", short_, st->unwind_stack_size, more);
	else if (short_)
		ADD(" %" PRIu64 " ran past their %" PRIu64 "-byte stack copy (perf's largest: record with frame "
		    "pointers, -g, for deeper stacks);", short_, st->unwind_stack_size);
	if (bin)
		ADD(" %" PRIu64 " reached code of a binary not found%s%s%s (give the binaries with --symfs or in the "
		    "build-id cache);", bin, st->unwind_missing[0] ? " (" : "", st->unwind_missing,
		    st->unwind_missing[0] ? ")" : "");
	if (none)
		ADD(" %" PRIu64 " have registers but no stack copy (record with --call-graph dwarf);", none);
	if (stop)
		ADD(" %" PRIu64 " stopped where neither CFI (.eh_frame, .debug_frame) nor a frame pointer led further;",
		    stop);
#undef ADD
	if (len >= sizeof(msg))
		len = sizeof(msg) - 1;
	msg[len - 1] = msg[len - 1] == ';' ? '\0' : msg[len - 1];
	cli_warn("%s (those stacks stop where the unwinding did)", msg);
}

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
		cli_warn("%s: no sample has a call stack (record with 'perf record -g', '--call-graph dwarf' or '--call-graph lbr'): "
			 "%s shows the sampled functions only", path, cmd);
	cg_warn_unwind(path, &st);
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
