/* SPDX-License-Identifier: MIT */
/*
 * The call stacks of hwprof export's pprof profile (pprof_internal.h): each
 * distinct stack of the recording's call graph (frame-pointer or LBR
 * callchains, DWARF-unwound user stacks) one sample, leaf first, as
 * perf-to-pprof converters write them. A location is an address (module
 * offset) with its inline chain as pprof's lines, innermost first and the
 * function it was inlined into last; a return address's lines are those of
 * the call before it (offset - 1), its address stays the return address.
 */
#ifdef HAVE_PPROF
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callgraph_stacks.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "hwprof/symbolize.h"
#include "profile.pb-c.h"
#include "util/error.h"
#include "util/vec.h"
#define HWPROF_PPROF_BUILDER
#include "export/pprof_internal.h"

struct walk {
	struct hwp__pprof_builder *b;
	struct hwp_symbolizer *sym;
	struct hwp__pprof_stacks *x;
};

/* LOC's lines: the inline chain at the frame's address, innermost first.
   A return address's function is the one perf names, the symbol at the
   address; its chain and line are those of the call one byte back when
   that is in the same function (a call at a function's end returns to the
   next one's start). Nothing when no symbol covers it. */
static void frame_lines(struct walk *w, Perftools__Profiles__Location *loc, const struct hwp__cg_stack_frame *f)
{
	struct hwp_symbol_info si, call;

	if (f->module < 0 || hwp_symbolizer__lookup(w->sym, f->module, f->offset, &si) < 0 || !si.symbol)
		return;
	const char *name = si.symbol_full ? si.symbol_full : si.symbol, *raw = si.symbol_raw ? si.symbol_raw : si.symbol;
	const struct hwp_symbol_info *at = &si;
	if (f->ret && si.sym_offset > 0) {
		uint64_t start = f->offset - si.sym_offset;
		bool same = hwp_symbolizer__lookup(w->sym, f->module, f->offset - 1, &call) >= 0 && call.symbol &&
			    f->offset - 1 - call.sym_offset == start;

		/* (SI's strings stay valid: the symbolizer keeps them) */
		at = same ? &call : NULL;
	}
	/* inline frame k's own line is the call site of frame k - 1 (the
	   innermost's: the address's line); the function it was inlined into
	   comes last, at the outermost call site */
	const char *file = at ? at->file : si.file;
	unsigned line = at ? at->line : si.line;
	for (size_t k = 0; at && k < at->n_inline; k++) {
		const struct hwp_inline_frame *in = &at->inlines[k];

		if (!in->function)
			continue;
		hwp__pprof_line(w->b, loc,
				hwp__pprof_function(w->b, in->function_full ? in->function_full : in->function,
						    in->function, file),
				line);
		file = in->file;
		line = in->line;
	}
	hwp__pprof_line(w->b, loc, hwp__pprof_function(w->b, name, raw, file), line);
}

static int take_stack(void *ctx, const struct hwp__cg_stack_frame *fr, size_t n, uint64_t samples, uint64_t period)
{
	struct walk *w = ctx;
	struct hwp__pprof_stacks *x = w->x;
	struct hwp__pprof_stack *st = HWP_VEC_PUSH(x->v, x->nr, x->cap);

	if (!st || HWP_VEC_RESERVE(x->ids, x->cap_ids, x->nids + n))
		return hwp__set_error(ENOMEM, "out of memory making the pprof profile");
	*st = (struct hwp__pprof_stack){ .first = x->nids, .n = n, .samples = samples, .period = period };
	for (size_t i = 0; i < n; i++) {
		bool made;
		Perftools__Profiles__Location *loc =
			hwp__pprof_location(w->b, w->sym, fr[i].module, fr[i].offset,
					    fr[i].ret ? HWP__PPROF_LOC_RETURN : HWP__PPROF_LOC_FRAME, &made);

		if (!loc)
			return hwp__set_error(ENOMEM, "out of memory making the pprof profile");
		if (made)
			frame_lines(w, loc, &fr[i]);
		x->ids[x->nids++] = loc->id;
	}
	return w->b->oom ? hwp__set_error(ENOMEM, "out of memory making the pprof profile") : 0;
}

/* The period's value type: the event's name where one event records the
   stacks (nanoseconds for the software clocks), else "period". */
static void period_type(struct hwp_session *s, struct hwp__pprof_stacks *x)
{
	const struct hwp_evsel *one = NULL;

	x->period_name = "period";
	x->period_unit = "count";
	for (size_t n = 0; s && n < hwp_session__nr_inputs(s); n++) {
		struct hwp_reader *r = hwp_session__input_reader(s, n);

		for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
			const struct hwp_evsel *ev = hwp_reader__evsel(r, i);

			if (!(ev->attr.sample_type & (HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_STACK_USER)))
				continue;
			if (one && (!one->name || !ev->name || strcmp(one->name, ev->name)))
				return;
			one = ev;
		}
	}
	if (!one || !one->name)
		return;
	x->period_name = one->name;
	/* PERF_TYPE_SOFTWARE's cpu-clock and task-clock count nanoseconds */
	if (one->attr.type == 1 && one->attr.config <= 1)
		x->period_unit = "nanoseconds";
}

int hwp__pprof_stacks(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym, struct hwp_call_graph *cg,
		      struct hwp__pprof_stacks *x)
{
	struct walk w = { b, sym, x };

	memset(x, 0, sizeof(*x));
	period_type(hwp__call_graph_session(cg), x);
	return hwp__call_graph_each_stack(cg, take_stack, &w);
}

void hwp__pprof_stacks_free(struct hwp__pprof_stacks *x)
{
	free(x->v);
	free(x->ids);
	memset(x, 0, sizeof(*x));
}
#endif
