/* SPDX-License-Identifier: MIT */
/*
 * Findings from the flow analysis (advise.h). Every estimate is a share of
 * the sampled instructions executed: the blocks of one analysis are the
 * common measure of where the work goes when no cycles are recorded.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/wilson.h"
#include "hwprof/advise.h"
#include "hwprof/session.h"
#include "hwprof/symbolize.h"
#include "hwprof/timing.h"
#include "hwprof/c2c.h"
#include "hwprof/mem.h"
#include "util/opts.h"
#include "util/vec.h"
#include "analysis/advise_internal.h"
#include "util/error.h"

#define CACHE_LINE 64u

struct hwp_advisor {
	struct hwp_advise_opts o;
	struct hwp_finding *v;
	size_t nr, cap;
	bool sorted;
	char **strs; /* what the findings point at (their caller chains) */
	size_t nstrs, cap_strs;
};

static const struct {
	const char *name, *action, *technique;
} kinds[HWP_FIND_KIND_NR] = {
	[HWP_FIND_BIASED_BRANCH] = { "biased-branch",
		"invert the condition or mark it likely (__builtin_expect), or let PGO/BOLT lay the hot path out as the fall-through",
		"taken/not-taken probability from the fall-through ranges" },
	[HWP_FIND_MISPREDICT] = { "mispredict",
		"make it branchless (conditional move, arithmetic select, table lookup) or make the data predictable",
		"mispredict rate per branch execution" },
	[HWP_FIND_MONOMORPHIC] = { "monomorphic-call",
		"devirtualize, or promote the call: compare with the dominant target and call it directly",
		"indirect branch target distribution" },
	[HWP_FIND_SPREAD_FUNCTION] = { "spread-function",
		"reorder its blocks so the hot ones are contiguous (BOLT -reorder-blocks=ext-tsp, PGO)",
		"hot paths and basic-block execution counts" },
	[HWP_FIND_DRAM_LOADS] = { "dram-loads",
		"make the data fit the cache or reach it earlier: block the loop, prefetch, shrink or reorder the data",
		"load latency and data source of precise samples (PEBS/IBS)" },
	[HWP_FIND_FALSE_SHARING] = { "false-sharing",
		"give each thread's field its own cache line (pad or align the structure, split per-thread data)",
		"HITM and cross-thread accesses per cache line (c2c)" },
	[HWP_FIND_MULTIMODAL_BLOCK] = { "multimodal-block",
		"find what the slow executions wait for: its loads (hwprof mem: data source and latency), a dependency chain, a mispredicted branch before it",
		"basic-block latency histograms from LBR cycle counts" },
};

const char *hwp_finding_kind__name(unsigned kind)
{
	return kind < HWP_FIND_KIND_NR ? kinds[kind].name : NULL;
}

const char *hwp_finding_kind__action(unsigned kind)
{
	return kind < HWP_FIND_KIND_NR ? kinds[kind].action : NULL;
}

const char *hwp_finding_kind__technique(unsigned kind)
{
	return kind < HWP_FIND_KIND_NR ? kinds[kind].technique : NULL;
}

struct hwp_advisor *hwp_advisor__new(const struct hwp_advise_opts *opts)
{
	struct hwp_advisor *a = calloc(1, sizeof(*a));

	if (!a) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &a->o, struct hwp_advise_opts)) {
		free(a);
		return NULL;
	}
	a->o.sz = sizeof(a->o);
	if (!(a->o.min_share > 0))
		a->o.min_share = 0.005;
	if (!a->o.min_executions)
		a->o.min_executions = 200;
	if (!(a->o.bias > 0))
		a->o.bias = 0.75;
	if (!(a->o.mispredict_rate > 0))
		a->o.mispredict_rate = 0.10;
	if (!(a->o.dominance > 0))
		a->o.dominance = 0.9;
	if (!(a->o.spread > 1))
		a->o.spread = 1.5;
	if (!(a->o.penalty > 0))
		a->o.penalty = 15;
	if (!(a->o.dram_share > 0))
		a->o.dram_share = 0.2;
	return a;
}

