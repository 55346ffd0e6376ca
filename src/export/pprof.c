/* SPDX-License-Identifier: MIT */
/*
 * The export rows as a gzipped pprof profile, through protobuf-c (the
 * messages of profile.proto, generated at build time). pprof's addresses
 * are process addresses resolved through a mapping; hwprof's are module
 * offsets, so each module is one mapping starting at 0 with file offset 0:
 * address - memory_start + file_offset is the file offset again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_PPROF
#include <zlib.h>
#endif

#include "hwprof/branch_report.h"
#include "hwprof/export.h"
#include "export/export_internal.h"
#include "export/pprof_internal.h"
#include "util/hashmap.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/error.h"
#ifdef HAVE_PPROF
#include "profile.pb-c.h"

struct builder {
	struct hwp__pprof_strtab st;
	Perftools__Profiles__Mapping *maps;
	size_t nmaps, cap_maps;
	int32_t *map_module; /* module id of each mapping */
	size_t nmm, cap_mm;
	Perftools__Profiles__Location *locs;
	size_t nlocs, cap_locs;
	int32_t *loc_module; /* module id of each location */
	size_t nlm, cap_lm;
	Perftools__Profiles__Line *lines; /* one per location (no inline frames) */
	size_t nlines, cap_lines;
	Perftools__Profiles__Function *funcs;
	size_t nfuncs, cap_funcs;
	struct hwp_hashmap loc_map, func_map;
	bool oom;
};

static uint64_t mapping_for(struct builder *b, const struct hwp_export_row *r, int32_t module, uint64_t off)
{
	Perftools__Profiles__Mapping *m;

	if (module < 0)
		return 0;
	for (size_t i = 0; i < b->nmaps; i++)
		if (b->map_module[i] == module) {
			if (off >= b->maps[i].memory_limit)
				b->maps[i].memory_limit = off + 1;
			return b->maps[i].id;
		}
	if (!(m = HWP_VEC_PUSH(b->maps, b->nmaps, b->cap_maps)) ||
	    !HWP_VEC_PUSH(b->map_module, b->nmm, b->cap_mm)) {
		b->oom = true;
		return 0;
	}
	perftools__profiles__mapping__init(m);
	b->map_module[b->nmm - 1] = module;
	m->id = b->nmaps;
	m->memory_start = 0;
	m->memory_limit = off + 1;
	m->file_offset = 0;
	m->filename = hwp__pprof_intern(&b->st, r->module, &b->oom);
	m->build_id = hwp__pprof_intern(&b->st, r->build_id, &b->oom);
	m->has_functions = m->has_filenames = m->has_line_numbers = true;
	return m->id;
}

static uint64_t function_for(struct builder *b, const struct hwp_loc_fields *f)
{
	const char *name = f->demangled ? f->demangled : f->symbol;
	int64_t n = hwp__pprof_intern(&b->st, name, &b->oom), sn = hwp__pprof_intern(&b->st, f->symbol, &b->oom),
		fn = hwp__pprof_intern(&b->st, f->file, &b->oom);
	uint64_t h = hwp__hash64((uint64_t)n * 0x9e3779b97f4a7c15ULL ^ (uint64_t)fn);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&b->func_map, h);
	Perftools__Profiles__Function *fu;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (b->funcs[i].name == n && b->funcs[i].filename == fn)
			return b->funcs[i].id;
	if (!(fu = HWP_VEC_PUSH(b->funcs, b->nfuncs, b->cap_funcs)) ||
	    hwp__hashmap_add(&b->func_map, h, (uint32_t)(b->nfuncs - 1)) < 0) {
		b->oom = true;
		return 0;
	}
	perftools__profiles__function__init(fu);
	fu->id = b->nfuncs;
	fu->name = n;
	fu->system_name = sn;
	fu->filename = fn;
	return fu->id;
}

/* The location of L (row R's source), made once per module and offset;
   its index into b->locs + 1 (the id). */
