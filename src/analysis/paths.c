/* SPDX-License-Identifier: MIT */
/*
 * Hot paths (see include/hwprof/paths.h). Per sample, the stack is walked
 * oldest to newest as range, branch, range, ...; a path is kept as the list
 * of its ranges (start, end) in one module, counted in a table keyed by that
 * list. Whether a taken branch continues a path is decided once per distinct
 * branch (decoded, and both ends symbolized). Ranges are turned into blocks
 * only at the end, once the collector has decided which ranges count and the
 * flow analysis has split the code into blocks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/flow_internal.h"
#include "analysis/paths_internal.h"
#include "decode/code_cache.h"
#include "hwprof/paths.h"
#include "hwprof/perf_abi.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "symbolize/symbolizer_internal.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/merge_order.h"
#include "util/opts.h"
#include "util/vec.h"

/* AutoFDO's bound on a range, as the collector's default */
#define MAX_RANGE (1u << 20)

struct link {
	int32_t module;
	uint64_t from, to;
	bool continues; /* a forward jump or conditional branch inside one function */
};

struct path_rec {
	int32_t module;
	uint32_t n;     /* ranges */
	size_t first;   /* index of its first (start, end) pair in seq */
	uint64_t hash;
	uint64_t count;
};

struct hwp_paths {
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
	struct hwp_paths_stats st;

	struct link *links;
	size_t nlinks, links_cap;
	struct hwp_hashmap link_map;

	struct path_rec *paths;
	size_t npaths, paths_cap;
	struct hwp_hashmap path_map;
	uint64_t *seq; /* (start, end) pairs of every distinct path */
	size_t nseq, seq_cap;

	/* one sample: its entries resolved (the collector's) */
	const struct hwp_code_loc *from, *to;
	uint64_t *cur; /* the path being followed: (start, end) pairs */
	size_t ncur, cur_cap;
	int32_t cur_module;

	/* A part of a parallel pass: the paths it merges into (WHOLE, which
	   decides links: see link_continues()), its module numbers, where
	   each path was first counted and the place of the next. */
	struct hwp_paths *whole;
	struct hwp__module_ids *ids;
	uint64_t *first;
	size_t first_cap;
	uint64_t pos;
	/* The whole of a parallel pass: what its parts' link decisions use,
	   one part at a time (the session's symbolizer must not change). */
	pthread_mutex_t mu;
	bool mu_made;
	struct hwp_symbolizer *side;
	struct hwp__code_cache *side_code;

	/* built */
	struct hwp_path *rows;
	size_t nrows;
	struct hwp_code_loc *blocks;
	size_t nblocks, blocks_cap;
};

struct hwp_paths *hwp_paths__new(struct hwp_session *s, struct hwp_branch_collector *c,
				 const struct hwp_paths_opts *opts)
{
	struct hwp_paths_opts o;
	struct hwp_paths *p;

	if (!s || !c || !hwp_branch_collector__ranges(c)) {
		hwp__set_error(EINVAL, "paths: %s", !s ? "no session given"
					       : !c ? "no branch collector given"
						    : "the branch collector counts no ranges");
		errno = EINVAL;
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &o, struct hwp_paths_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		hwp__set_error(ENOMEM, "out of memory making the path counter");
		return NULL;
	}
	p->session = s;
	p->collector = c;
	hwp__branch_collector_keep_locs(c);
	return p;
}

void hwp_paths__delete(struct hwp_paths *p)
{
	if (!p)
		return;
	free(p->links);
	hwp__hashmap_free(&p->link_map);
	free(p->paths);
	hwp__hashmap_free(&p->path_map);
	free(p->seq);
	free(p->cur);
	free(p->first);
	if (p->mu_made)
		pthread_mutex_destroy(&p->mu);
	hwp__code_cache_delete(p->side_code);
	hwp_symbolizer__delete(p->side);
	free(p->rows);
	free(p->blocks);
	free(p);
}

static bool same_function(struct hwp_symbolizer *sym, int32_t module, uint64_t a, uint64_t b)
{
	struct hwp_symbol_info x, y;

	if (hwp_symbolizer__lookup(sym, module, a, &x) < 0 || !x.symbol)
		return false;
	uint64_t start = x.sym_start, size = x.sym_size;
	if (hwp_symbolizer__lookup(sym, module, b, &y) < 0 || !y.symbol)
		return false;
	return y.sym_start == start && y.sym_size == size;
}

