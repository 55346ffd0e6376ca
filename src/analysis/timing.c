/* SPDX-License-Identifier: MIT */
/*
 * Block latencies and loop iteration times from branch stacks (see
 * include/hwprof/timing.h). Per sample the stack is resolved once; each pair
 * of consecutive entries is judged by the collector's own range rules
 * (hwp__branch_collector_classify), so a latency is counted exactly for the
 * ranges the collector counts; ranges its later decoding check rejects are
 * dropped when the results are built. Each block and back edge keeps an
 * exact histogram (cycle value -> samples) in a small open-addressed table.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/timing_internal.h"
#include "decode/code_cache.h"
#include "hwprof/perf_abi.h"
#include "hwprof/timing.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/merge_order.h"
#include "util/opts.h"
#include "util/vec.h"

/* cycle value -> samples; value 0 (unknown cycles) is never stored, so it
   marks an empty slot */
struct hist {
	uint32_t *key;
	uint64_t *cnt;
	uint32_t cap, n;
};

struct trow {
	int32_t module;
	uint64_t a, b; /* block: start, end offsets; loop: branch, head offsets */
	struct hwp_code_loc aloc, bloc;
	uint64_t entries; /* loops: taken branches over all iterations */
	uint32_t insns;   /* blocks of hwp_timing__from_latencies(): as given */
	struct hist h;
};

struct rowset {
	struct trow *rows;
	size_t n, cap;
	struct hwp_hashmap map;
	/* a part of a parallel pass: where each row was first added */
	uint64_t *first;
	size_t first_cap;
};

struct hwp_timing {
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
	struct hwp_timing_opts o;
	struct hwp_timing_stats st;
	struct rowset blocks, loops;
	/* a part of a parallel pass: the place in the sequential order of
	   the next row made (rows made in a sample count up from its number) */
	bool part;
	uint64_t pos;

	/* per row of the collector's ranges, its block row's index + 1 (0:
	   none yet): the collector has just looked the range up */
	uint32_t *by_range;
	size_t by_range_cap;
	uint32_t by_range_moved; /* the collector's count of moves they are for */

	/* one sample */
	const struct hwp_code_loc *from, *to; /* the collector's */
	bool *ok;
	size_t ent_cap;

	/* built */
	struct hwp_timing_block *bout;
	size_t nbout;
	struct hwp_timing_loop *lout;
	size_t nlout;
	struct hwp_timing_value *values;
	size_t nvalues;
};

/* V's first slot in a table of CAP (a power of two): a cycle count fits
   16 bits, and one multiply spreads it (a full finalization per branch
   entry cost a tenth of the report). */
static inline uint32_t hist_slot(uint32_t v, uint32_t cap)
{
	return (uint32_t)(((uint64_t)v * 0x9e3779b97f4a7c15ULL) >> 40) & (cap - 1);
}

static int hist_grow(struct hist *h)
{
	uint32_t cap = h->cap ? h->cap * 2 : 8;
	uint32_t *key = calloc(cap, sizeof(*key));
	uint64_t *cnt = calloc(cap, sizeof(*cnt));

	if (!key || !cnt) {
		free(key);
		free(cnt);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h->cap; i++) {
		if (!h->key[i])
			continue;
		uint32_t p = hist_slot(h->key[i], cap);
		while (key[p])
			p = (p + 1) & (cap - 1);
		key[p] = h->key[i];
		cnt[p] = h->cnt[i];
	}
	free(h->key);
	free(h->cnt);
	h->key = key;
	h->cnt = cnt;
	h->cap = cap;
	return 0;
}

static int hist_add(struct hist *h, uint32_t v, uint64_t n)
{
	if ((h->n + 1) * 4 > h->cap * 3 && hist_grow(h) < 0)
		return -ENOMEM;
	uint32_t p = hist_slot(v, h->cap);

	while (h->key[p] && h->key[p] != v)
		p = (p + 1) & (h->cap - 1);
	if (!h->key[p]) {
		h->key[p] = v;
		h->n++;
	}
	h->cnt[p] += n;
	return 0;
}

static void hist_free(struct hist *h)
{
	free(h->key);
	free(h->cnt);
}

