/* SPDX-License-Identifier: MIT */
/* Code sizes per inline context (cs_sizes.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/cs_binary.h"
#include "export/cs_sizes.h"
#include "export/dwarf_frames.h"
#include "export/pseudo_probe.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

#define MAX_FRAMES 64

struct snode {
	uint64_t hash;
	uint32_t size;
	bool known;
	struct snode **kids; /* by hash */
	size_t nkids, ckids;
};

struct hwp__cs_sizes {
	struct snode root;
};

uint64_t hwp__cs_site_hash(uint64_t name_md5, uint32_t off, uint32_t disc)
{
	uint64_t loc = (uint64_t)disc << 32 | off;

	return name_md5 + (loc << 5) + loc;
}

static struct snode *find(const struct snode *nd, uint64_t h, size_t *at)
{
	size_t lo = 0, hi = nd->nkids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nd->kids[mid]->hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return lo < nd->nkids && nd->kids[lo]->hash == h ? nd->kids[lo] : NULL;
}

static struct snode *child(struct snode *nd, uint64_t h)
{
	size_t at;
	struct snode *k = find(nd, h, &at);

	if (k)
		return k;
	if (HWP_VEC_RESERVE(nd->kids, nd->ckids, nd->nkids + 1) || !(k = calloc(1, sizeof(*k))))
		return NULL;
	k->hash = h;
	memmove(nd->kids + at + 1, nd->kids + at, (nd->nkids - at) * sizeof(*nd->kids));
	nd->kids[at] = k;
	nd->nkids++;
	return k;
}

static void snode_free(struct snode *nd)
{
	for (size_t i = 0; i < nd->nkids; i++) {
		snode_free(nd->kids[i]);
		free(nd->kids[i]);
	}
	free(nd->kids);
}

void hwp__cs_sizes_free(struct hwp__cs_sizes *s)
{
	if (s) {
		snode_free(&s->root);
		free(s);
	}
}

/* llvm-profgen's getCanonicalFnName(): a ".llvm.N" or ".part.N" suffix
   (the last dot's) is not part of the name. */
size_t hwp__cs_canonical_len(const char *name)
{
	static const char *const sufs[] = { ".llvm.", ".part." };
	size_t len = strlen(name);

	for (size_t i = 0; i < 2; i++) {
		const char *at = NULL, *q = name, *dot = NULL;

		while ((q = strstr(q, sufs[i])) && q < name + len)
			at = q++;
		for (const char *d = name; d < name + len; d++)
			if (*d == '.')
				dot = d;
		if (at && dot == at + strlen(sufs[i]) - 1)
			len = (size_t)(at - name);
	}
	return len;
}

