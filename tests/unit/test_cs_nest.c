/* SPDX-License-Identifier: MIT */
/*
 * llvm-profgen's post-processing of flat CS profiles (src/export/cs_nest.c,
 * cs_samples.c) on made-up profiles, against values worked out by hand from
 * its rules: the profile summary's thresholds, the cold-context merge, the
 * nesting (call-site counts removed, totals moved) and the attributes a
 * promoted base profile takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/cs_nest.h"
#include "export/cs_samples.h"
#include "testlib.h"
#include "util/md5.h"

static char *names[] = { "main", "a", "b", "c", "x", "y" };
enum { MAIN, A, B, C, X, Y };

struct rec {
	uint32_t off;
	uint64_t count;
	int target; /* -1: none */
	uint64_t tcount;
};

/* A flat profile with context FRAMES (name, site pairs, outermost first). */
static void flat(struct hwp__cs_flat *f, const uint32_t *frames, size_t n, uint64_t total, uint64_t head,
		 uint64_t hash, uint32_t attrs, const struct rec *r, size_t nr)
{
	f->frames = calloc(n, sizeof(*f->frames));
	f->n = n;
	for (size_t i = 0; i < n; i++)
		f->frames[i] = (struct hwp__cs_frame){ frames[2 * i], i + 1 < n ? frames[2 * i + 1] : 0, 0 };
	f->fs = hwp__cs_fs_new(frames[2 * (n - 1)]);
	f->fs->total = total;
	f->fs->head = head;
	f->fs->hash = hash;
	f->fs->attrs = attrs;
	for (size_t i = 0; i < nr; i++) {
		struct hwp__cs_rec *b = hwp__cs_fs_rec(f->fs, r[i].off, 0);

		b->count += r[i].count;
		if (r[i].target >= 0)
			hwp__cs_rec_add_target(b, (uint32_t)r[i].target, r[i].tcount);
	}
}

/* Merged per function: a 1->200, 2->50, 3->10; b 1->3, 2->1. Counts 200,
   50, 10, 3, 1 (total 264): 10% wants 26 (200), 99% wants 261 (200+50+10+3
   reaches it: 3), 99.9999% wants 263 (3). */
static struct hwp__cs_flat *four(size_t *n)
{
	struct hwp__cs_flat *v = calloc(4, sizeof(*v));
	const uint32_t ca[] = { A, 0 }, cma[] = { MAIN, 1, A, 0 }, cb[] = { B, 0 }, cmb[] = { MAIN, 2, B, 0 };

	flat(&v[0], ca, 1, 150, 100, 7, 0, (const struct rec[]){ { 1, 100, -1, 0 }, { 2, 50, -1, 0 } }, 2);
	flat(&v[1], cma, 2, 110, 100, 7, 1, (const struct rec[]){ { 1, 100, -1, 0 }, { 3, 10, -1, 0 } }, 2);
	flat(&v[2], cb, 1, 3, 3, 9, 0, (const struct rec[]){ { 1, 3, -1, 0 } }, 1);
	flat(&v[3], cmb, 2, 1, 0, 9, 1, (const struct rec[]){ { 2, 1, -1, 0 } }, 1);
	*n = 4;
	return v;
}

static void test_summary(void)
{
	size_t n;
	struct hwp__cs_flat *v = four(&n);
	struct hwp__cs_summary s;

	CHECK(!hwp__cs_summary(v, n, &s));
	CHECK_EQ_U64(s.p10, 200);
	CHECK_EQ_U64(s.hot, 3);
	CHECK_EQ_U64(s.cold, 3);
	hwp__cs_flats_free(v, n);
}

static void test_merge_cold(void)
{
	size_t n;
	struct hwp__cs_flat *v = four(&n);
	const struct hwp__cs_rec *r;

	/* [main:2 @ b] (total 1) goes into [b] (3, not cold): 4, its attributes kept */
	CHECK(!hwp__cs_merge_cold(&v, &n, 3));
	CHECK_EQ_U64(n, 3);
	for (size_t i = 0; i < n; i++) {
		if (v[i].n != 1 || v[i].frames[0].name != B)
			continue;
		CHECK_EQ_U64(v[i].fs->total, 4);
		CHECK_EQ_U64(v[i].fs->head, 3);
		CHECK_EQ_U64(v[i].fs->attrs, 0);
		CHECK((r = hwp__cs_fs_find(v[i].fs, 2, 0)) && r->count == 1);
	}
	hwp__cs_flats_free(v, n);
}