static uint64_t row_hash(int32_t module, uint64_t a, uint64_t b)
{
	return hwp__hash64(a ^ (b << 24) ^ ((uint64_t)(uint32_t)module << 56));
}

/* The row of (A, B) in RS, made when new (at place *POS, counted up, for
   a part); NULL when out of memory. */
static struct trow *row_get(struct rowset *rs, const struct hwp_code_loc *a, const struct hwp_code_loc *b,
			    uint64_t *pos)
{
	uint64_t h = row_hash(a->module, a->offset, b->offset);
	struct hwp_hashmap_probe pr = hwp__hashmap_probe(&rs->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&pr, &i))
		if (rs->rows[i].a == a->offset && rs->rows[i].b == b->offset && rs->rows[i].module == a->module)
			return &rs->rows[i];
	struct trow *r = HWP_VEC_PUSH(rs->rows, rs->n, rs->cap);
	if (!r)
		return NULL;
	if (hwp__hashmap_add(&rs->map, h, rs->n - 1) < 0) {
		rs->n--;
		return NULL;
	}
	if (pos) {
		if (HWP_VEC_RESERVE(rs->first, rs->first_cap, rs->n) < 0) {
			rs->n--; /* (the index keeps the row: only deleting follows ENOMEM) */
			return NULL;
		}
		rs->first[rs->n - 1] = (*pos)++;
	}
	memset(r, 0, sizeof(*r));
	r->module = a->module;
	r->a = a->offset;
	r->b = b->offset;
	r->aloc = *a;
	r->bloc = *b;
	return r;
}

/* The block row of [A, B], which the collector counted in its range row
   RANGE: found by index, not by hash, once it is known. */
static struct trow *block_row(struct hwp_timing *t, uint32_t range, const struct hwp_code_loc *a,
			      const struct hwp_code_loc *b)
{
	if (range >= t->by_range_cap) {
		size_t cap = t->by_range_cap ? t->by_range_cap : 1024;

		while (cap <= range)
			cap *= 2;
		uint32_t *v = realloc(t->by_range, cap * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + t->by_range_cap, 0, (cap - t->by_range_cap) * sizeof(*v));
		t->by_range = v;
		t->by_range_cap = cap;
	}
	if (t->by_range[range])
		return &t->blocks.rows[t->by_range[range] - 1];
	struct trow *r = row_get(&t->blocks, a, b, t->part ? &t->pos : NULL);
	if (r)
		t->by_range[range] = (uint32_t)(r - t->blocks.rows) + 1;
	return r;
}

static void rowset_free(struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		hist_free(&rs->rows[i].h);
	free(rs->rows);
	free(rs->first);
	hwp__hashmap_free(&rs->map);
	memset(rs, 0, sizeof(*rs));
}

struct hwp_timing *hwp_timing__new(struct hwp_session *s, struct hwp_branch_collector *c,
				   const struct hwp_timing_opts *opts)
{
	struct hwp_timing_opts o;
	struct hwp_timing *t;

	if (!s || !c || !hwp_branch_collector__ranges(c)) {
		hwp__set_error(EINVAL, "timing: %s", !s ? "no session given"
						: !c ? "no branch collector given"
						     : "the branch collector counts no ranges");
		errno = EINVAL;
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &o, struct hwp_timing_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(t = calloc(1, sizeof(*t)))) {
		hwp__set_error(ENOMEM, "out of memory making the timing analysis");
		errno = ENOMEM;
		return NULL;
	}
	t->session = s;
	t->collector = c;
	t->o = o;
	hwp__branch_collector_keep_locs(c);
	const struct hwp_header_info *hi = hwp_session__header(s);
	t->st.amd = hi && hi->cpuid && !strncmp(hi->cpuid, "AuthenticAMD", 12);
	return t;
}

void hwp_timing__delete(struct hwp_timing *t)
{
	if (!t)
		return;
	rowset_free(&t->blocks);
	free(t->by_range);
	rowset_free(&t->loops);
	free(t->ok);
	free(t->bout);
	free(t->lout);
	free(t->values);
	free(t);
}