void hwp_advisor__delete(struct hwp_advisor *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nstrs; i++)
		free(a->strs[i]);
	free(a->strs);
	free(a->v);
	free(a);
}

struct hwp_finding *hwp__advisor_findings_rw(struct hwp_advisor *a, size_t *n)
{
	*n = a->nr;
	return a->v;
}

const char *hwp__advisor_keep(struct hwp_advisor *a, const char *s)
{
	char **slot = HWP_VEC_PUSH(a->strs, a->nstrs, a->cap_strs);

	if (!slot)
		return NULL;
	if (!(*slot = strdup(s)))
		a->nstrs--;
	return *slot ? a->strs[a->nstrs - 1] : NULL;
}

const struct hwp_advise_opts *hwp__advisor_opts(const struct hwp_advisor *a)
{
	return &a->o;
}

static struct hwp_finding *add(struct hwp_advisor *a, unsigned kind, const struct hwp_code_loc *loc)
{
	struct hwp_finding *f = HWP_VEC_PUSH(a->v, a->nr, a->cap);

	if (!f) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	memset(f, 0, sizeof(*f));
	f->kind = (uint8_t)kind;
	f->loc = *loc;
	f->target.module = -1;
	f->end.module = -1;
	f->code2.module = -1;
	a->sorted = false;
	return f;
}

/* Blocks by their last instruction, to find the block a branch ends. */
struct block_end {
	int32_t module;
	uint64_t last;
	const struct hwp_flow_block *b;
};

static int by_end(const void *x, const void *y)
{
	const struct block_end *p = x, *q = y;

	if (p->module != q->module)
		return p->module < q->module ? -1 : 1;
	return p->last < q->last ? -1 : p->last > q->last;
}

/* The sampled instructions of the block ending at SITE (0 when none). */
static uint64_t block_work(const struct block_end *ends, size_t n, const struct hwp_code_loc *site)
{
	struct block_end key = { site->module, site->offset, NULL };
	const struct block_end *e = bsearch(&key, ends, n, sizeof(*ends), by_end);

	return e ? e->b->count * e->b->insns : 0;
}

static int branch_findings(struct hwp_advisor *a, struct hwp_flow *fl, const struct block_end *ends, size_t nends,
			   double total)
{
	size_t n;
	const struct hwp_flow_cond *c = hwp_flow__conds(fl, &n);

	for (size_t i = 0; i < n && c[i].executions >= a->o.min_executions; i++) {
		double work = (double)block_work(ends, nends, &c[i].site) / total;
		struct hwp_finding *f;

		/* forward only: a loop's back edge is taken by design */
		if (c[i].target.module == c[i].site.module && c[i].target.offset > c[i].site.offset &&
		    c[i].p_taken_lo >= a->o.bias && work >= a->o.min_share) {
			if (!(f = add(a, HWP_FIND_BIASED_BRANCH, &c[i].site)))
				return -ENOMEM;
			f->target = c[i].target;
			f->share = work;
			f->value = c[i].p_taken, f->lo = c[i].p_taken_lo, f->hi = c[i].p_taken_hi;
			f->samples = c[i].executions;
		}
		if (!isnan(c[i].mispred_per_exec_lo) && c[i].mispred_per_exec_lo >= a->o.mispredict_rate) {
			double cost = c[i].mispred_per_exec * (double)c[i].executions * a->o.penalty / total;

			if (cost < a->o.min_share)
				continue;
			if (!(f = add(a, HWP_FIND_MISPREDICT, &c[i].site)))
				return -ENOMEM;
			f->share = cost > 1 ? 1 : cost;
			f->value = c[i].mispred_per_exec, f->lo = c[i].mispred_per_exec_lo, f->hi = c[i].mispred_per_exec_hi;
			f->samples = c[i].executions;
		}
	}
	return 0;
}

/* An indirect jump to the entry of another function is a tail call (a
   switch's jump stays inside its function; a PLT stub's is a call's
   second half, not a call site of the program). */
