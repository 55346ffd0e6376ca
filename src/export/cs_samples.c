/* SPDX-License-Identifier: MIT */
/* Function sample profiles (cs_samples.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "export/cs_samples.h"
#include "util/vec.h"

struct hwp__cs_fs *hwp__cs_fs_new(uint32_t name)
{
	struct hwp__cs_fs *fs = calloc(1, sizeof(*fs));

	if (fs) {
		fs->name = name;
		fs->named = true;
	}
	return fs;
}

void hwp__cs_fs_free(struct hwp__cs_fs *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->nbody; i++)
		free(fs->body[i].t);
	for (size_t i = 0; i < fs->ncalls; i++)
		hwp__cs_fs_free(fs->calls[i].fs);
	free(fs->body);
	free(fs->calls);
	free(fs);
}

const struct hwp__cs_rec *hwp__cs_fs_find(const struct hwp__cs_fs *fs, uint32_t off, uint32_t disc)
{
	for (size_t i = 0; i < fs->nbody; i++)
		if (fs->body[i].off == off && fs->body[i].disc == disc)
			return &fs->body[i];
	return NULL;
}

struct hwp__cs_rec *hwp__cs_fs_rec(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc)
{
	struct hwp__cs_rec *r = (struct hwp__cs_rec *)hwp__cs_fs_find(fs, off, disc);

	if (r || !(r = HWP_VEC_PUSH(fs->body, fs->nbody, fs->cbody)))
		return r;
	*r = (struct hwp__cs_rec){ .off = off, .disc = disc };
	return r;
}

int hwp__cs_rec_add_target(struct hwp__cs_rec *r, uint32_t name, uint64_t count)
{
	struct hwp__cs_target *t;

	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i].name == name) {
			r->t[i].count += count;
			return 0;
		}
	if (!(t = HWP_VEC_PUSH(r->t, r->nt, r->ct)))
		return -ENOMEM;
	*t = (struct hwp__cs_target){ name, count };
	return 0;
}

struct hwp__cs_fs *hwp__cs_fs_callee(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc, uint32_t name, bool create)
{
	struct hwp__cs_callee *c;

	for (size_t i = 0; i < fs->ncalls; i++)
		if (fs->calls[i].off == off && fs->calls[i].disc == disc && fs->calls[i].name == name)
			return fs->calls[i].fs;
	if (!create || !(c = HWP_VEC_PUSH(fs->calls, fs->ncalls, fs->ccalls)))
		return NULL;
	*c = (struct hwp__cs_callee){ off, disc, name, calloc(1, sizeof(struct hwp__cs_fs)) };
	if (!c->fs) {
		fs->ncalls--;
		return NULL;
	}
	c->fs->name = name; /* not "named": the first merge gives it its attributes */
	return c->fs;
}

int hwp__cs_fs_merge(struct hwp__cs_fs *dst, const struct hwp__cs_fs *src)
{
	if (!dst->named) {
		dst->name = src->name;
		dst->attrs = src->attrs;
		dst->named = true;
	}
	if (!dst->hash)
		dst->hash = src->hash;
	else if (dst->hash != src->hash)
		return 0; /* LLVM: hash_mismatch, the profile dropped */
	dst->total += src->total;
	dst->head += src->head;
	for (size_t i = 0; i < src->nbody; i++) {
		const struct hwp__cs_rec *s = &src->body[i];
		struct hwp__cs_rec *d = hwp__cs_fs_rec(dst, s->off, s->disc);

		if (!d)
			return -ENOMEM;
		d->count += s->count;
		for (size_t k = 0; k < s->nt; k++)
			if (hwp__cs_rec_add_target(d, s->t[k].name, s->t[k].count))
				return -ENOMEM;
	}
	for (size_t i = 0; i < src->ncalls; i++) {
		const struct hwp__cs_callee *s = &src->calls[i];
		struct hwp__cs_fs *d = hwp__cs_fs_callee(dst, s->off, s->disc, s->name, true);
		int err;

		if (!d)
			return -ENOMEM;
		if ((err = hwp__cs_fs_merge(d, s->fs)))
			return err;
	}
	return 0;
}

uint64_t hwp__cs_fs_remove_call(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc, uint32_t name)
{
	struct hwp__cs_rec *r = (struct hwp__cs_rec *)hwp__cs_fs_find(fs, off, disc);
	uint64_t count = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i].name == name) {
			count = r->t[i].count;
			r->t[i] = r->t[--r->nt];
			break;
		}
	if (count > r->count)
		count = r->count;
	r->count -= count;
	if (!r->count) {
		free(r->t);
		*r = fs->body[--fs->nbody];
	}
	return count;
}