static uint32_t entry_cycles(const struct hwp_sample *s, size_t i)
{
	return (uint32_t)((ld64(s->branch_entries + i * 24 + 16) >> HWP_BRF_CYCLES_SHIFT) & 0xffff);
}

/*
 * Iterations of the loops whose back edges the stack holds: for a back edge
 * at entry J and its next execution at entry K (newer, K < J), one iteration
 * took the cycles of entries K .. J-1 (each is the time since the entry
 * before it), when every range in between was usable and every count known.
 */
static int add_loops(struct hwp_timing *t, const struct hwp_sample *s, size_t n)
{
	for (size_t j = n - 1; j >= 1; j--) {
		const struct hwp_code_loc *f = &t->from[j], *to = &t->to[j];
		const uint8_t *ej = s->branch_entries + j * 24;

		if (f->module < 0 || to->module != f->module || to->offset > f->offset || !ld64(ej))
			continue;
		for (size_t k = j; k-- > 0;) {
			const uint8_t *ek = s->branch_entries + k * 24;

			if (!t->ok[k + 1])
				break; /* the range before entry K is not usable */
			if (ld64(ek) != ld64(ej) || ld64(ek + 8) != ld64(ej + 8))
				continue;
			uint64_t sum = 0;
			bool known = true;

			for (size_t m = k; m < j && known; m++) {
				uint32_t c = entry_cycles(s, m);

				known = c != 0;
				sum += c;
			}
			if (known) {
				struct trow *r = row_get(&t->loops, f, to, t->part ? &t->pos : NULL);

				if (!r || hist_add(&r->h, (uint32_t)(sum > UINT32_MAX ? UINT32_MAX : sum), 1) < 0)
					return -ENOMEM;
				r->entries += j - k;
				t->st.iterations++;
			}
			break;
		}
	}
	return 0;
}

int hwp_timing__add(struct hwp_timing *t, const struct hwp_event *ev, const struct hwp_thread *th)
{
	if (ev->type != HWP_RECORD_SAMPLE || !ev->evsel)
		return 0;
	const struct hwp_sample *s = &ev->sample;
	uint64_t bst = ev->evsel->attr.branch_sample_type;
	size_t n = s->branch_nr;

	if (!(s->sample_type & HWP_SAMPLE_BRANCH_STACK))
		return 0;
	if (bst & HWP_BRANCH_CALL_STACK) {
		t->st.call_stack = true;
		return 0;
	}
	if (bst & HWP_BRANCH_NO_CYCLES)
		t->st.no_cycles_filter = true;
	/* no filter selected: synthesized from an instruction trace */
	bool synthesized = !(bst & ~(uint64_t)HWP_BRANCH_HW_INDEX);
	if (synthesized)
		t->st.synthesized = true;
	if (!(bst & HWP_BRANCH_ANY) && !synthesized) {
		/* consecutive entries are not consecutive branches */
		t->st.filtered_stacks++;
		return 0;
	}
	t->st.stacks++;
	t->st.entries += n;
	bool any_cycles = false;
	for (size_t i = 0; i < n; i++)
		if (entry_cycles(s, i)) {
			t->st.entries_with_cycles++;
			any_cycles = true;
		}
	if (any_cycles) {
		if (hwp_evsel__modelled(ev->evsel))
			t->st.modelled = true;
		else
			t->st.measured = true;
	}
	if (n < 2)
		return 0;
	if (n > t->ent_cap) {
		bool *ok = realloc(t->ok, n * sizeof(*ok));
		if (!ok)
			return hwp__set_error(ENOMEM, "out of memory timing blocks");
		t->ok = ok;
		t->ent_cap = n;
	}
	int err = hwp__branch_collector_locs(t->collector, ev, th, &t->from, &t->to);
	if (err < 0)
		return err;
	uint32_t moved;
	const uint32_t *rr = hwp__branch_collector_range_rows(t->collector, s, &moved);
	if (moved != t->by_range_moved) {
		/* the range rows moved since: their block rows are looked up anew */
		if (t->by_range)
			memset(t->by_range, 0, t->by_range_cap * sizeof(*t->by_range));
		t->by_range_moved = moved;
	}
	t->ok[0] = false;
	for (size_t i = 1; i < n; i++) {
		const struct hwp_code_loc *start = &t->to[i], *end = &t->from[i - 1];

		t->st.pairs++;
		t->ok[i] = hwp__branch_collector_classify(t->collector, s, i, start, end, true) ==
			   HWP_RANGE_REJECT_NR;
		if (!t->ok[i]) {
			t->st.rejected++;
			continue;
		}
		uint32_t cyc = entry_cycles(s, i - 1);
		if (!cyc) {
			t->st.unknown_cycles++;
			continue;
		}
		struct trow *r = rr && rr[i] != UINT32_MAX ? block_row(t, rr[i], start, end)
							  : row_get(&t->blocks, start, end, t->part ? &t->pos : NULL);
		if (!r || hist_add(&r->h, cyc, 1) < 0)
			return hwp__set_error(ENOMEM, "out of memory timing blocks");
		t->st.latencies++;
	}
	if (t->o.loops && add_loops(t, s, n) < 0)
		return hwp__set_error(ENOMEM, "out of memory timing loops");
	return 0;
}