static bool is_tail_call(struct hwp_symbolizer *sym, const struct hwp_flow_indirect *s)
{
	struct hwp_symbol_info site, tgt;

	if (!sym || hwp_symbolizer__lookup(sym, s->site.module, s->site.offset, &site) < 0 || !site.symbol ||
	    strstr(site.symbol, "@plt"))
		return false;
	uint64_t site_start = site.sym_start; /* the next lookup may reuse SITE's storage */
	return hwp_symbolizer__lookup(sym, s->targets[0].loc.module, s->targets[0].loc.offset, &tgt) >= 0 &&
	       tgt.symbol && tgt.sym_offset == 0 &&
	       (s->targets[0].loc.module != s->site.module || tgt.sym_start != site_start);
}

static int call_findings(struct hwp_advisor *a, struct hwp_flow *fl, struct hwp_symbolizer *sym,
			 const struct block_end *ends, size_t nends, double total)
{
	size_t n;
	const struct hwp_flow_indirect *s = hwp_flow__indirect(fl, &n);

	for (size_t i = 0; i < n; i++) {
		double lo, hi, work;
		struct hwp_finding *f;

		if (s[i].count < a->o.min_executions || !s[i].ntargets || (!s[i].call && !is_tail_call(sym, &s[i])))
			continue;
		hwp__wilson((double)s[i].targets[0].count, (double)s[i].count, HWP__Z95, &lo, &hi);
		/* the call's block, else (a call alone in its block after a
		   target) its share of the taken entries */
		work = (double)block_work(ends, nends, &s[i].site) / total;
		if (lo < a->o.dominance || work < a->o.min_share)
			continue;
		if (!(f = add(a, HWP_FIND_MONOMORPHIC, &s[i].site)))
			return -ENOMEM;
		f->target = s[i].targets[0].loc;
		f->share = work;
		f->value = s[i].targets[0].share, f->lo = lo, f->hi = hi;
		f->samples = s[i].count;
	}
	return 0;
}

/* Blocks with the function they are in. */
struct fn_block {
	int32_t module;
	uint64_t fn; /* the symbol's start (vaddr); blocks without a symbol are left out */
	const struct hwp_flow_block *b;
};

static int by_fn_then_count(const void *x, const void *y)
{
	const struct fn_block *p = x, *q = y;

	if (p->module != q->module)
		return p->module < q->module ? -1 : 1;
	if (p->fn != q->fn)
		return p->fn < q->fn ? -1 : 1;
	return p->b->count < q->b->count ? 1 : p->b->count > q->b->count ? -1 : 0;
}

static int by_offset(const void *x, const void *y)
{
	uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;

	return p < q ? -1 : p > q;
}

/* One function's blocks, hottest first: the hot ones (90% of its work)
   against the cache lines they touch. */
static int spread_one(struct hwp_advisor *a, const struct fn_block *fb, size_t n, double total)
{
	uint64_t work = 0, acc = 0, bytes = 0, *lines = NULL;
	size_t nl = 0, cl = 0, distinct = 0;
	struct hwp_finding *f;

	for (size_t i = 0; i < n; i++)
		work += fb[i].b->count * fb[i].b->insns;
	if ((double)work / total < a->o.min_share)
		return 0;
	for (size_t i = 0; i < n && acc * 10 < work * 9; i++) {
		const struct hwp_flow_block *b = fb[i].b;

		acc += b->count * b->insns;
		bytes += b->size;
		for (uint64_t l = b->start.offset / CACHE_LINE; l <= (b->start.offset + b->size - 1) / CACHE_LINE; l++) {
			uint64_t *p = HWP_VEC_PUSH(lines, nl, cl);

			if (!p) {
				free(lines);
				return hwp__set_error(ENOMEM, "out of memory");
			}
			*p = l;
		}
	}
	hwp__sort(lines, nl, sizeof(*lines), by_offset);
	for (size_t i = 0; i < nl; i++)
		distinct += !i || lines[i] != lines[i - 1];
	free(lines);
	uint64_t need = (bytes + CACHE_LINE - 1) / CACHE_LINE;
	/* a spread of a few lines is alignment, not layout */
	if (!need || (double)distinct < a->o.spread * (double)need || distinct < need + 4)
		return 0;
	/* the function's work, weighed by the part of its lines layout could save */
	double share = (double)work / total * (double)(distinct - need) / (double)distinct;
	if (share < a->o.min_share)
		return 0;
	if (!(f = add(a, HWP_FIND_SPREAD_FUNCTION, &fb[0].b->start)))
		return -ENOMEM;
	f->share = share;
	f->value = f->lo = f->hi = (double)distinct / (double)need;
	f->samples = work;
	f->bytes = bytes;
	f->lines = distinct;
	f->min_lines = need;
	return 0;
}