/* addInstructionForContext(): the frames FR[0..N) (outermost first). */
static int add_insn(struct hwp__cs_sizes *s, const struct hwp__src_frame *fr, size_t n, uint32_t len)
{
	struct snode *nd = &s->root;

	for (size_t i = n; i-- > 0 && nd;) {
		uint64_t md5 = hwp__md5_guid(fr[i].name, hwp__cs_canonical_len(fr[i].name));
		/* a probe's index is bits 3..18 of its discriminator */
		uint32_t off = i + 1 == n ? 0 : (fr[i].discriminator >> 3) & 0xffff;

		nd = child(nd, hwp__cs_site_hash(md5, off, 0));
	}
	if (!nd)
		return -ENOMEM;
	nd->size += len;
	nd->known = true;
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The context of inline-tree node K, leaf first, as call-site hashes into
   PATH (MAX_FRAMES at most); 0 when a function has no descriptor. */
static size_t probe_path(const struct hwp__pseudo_probes *pp, uint32_t k, uint64_t *path)
{
	size_t n = 0;
	uint32_t site = 0;

	for (; k != UINT32_MAX && n < MAX_FRAMES; k = pp->nodes[k].parent) {
		const struct hwp__probe_desc *d = hwp__pseudo_probes_desc(pp, pp->nodes[k].guid);

		if (!d)
			return 0;
		path[n++] = hwp__cs_site_hash(hwp__md5_guid(d->name, d->name_len), site, 0);
		site = pp->nodes[k].site;
	}
	return k == UINT32_MAX ? n : 0;
}

/* trackInlineesOptimizedAway(): an inline context of a profiled function
   whose probes are left has code known to be there, of size 0 when the
   optimizer removed all of its instructions (an inlinee whose body became
   its own inlinee's: a lookup then finds 0, not the function's size out of
   line). GUIDS[0..N) sorted. */
static int mark_probed(struct hwp__cs_sizes *s, const struct hwp__pseudo_probes *pp, const uint64_t *guids, size_t n)
{
	bool *probed = calloc(pp->nnodes ? pp->nnodes : 1, sizeof(*probed));
	uint64_t path[MAX_FRAMES];

	if (!probed)
		return -ENOMEM;
	for (size_t i = 0; i < pp->nprobes; i++)
		probed[pp->probes[i].node] = true;
	for (uint32_t k = 0; k < pp->nnodes; k++) {
		size_t np;
		struct snode *nd = &s->root;

		if (!probed[k])
			continue;
		if (!bsearch(&pp->nodes[hwp__pseudo_probes_top(pp, k)].guid, guids, n, sizeof(*guids), by_u64) || !(np = probe_path(pp, k, path)))
			continue;
		for (size_t i = 0; i < np && nd; i++)
			nd = child(nd, path[i]);
		if (!nd) {
			free(probed);
			return -ENOMEM;
		}
		nd->known = true;
	}
	free(probed);
	return 0;
}

int hwp__cs_sizes_build(const struct hwp__cs_binary *bin, struct hwp__dwarf_frames *df,
			const struct hwp__pseudo_probes *pp, char *const *names, const uint64_t *guids, size_t n,
			struct hwp__cs_sizes **out)
{
	struct hwp__cs_sizes *s = calloc(1, sizeof(*s));
	size_t cr = 16;
	uint64_t *lo = malloc(cr * sizeof(*lo)), *hi = malloc(cr * sizeof(*hi));
	struct hwp__src_frame fr[MAX_FRAMES];
	int err = 0;

	if (!s || !lo || !hi) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t f = 0; f < n && !err; f++) {
		size_t nr;

		while ((nr = hwp__dwarf_frames_named(df, names[f], lo, hi, cr)) == cr) {
			uint64_t *l2 = realloc(lo, 2 * cr * sizeof(*lo)), *h2 = l2 ? realloc(hi, 2 * cr * sizeof(*hi)) : NULL;

			if (l2)
				lo = l2;
			if (!h2) {
				err = -ENOMEM;
				goto out;
			}
			hi = h2;
			cr *= 2;
		}
		for (size_t r = 0; r < nr && !err; r++)
			for (size_t k = hwp__cs_binary_index(bin, lo[r]); k < bin->n && bin->addr[k] < hi[r] && !err; k++) {
				size_t nf = hwp__dwarf_frames_at(df, bin->addr[k], fr, MAX_FRAMES);

				if (nf)
					err = add_insn(s, fr, nf, bin->len[k]);
			}
	}
	if (!err && pp)
		err = mark_probed(s, pp, guids, n);
out:
	free(lo);
	free(hi);
	if (err) {
		hwp__cs_sizes_free(s);
		return hwp__set_error(ENOMEM, "out of memory measuring the contexts' code sizes");
	}
	*out = s;
	return 0;
}

uint32_t hwp__cs_sizes_for(const struct hwp__cs_sizes *s, const uint64_t *path, size_t n)
{
	const struct snode *cur = &s->root, *prev = NULL;
	uint32_t size = 0;
	bool known = false;

	for (size_t i = 0; cur && i < n; i++) {
		prev = cur;
		cur = find(cur, path[i], NULL);
		if (cur && cur->known) {
			size = cur->size;
			known = true;
		}
	}
	/* no size on the path: an inlinee's size under another context */
	if (!known) {
		if (!cur)
			cur = prev;
		while (!known && cur && cur->nkids) {
			cur = cur->kids[0];
			if (cur->known) {
				size = cur->size;
				known = true;
			}
		}
	}
	return size;
}