static int add_both(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct hwp_timing *t = ctx;
	int err = hwp_branch_collector__add(t->collector, ev, th);

	return err < 0 ? err : hwp_timing__add(t, ev, th);
}

int hwp_timing__read(struct hwp_timing *t)
{
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = t, .sample = add_both };
	int err = hwp_session__process(t->session, &h);

	if (err < 0 || (err = hwp_branch_collector__check_ranges(t->collector)) < 0)
		return err;
	return hwp_timing__build(t);
}

/* ---- a parallel pass's parts ---- */

struct hwp_timing *hwp__timing_new_part(struct hwp_timing *whole, struct hwp_branch_collector *c)
{
	struct hwp_timing *t = hwp_timing__new(whole->session, c, &whole->o);

	if (t)
		t->part = true;
	return t;
}

int hwp__timing_add_at(struct hwp_timing *t, const struct hwp_event *ev, const struct hwp_thread *th,
		       uint64_t seq)
{
	t->pos = HWP__COLLECT_POS(seq, 0);
	return hwp_timing__add(t, ev, th);
}

/* One set of the parts' rows (blocks or loops). */
struct row_sets {
	struct hwp_timing *const *parts;
	bool loops;
};

static void timing_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	const struct row_sets *r = ctx;
	const struct rowset *rs = r->loops ? &r->parts[k]->loops : &r->parts[k]->blocks;

	*first = rs->first;
	*nr = rs->n;
}

/* The parts' rows of one set (LOOPS: the loops, else the blocks) into
   DST's, in the order they were first made. */
static int merge_rows(struct rowset *dst, struct hwp_timing *const *parts, struct hwp__module_ids *const *ids,
		      size_t n, bool loops)
{
	struct row_sets sets = { parts, loops };
	struct hwp__merge_ref *order = NULL;
	size_t total = 0;
	int err = 0;

	if (hwp__merge_order(n, timing_rows, &sets, &order, &total) < 0)
		err = -ENOMEM;
	for (size_t i = 0; i < total && !err; i++) {
		const struct rowset *rs = loops ? &parts[order[i].part]->loops : &parts[order[i].part]->blocks;
		const struct trow *src = &rs->rows[order[i].row];
		struct hwp_code_loc a = src->aloc, b = src->bloc;

		a.module = hwp__module_ids_real(ids[order[i].part], a.module);
		b.module = hwp__module_ids_real(ids[order[i].part], b.module);
		struct trow *r = row_get(dst, &a, &b, NULL);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		r->entries += src->entries;
		for (uint32_t v = 0; v < src->h.cap && !err; v++)
			if (src->h.key[v])
				err = hist_add(&r->h, src->h.key[v], src->h.cnt[v]);
	}
	free(order);
	return err < 0 ? hwp__set_error(ENOMEM, "out of memory merging block timings") : 0;
}

