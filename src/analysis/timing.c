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
#include "decode/code_cache.h"
#include "hwprof/perf_abi.h"
#include "hwprof/timing.h"
#include "session/session_internal.h"
#include "util/bytes.h"
#include "util/hash.h"
#include "util/hashmap.h"
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
	struct hist h;
};

struct rowset {
	struct trow *rows;
	size_t n, cap;
	struct hwp_hashmap map;
};

struct hwp_timing {
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
	struct hwp_timing_opts o;
	struct hwp_timing_stats st;
	struct rowset blocks, loops;

	/* one sample */
	struct hwp_code_loc *from, *to;
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
		uint32_t p = (uint32_t)(hwp__hash64(h->key[i]) & (cap - 1));
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
	uint32_t p = (uint32_t)(hwp__hash64(v) & (h->cap - 1));

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

static struct trow *row_get(struct rowset *rs, const struct hwp_code_loc *a, const struct hwp_code_loc *b)
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
	r->module = a->module;
	r->a = a->offset;
	r->b = b->offset;
	r->aloc = *a;
	r->bloc = *b;
	return r;
}

static void rowset_free(struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		hist_free(&rs->rows[i].h);
	free(rs->rows);
	hwp__hashmap_free(&rs->map);
	memset(rs, 0, sizeof(*rs));
}

struct hwp_timing *hwp_timing__new(struct hwp_session *s, struct hwp_branch_collector *c,
				   const struct hwp_timing_opts *opts)
{
	struct hwp_timing_opts o;
	struct hwp_timing *t;

	if (!s || !c || !hwp_branch_collector__ranges(c)) {
		hwp_set_error(EINVAL, "timing: %s", !s ? "no session given"
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
		hwp_set_error(ENOMEM, "out of memory making the timing analysis");
		errno = ENOMEM;
		return NULL;
	}
	t->session = s;
	t->collector = c;
	t->o = o;
	const struct hwp_header_info *hi = hwp_session__header(s);
	t->st.amd = hi && hi->cpuid && !strncmp(hi->cpuid, "AuthenticAMD", 12);
	return t;
}

void hwp_timing__delete(struct hwp_timing *t)
{
	if (!t)
		return;
	rowset_free(&t->blocks);
	rowset_free(&t->loops);
	free(t->from);
	free(t->to);
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
				struct trow *r = row_get(&t->loops, f, to);

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
		if (ev->evsel->name && !strcmp(ev->evsel->name, "branches:emulated"))
			t->st.modelled = true;
		else
			t->st.measured = true;
	}
	if (n < 2)
		return 0;
	if (n > t->ent_cap) {
		struct hwp_code_loc *f = realloc(t->from, n * sizeof(*f));
		if (f)
			t->from = f;
		struct hwp_code_loc *to = f ? realloc(t->to, n * sizeof(*to)) : NULL;
		if (to)
			t->to = to;
		bool *ok = to ? realloc(t->ok, n * sizeof(*ok)) : NULL;
		if (!ok)
			return hwp_set_error(ENOMEM, "out of memory timing blocks");
		t->ok = ok;
		t->ent_cap = n;
	}
	hwp__session_enter_thread(t->session, th);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = s->branch_entries + i * 24;
		int err;

		if ((err = hwp__session_resolve(t->session, 0, ld64(e), &t->from[i])) < 0 ||
		    (err = hwp__session_resolve(t->session, 1, ld64(e + 8), &t->to[i])) < 0)
			return err;
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
		struct trow *r = row_get(&t->blocks, start, end);
		if (!r || hist_add(&r->h, cyc, 1) < 0)
			return hwp_set_error(ENOMEM, "out of memory timing blocks");
		t->st.latencies++;
	}
	if (t->o.loops && add_loops(t, s, n) < 0)
		return hwp_set_error(ENOMEM, "out of memory timing loops");
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

/* ---- distributions ---- */

static int cmp_value(const void *a, const void *b)
{
	const struct hwp_timing_value *x = a, *y = b;

	return x->cycles < y->cycles ? -1 : x->cycles > y->cycles;
}

/* Density bins: one per cycle value below 32, then 16 per doubling. */
#define EXACT_BINS 32u
static uint32_t bin_of(uint32_t v)
{
	if (v < EXACT_BINS)
		return v;
	return EXACT_BINS + (uint32_t)(16.0 * log2((double)v / EXACT_BINS));
}

static int cmp_mode(const void *a, const void *b)
{
	const struct hwp_timing_mode *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->cycles < y->cycles ? -1 : x->cycles > y->cycles;
}