static int spread_findings(struct hwp_advisor *a, struct hwp_flow *fl, struct hwp_symbolizer *sym, double total)
{
	size_t n, k = 0;
	const struct hwp_flow_block *b = hwp_flow__blocks(fl, &n);
	struct fn_block *fb = calloc(n ? n : 1, sizeof(*fb));
	int err = 0;

	if (!fb)
		return hwp__set_error(ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct hwp_symbol_info si;

		if (!b[i].count || b[i].start.module < 0 || !sym ||
		    hwp_symbolizer__lookup(sym, b[i].start.module, b[i].start.offset, &si) < 0 || !si.symbol)
			continue;
		fb[k++] = (struct fn_block){ b[i].start.module, si.sym_start, &b[i] };
	}
	hwp__sort(fb, k, sizeof(*fb), by_fn_then_count);
	for (size_t i = 0, j; i < k && !err; i = j) {
		for (j = i + 1; j < k && fb[j].module == fb[i].module && fb[j].fn == fb[i].fn; j++)
			;
		err = spread_one(a, &fb[i], j - i, total);
	}
	free(fb);
	return err;
}

int hwp_advisor__add_flow(struct hwp_advisor *a, struct hwp_flow *fl, struct hwp_branch_collector *c)
{
	struct hwp_symbolizer *sym = hwp__branch_collector_symbolizer(c);
	size_t n;
	const struct hwp_flow_block *b = hwp_flow__blocks(fl, &n);
	struct block_end *ends = calloc(n ? n : 1, sizeof(*ends));
	double total = 0;
	int err;

	if (!ends)
		return hwp__set_error(ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ends[i] = (struct block_end){ b[i].last.module, b[i].last.offset, &b[i] };
		total += (double)(b[i].count * b[i].insns);
	}
	hwp__sort(ends, n, sizeof(*ends), by_end);
	if (total <= 0)
		total = 1;
	err = branch_findings(a, fl, ends, n, total);
	if (!err)
		err = call_findings(a, fl, sym, ends, n, total);
	if (!err)
		err = spread_findings(a, fl, sym, total);
	free(ends);
	return err;
}

int hwp_advisor__add_timing(struct hwp_advisor *a, struct hwp_timing *t)
{
	size_t n;
	const struct hwp_timing_block *b = hwp_timing__blocks(t, &n);
	double total = 0;

	for (size_t i = 0; i < n; i++)
		total += (double)b[i].d.cycles_sum;
	for (size_t i = 0; i < n && total > 0; i++) {
		const struct hwp_timing_dist *d = &b[i].d;
		double share = (double)d->cycles_sum / total;
		struct hwp_finding *f;

		if (d->nmodes < 2 || d->samples < a->o.min_executions || share < a->o.min_share)
			continue;
		if (!(f = add(a, HWP_FIND_MULTIMODAL_BLOCK, &b[i].start)))
			return -ENOMEM;
		f->end = b[i].end;
		f->share = share;
		f->samples = d->samples;
		f->value = f->lo = f->hi = (double)d->nmodes;
		/* the modes come by samples: show them by cycles, fast first */
		size_t fast = d->modes[0].cycles <= d->modes[1].cycles ? 0 : 1;
		f->mode_cycles[0] = d->modes[fast].cycles;
		f->mode_cycles[1] = d->modes[1 - fast].cycles;
		f->mode_share[0] = (double)d->modes[fast].samples / (double)d->samples;
		f->mode_share[1] = (double)d->modes[1 - fast].samples / (double)d->samples;
		f->modelled = hwp_timing__source(t) == HWP_CYCLES_MODELLED;
	}
	return 0;
}

