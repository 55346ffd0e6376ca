/* SPDX-License-Identifier: MIT */
/* Module ids for a thread of a parallel pass (see module_ids.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/module_ids.h"
#include "symbolize/symbolizer_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct module_id {
	char *key;        /* the symbolizer's key */
	const char *path; /* as first met (the map's name: lives as long as the session) */
	uint8_t bid[20];
	uint8_t bid_size;
	bool kmod;        /* a kernel module's file */
	uint64_t base;    /* its load address */
	uint64_t pos;     /* where first met */
	int32_t real;     /* once registered */
};

struct hwp__module_ids {
	struct module_id *v;
	size_t nr, cap;
	struct hwp_hashmap map;
};

struct hwp__module_ids *hwp__module_ids_new(void)
{
	struct hwp__module_ids *ids = calloc(1, sizeof(*ids));

	if (!ids)
		hwp__set_error(ENOMEM, "out of memory numbering modules");
	return ids;
}

void hwp__module_ids_delete(struct hwp__module_ids *ids)
{
	if (!ids)
		return;
	for (size_t i = 0; i < ids->nr; i++)
		free(ids->v[i].key);
	free(ids->v);
	hwp__hashmap_free(&ids->map);
	free(ids);
}

int32_t hwp__module_ids_get(struct hwp__module_ids *ids, const struct hwp_symbolizer *sym, const char *path,
			    const uint8_t *bid, uint8_t n, uint64_t base, bool kmod, uint64_t pos)
{
	char *key;
	int id = hwp__symbolizer_module_find(sym, path, bid, n, kmod, &key);
	uint32_t i;

	if (id != -ENOENT)
		return id;
	uint64_t h = hwp__hash_str(key);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&ids->map, h);

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(ids->v[i].key, key)) {
			free(key);
			return HWP__MODULE_IDS_BASE + (int32_t)i;
		}
	struct module_id *m = ids->nr < INT32_MAX - HWP__MODULE_IDS_BASE ? HWP_VEC_PUSH(ids->v, ids->nr, ids->cap)
									  : NULL;
	if (!m || hwp__hashmap_add(&ids->map, h, ids->nr - 1) < 0) {
		if (m)
			ids->nr--;
		free(key);
		return hwp__set_error(ENOMEM, "out of memory numbering the module %s", path);
	}
	m->key = key;
	m->path = path;
	m->bid_size = bid && n ? (n > sizeof(m->bid) ? sizeof(m->bid) : n) : 0;
	if (m->bid_size)
		memcpy(m->bid, bid, m->bid_size);
	m->kmod = kmod;
	m->base = base;
	m->pos = pos;
	m->real = -1;
	return HWP__MODULE_IDS_BASE + (int32_t)(ids->nr - 1);
}

static int module_first_cmp(const void *a, const void *b)
{
	const struct module_id *x = *(struct module_id *const *)a, *y = *(struct module_id *const *)b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int hwp__module_ids_register(struct hwp__module_ids *const *ids, size_t n, struct hwp_symbolizer *sym)
{
	struct module_id **all = NULL;
	size_t nr = 0, cap = 0;
	int err = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ids[k]->nr; i++) {
			struct module_id **slot = HWP_VEC_PUSH(all, nr, cap);

			if (!slot) {
				free(all);
				return hwp__set_error(ENOMEM, "out of memory registering modules");
			}
			*slot = &ids[k]->v[i];
		}
	hwp__sort(all, nr, sizeof(*all), module_first_cmp);
	for (size_t i = 0; i < nr && !err; i++) {
		const uint8_t *bid = all[i]->bid_size ? all[i]->bid : NULL;
		int id = all[i]->kmod ? hwp__symbolizer_kernel_module_file(sym, all[i]->path, bid, all[i]->bid_size,
									      all[i]->base)
				      : hwp_symbolizer__module(sym, all[i]->path, bid, all[i]->bid_size);

		if (id < 0)
			err = id; /* message set */
		all[i]->real = id;
	}
	free(all);
	return err;
}

int32_t hwp__module_ids_real(const struct hwp__module_ids *ids, int32_t id)
{
	if (id < HWP__MODULE_IDS_BASE)
		return id;
	return ids->v[id - HWP__MODULE_IDS_BASE].real;
}

int hwp__module_ids_identity(const struct hwp__module_ids *ids, int32_t id, const char **path,
			     const uint8_t **bid, uint8_t *n)
{
	if (id < HWP__MODULE_IDS_BASE || (size_t)(id - HWP__MODULE_IDS_BASE) >= ids->nr)
		return -ENOENT;
	const struct module_id *m = &ids->v[id - HWP__MODULE_IDS_BASE];
	*path = m->path;
	*bid = m->bid_size ? m->bid : NULL;
	*n = m->bid_size;
	return 0;
}