/* Whether the taken branch at FROM to TO in MODULE (of SYM, decoded
   through CC) is a jump or conditional branch inside one function. */
static bool link_continues(struct hwp__code_cache *cc, struct hwp_symbolizer *sym, int32_t module, uint64_t from,
			   uint64_t to)
{
	struct hwp__insn insn;

	return cc && hwp__code_cache_insn(cc, module, from, &insn) == 0 &&
	       (insn.cls == HWP_INSN_COND || insn.cls == HWP_INSN_JUMP || insn.cls == HWP_INSN_IND_JUMP) &&
	       same_function(sym, module, from, to);
}

/* MODULE (part P's number, or a real id) in the whole's own symbolizer,
   <0 when it cannot be had. With the whole's lock held. */
static int side_module(struct hwp_paths *p, int32_t module)
{
	struct hwp_paths *w = p->whole;
	const char *path;
	const uint8_t *bid;
	uint8_t n;
	bool kernel = false;

	if (!w->side && !(w->side = hwp__session_new_symbolizer(w->session)))
		return -ENOMEM;
	if (hwp__module_ids_identity(p->ids, module, &path, &bid, &n) < 0 &&
	    hwp__symbolizer_module_identity(hwp_session__symbolizer(w->session), module, &path, &bid, &n,
					    &kernel) < 0)
		return -ENOENT;
	return kernel ? hwp_symbolizer__kernel_module(w->side) : hwp_symbolizer__module(w->side, path, bid, n);
}

/* link_continues() for a part: the session's symbolizer may not change
   while parts run, and a part's module numbers are its own, so the whole
   decides in a symbolizer of its own (the same files give the same
   answer), for one part at a time. Distinct links are few. */
static bool part_link_continues(struct hwp_paths *p, int32_t module, uint64_t from, uint64_t to)
{
	struct hwp_paths *w = p->whole;
	bool c = false;

	pthread_mutex_lock(&w->mu);
	int side = side_module(p, module);
	if (side >= 0 && (w->side_code || (w->side_code = hwp__code_cache_new(w->side))))
		c = link_continues(w->side_code, w->side, side, from, to);
	pthread_mutex_unlock(&w->mu);
	return c;
}

/* Whether the taken branch FROM -> TO continues a path; -ENOMEM. */
static int continues(struct hwp_paths *p, const struct hwp_code_loc *from, const struct hwp_code_loc *to)
{
	if (from->module < 0 || to->module != from->module || to->offset <= from->offset)
		return 0; /* another module, or a backward branch: a loop's back edge */
	uint64_t h = hwp__hash64(from->offset ^ (to->offset << 24) ^ ((uint64_t)(uint32_t)from->module << 56));
	struct hwp_hashmap_probe pr = hwp__hashmap_probe(&p->link_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&pr, &i))
		if (p->links[i].from == from->offset && p->links[i].to == to->offset &&
		    p->links[i].module == from->module)
			return p->links[i].continues;
	struct link *l = HWP_VEC_PUSH(p->links, p->nlinks, p->links_cap);
	if (!l)
		return -ENOMEM;
	if (hwp__hashmap_add(&p->link_map, h, p->nlinks - 1) < 0) {
		p->nlinks--;
		return -ENOMEM;
	}
	l->module = from->module;
	l->from = from->offset;
	l->to = to->offset;
	l->continues = p->whole ? part_link_continues(p, from->module, from->offset, to->offset)
				: link_continues(hwp__branch_collector_code_cache(p->collector),
						 hwp_session__symbolizer(p->session), from->module, from->offset,
						 to->offset);
	return l->continues;
}

/* One multiply and rotate per offset, one finalization for the whole: a
   finalization per offset was a chain of dependent multiplies as long as
   the path (a path is tens of offsets, hashed once per sample). */
static uint64_t seq_hash(int32_t module, const uint64_t *v, size_t n)
{
	uint64_t h = (uint64_t)(uint32_t)module * 0x9e3779b97f4a7c15ULL ^ n;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ v[i]) * 0xff51afd7ed558ccdULL;
		h = h << 31 | h >> 33;
	}
	return hwp__hash64(h);
}

