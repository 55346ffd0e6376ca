/* SPDX-License-Identifier: MIT */
/*
 * The peaks of a latency distribution (hwp_timing__modes(), see
 * include/hwprof/timing.h): density over bins exact at small values and
 * logarithmic above, smoothed, then peaks kept by their prominence.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/timing.h"

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