size_t hwp_timing__modes(const struct hwp_timing_value *v, size_t n, struct hwp_timing_mode *out, size_t max)
{
	if (!n || !max)
		return 0;
	uint32_t nb = bin_of(v[n - 1].cycles) + 1;
	double *cnt = calloc(nb, sizeof(*cnt)), *sm = calloc(nb, sizeof(*sm));
	uint32_t *peaks = calloc(nb, sizeof(*peaks)), *kept = calloc(nb, sizeof(*kept));
	struct hwp_timing_mode *all = calloc(nb, sizeof(*all));
	size_t np = 0, nk = 0, nout = 0, nall = 0;
	double total = 0;

	if (!cnt || !sm || !peaks || !kept || !all)
		goto out;
	for (size_t i = 0; i < n; i++) {
		cnt[bin_of(v[i].cycles)] += (double)v[i].samples;
		total += (double)v[i].samples;
	}
	/* smoothed: a triangle over 3 bins (exact cycle values below 32 are often
	   distinct peaks a few cycles apart: a wider kernel merges them) */
	for (uint32_t b = 0; b < nb; b++) {
		static const double w[2] = { 2, 1 };

		for (int d = -1; d <= 1; d++)
			if ((int64_t)b + d >= 0 && b + d < nb)
				sm[b] += w[abs(d)] * cnt[b + d] / 4.0;
	}
	/* local maxima; a plateau counts once, at its middle */
	double top = 0;
	for (uint32_t b = 0; b < nb;) {
		uint32_t e = b;

		while (e + 1 < nb && sm[e + 1] == sm[b])
			e++;
		if (sm[b] > 0 && (b == 0 || sm[b - 1] < sm[b]) && (e + 1 == nb || sm[e + 1] < sm[b])) {
			peaks[np++] = (b + e) / 2;
			if (sm[b] > top)
				top = sm[b];
		}
		b = e + 1;
	}
	for (size_t p = 0; p < np; p++) {
		uint32_t at = peaks[p];
		double hgt = sm[at], col = 0;
		bool higher = false;

		if (hgt < 0.05 * top)
			continue;
		/* the valley towards a higher peak on either side; the higher col */
		for (int dir = -1; dir <= 1; dir += 2) {
			double lo = hgt;

			for (int64_t b = (int64_t)at + dir; b >= 0 && b < nb; b += dir) {
				if (sm[b] > hgt || (sm[b] == hgt && dir < 0)) {
					higher = true;
					if (lo > col)
						col = lo;
					break;
				}
				if (sm[b] < lo)
					lo = sm[b];
			}
		}
		if (!higher || hgt - col >= 0.5 * hgt)
			kept[nk++] = at;
	}
	/* each mode's extent: from the lowest valley to its neighbours */
	for (size_t k = 0; k < nk; k++) {
		uint32_t lo_b = 0, hi_b = nb - 1;

		if (k > 0) {
			lo_b = kept[k - 1] + 1;
			for (uint32_t b = lo_b; b < kept[k]; b++)
				if (sm[b] < sm[lo_b])
					lo_b = b;
			/* the valley bin itself goes to the left */
			lo_b++;
		}
		if (k + 1 < nk) {
			hi_b = kept[k];
			for (uint32_t b = kept[k]; b < kept[k + 1]; b++)
				if (sm[b] < sm[hi_b])
					hi_b = b;
		}
		struct hwp_timing_mode m = { 0 };
		uint64_t best = 0;
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			uint32_t b = bin_of(v[i].cycles);

			if (b < lo_b || b > hi_b)
				continue;
			if (!any)
				m.lo = v[i].cycles;
			any = true;
			m.hi = v[i].cycles;
			m.samples += v[i].samples;
			/* the value the mode names: the most frequent near the peak */
			if (b + 1 >= kept[k] && b <= kept[k] + 1 && v[i].samples > best) {
				best = v[i].samples;
				m.cycles = v[i].cycles;
			}
		}
		/* a peak of a handful of samples is noise */
		if (!any || m.samples < 5 || (double)m.samples < 0.02 * total)
			continue;
		if (!best)
			m.cycles = m.lo;
		all[nall++] = m;
	}
	qsort(all, nall, sizeof(*all), cmp_mode);
	nout = nall < max ? nall : max;
	memcpy(out, all, nout * sizeof(*out));
out:
	free(all);
	free(cnt);
	free(sm);
	free(peaks);
	free(kept);
	return nout;
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
	if (x->start.module != y->start.module)
		return x->start.module < y->start.module ? -1 : 1;
	return x->start.offset < y->start.offset ? -1 : x->start.offset > y->start.offset;
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
	return err ? hwp_set_error(ENOMEM, "out of memory building block timing") : 0;
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

/* ---- finding blocks ---- */

/* What hwp_timing__find() looks for. */
struct where {
	enum { W_ADDR, W_SYM, W_LINE } kind;
	uint64_t addr;        /* W_ADDR */
	char sym[256];        /* W_SYM */
	bool has_off;
	uint64_t off;
	char file[512];       /* W_LINE */
	unsigned line;
};