/* Whether A[0..N) and B[0..N) are equal: short runs, compared inline. */
static bool seq_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Counts COUNT times the path of the N/2 ranges V in MODULE. */
static int count_path(struct hwp_paths *p, int32_t module, const uint64_t *v, size_t n, uint64_t count)
{
	uint64_t h = seq_hash(module, v, n);
	struct hwp_hashmap_probe pr = hwp__hashmap_probe(&p->path_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&pr, &i)) {
		struct path_rec *r = &p->paths[i];

		if (r->hash == h && r->module == module && 2 * (size_t)r->n == n &&
		    seq_eq(&p->seq[r->first], v, n)) {
			r->count += count;
			return 0;
		}
	}
	if (HWP_VEC_RESERVE(p->seq, p->seq_cap, p->nseq + n) < 0)
		return -ENOMEM;
	struct path_rec *r = HWP_VEC_PUSH(p->paths, p->npaths, p->paths_cap);
	if (!r)
		return -ENOMEM;
	if (hwp__hashmap_add(&p->path_map, h, p->npaths - 1) < 0) {
		p->npaths--;
		return -ENOMEM;
	}
	if (p->whole) {
		if (HWP_VEC_RESERVE(p->first, p->first_cap, p->npaths) < 0) {
			p->npaths--; /* (the index keeps it: only deleting follows ENOMEM) */
			return -ENOMEM;
		}
		p->first[p->npaths - 1] = p->pos++;
	}
	memcpy(&p->seq[p->nseq], v, n * sizeof(*v));
	*r = (struct path_rec){ .module = module, .n = (uint32_t)(n / 2), .first = p->nseq, .hash = h,
				.count = count };
	p->nseq += n;
	return 0;
}

/* Counts the path in p->cur once. */
static int emit(struct hwp_paths *p)
{
	p->st.paths++;
	return count_path(p, p->cur_module, p->cur, p->ncur, 1);
}

static bool range_usable(const struct hwp_code_loc *start, const struct hwp_code_loc *end)
{
	return start->module >= 0 && start->module == end->module && start->offset <= end->offset &&
	       end->offset - start->offset <= MAX_RANGE;
}

int hwp_paths__add(struct hwp_paths *p, const struct hwp_event *ev, const struct hwp_thread *th)
{
	if (ev->type != HWP_RECORD_SAMPLE || !ev->evsel)
		return 0;
	const struct hwp_sample *s = &ev->sample;
	uint64_t bst = ev->evsel->attr.branch_sample_type;
	size_t n = s->branch_nr;

	if (!(s->sample_type & HWP_SAMPLE_BRANCH_STACK) || (bst & HWP_BRANCH_CALL_STACK) || n < 2)
		return 0;
	/* consecutive entries are consecutive branches only in 'any' mode or
	   in stacks synthesized from a trace (no filter) */
	if (!(bst & HWP_BRANCH_ANY) && (bst & ~(uint64_t)HWP_BRANCH_HW_INDEX))
		return 0;
	int err = hwp__branch_collector_locs(p->collector, ev, th, &p->from, &p->to);
	if (err < 0)
		return err;
	/* oldest to newest: e[n-1], R[n-1], e[n-2], ..., R[1], e[0], where
	   R[i] = [e[i].to, e[i-1].from]. A path is complete when a branch that
	   does not continue it comes before its first range and after its last. */
	int c = continues(p, &p->from[n - 1], &p->to[n - 1]);
	bool ok = c == 0; /* the current path started after a cut */
	if (c < 0)
		return hwp__set_error(ENOMEM, "out of memory following paths");
	p->ncur = 0;
	/* room for every range of the stack, once */
	if (HWP_VEC_RESERVE(p->cur, p->cur_cap, 2 * n) < 0)
		return hwp__set_error(ENOMEM, "out of memory following paths");
	for (size_t i = n - 1; i >= 1; i--) {
		const struct hwp_code_loc *start = &p->to[i], *end = &p->from[i - 1];
		bool usable = range_usable(start, end);

		if (!usable) {
			p->st.truncated += p->ncur != 0;
			p->ncur = 0;
			ok = false;
		} else if (ok) {
			/* (every range of a path is in one module: links stay in it) */
			p->cur_module = start->module;
			p->cur[p->ncur++] = start->offset;
			p->cur[p->ncur++] = end->offset;
		}
		if ((c = continues(p, &p->from[i - 1], &p->to[i - 1])) < 0)
			return hwp__set_error(ENOMEM, "out of memory following paths");
		if (c && usable)
			continue; /* the path goes on into R[i-1] */
		if (!c) {
			/* a cut: the path so far is complete; the next starts clean */
			if (ok && p->ncur && emit(p) < 0)
				return hwp__set_error(ENOMEM, "out of memory counting paths");
			p->ncur = 0;
			ok = true;
		} else {
			ok = false; /* continues from an unusable range: incomplete */
		}
	}
	if (p->ncur) /* runs on past the newest entry */
		p->st.truncated++;
	p->ncur = 0;
	return 0;
}

