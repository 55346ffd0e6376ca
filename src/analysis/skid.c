/* SPDX-License-Identifier: MIT */
/* Precise against non-precise attribution, and the skid between (skid.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/skid_internal.h"
#include "hwprof/skid.h"
#include "hwprof/symbolize.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/merge_order.h"
#include "util/opts.h"
#include "util/vec.h"

/* One distinct instruction: samples of each event. */
struct ip_count {
	struct hwp_code_loc loc;
	uint64_t n[2]; /* [0] precise, [1] imprecise */
};

struct hwp_skid {
	struct hwp_session *s;
	const struct hwp_evsel *ev[2];
	struct ip_count *ips;
	size_t nr_ips, cap_ips;
	struct hwp_hashmap ip_map;
	uint64_t total[2];
	uint64_t dist[HWP_SKID_BUCKETS];
	double median;
	struct hwp_skid_line *lines;
	size_t nr_lines, cap_lines;
	bool lines_done;
	/* how addresses are resolved: the session's resolver, or a part's */
	struct hwp__resolver *res;
	/* A part of a parallel pass: where in the sequential order (sample
	   numbers) each instruction was first seen (a line shows its first
	   sample's address); the sample being counted is number SEQ. */
	bool part;
	uint64_t seq;
	uint64_t *first;
	size_t nr_first, cap_first;
};

static const char *const bucket_names[HWP_SKID_BUCKETS] = {
	"0", "1-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128-256", "none",
};

static unsigned bucket_of(uint64_t d)
{
	unsigned b = 0;

	if (d == 0)
		return 0;
	for (uint64_t lim = 4; b < 7 && d >= lim; lim <<= 1)
		b++;
	return b + 1 > 7 ? 7 : b + 1;
}

static int choose(struct hwp_skid *k, const struct hwp_skid_opts *o)
{
	struct hwp_reader *r = hwp_session__reader(k->s);
	size_t n = r ? hwp_reader__nr_evsels(r) : 0;
	int best = -1, plain = -1;

	for (size_t i = 0; i < n; i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		unsigned p = hwp_attr__precise_ip(&e->attr);
		if (e->attr.type == 1 && e->attr.config == 9) /* the dummy tracking event */
			continue;
		if (p && (best < 0 || p > hwp_attr__precise_ip(&hwp_reader__evsel(r, (size_t)best)->attr)))
			best = (int)i;
		if (!p && plain < 0)
			plain = (int)i;
	}
	if (o->precise >= 0)
		best = o->precise;
	if (o->imprecise >= 0)
		plain = o->imprecise;
	if (best < 0 || plain < 0 || best == plain || (size_t)best >= n || (size_t)plain >= n)
		return hwp__set_error(EINVAL, "%s: skid needs two sampling events over the same code, one "
				      "precise (precise_ip > 0) and one not; this recording has %zu event%s%s",
				      hwp_session__path(k->s), n, n == 1 ? "" : "s",
				      best < 0 ? ", none precise" : plain < 0 ? ", none non-precise" : "");
	k->ev[0] = hwp_reader__evsel(r, (size_t)best);
	k->ev[1] = hwp_reader__evsel(r, (size_t)plain);
	return 0;
}

/* The counts of the instruction at LOC (made on first sight); NULL: out
   of memory (message set). */
static struct ip_count *ip_entry(struct hwp_skid *k, const struct hwp_code_loc *loc)
{
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)loc->module), loc->offset);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&k->ip_map, h);
	struct ip_count *c;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (k->ips[i].loc.module == loc->module && k->ips[i].loc.offset == loc->offset)
			return &k->ips[i];
	c = HWP_VEC_PUSH(k->ips, k->nr_ips, k->cap_ips);
	uint64_t *first = c && k->part ? HWP_VEC_PUSH(k->first, k->nr_first, k->cap_first) : NULL;
	if (!c || hwp__hashmap_add(&k->ip_map, h, k->nr_ips - 1) < 0 || (k->part && !first)) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	if (first)
		*first = k->seq;
	c->loc = *loc;
	return c;
}