static uint64_t location_for(struct builder *b, struct hwp_symbolizer *sym, const struct hwp_export_row *r,
			     const struct hwp_code_loc *l)
{
	uint64_t h = hwp__hash64(l->offset ^ ((uint64_t)(uint32_t)l->module << 40));
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&b->loc_map, h);
	Perftools__Profiles__Location *loc;
	struct hwp_loc_fields f;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (b->loc_module[i] == l->module && b->locs[i].address == l->offset)
			return b->locs[i].id;
	uint64_t map_id = mapping_for(b, r, l->module, l->offset);
	if (!(loc = HWP_VEC_PUSH(b->locs, b->nlocs, b->cap_locs)) ||
	    !HWP_VEC_PUSH(b->loc_module, b->nlm, b->cap_lm) ||
	    hwp__hashmap_add(&b->loc_map, h, (uint32_t)(b->nlocs - 1)) < 0) {
		b->oom = true;
		return 0;
	}
	b->loc_module[b->nlocs - 1] = l->module;
	perftools__profiles__location__init(loc);
	loc->id = b->nlocs;
	loc->mapping_id = map_id;
	loc->address = l->offset;
	hwp_loc__fields(sym, l, &f);
	if (f.symbol) {
		Perftools__Profiles__Line *ln = HWP_VEC_PUSH(b->lines, b->nlines, b->cap_lines);

		if (!ln) {
			b->oom = true;
			return 0;
		}
		perftools__profiles__line__init(ln);
		ln->function_id = function_for(b, &f);
		ln->line = f.line;
		/* the index, fixed into a pointer once the array stops moving */
		loc->n_line = 1;
		loc->line = (Perftools__Profiles__Line **)(uintptr_t)b->nlines;
	}
	return loc->id;
}

static void builder_free(struct builder *b)
{
	hwp__pprof_strtab_free(&b->st);
	hwp__hashmap_free(&b->loc_map);
	hwp__hashmap_free(&b->func_map);
	free(b->maps);
	free(b->map_module);
	free(b->locs);
	free(b->loc_module);
	free(b->lines);
	free(b->funcs);
}