int hwp__timing_merge(struct hwp_timing *dst, struct hwp_timing *const *parts, struct hwp__module_ids *const *ids,
		      size_t n)
{
	int err = merge_rows(&dst->blocks, parts, ids, n, false);

	if (!err)
		err = merge_rows(&dst->loops, parts, ids, n, true);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		const struct hwp_timing_stats *p = &parts[k]->st;
		struct hwp_timing_stats *d = &dst->st;

		d->stacks += p->stacks;
		d->entries += p->entries;
		d->entries_with_cycles += p->entries_with_cycles;
		d->pairs += p->pairs;
		d->rejected += p->rejected;
		d->unknown_cycles += p->unknown_cycles;
		d->latencies += p->latencies;
		d->iterations += p->iterations;
		d->filtered_stacks += p->filtered_stacks;
		d->modelled |= p->modelled;
		d->measured |= p->measured;
		d->no_cycles_filter |= p->no_cycles_filter;
		d->synthesized |= p->synthesized;
		d->call_stack |= p->call_stack;
	}
	return 0;
}

/* ---- distributions ---- */

static int cmp_value(const void *a, const void *b)
{
	const struct hwp_timing_value *x = a, *y = b;

	return x->cycles < y->cycles ? -1 : x->cycles > y->cycles;
}

/* Nearest rank: the smallest value with at least P of the samples at or below it. */
static uint32_t percentile(const struct hwp_timing_value *v, size_t n, uint64_t total, double p)
{
	uint64_t rank = (uint64_t)ceil(p * (double)total), seen = 0;

	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < n; i++) {
		seen += v[i].samples;
		if (seen >= rank)
			return v[i].cycles;
	}
	return n ? v[n - 1].cycles : 0;
}

/* Fills D from H, its values appended to t->values at BASE. */
static void make_dist(struct hwp_timing *t, const struct hist *h, struct hwp_timing_dist *d, size_t *base)
{
	struct hwp_timing_value *v = t->values + t->nvalues;
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	for (uint32_t i = 0; i < h->cap; i++)
		if (h->key[i])
			v[n++] = (struct hwp_timing_value){ h->key[i], h->cnt[i] };
	qsort(v, n, sizeof(*v), cmp_value);
	*base = t->nvalues;
	t->nvalues += n;
	d->nvalues = n;
	for (size_t i = 0; i < n; i++) {
		d->samples += v[i].samples;
		d->cycles_sum += v[i].samples * v[i].cycles;
	}
	if (!n)
		return;
	d->min = v[0].cycles;
	d->max = v[n - 1].cycles;
	d->mean = (double)d->cycles_sum / (double)d->samples;
	d->median = percentile(v, n, d->samples, 0.5);
	d->p90 = percentile(v, n, d->samples, 0.9);
	d->p99 = percentile(v, n, d->samples, 0.99);
	d->nmodes = hwp_timing__modes(v, n, d->modes, HWP_TIMING_MAX_MODES);
}

static int cmp_block(const void *a, const void *b)
{
	const struct hwp_timing_block *x = a, *y = b;

	if (x->d.cycles_sum != y->d.cycles_sum)
		return x->d.cycles_sum < y->d.cycles_sum ? 1 : -1;
	/* ties by the block's offsets before its module's number, which
	   depends on the order modules were met (the fleet's is another) */
	if (x->start.offset != y->start.offset)
		return x->start.offset < y->start.offset ? -1 : 1;
	if (x->end.offset != y->end.offset)
		return x->end.offset < y->end.offset ? -1 : 1;
	return x->start.module < y->start.module ? -1 : x->start.module > y->start.module;
}

static int cmp_loop(const void *a, const void *b)
{
	const struct hwp_timing_loop *x = a, *y = b;

	if (x->d.cycles_sum != y->d.cycles_sum)
		return x->d.cycles_sum < y->d.cycles_sum ? 1 : -1;
	if (x->branch.module != y->branch.module)
		return x->branch.module < y->branch.module ? -1 : 1;
	return x->branch.offset < y->branch.offset ? -1 : x->branch.offset > y->branch.offset;
}

static int count_insn(void *ctx, const struct hwp__insn *in)
{
	(void)in;
	++*(uint32_t *)ctx;
	return 0;
}