/* ---- a parallel pass's parts ---- */

struct hwp_paths *hwp__paths_new_part(struct hwp_paths *whole, struct hwp_branch_collector *c,
				      struct hwp__module_ids *ids)
{
	struct hwp_paths *p = hwp_paths__new(whole->session, c, NULL);

	if (!p)
		return NULL;
	p->whole = whole;
	p->ids = ids;
	if (!whole->mu_made) {
		pthread_mutex_init(&whole->mu, NULL);
		whole->mu_made = true;
	}
	return p;
}

int hwp__paths_add_at(struct hwp_paths *p, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	p->pos = HWP__COLLECT_POS(seq, 0);
	return hwp_paths__add(p, ev, th);
}

static void path_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	struct hwp_paths *const *parts = ctx;

	*first = parts[k]->first;
	*nr = parts[k]->npaths;
}

int hwp__paths_merge(struct hwp_paths *dst, struct hwp_paths *const *parts, struct hwp__module_ids *const *ids,
		     size_t n)
{
	struct hwp__merge_ref *order = NULL;
	size_t total = 0;
	int err = 0;

	for (size_t k = 0; k < n; k++) {
		dst->st.paths += parts[k]->st.paths;
		dst->st.truncated += parts[k]->st.truncated;
	}
	if (hwp__merge_order(n, path_rows, (void *)parts, &order, &total) < 0)
		err = -ENOMEM;
	for (size_t i = 0; i < total && !err; i++) {
		const struct hwp_paths *pt = parts[order[i].part];
		const struct path_rec *r = &pt->paths[order[i].row];

		err = count_path(dst, hwp__module_ids_real(ids[order[i].part], r->module), &pt->seq[r->first],
				 2 * (size_t)r->n, r->count);
	}
	free(order);
	return err < 0 ? hwp__set_error(ENOMEM, "out of memory merging paths") : 0;
}

static int add_both(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct hwp_paths *p = ctx;
	int err = hwp_branch_collector__add(p->collector, ev, th);

	return err < 0 ? err : hwp_paths__add(p, ev, th);
}

int hwp_paths__read(struct hwp_paths *p)
{
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = p, .sample = add_both };
	int err = hwp_session__process(p->session, &h);

	return err < 0 ? err : hwp_branch_collector__check_ranges(p->collector);
}

/* The collector's ranges, for looking up (module, start, end). */
struct range_set {
	const struct hwp_branch_row *rows;
	struct hwp_hashmap map;
};

static uint64_t range_hash(int32_t module, uint64_t start, uint64_t end)
{
	return hwp__hash64(start ^ (end << 24) ^ ((uint64_t)(uint32_t)module << 56));
}

static bool range_known(const struct range_set *rs, int32_t module, uint64_t start, uint64_t end)
{
	struct hwp_hashmap_probe pr = hwp__hashmap_probe(&rs->map, range_hash(module, start, end));
	uint32_t i;

	while (hwp__hashmap_next(&pr, &i)) {
		const struct hwp_branch_key *k = &rs->rows[i].key;

		if (k->from.offset == start && k->to.offset == end && k->from.module == module)
			return true;
	}
	return false;
}

static int cmp_path(const void *a, const void *b)
{
	const struct hwp_path *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->blocks[0].module != y->blocks[0].module)
		return x->blocks[0].module < y->blocks[0].module ? -1 : 1;
	if (x->blocks[0].offset != y->blocks[0].offset)
		return x->blocks[0].offset < y->blocks[0].offset ? -1 : 1;
	return x->nblocks < y->nblocks ? -1 : x->nblocks > y->nblocks;
}