/* Lines written by several threads at different offsets, with HITMs. */
static int false_sharing_findings(struct hwp_advisor *a, const struct hwp_c2c *c, double total, bool modelled)
{
	const struct hwp_c2c_line *l;
	const struct hwp_c2c_access *acc = hwp_c2c__accesses(c);
	size_t nl = hwp_c2c__lines(c, &l);

	for (size_t i = 0; i < nl; i++) {
		struct hwp_finding *f;
		double share = (double)l[i].lat_sum / total;
		uint32_t nw = 0;

		/* several threads, HITMs, and writes at more than one offset: the
		   threads share the line, not the data (one offset is true sharing) */
		if (l[i].nr_tids < 2 || !l[i].hitm || share < a->o.min_share)
			continue;
		uint32_t offs[2] = { 0, 0 };
		struct hwp_code_loc code[2] = { { .module = -1 }, { .module = -1 } };
		for (size_t k = l[i].first; k < l[i].first + l[i].nr; k++)
			if (acc[k].stores && (nw == 0 || (nw == 1 && acc[k].offset != offs[0]))) {
				offs[nw] = acc[k].offset;
				code[nw++] = acc[k].code;
			}
		if (nw < 2)
			continue;
		if (!(f = add(a, HWP_FIND_FALSE_SHARING, &code[0])))
			return -ENOMEM;
		f->code2 = code[1];
		f->share = share;
		f->offset[0] = offs[0];
		f->offset[1] = offs[1];
		f->offsets = l[i].nr_offsets;
		f->threads = l[i].nr_tids;
		f->mem_samples = f->samples = l[i].samples;
		f->mem_loads = l[i].loads;
		f->mem_events = l[i].hitm;
		f->value = (double)l[i].hitm / (double)l[i].samples;
		hwp__wilson((double)l[i].hitm, (double)l[i].samples, HWP__Z95, &f->lo, &f->hi);
		f->data_addr = l[i].addr;
		f->modelled = modelled;
	}
	return 0;
}

int hwp_advisor__add_mem(struct hwp_advisor *a, struct hwp_mem_report *r)
{
	const struct hwp_mem_stats *tot = hwp_mem_report__totals(r);
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(r, HWP_MEM_BY_LINE, &g);
	double total = (double)tot->lat_sum;
	bool modelled = hwp_mem_report__modelled(r);

	if (n == (size_t)-1)
		return -ENOMEM;
	if (total <= 0)
		return 0; /* no latency recorded: nothing to weigh by */
	for (size_t i = 0; i < n; i++) {
		uint64_t dram = g[i].st.by_source[HWP_MEM_SRC_LOCAL_DRAM] + g[i].st.by_source[HWP_MEM_SRC_REMOTE_DRAM];
		double share = (double)g[i].st.lat_sum / total;
		struct hwp_finding *f;

		if (!g[i].st.loads || (double)dram < a->o.dram_share * (double)g[i].st.loads || share < a->o.min_share)
			continue;
		if (!(f = add(a, HWP_FIND_DRAM_LOADS, &g[i].code)))
			return -ENOMEM;
		f->share = share;
		f->mem_samples = g[i].st.samples;
		f->mem_loads = g[i].st.loads;
		f->mem_events = dram;
		f->value = (double)dram / (double)g[i].st.loads;
		hwp__wilson((double)dram, (double)g[i].st.loads, HWP__Z95, &f->lo, &f->hi);
		f->samples = g[i].st.samples;
		f->modelled = modelled;
	}
	struct hwp_c2c *c = hwp_c2c__new(r);
	if (!c)
		return -errno; /* hwp_errmsg() says why */
	int err = false_sharing_findings(a, c, total, modelled);
	hwp_c2c__delete(c);
	return err;
}


static int by_share(const void *x, const void *y)
{
	const struct hwp_finding *p = x, *q = y;

	if (p->share != q->share)
		return p->share < q->share ? 1 : -1;
	return p->kind - q->kind;
}

const struct hwp_finding *hwp_advisor__findings(struct hwp_advisor *a, size_t *n)
{
	if (!a->sorted) {
		hwp__sort(a->v, a->nr, sizeof(*a->v), by_share);
		a->sorted = true;
	}
	*n = a->nr;
	return a->v;
}