static int cmp_ip(const void *pa, const void *pb)
{
	const struct ip_count *a = pa, *b = pb;

	if (a->loc.module != b->loc.module)
		return a->loc.module < b->loc.module ? -1 : 1;
	return a->loc.offset < b->loc.offset ? -1 : a->loc.offset > b->loc.offset;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Each non-precise instruction's distance back to the nearest precise one. */
static int distribute(struct hwp_skid *k)
{
	uint64_t *d = NULL;
	size_t nd = 0, cap = 0;
	/* last precise offset seen in the current module, walking up */
	int32_t mod = INT32_MIN;
	bool have = false;
	uint64_t last = 0;

	if (k->nr_ips > 1)
		qsort(k->ips, k->nr_ips, sizeof(*k->ips), cmp_ip);
	for (size_t i = 0; i < k->nr_ips; i++) {
		const struct ip_count *c = &k->ips[i];

		if (c->loc.module != mod) {
			mod = c->loc.module;
			have = false;
		}
		if (c->n[0]) {
			have = true;
			last = c->loc.offset;
		}
		if (!c->n[1])
			continue;
		if (!have || c->loc.offset - last > HWP_SKID_MAX_BYTES) {
			k->dist[HWP_SKID_BUCKETS - 1] += c->n[1];
			continue;
		}
		k->dist[bucket_of(c->loc.offset - last)] += c->n[1];
		if (hwp__vec_reserve((void **)&d, &cap, nd + 1, sizeof(*d)) < 0) {
			free(d);
			return hwp__set_error(ENOMEM, "out of memory");
		}
		d[nd++] = (c->loc.offset - last) << 20 | (c->n[1] > 0xfffff ? 0xfffff : c->n[1]);
	}
	/* the weighted median of the distances */
	if (nd > 1)
		qsort(d, nd, sizeof(*d), cmp_u64);
	{
		uint64_t tot = 0, acc = 0;
		for (size_t i = 0; i < nd; i++)
			tot += d[i] & 0xfffff;
		for (size_t i = 0; i < nd; i++) {
			acc += d[i] & 0xfffff;
			if (2 * acc >= tot) {
				k->median = (double)(d[i] >> 20);
				break;
			}
		}
	}
	free(d);
	hwp__hashmap_free(&k->ip_map); /* the order changed: the index is stale */
	memset(&k->ip_map, 0, sizeof(k->ip_map));
	return 0;
}

/* A skid of S's two events that has counted nothing; RES resolves (NULL:
   the session's resolver). */
static struct hwp_skid *skid_make(struct hwp_session *s, const struct hwp_skid_opts *opts, struct hwp__resolver *res)
{
	struct hwp_skid_opts o;
	struct hwp_skid *k;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_skid_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!opts)
		o.precise = o.imprecise = -1;
	k = calloc(1, sizeof(*k));
	if (!k) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	k->s = s;
	k->res = res ? res : hwp__session_resolver(s);
	if (choose(k, &o) < 0) {
		hwp_skid__delete(k);
		errno = EINVAL;
		return NULL;
	}
	return k;
}

/* Counts sample EV of thread TH when it is of one of the two events. 0 or
   <0 (message set). */
static int skid_add(struct hwp_skid *k, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct hwp_code_loc loc;
	struct ip_count *c;
	int which = ev->evsel == k->ev[0] ? 0 : ev->evsel == k->ev[1] ? 1 : -1;
	int err;

	if (which < 0)
		return 0;
	hwp__resolver_enter(k->res, th);
	if ((err = hwp__resolver_resolve(k->res, 0, ev->sample.ip, &loc)) < 0)
		return err;
	if (!(c = ip_entry(k, &loc)))
		return -ENOMEM;
	c->n[which]++;
	k->total[which]++;
	return 0;
}

/* The parallel pass's parts (see skid_internal.h). */
struct skid_pass {
	struct hwp_session *s;
	struct hwp_skid_opts o;
	struct hwp_skid *whole;
};

static void *skid_part_new(void *ctx, struct hwp__resolver *res)
{
	struct skid_pass *p = ctx;

	return hwp__skid_new_part(p->s, &p->o, res);
}

static int skid_part_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	return ev->evsel ? hwp__skid_add_at(part, ev, th, seq) : 0;
}

static int skid_part_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	struct skid_pass *p = ctx;

	return hwp__skid_merge(p->whole, (struct hwp_skid *const *)parts, ids, n);
}