int hwp_export__write_pprof(const struct hwp_export *e, FILE *fp)
{
	static const char *const types[][2] = { { "branches", "count" }, { "mispredicts", "count" },
						{ "cycles", "count" } };
	enum { NV = 3 };
	struct builder b;
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[NV], *vtp[NV], period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	size_t nbranch = 0;
	int rc = 0;

	if (!e->sym)
		return hwp__set_error(EINVAL, "a pprof profile is made from a recording's rows (its binaries symbolize them)");
	memset(&b, 0, sizeof(b));
	hwp__pprof_intern(&b.st, "", &b.oom);
	for (int k = 0; k < NV; k++) {
		perftools__profiles__value_type__init(&vt[k]);
		vt[k].type = hwp__pprof_intern(&b.st, types[k][0], &b.oom);
		vt[k].unit = hwp__pprof_intern(&b.st, types[k][1], &b.oom);
		vtp[k] = &vt[k];
	}
	for (size_t i = 0; i < e->nr; i++)
		nbranch += e->rows[i].kind == HWP_EXPORT_BRANCH;
	Perftools__Profiles__Sample *samples = calloc(nbranch ? nbranch : 1, sizeof(*samples));
	Perftools__Profiles__Sample **sp = calloc(nbranch ? nbranch : 1, sizeof(*sp));
	uint64_t *ids = calloc(nbranch ? nbranch : 1, sizeof(*ids));
	int64_t *vals = calloc((nbranch ? nbranch : 1) * NV, sizeof(*vals));
	Perftools__Profiles__Label *labels = calloc((nbranch ? nbranch : 1) * 2, sizeof(*labels));
	Perftools__Profiles__Label **lp = calloc((nbranch ? nbranch : 1) * 2, sizeof(*lp));
	int64_t k_target = hwp__pprof_intern(&b.st, "target", &b.oom), k_type = hwp__pprof_intern(&b.st, "type", &b.oom);
	size_t s = 0;

	if (!samples || !sp || !ids || !vals || !labels || !lp)
		b.oom = true;
	for (size_t i = 0; i < e->nr && !b.oom; i++) {
		const struct hwp_export_row *r = &e->rows[i];
		char target[1200], tname[16];

		if (r->kind != HWP_EXPORT_BRANCH)
			continue;
		perftools__profiles__sample__init(&samples[s]);
		ids[s] = location_for(&b, e->sym, r, &e->locs[i]);
		samples[s].n_location_id = 1;
		samples[s].location_id = &ids[s];
		vals[s * NV] = (int64_t)r->count;
		vals[s * NV + 1] = (int64_t)r->mispred;
		vals[s * NV + 2] = (int64_t)r->cycles_sum;
		samples[s].n_value = NV;
		samples[s].value = &vals[s * NV];
		snprintf(target, sizeof(target), "%s+0x%llx", *r->to_module ? r->to_module : "?",
			 (unsigned long long)r->to);
		snprintf(tname, sizeof(tname), "%u", r->type);
		for (int k = 0; k < 2; k++) {
			Perftools__Profiles__Label *l = &labels[s * 2 + k];

			perftools__profiles__label__init(l);
			l->key = k ? k_type : k_target;
			l->str = hwp__pprof_intern(&b.st, k ? tname : target, &b.oom);
			lp[s * 2 + k] = l;
		}
		samples[s].n_label = 2;
		samples[s].label = &lp[s * 2];
		sp[s] = &samples[s];
		s++;
	}
	Perftools__Profiles__Mapping **mp = calloc(b.nmaps + 1, sizeof(*mp));
	Perftools__Profiles__Location **locp = calloc(b.nlocs + 1, sizeof(*locp));
	Perftools__Profiles__Line **linep = calloc(b.nlines + 1, sizeof(*linep));
	Perftools__Profiles__Function **fp_ = calloc(b.nfuncs + 1, sizeof(*fp_));
	uint8_t *buf = NULL;

	if (b.oom || !mp || !locp || !linep || !fp_) {
		rc = hwp__set_error(ENOMEM, "out of memory making the pprof profile");
		goto out;
	}
	for (size_t i = 0; i < b.nmaps; i++)
		mp[i] = &b.maps[i];
	for (size_t i = 0; i < b.nlines; i++)
		linep[i] = &b.lines[i];
	for (size_t i = 0; i < b.nlocs; i++) {
		if (b.locs[i].n_line)
			b.locs[i].line = &linep[(uintptr_t)b.locs[i].line - 1];
		locp[i] = &b.locs[i];
	}
	for (size_t i = 0; i < b.nfuncs; i++)
		fp_[i] = &b.funcs[i];
	prof.n_sample_type = NV;
	prof.sample_type = vtp;
	prof.n_sample = s;
	prof.sample = sp;
	prof.n_mapping = b.nmaps;
	prof.mapping = mp;
	prof.n_location = b.nlocs;
	prof.location = locp;
	prof.n_function = b.nfuncs;
	prof.function = fp_;
	period_type.type = vt[0].type;
	period_type.unit = vt[0].unit;
	prof.period_type = &period_type;
	prof.period = 1;
	prof.time_nanos = e->window_start * 1000000000LL;
	prof.duration_nanos = (e->window_end - e->window_start) * 1000000000LL;
	prof.n_string_table = b.st.nr;
	prof.string_table = b.st.s;
	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	if (!(buf = malloc(len ? len : 1))) {
		rc = hwp__set_error(ENOMEM, "out of memory making the pprof profile");
		goto out;
	}
	perftools__profiles__profile__pack(&prof, buf);
	rc = hwp__pprof_write_gzip(buf, len, fp);
out:
	free(buf);
	free(mp), free(locp), free(linep), free(fp_);
	free(samples), free(sp), free(ids), free(vals), free(labels), free(lp);
	builder_free(&b);
	return rc;
}
#else
/* Built without protobuf-c or zlib (mk/config.mk). */
int hwp_export__write_pprof(const struct hwp_export *e, FILE *fp)
{
	(void)e, (void)fp;
	return hwp__set_error(ENOTSUP, "pprof export: built without protobuf-c; install libprotobuf-c-dev "
				      "protobuf-c-compiler zlib1g-dev and rebuild");
}
#endif
