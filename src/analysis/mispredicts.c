/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/wilson.h"
#include "hwprof/mispredicts.h"
#include "util/error.h"

void hwp__wilson(double k, double n, double z, double *lo, double *hi)
{
	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double p = k / n, z2 = z * z;
	double denom = 1 + z2 / n;
	double center = (p + z2 / (2 * n)) / denom;
	double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom;
	*lo = center - half < 0 ? 0 : center - half;
	*hi = center + half > 1 ? 1 : center + half;
	/* exact at the ends (rounding leaves 1e-19 where the bound is 0) */
	if (k <= 0)
		*lo = 0;
	if (k >= n)
		*hi = 1;
}

void hwp__wilson_interval(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	hwp__wilson((double)k, (double)n, z, lo, hi);
}

static int cmp_site(const void *a, const void *b)
{
	const struct hwp_branch_row *x = *(const struct hwp_branch_row *const *)a;
	const struct hwp_branch_row *y = *(const struct hwp_branch_row *const *)b;
	if (x->key.from.module != y->key.from.module)
		return x->key.from.module < y->key.from.module ? -1 : 1;
	if (x->key.from.offset != y->key.from.offset)
		return x->key.from.offset < y->key.from.offset ? -1 : 1;
	return 0;
}

static int cmp_impact(const void *a, const void *b)
{
	const struct hwp_mispredict_row *x = a, *y = b;
	if (x->mispredicted != y->mispredicted)
		return x->mispredicted < y->mispredicted ? 1 : -1;
	if (x->sampled != y->sampled)
		return x->sampled < y->sampled ? 1 : -1;
	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

struct hwp_mispredict_row *hwp_mispredicts__build(const struct hwp_branch_table *t, size_t *nr,
						  uint64_t *total_mispredicts)
{
	size_t n;

	if (!t || !nr || !total_mispredicts) {
		hwp__set_error(EINVAL, "mispredict report: no %s given",
			       !t ? "branch table" : "place for the row count or the total");
		return NULL;
	}
	const struct hwp_branch_row *rows = hwp_branch_table__rows(t, &n);
	const struct hwp_branch_row **by_site = malloc((n ? n : 1) * sizeof(*by_site));
	struct hwp_mispredict_row *out = calloc(n ? n : 1, sizeof(*out));
	size_t w = 0;
	uint64_t total = 0;

	if (!by_site || !out) {
		free(by_site);
		free(out);
		hwp__set_error(ENOMEM, "out of memory building the mispredict report (%zu branch rows)", n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		by_site[i] = &rows[i];
	qsort(by_site, n, sizeof(*by_site), cmp_site);
	for (size_t i = 0; i < n;) {
		struct hwp_mispredict_row *o = &out[w++];
		uint64_t best = 0;
		size_t j = i;
		o->site = by_site[i]->key.from;
		for (; j < n && !cmp_site(&by_site[i], &by_site[j]); j++) {
			const struct hwp_branch_counts *c = &by_site[j]->c;
			o->sampled += c->count;
			o->mispredicted += c->mispred;
			o->with_info += c->mispred + c->predicted;
			o->targets++;
			if (c->count > best) {
				best = c->count;
				o->top_target = by_site[j]->key.to;
				o->top_target_count = best;
			}
		}
		total += o->mispredicted;
		i = j;
	}
	for (size_t i = 0; i < w; i++) {
		struct hwp_mispredict_row *o = &out[i];
		o->rate = o->with_info ? (double)o->mispredicted / (double)o->with_info : 0;
		hwp__wilson_interval(o->mispredicted, o->with_info, HWP__Z95, &o->rate_lo, &o->rate_hi);
		o->share = total ? (double)o->mispredicted / (double)total : 0;
	}
	qsort(out, w, sizeof(*out), cmp_impact);
	free(by_site);
	*nr = w;
	*total_mispredicts = total;
	return out;
}