static void skid_part_delete(void *part)
{
	hwp_skid__delete(part);
}

/* How many threads read S for OPTS (logged). */
static unsigned skid_jobs(struct hwp_session *s, const struct hwp_skid_opts *opts)
{
	struct hwp_skid_opts o = { .sz = sizeof(o) };

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	/* measured: a skid sample costs less to count (about 0.1 us) than to
	   hand to another thread, so two threads were slower than one */
	return hwp__parallel_jobs(s, o.jobs, o.jobs ? NULL : "the default for skid: its samples cost less to count than to hand out");
}

struct hwp_skid *hwp_skid__new(struct hwp_session *s, const struct hwp_skid_opts *opts)
{
	struct hwp_skid *k = skid_make(s, opts, NULL);
	struct hwp_event ev;
	const struct hwp_thread *th;
	unsigned jobs;
	int n;

	if (!k)
		return NULL;
	if ((jobs = skid_jobs(s, opts)) > 1) {
		struct skid_pass p = { s, { .sz = sizeof(p.o) }, k };
		const struct hwp__parallel_ops ops = { &p, skid_part_new, skid_part_add, skid_part_merge,
						       skid_part_delete, false };

		if (opts)
			memcpy(&p.o, opts, opts->sz < sizeof(p.o) ? opts->sz : sizeof(p.o));
		/* (K is made as hwp__skid_new_part(s, opts, NULL) makes the skid merged into) */
		if (hwp__parallel_pass(s, &ops, jobs) < 0) {
			hwp_skid__delete(k);
			errno = EINVAL;
			return NULL;
		}
		return k;
	}
	while ((n = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if ((n = skid_add(k, &ev, th)) < 0)
			break;
	}
	if (n < 0 || distribute(k) < 0) {
		hwp_skid__delete(k);
		errno = EINVAL;
		return NULL;
	}
	return k;
}

struct hwp_skid *hwp__skid_new_part(struct hwp_session *s, const struct hwp_skid_opts *opts,
				    struct hwp__resolver *res)
{
	struct hwp_skid *k;

	/* made now, on the reading thread: a part's first lookup would make
	   it otherwise */
	if (res && !hwp_session__symbolizer(s))
		return NULL;
	if ((k = skid_make(s, opts, res)))
		k->part = res != NULL;
	return k;
}

int hwp__skid_add_at(struct hwp_skid *k, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	k->seq = seq;
	k->res->pos = HWP__COLLECT_POS(seq, HWP__SKID_POS);
	return skid_add(k, ev, th);
}

/* The parts' instructions are added in the order first seen: each keeps
   its first sample's address. */
static void skid_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	struct hwp_skid *const *parts = ctx;

	*first = parts[k]->first;
	*nr = parts[k]->nr_ips;
}

int hwp__skid_merge(struct hwp_skid *dst, struct hwp_skid *const *parts, struct hwp__module_ids *const *ids,
		    size_t n)
{
	size_t nr = 0;
	struct hwp__merge_ref *all = NULL;
	int err = 0;

	if (dst->part || dst->nr_ips || dst->total[0] || dst->total[1] || dst->lines_done)
		return hwp__set_error(EINVAL, "%s: skid merge: the skid merged into has counted samples",
				      hwp_session__path(dst->s));
	for (size_t k = 0; k < n; k++) {
		const struct hwp_skid *p = parts[k];

		if (!p->part || p->s != dst->s || p->ev[0] != dst->ev[0] || p->ev[1] != dst->ev[1] ||
		    p->nr_first != p->nr_ips)
			return hwp__set_error(EINVAL, "%s: skid merge: part %zu is not one of this skid's",
					      hwp_session__path(dst->s), k);
	}
	if (hwp__merge_order(n, skid_rows, (void *)parts, &all, &nr) < 0)
		return hwp__set_error(ENOMEM, "out of memory merging skids");
	for (size_t k = 0; k < n; k++) {
		dst->total[0] += parts[k]->total[0];
		dst->total[1] += parts[k]->total[1];
	}
	for (size_t i = 0; i < nr && !err; i++) {
		const struct ip_count *from = &parts[all[i].part]->ips[all[i].row];
		struct hwp_code_loc loc = from->loc;
		struct ip_count *c;

		if (ids)
			loc.module = hwp__module_ids_real(ids[all[i].part], loc.module);
		if (!(c = ip_entry(dst, &loc))) {
			err = -ENOMEM;
			break;
		}
		c->n[0] += from->n[0];
		c->n[1] += from->n[1];
	}
	free(all);
	return err ? err : distribute(dst);
}