static int parse_where(const char *w, struct where *out)
{
	char *end;
	const char *colon = strrchr(w, ':'), *plus = strrchr(w, '+');

	memset(out, 0, sizeof(*out));
	if (!*w)
		return hwp_set_error(EINVAL, "an empty code location");
	if (w[0] >= '0' && w[0] <= '9') {
		errno = 0;
		out->addr = strtoull(w, &end, 0);
		if (!*end && !errno) {
			out->kind = W_ADDR;
			return 0;
		}
		if (!colon) /* a source file may start with a digit; nothing else does */
			return hwp_set_error(EINVAL, "'%s' is not an address (0x4005d0), symbol (main+0x10) "
					     "or source line (file.c:42)", w);
	}
	if (colon && colon[1] && colon > w) {
		errno = 0;
		unsigned long l = strtoul(colon + 1, &end, 10);

		if (!*end && !errno && l > 0 && l <= UINT32_MAX && colon[1] != '-' && colon[1] != '+') {
			if ((size_t)(colon - w) >= sizeof(out->file))
				return hwp_set_error(EINVAL, "'%s': the file name is too long", w);
			memcpy(out->file, w, (size_t)(colon - w));
			out->line = (unsigned)l;
			out->kind = W_LINE;
			return 0;
		}
	}
	size_t len = strlen(w);
	/* SYM+OFF; a name ending in '+' (operator+) is a name */
	if (plus && plus > w && plus[1]) {
		errno = 0;
		out->off = strtoull(plus + 1, &end, 0);
		if (*end || errno || plus[1] == '-' || plus[1] == '+')
			return hwp_set_error(EINVAL, "'%s': the offset after '+' is not a number", w);
		out->has_off = true;
		len = (size_t)(plus - w);
	}
	if (len >= sizeof(out->sym))
		return hwp_set_error(EINVAL, "'%s': the symbol name is too long", w);
	memcpy(out->sym, w, len);
	out->kind = W_SYM;
	return 0;
}

static bool same_sym(const struct hwp_symbol_info *si, const char *name)
{
	return si->symbol && (!strcmp(si->symbol, name) || (si->symbol_raw && !strcmp(si->symbol_raw, name)) ||
			      (si->symbol_full && !strcmp(si->symbol_full, name)));
}

static bool file_matches(const char *file, const char *want)
{
	size_t fl = strlen(file), wl = strlen(want);

	return fl >= wl && !strcmp(file + fl - wl, want) && (fl == wl || file[fl - wl - 1] == '/');
}

struct line_walk {
	struct hwp_symbolizer *sym;
	int module;
	const struct where *w;
	bool hit;
};

static int insn_on_line(void *ctx, const struct hwp__insn *in)
{
	struct line_walk *lw = ctx;
	struct hwp_symbol_info si;

	if (hwp_symbolizer__lookup(lw->sym, lw->module, in->offset, &si) == 0 && si.file &&
	    si.line == lw->w->line && file_matches(si.file, lw->w->file)) {
		lw->hit = true;
		return 1;
	}
	return 0;
}

static bool block_has(struct hwp_timing *t, const struct hwp_timing_block *b, const struct where *w)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(t->session);
	uint64_t len = b->end.offset - b->start.offset;
	struct hwp_symbol_info a, z;

	switch (w->kind) {
	case W_ADDR: {
		uint64_t v;

		if (w->addr >= b->start.addr && w->addr - b->start.addr <= len)
			return true;
		return hwp_symbolizer__module_vaddr(sym, b->start.module, b->start.offset, &v) == 0 &&
		       w->addr >= v && w->addr - v <= len;
	}
	case W_SYM:
		if (hwp_symbolizer__lookup(sym, b->start.module, b->start.offset, &a) < 0 || !same_sym(&a, w->sym))
			return false;
		if (!w->has_off)
			return true;
		return w->off >= a.sym_offset && w->off - a.sym_offset <= len;
	case W_LINE: {
		struct hwp__code_cache *cc = hwp__branch_collector_code_cache(t->collector);
		struct line_walk lw = { sym, b->start.module, w, false };

		if (cc && hwp__code_cache_range(cc, b->start.module, b->start.offset, b->end.offset, insn_on_line,
						&lw) >= 0)
			return lw.hit;
		if (lw.hit)
			return true;
		/* not decoded: its first and last instructions only */
		return (hwp_symbolizer__lookup(sym, b->start.module, b->start.offset, &a) == 0 && a.file &&
			a.line == w->line && file_matches(a.file, w->file)) ||
		       (hwp_symbolizer__lookup(sym, b->end.module, b->end.offset, &z) == 0 && z.file &&
			z.line == w->line && file_matches(z.file, w->file));
	}
	}
	return false;
}

int hwp_timing__find(struct hwp_timing *t, const char *where, size_t *idx, size_t max)
{
	struct where w;
	int err = parse_where(where, &w), found = 0;

	if (err < 0)
		return err;
	for (size_t i = 0; i < t->nbout; i++)
		if (block_has(t, &t->bout[i], &w)) {
			if ((size_t)found < max)
				idx[found] = i;
			if (found < INT32_MAX)
				found++;
		}
	return found;
}