/*
 * Whether a backward taken branch is a loop's back edge: a jump (not a call
 * or return: a function placed before its caller is called "backwards") to
 * the same function. Decided from the instruction and the symbols when they
 * can be had; a branch in a module without a binary is taken as it is.
 */
static bool back_edge(struct hwp_timing *t, struct hwp__code_cache *cc, const struct trow *r)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(t->session);
	struct hwp_symbol_info x, y;
	struct hwp__insn in;

	if (cc && hwp__code_cache_insn(cc, r->module, r->a, &in) == 0 && in.cls != HWP_INSN_COND &&
	    in.cls != HWP_INSN_JUMP && in.cls != HWP_INSN_IND_JUMP)
		return false;
	if (hwp_symbolizer__lookup(sym, r->module, r->a, &x) == 0 && x.symbol) {
		uint64_t start = x.sym_start;

		if (hwp_symbolizer__lookup(sym, r->module, r->b, &y) == 0 && y.symbol)
			return y.sym_start == start;
	}
	return true;
}

int hwp_timing__build(struct hwp_timing *t)
{
	const struct hwp_branch_table *ranges = hwp_branch_collector__ranges(t->collector);
	struct hwp__code_cache *cc = hwp__branch_collector_code_cache(t->collector);
	struct hwp_hashmap known = { 0 };
	size_t nr, total = 0, *base = NULL;
	const struct hwp_branch_row *rr = hwp_branch_table__rows(ranges, &nr);
	int err = -ENOMEM;

	free(t->bout);
	free(t->lout);
	free(t->values);
	t->bout = NULL;
	t->lout = NULL;
	t->values = NULL;
	t->nbout = t->nlout = t->nvalues = 0;
	t->st.dropped_by_decoding = 0;
	for (size_t i = 0; i < nr; i++)
		if (hwp__hashmap_add(&known, row_hash(rr[i].key.from.module, rr[i].key.from.offset,
						      rr[i].key.to.offset), i) < 0)
			goto out;
	for (size_t i = 0; i < t->blocks.n; i++)
		total += t->blocks.rows[i].h.n;
	for (size_t i = 0; i < t->loops.n; i++)
		total += t->loops.rows[i].h.n;
	if (!(t->values = calloc(total ? total : 1, sizeof(*t->values))) ||
	    !(t->bout = calloc(t->blocks.n ? t->blocks.n : 1, sizeof(*t->bout))) ||
	    !(t->lout = calloc(t->loops.n ? t->loops.n : 1, sizeof(*t->lout))) ||
	    !(base = calloc(t->blocks.n + t->loops.n + 1, sizeof(*base))))
		goto out;
	for (size_t i = 0; i < t->blocks.n; i++) {
		const struct trow *r = &t->blocks.rows[i];
		struct hwp_hashmap_probe pr = hwp__hashmap_probe(&known, row_hash(r->module, r->a, r->b));
		bool kept = false;
		uint32_t k;

		while (!kept && hwp__hashmap_next(&pr, &k))
			kept = rr[k].key.from.offset == r->a && rr[k].key.to.offset == r->b &&
			       rr[k].key.from.module == r->module;
		if (!kept) {
			for (uint32_t s = 0; s < r->h.cap; s++)
				t->st.dropped_by_decoding += r->h.key[s] ? r->h.cnt[s] : 0;
			continue;
		}
		struct hwp_timing_block *b = &t->bout[t->nbout];

		b->start = r->aloc;
		b->end = r->bloc;
		make_dist(t, &r->h, &b->d, &base[t->nbout]);
		b->insns = 0;
		if (cc && hwp__code_cache_range(cc, r->module, r->a, r->b, count_insn, &b->insns) != 0)
			b->insns = 0;
		b->ipc = b->insns && b->d.mean > 0 ? b->insns / b->d.mean : 0;
		t->nbout++;
	}
	t->st.iterations = 0;
	for (size_t i = 0; i < t->loops.n; i++) {
		const struct trow *r = &t->loops.rows[i];
		struct hwp_timing_loop *l = &t->lout[t->nlout];

		if (!back_edge(t, cc, r))
			continue;

		l->branch = r->aloc;
		l->head = r->bloc;
		make_dist(t, &r->h, &l->d, &base[t->nbout + t->nlout]);
		l->entries_mean = l->d.samples ? (double)r->entries / (double)l->d.samples : 0;
		t->st.iterations += l->d.samples;
		t->nlout++;
	}
	/* point the distributions at their values, now that the array is final */
	for (size_t i = 0; i < t->nbout; i++)
		t->bout[i].d.values = t->values + base[i];
	for (size_t i = 0; i < t->nlout; i++)
		t->lout[i].d.values = t->values + base[t->nbout + i];
	qsort(t->bout, t->nbout, sizeof(*t->bout), cmp_block);
	qsort(t->lout, t->nlout, sizeof(*t->lout), cmp_loop);
	err = 0;
out:
	free(base);
	hwp__hashmap_free(&known);
	return err ? hwp__set_error(ENOMEM, "out of memory building block timing") : 0;
}