void hwp_skid__delete(struct hwp_skid *k)
{
	if (!k)
		return;
	free(k->ips);
	free(k->first);
	hwp__hashmap_free(&k->ip_map);
	free(k->lines);
	free(k);
}

const struct hwp_evsel *hwp_skid__event(const struct hwp_skid *k, int precise)
{
	return k->ev[precise ? 0 : 1];
}

void hwp_skid__totals(const struct hwp_skid *k, uint64_t *precise, uint64_t *imprecise)
{
	*precise = k->total[0];
	*imprecise = k->total[1];
}

const uint64_t *hwp_skid__distribution(const struct hwp_skid *k, const char *const **labels, double *median)
{
	if (labels)
		*labels = bucket_names;
	if (median)
		*median = k->median;
	return k->dist;
}

static double share_diff(const struct hwp_skid *k, const struct hwp_skid_line *l)
{
	double a = k->total[0] ? (double)l->precise / (double)k->total[0] : 0;
	double b = k->total[1] ? (double)l->imprecise / (double)k->total[1] : 0;

	return b > a ? b - a : a - b;
}

static int cmp_line(const void *pa, const void *pb, void *arg)
{
	const struct hwp_skid *k = arg;
	const struct hwp_skid_line *a = pa, *b = pb;
	double da = share_diff(k, a), db = share_diff(k, b);

	if (da != db)
		return da > db ? -1 : 1;
	if (a->precise + a->imprecise != b->precise + b->imprecise)
		return a->precise + a->imprecise > b->precise + b->imprecise ? -1 : 1;
	return a->code.offset < b->code.offset ? -1 : a->code.offset > b->code.offset;
}

size_t hwp_skid__lines(struct hwp_skid *k, const struct hwp_skid_line **out)
{
	struct hwp_symbolizer *sym;
	struct hwp_hashmap map = { 0 };

	if (k->lines_done) {
		*out = k->lines;
		return k->nr_lines;
	}
	sym = hwp_session__symbolizer(k->s);
	for (size_t i = 0; i < k->nr_ips; i++) {
		const struct ip_count *c = &k->ips[i];
		struct hwp_symbol_info si;
		const char *file = NULL;
		unsigned line = 0;
		uint64_t h;
		struct hwp_hashmap_probe p;
		uint32_t j;
		struct hwp_skid_line *l = NULL;

		if (sym && c->loc.module >= 0 &&
		    hwp_symbolizer__lookup(sym, c->loc.module, c->loc.offset, &si) == 0 && si.file) {
			file = si.file;
			line = si.line;
		}
		h = file ? hwp__hash_combine(hwp__hash_str(file), line)
			 : hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)c->loc.module), c->loc.offset);
		p = hwp__hashmap_probe(&map, h);
		while (hwp__hashmap_next(&p, &j)) {
			struct hwp_skid_line *x = &k->lines[j];
			if (file ? x->file && x->line == line && !strcmp(x->file, file)
				 : !x->file && x->code.module == c->loc.module && x->code.offset == c->loc.offset) {
				l = x;
				break;
			}
		}
		if (!l) {
			l = HWP_VEC_PUSH(k->lines, k->nr_lines, k->cap_lines);
			if (!l || hwp__hashmap_add(&map, h, k->nr_lines - 1) < 0) {
				hwp__hashmap_free(&map);
				hwp__set_error(ENOMEM, "out of memory");
				return (size_t)-1;
			}
			memset(l, 0, sizeof(*l));
			l->code = c->loc;
			l->file = file;
			l->line = line;
		}
		l->precise += c->n[0];
		l->imprecise += c->n[1];
	}
	hwp__hashmap_free(&map);
	if (k->nr_lines > 1)
		qsort_r(k->lines, k->nr_lines, sizeof(*k->lines), cmp_line, k);
	k->lines_done = true;
	*out = k->lines;
	return k->nr_lines;
}
