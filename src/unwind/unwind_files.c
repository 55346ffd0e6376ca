/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_files.h"
#include "unwind/unwind_rules.h"
#include "util/hash.h"
#include "util/vec.h"

int hwp__ufiles_init(struct hwp__ufiles *t, const char *symfs, const char *const *dirs, size_t ndirs,
		     const struct hwp_build_id *build_ids, size_t nr_build_ids)
{
	memset(t, 0, sizeof(*t));
	t->build_ids = build_ids;
	t->nr_build_ids = nr_build_ids;
	if (symfs && !(t->ctx.symfs = strdup(symfs)))
		return -ENOMEM;
	if (ndirs) {
		char **d = calloc(ndirs, sizeof(*d));
		if (!d)
			return -ENOMEM;
		t->ctx.debug_dirs = (const char *const *)d;
		for (size_t i = 0; i < ndirs; i++) {
			if (!(d[i] = strdup(dirs[i])))
				return -ENOMEM;
			t->ctx.n_debug_dirs = i + 1;
		}
	}
	return 0;
}

static void ufile_free(struct hwp__ufile *f)
{
	if (!f)
		return;
	hwp__rule_cache_delete(f->rules);
	if (f->elf)
		elf_end(f->elf);
	free(f->loads);
	free(f->path);
	free(f->elf_path);
	free(f->debug_path);
	free(f);
}

void hwp__ufiles_free(struct hwp__ufiles *t)
{
	for (size_t i = 0; i < t->n; i++)
		ufile_free(t->files[i]);
	free(t->files);
	hwp__hashmap_free(&t->map);
	free((char *)t->ctx.symfs);
	for (size_t i = 0; i < t->ctx.n_debug_dirs; i++)
		free((char *)t->ctx.debug_dirs[i]);
	free((char **)t->ctx.debug_dirs);
	memset(t, 0, sizeof(*t));
}

/* The map's build-id, else the recording's for its file name. */
static void map_build_id(const struct hwp__ufiles *t, const struct hwp_map *m, const uint8_t **id, uint8_t *n)
{
	*id = m->build_id;
	*n = m->build_id_size;
	for (size_t i = 0; !*n && i < t->nr_build_ids; i++)
		if (t->build_ids[i].filename && !strcmp(t->build_ids[i].filename, m->filename)) {
			*id = t->build_ids[i].id;
			*n = t->build_ids[i].size;
		}
	if (*n > HWP_BUILD_ID_MAX)
		*n = HWP_BUILD_ID_MAX;
}

/* Program headers and bytes of the binary found. */
static void take_elf(struct hwp__ufile *f, Elf *e)
{
	GElf_Ehdr eh;
	size_t nph;

	f->elf = e;
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		return;
	f->e_machine = eh.e_machine;
	f->e_type = eh.e_type;
	size_t size;
	const char *raw = elf_rawfile(e, &size);
	f->raw = (const uint8_t *)raw;
	f->raw_size = raw ? size : 0;
	f->loads = calloc(nph ? nph : 1, sizeof(*f->loads));
	for (size_t i = 0; f->loads && i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->nloads++] = (struct hwp__ufile_load){ ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz,
								   (ph.p_flags & PF_X) != 0 };
	}
}

static struct hwp__ufile *ufile_find(const struct hwp__ufiles *t, const char *path, const uint8_t *bid, uint8_t n)
{
	struct hwp__ufile *f = calloc(1, sizeof(*f));
	struct hwp_module_files mf;

	if (f)
		f->debug_frame = -1;

	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	memcpy(f->bid, bid, n);
	f->bid_size = n;
	if (hwp__module_files_find(&t->ctx, path, n ? bid : NULL, n, &mf) < 0) {
		ufile_free(f);
		return NULL;
	}
	if (mf.status != HWP_FIND_OK) {
		snprintf(f->why, sizeof(f->why), "%s", mf.reason);
	} else if (!(f->elf_path = strdup(mf.elf_path ? mf.elf_path : mf.debug_path)) ||
		   (mf.debug_path && mf.elf_path && !(f->debug_path = strdup(mf.debug_path)))) {
		hwp__module_files_release(&mf);
		ufile_free(f);
		return NULL;
	} else {
		/* a debug file standing in for the binary has CFI (.debug_frame)
		   but no code or data to read */
		Elf *e = mf.elf ? mf.elf : mf.debug;
		if (mf.elf)
			mf.elf = NULL;
		else
			mf.debug = NULL;
		take_elf(f, e);
		if (!mf.elf_path)
			f->raw = NULL, f->raw_size = 0;
		f->found = f->nloads > 0;
		if (!f->found)
			snprintf(f->why, sizeof(f->why), "%s: no loadable segment", f->elf_path);
	}
	hwp__module_files_release(&mf);
	return f;
}

struct hwp__ufile *hwp__ufiles_get(struct hwp__ufiles *t, const struct hwp_map *m)
{
	const uint8_t *bid;
	uint8_t n;

	map_build_id(t, m, &bid, &n);
	uint64_t h = hwp__hash_combine(hwp__hash_str(m->filename), hwp__hash_bytes(bid, n));
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		struct hwp__ufile *f = t->files[i];
		if (f->bid_size == n && !memcmp(f->bid, bid, n) && !strcmp(f->path, m->filename))
			return f;
	}
	struct hwp__ufile *f = ufile_find(t, m->filename, bid, n);
	struct hwp__ufile **slot = f ? HWP_VEC_PUSH(t->files, t->n, t->cap) : NULL;
	if (!slot || hwp__hashmap_add(&t->map, h, t->n - 1) < 0) {
		if (slot)
			t->n--;
		ufile_free(f);
		return NULL;
	}
	*slot = f;
	return f;
}

static bool elf_has_section(Elf *e, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

bool hwp__ufile_has_debug_frame(struct hwp__ufile *f)
{
	if (f->debug_frame < 0) {
		bool has = elf_has_section(f->elf, ".debug_frame");
		if (!has && f->debug_path) {
			Elf *d = hwp__elf_open(f->debug_path);
			has = elf_has_section(d, ".debug_frame");
			if (d)
				elf_end(d);
		}
		f->debug_frame = has;
	}
	return f->debug_frame > 0;
}

bool hwp__ufile_bias(const struct hwp__ufile *f, const struct hwp_map *m, uint64_t *bias)
{
	/* A segment is mapped from its page-aligned offset: the map's offset
	   is that of its segment rounded down to a page (4, 16 or 64 KiB).
	   Two segments can share the page (text ending where data starts):
	   the one whose execute permission the map has wins. Failing that,
	   the segment holding the map's first byte. */
	const struct hwp__ufile_load *best = NULL;
	bool want_x = (m->prot & 4) != 0; /* PROT_EXEC */

	for (size_t i = 0; i < f->nloads; i++) {
		const struct hwp__ufile_load *l = &f->loads[i];
		bool page = false;
		for (uint64_t ps = 0x1000; ps <= 0x10000 && !page; ps <<= 2)
			page = (l->offset & ~(ps - 1)) == m->pgoff;
		if (page && (!best || l->exec == want_x))
			best = l;
	}
	for (size_t i = 0; !best && i < f->nloads; i++) {
		const struct hwp__ufile_load *l = &f->loads[i];
		if (m->pgoff >= l->offset && m->pgoff - l->offset < l->filesz)
			best = l;
	}
	if (best)
		*bias = m->start - m->pgoff + best->offset - best->vaddr;
	return best != NULL;
}