/* Appends the blocks of range [START, END]; 1 when F has no such split. */
static int add_range_blocks(struct hwp_paths *p, const struct hwp_flow *f, int32_t module, uint64_t start,
			    uint64_t end, uint64_t *insns)
{
	uint64_t at = start;

	for (;;) {
		struct hwp_code_loc l = { .module = module, .offset = at };
		const struct hwp_flow_block *b = hwp__flow_block_at(f, &l);
		struct hwp_code_loc *d;

		if (!b || b->last.offset > end)
			return 1;
		if (!(d = HWP_VEC_PUSH(p->blocks, p->nblocks, p->blocks_cap)))
			return -ENOMEM;
		*d = b->start;
		*insns += b->insns;
		if (b->last.offset == end)
			return 0;
		at = b->start.offset + b->size;
	}
}

const struct hwp_path *hwp_paths__build(struct hwp_paths *p, const struct hwp_flow *f, size_t *n)
{
	struct range_set rs = { 0 };
	size_t nranges;
	size_t *first = NULL;
	int err = -ENOMEM;

	free(p->rows);
	p->rows = NULL;
	p->nrows = p->nblocks = 0;
	p->st.rejected = p->st.no_blocks = 0;
	rs.rows = hwp_branch_table__rows(hwp_branch_collector__ranges(p->collector), &nranges);
	for (size_t i = 0; i < nranges; i++)
		if (hwp__hashmap_add(&rs.map, range_hash(rs.rows[i].key.from.module, rs.rows[i].key.from.offset,
							 rs.rows[i].key.to.offset), i) < 0)
			goto out;
	if (!(p->rows = calloc(p->npaths ? p->npaths : 1, sizeof(*p->rows))) ||
	    !(first = calloc(p->npaths ? p->npaths : 1, sizeof(*first))))
		goto out;
	for (size_t i = 0; i < p->npaths; i++) {
		const struct path_rec *r = &p->paths[i];
		const uint64_t *v = &p->seq[r->first];
		size_t before = p->nblocks;
		uint64_t insns = 0;
		int bad = 0;

		for (uint32_t k = 0; k < r->n && !bad; k++)
			bad = !range_known(&rs, r->module, v[2 * k], v[2 * k + 1]);
		if (bad) {
			p->st.rejected++;
			continue;
		}
		for (uint32_t k = 0; k < r->n && !bad; k++)
			if ((bad = add_range_blocks(p, f, r->module, v[2 * k], v[2 * k + 1], &insns)) < 0)
				goto out;
		if (bad || p->nblocks == before) {
			p->st.no_blocks++;
			p->nblocks = before;
			continue;
		}
		struct hwp_path *o = &p->rows[p->nrows];
		first[p->nrows++] = before;
		o->count = r->count;
		o->nblocks = p->nblocks - before;
		o->insns = insns;
	}
	/* the block array is complete: point the rows into it */
	for (size_t i = 0; i < p->nrows; i++) {
		struct hwp_path *o = &p->rows[i];
		const struct hwp_code_loc *lastb = &p->blocks[first[i] + o->nblocks - 1];
		const struct hwp_flow_block *b = hwp__flow_block_at(f, lastb);

		o->blocks = &p->blocks[first[i]];
		o->last = b ? b->last : *lastb;
	}
	/* inferred counts (opts.infer): no path runs more often than its blocks */
	size_t nfns;
	hwp_flow__functions(f, &nfns);
	for (size_t i = 0; nfns && i < p->nrows; i++) {
		struct hwp_path *o = &p->rows[i];

		for (size_t k = 0; k < o->nblocks; k++) {
			const struct hwp_flow_block *b = hwp__flow_block_at(f, &o->blocks[k]);

			if (b && b->count < o->count)
				o->count = b->count;
		}
	}
	qsort(p->rows, p->nrows, sizeof(*p->rows), cmp_path);
	err = 0;
out:
	free(first);
	hwp__hashmap_free(&rs.map);
	if (err) {
		hwp__set_error(ENOMEM, "out of memory building paths");
		errno = ENOMEM;
		return NULL;
	}
	*n = p->nrows;
	return p->rows;
}

const struct hwp_paths_stats *hwp_paths__stats(const struct hwp_paths *p)
{
	return &p->st;
}