struct hwp_timing *hwp_timing__from_latencies(const struct hwp_timing_latency *v, size_t n, bool measured,
					       bool modelled)
{
	struct hwp_timing *t = calloc(1, sizeof(*t));
	size_t total = 0, *base = NULL;

	if (!t)
		goto oom;
	t->o.sz = sizeof(t->o);
	t->st.measured = measured;
	t->st.modelled = modelled;
	for (size_t i = 0; i < n; i++) {
		struct trow *r;

		if (!v[i].cycles || !v[i].samples)
			continue; /* (0 is unknown, never a latency) */
		if (!(r = row_get(&t->blocks, &v[i].start, &v[i].end, NULL)) || hist_add(&r->h, v[i].cycles, v[i].samples) < 0)
			goto oom;
		if (v[i].insns > r->insns)
			r->insns = v[i].insns;
		t->st.latencies += v[i].samples;
	}
	/* the source says "none" without entries with cycles */
	t->st.entries_with_cycles = t->st.latencies;
	for (size_t i = 0; i < t->blocks.n; i++)
		total += t->blocks.rows[i].h.n;
	if (!(t->values = calloc(total ? total : 1, sizeof(*t->values))) ||
	    !(t->bout = calloc(t->blocks.n ? t->blocks.n : 1, sizeof(*t->bout))) ||
	    !(base = calloc(t->blocks.n + 1, sizeof(*base))))
		goto oom;
	for (size_t i = 0; i < t->blocks.n; i++) {
		const struct trow *r = &t->blocks.rows[i];
		struct hwp_timing_block *b = &t->bout[t->nbout];

		b->start = r->aloc;
		b->end = r->bloc;
		make_dist(t, &r->h, &b->d, &base[t->nbout]);
		b->insns = r->insns;
		b->ipc = b->insns && b->d.mean > 0 ? b->insns / b->d.mean : 0;
		t->nbout++;
	}
	for (size_t i = 0; i < t->nbout; i++)
		t->bout[i].d.values = t->values + base[i];
	qsort(t->bout, t->nbout, sizeof(*t->bout), cmp_block);
	free(base);
	return t;
oom:
	free(base);
	hwp_timing__delete(t);
	hwp__set_error(ENOMEM, "out of memory building block timing");
	errno = ENOMEM;
	return NULL;
}

const struct hwp_timing_block *hwp_timing__blocks(const struct hwp_timing *t, size_t *n)
{
	*n = t->nbout;
	return t->bout;
}

const struct hwp_timing_loop *hwp_timing__loops(const struct hwp_timing *t, size_t *n)
{
	*n = t->nlout;
	return t->lout;
}

const struct hwp_timing_stats *hwp_timing__stats(const struct hwp_timing *t)
{
	return &t->st;
}

enum hwp_cycles_source hwp_timing__source(const struct hwp_timing *t)
{
	if (!t->st.entries_with_cycles)
		return HWP_CYCLES_NONE;
	return t->st.modelled && !t->st.measured ? HWP_CYCLES_MODELLED : HWP_CYCLES_MEASURED;
}

struct hwp_session *hwp__timing_session(const struct hwp_timing *t)
{
	return t->session;
}

struct hwp_branch_collector *hwp__timing_collector(const struct hwp_timing *t)
{
	return t->collector;
}