static char *nested(struct hwp__cs_flat *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	CHECK(fp && !hwp__cs_write_nested(v, n, names, fp));
	fclose(fp);
	return buf;
}

static void test_nesting(void)
{
	struct hwp__cs_flat *v = calloc(4, sizeof(*v));
	const uint32_t cm[] = { MAIN, 0 }, cma[] = { MAIN, 1, A, 0 }, cmb[] = { MAIN, 2, B, 0 }, cb[] = { B, 0 };

	flat(&v[0], cm, 1, 20, 0, 33, 0, (const struct rec[]){ { 1, 5, A, 5 }, { 2, 3, B, 3 }, { 3, 12, -1, 0 } }, 3);
	flat(&v[1], cma, 2, 10, 5, 11, 1, (const struct rec[]){ { 1, 5, -1, 0 } }, 1);
	flat(&v[2], cmb, 2, 3, 3, 22, 0, (const struct rec[]){ { 1, 3, -1, 0 } }, 1);
	flat(&v[3], cb, 1, 7, 2, 22, 0, (const struct rec[]){ { 1, 7, -1, 0 } }, 1);
	/* main: 20 + 10 - 5 + 3 - 3 = 25, its sites 1 and 2 gone (counts 0) */
	char *out = nested(v, 4);
	CHECK(out && !strcmp(out, "main:25:0\n"
				  " 3: 12\n"
				  " 1: a:10\n"
				  "  1: 5\n"
				  "  !CFGChecksum: 11\n"
				  "  !Attributes: 1\n"
				  " 2: b:3\n"
				  "  1: 3\n"
				  "  !CFGChecksum: 22\n"
				  " !CFGChecksum: 33\n"
				  "b:7:2\n"
				  " 1: 7\n"
				  " !CFGChecksum: 22\n"));
	free(out);
}

/* [x:1 @ c] and [y:1 @ c], x and y without profiles: both become the top-level
   c, which takes the attributes of the one under the caller whose hash (the
   MD5 of its name, at the root) comes first. */
static void test_promotion_attributes(void)
{
	struct hwp__cs_flat *v = calloc(2, sizeof(*v));
	const uint32_t cx[] = { X, 1, C, 0 }, cy[] = { Y, 1, C, 0 };
	uint64_t hx = hwp__md5_guid("x", 1), hy = hwp__md5_guid("y", 1);
	char want[128];

	flat(&v[0], cx, 2, 4, 4, 5, 1, (const struct rec[]){ { 1, 4, -1, 0 } }, 1);
	flat(&v[1], cy, 2, 6, 6, 5, 0, (const struct rec[]){ { 1, 6, -1, 0 } }, 1);
	snprintf(want, sizeof(want), "c:10:10\n 1: 10\n !CFGChecksum: 5\n%s", hx < hy ? " !Attributes: 1\n" : "");
	char *out = nested(v, 2);
	CHECK(out && !strcmp(out, want));
	free(out);
}

static void test_remove_call(void)
{
	struct hwp__cs_fs *fs = hwp__cs_fs_new(MAIN);
	struct hwp__cs_rec *r = hwp__cs_fs_rec(fs, 4, 0);

	/* the target's count is more than the site's: only the site's goes */
	r->count = 3;
	hwp__cs_rec_add_target(r, A, 5);
	hwp__cs_rec_add_target(r, B, 1);
	CHECK_EQ_U64(hwp__cs_fs_remove_call(fs, 4, 0, C), 0);
	CHECK_EQ_U64(hwp__cs_fs_remove_call(fs, 4, 0, B), 1);
	CHECK_EQ_U64(hwp__cs_fs_remove_call(fs, 4, 0, A), 2);
	CHECK(!hwp__cs_fs_find(fs, 4, 0));
	/* head estimate: the first location's count, at least 1 with samples */
	hwp__cs_fs_rec(fs, 2, 0)->count = 0;
	hwp__cs_fs_rec(fs, 1, 0)->count = 0;
	fs->total = 9;
	CHECK_EQ_U64(hwp__cs_fs_head_estimate(fs, true), 1);
	hwp__cs_fs_rec(fs, 1, 0)->count = 7;
	CHECK_EQ_U64(hwp__cs_fs_head_estimate(fs, true), 7);
	fs->head = 2;
	CHECK_EQ_U64(hwp__cs_fs_head_estimate(fs, true), 2);
	hwp__cs_fs_free(fs);
}

int main(void)
{
	RUN(test_summary);
	RUN(test_merge_cold);
	RUN(test_nesting);
	RUN(test_promotion_attributes);
	RUN(test_remove_call);
	TL_EXIT();
}
