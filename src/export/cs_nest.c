/* SPDX-License-Identifier: MIT */
/* The flat CS profile's summary, cold-context merge and nesting (cs_nest.h). */
#include <errno.h>
#include <string.h>

#include "export/cs_nest.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory making the context-sensitive profile");
}

void hwp__cs_flats_free(struct hwp__cs_flat *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].frames);
		hwp__cs_fs_free(v[i].fs);
	}
	free(v);
}

/* ---- summary ---- */

struct loc_count {
	uint32_t name, off, disc;
	uint64_t count;
};

static int by_name_loc(const void *x, const void *y)
{
	const struct loc_count *a = x, *b = y;

	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->disc < b->disc ? -1 : a->disc > b->disc;
}

static int by_count_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a > b ? -1 : a < b;
}

/* ProfileSummaryBuilder's cutoffs (parts per million), ascending */
static const uint32_t cutoffs[] = { 10000,  100000, 200000, 300000, 400000, 500000, 600000, 700000,
				    800000, 900000, 950000, 990000, 999000, 999900, 999999 };

int hwp__cs_summary(const struct hwp__cs_flat *v, size_t n, struct hwp__cs_summary *s)
{
	struct loc_count *lc = NULL;
	size_t nlc = 0, clc = 0, m = 0;
	uint64_t *counts, total = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].fs->nbody; k++) {
			struct loc_count *p = HWP_VEC_PUSH(lc, nlc, clc);

			if (!p) {
				free(lc);
				return nomem();
			}
			*p = (struct loc_count){ v[i].fs->name, v[i].fs->body[k].off, v[i].fs->body[k].disc,
						 v[i].fs->body[k].count };
		}
	hwp__sort(lc, nlc, sizeof(*lc), by_name_loc);
	if (!(counts = malloc((nlc ? nlc : 1) * sizeof(*counts)))) {
		free(lc);
		return nomem();
	}
	for (size_t i = 0; i < nlc; i++) {
		if (i && !by_name_loc(&lc[i], &lc[i - 1])) {
			counts[m - 1] += lc[i].count;
			continue;
		}
		counts[m++] = lc[i].count;
	}
	hwp__sort(counts, m, sizeof(*counts), by_count_desc);
	for (size_t i = 0; i < m; i++)
		total += counts[i];
	/* computeDetailedSummary(): whole groups of equal counts, most first,
	   until their sum reaches the cutoff's share of the total */
	size_t it = 0;
	uint64_t sum = 0, count = 0;
	*s = (struct hwp__cs_summary){ 0 };
	for (size_t c = 0; c < sizeof(cutoffs) / sizeof(*cutoffs); c++) {
		unsigned __int128 want = (unsigned __int128)total * cutoffs[c] / 1000000;

		while (sum < want && it < m) {
			count = counts[it];
			while (it < m && counts[it] == count)
				sum += counts[it++];
		}
		if (cutoffs[c] == 100000)
			s->p10 = count;
		else if (cutoffs[c] == 990000)
			s->hot = count;
		else if (cutoffs[c] == 999999)
			s->cold = count;
	}
	free(lc);
	free(counts);
	return 0;
}

/* ---- cold-context merge ---- */

int hwp__cs_merge_cold(struct hwp__cs_flat **pv, size_t *pn, uint64_t hot)
{
	struct hwp__cs_flat *v = *pv, *merged = NULL;
	size_t n = *pn, nm = 0, cm = 0, m = 0;
	int err = 0;

	if (!hot)
		return 0;
	/* the cold ones, merged by their leaf function */
	for (size_t i = 0; i < n; i++) {
		if (v[i].fs->total >= hot) {
			v[m++] = v[i];
			continue;
		}
		uint32_t leaf = v[i].frames[v[i].n - 1].name;
		struct hwp__cs_flat *t = NULL;
		for (size_t k = 0; k < nm && !t; k++)
			if (merged[k].fs->name == leaf)
				t = &merged[k];
		if (!t) {
			if (!(t = HWP_VEC_PUSH(merged, nm, cm)) || !(t->frames = malloc(sizeof(*t->frames))) ||
			    !(t->fs = hwp__cs_fs_new(leaf))) {
				if (t)
					free(t->frames);
				nm -= t != NULL;
				err = nomem();
				hwp__cs_flats_free(v + i, 1);
				continue;
			}
			t->frames[0] = (struct hwp__cs_frame){ leaf, 0, 0 };
			t->n = 1;
		}
		if (!err && hwp__cs_fs_merge(t->fs, v[i].fs))
			err = nomem();
		free(v[i].frames);
		hwp__cs_fs_free(v[i].fs);
	}
	n = m;
	/* into the base profiles left, or as new ones */
	for (size_t k = 0; k < nm; k++) {
		struct hwp__cs_flat *base = NULL;

		for (size_t i = 0; i < n && !base; i++)
			if (v[i].n == 1 && v[i].frames[0].name == merged[k].fs->name)
				base = &v[i];
		if (base) {
			if (!err && hwp__cs_fs_merge(base->fs, merged[k].fs))
				err = nomem();
			free(merged[k].frames);
			hwp__cs_fs_free(merged[k].fs);
		} else {
			v[n++] = merged[k];
		}
	}
	free(merged);
	*pn = n;
	return err;
}

/* ---- nesting ---- */

struct node {
	uint32_t name, off, disc; /* the call site in the parent */
	uint64_t hash;
	struct hwp__cs_fs *fs;
	struct node *kids;
	size_t nkids, ckids;
};