static bool loc_less(uint32_t o1, uint32_t d1, uint32_t o2, uint32_t d2)
{
	return o1 < o2 || (o1 == o2 && d1 < d2);
}

uint64_t hwp__cs_fs_head_estimate(const struct hwp__cs_fs *fs, bool cs)
{
	const struct hwp__cs_rec *b = NULL;
	const struct hwp__cs_callee *c = NULL;
	uint64_t count = 0;

	if (cs && fs->head)
		return fs->head;
	for (size_t i = 0; i < fs->nbody; i++)
		if (!b || loc_less(fs->body[i].off, fs->body[i].disc, b->off, b->disc))
			b = &fs->body[i];
	for (size_t i = 0; i < fs->ncalls; i++)
		if (!c || loc_less(fs->calls[i].off, fs->calls[i].disc, c->off, c->disc))
			c = &fs->calls[i];
	if (b && (!c || loc_less(b->off, b->disc, c->off, c->disc)))
		count = b->count;
	else if (c)
		/* an indirect call site may hold several callees: their sum */
		for (size_t i = 0; i < fs->ncalls; i++)
			if (fs->calls[i].off == c->off && fs->calls[i].disc == c->disc)
				count += hwp__cs_fs_head_estimate(fs->calls[i].fs, cs);
	return count ? count : fs->total > 0;
}

/* ---- the text writer ---- */

static char *const *sort_names; /* qsort has no context argument in C11 */

static int by_loc(const void *x, const void *y)
{
	const struct hwp__cs_rec *a = x, *b = y;

	return loc_less(a->off, a->disc, b->off, b->disc) ? -1 : loc_less(b->off, b->disc, a->off, a->disc);
}

static int by_count_name(const void *x, const void *y)
{
	const struct hwp__cs_target *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(sort_names[a->name], sort_names[b->name]);
}

static int by_site_name(const void *x, const void *y)
{
	const struct hwp__cs_callee *a = x, *b = y;

	if (a->off != b->off || a->disc != b->disc)
		return loc_less(a->off, a->disc, b->off, b->disc) ? -1 : 1;
	return strcmp(sort_names[a->name], sort_names[b->name]);
}

static void write_loc(FILE *fp, int indent, uint32_t off, uint32_t disc)
{
	fprintf(fp, "%*s%" PRIu32, indent, "", off);
	if (disc)
		fprintf(fp, ".%" PRIu32, disc);
	fputs(": ", fp);
}

static void write_fs(struct hwp__cs_fs *fs, int indent, FILE *fp)
{
	fprintf(fp, "%s:%" PRIu64, sort_names[fs->name], fs->total);
	if (!indent)
		fprintf(fp, ":%" PRIu64, fs->head);
	fputc('\n', fp);
	hwp__sort(fs->body, fs->nbody, sizeof(*fs->body), by_loc);
	for (size_t i = 0; i < fs->nbody; i++) {
		struct hwp__cs_rec *r = &fs->body[i];

		write_loc(fp, indent + 1, r->off, r->disc);
		fprintf(fp, "%" PRIu64, r->count);
		hwp__sort(r->t, r->nt, sizeof(*r->t), by_count_name);
		for (size_t k = 0; k < r->nt; k++)
			fprintf(fp, " %s:%" PRIu64, sort_names[r->t[k].name], r->t[k].count);
		fputc('\n', fp);
	}
	hwp__sort(fs->calls, fs->ncalls, sizeof(*fs->calls), by_site_name);
	for (size_t i = 0; i < fs->ncalls; i++) {
		write_loc(fp, indent + 1, fs->calls[i].off, fs->calls[i].disc);
		write_fs(fs->calls[i].fs, indent + 1, fp);
	}
	fprintf(fp, "%*s!CFGChecksum: %" PRIu64 "\n", indent + 1, "", fs->hash);
	if (fs->attrs)
		fprintf(fp, "%*s!Attributes: %" PRIu32 "\n", indent + 1, "", fs->attrs);
}

void hwp__cs_fs_write_nested(struct hwp__cs_fs *const *v, size_t n, char *const *names, FILE *fp)
{
	sort_names = names;
	for (size_t i = 0; i < n; i++)
		write_fs(v[i], 0, fp);
}