struct nest {
	char *const *names;
	uint64_t *name_md5;
	struct hwp__cs_fs **top; /* by name */
	int err;
};

static uint64_t site_hash(struct nest *ns, uint32_t name, uint32_t off, uint32_t disc)
{
	uint64_t loc = (uint64_t)disc << 32 | off;

	if (!ns->name_md5[name])
		ns->name_md5[name] = hwp__md5_guid(ns->names[name], strlen(ns->names[name]));
	return ns->name_md5[name] + (loc << 5) + loc;
}

static struct node *child(struct nest *ns, struct node *nd, uint32_t off, uint32_t disc, uint32_t name)
{
	uint64_t h = site_hash(ns, name, off, disc);
	struct node *k;

	for (size_t i = 0; i < nd->nkids; i++)
		if (nd->kids[i].hash == h)
			return &nd->kids[i];
	if (!(k = HWP_VEC_PUSH(nd->kids, nd->nkids, nd->ckids)))
		return NULL;
	*k = (struct node){ .name = name, .off = off, .disc = disc, .hash = h };
	return k;
}

static int by_hash(const void *x, const void *y)
{
	const struct node *a = x, *b = y;

	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static void nodes_free(struct node *nd)
{
	for (size_t i = 0; i < nd->nkids; i++)
		nodes_free(&nd->kids[i]);
	hwp__cs_fs_free(nd->fs);
	free(nd->kids);
}

/* ProfileConverter::convertCSProfiles() */
static void convert(struct nest *ns, struct node *nd)
{
	hwp__sort(nd->kids, nd->nkids, sizeof(*nd->kids), by_hash);
	for (size_t i = 0; i < nd->nkids; i++) {
		struct node *k = &nd->kids[i];
		struct hwp__cs_fs *c;

		convert(ns, k);
		if (!(c = k->fs))
			continue;
		k->fs = NULL;
		if (nd->fs) {
			struct hwp__cs_callee *cc = HWP_VEC_PUSH(nd->fs->calls, nd->fs->ncalls, nd->fs->ccalls);

			if (!cc) {
				ns->err = -ENOMEM;
				hwp__cs_fs_free(c);
				continue;
			}
			*cc = (struct hwp__cs_callee){ k->off, k->disc, c->name, c };
			nd->fs->total += c->total;
			nd->fs->total -= hwp__cs_fs_remove_call(nd->fs, k->off, k->disc, c->name);
		} else if (!ns->top[c->name]) {
			ns->top[c->name] = c;
		} else {
			if (hwp__cs_fs_merge(ns->top[c->name], c))
				ns->err = -ENOMEM;
			hwp__cs_fs_free(c);
		}
	}
}

static char *const *top_names;

static int by_total_name(const void *x, const void *y)
{
	const struct hwp__cs_fs *a = *(struct hwp__cs_fs *const *)x, *b = *(struct hwp__cs_fs *const *)y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(top_names[a->name], top_names[b->name]);
}

/* filterAmbiguousProfile(): functions that exist in several versions
   under one canonical name */
static bool ambiguous(const char *name)
{
	return !strncmp(name, "__cxx_global_var_init", 21) || !strncmp(name, "__tls_init", 10);
}

static void filter_callees(struct hwp__cs_fs *fs, char *const *names)
{
	size_t m = 0;

	for (size_t i = 0; i < fs->ncalls; i++) {
		if (ambiguous(names[fs->calls[i].name])) {
			hwp__cs_fs_free(fs->calls[i].fs);
			continue;
		}
		filter_callees(fs->calls[i].fs, names);
		fs->calls[m++] = fs->calls[i];
	}
	fs->ncalls = m;
}

int hwp__cs_write_nested(struct hwp__cs_flat *v, size_t n, char *const *names, FILE *fp)
{
	struct node root = { 0 };
	uint32_t nnames = 0;
	struct nest ns = { .names = names };
	struct hwp__cs_fs **order = NULL;
	size_t no = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].n; k++)
			if (v[i].frames[k].name + 1 > nnames)
				nnames = v[i].frames[k].name + 1;
	ns.name_md5 = calloc(nnames ? nnames : 1, sizeof(*ns.name_md5));
	ns.top = calloc(nnames ? nnames : 1, sizeof(*ns.top));
	if (!ns.name_md5 || !ns.top) {
		err = nomem();
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct node *nd = &root;
		uint32_t off = 0, disc = 0;

		for (size_t k = 0; k < v[i].n && nd; k++) {
			nd = child(&ns, nd, off, disc, v[i].frames[k].name);
			off = v[i].frames[k].off;
			disc = v[i].frames[k].disc;
		}
		if (!nd) {
			err = nomem();
			goto out;
		}
		nd->fs = v[i].fs;
		v[i].fs = NULL;
	}
	convert(&ns, &root);
	if (ns.err) {
		err = nomem();
		goto out;
	}
	if (!(order = malloc(nnames * sizeof(*order) + 1))) {
		err = nomem();
		goto out;
	}
	for (uint32_t k = 0; k < nnames; k++)
		if (ns.top[k] && !ambiguous(names[k])) {
			filter_callees(ns.top[k], names);
			order[no++] = ns.top[k];
		}
	top_names = names;
	hwp__sort(order, no, sizeof(*order), by_total_name);
	hwp__cs_fs_write_nested(order, no, names, fp);
out:
	free(order);
	if (ns.top)
		for (uint32_t k = 0; k < nnames; k++)
			hwp__cs_fs_free(ns.top[k]);
	free(ns.top);
	free(ns.name_md5);
	nodes_free(&root);
	hwp__cs_flats_free(v, n);
	return err;
}
