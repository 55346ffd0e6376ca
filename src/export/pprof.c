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
#include "util/hashmap.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/error.h"
#ifdef HAVE_PPROF
#include "profile.pb-c.h"
#define HWPROF_PPROF_BUILDER
#include "export/pprof_internal.h"


uint64_t hwp__pprof_mapping(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym, int32_t module, uint64_t off)
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
	m->filename = hwp__pprof_intern(&b->st, hwp_symbolizer__module_name(sym, module), &b->oom);
	m->build_id = hwp__pprof_intern(&b->st, hwp_symbolizer__module_build_id(sym, module), &b->oom);
	m->has_functions = m->has_filenames = m->has_line_numbers = true;
	return m->id;
}

uint64_t hwp__pprof_function(struct hwp__pprof_builder *b, const char *name, const char *system_name,
			     const char *file)
{
	int64_t n = hwp__pprof_intern(&b->st, name, &b->oom), sn = hwp__pprof_intern(&b->st, system_name, &b->oom),
		fn = hwp__pprof_intern(&b->st, file, &b->oom);
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
Perftools__Profiles__Location *hwp__pprof_location(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym,
						    int32_t module, uint64_t offset, uint8_t kind, bool *made)
{
	uint64_t h = hwp__hash64(offset ^ ((uint64_t)(uint32_t)module << 40) ^ ((uint64_t)kind << 62));
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&b->loc_map, h);
	Perftools__Profiles__Location *loc;
	uint32_t i;

	*made = false;
	while (hwp__hashmap_next(&p, &i))
		if (b->loc_module[i] == module && b->locs[i].address == offset && b->loc_kind[i] == kind)
			return &b->locs[i];
	uint64_t map_id = hwp__pprof_mapping(b, sym, module, offset);
	if (!(loc = HWP_VEC_PUSH(b->locs, b->nlocs, b->cap_locs)) ||
	    !HWP_VEC_PUSH(b->loc_module, b->nlm, b->cap_lm) || !HWP_VEC_PUSH(b->loc_kind, b->nlk, b->cap_lk) ||
	    hwp__hashmap_add(&b->loc_map, h, (uint32_t)(b->nlocs - 1)) < 0) {
		b->oom = true;
		return NULL;
	}
	b->loc_module[b->nlocs - 1] = module;
	b->loc_kind[b->nlocs - 1] = kind;
	perftools__profiles__location__init(loc);
	loc->id = b->nlocs;
	loc->mapping_id = map_id;
	loc->address = offset;
	*made = true;
	return loc;
}

Perftools__Profiles__Line *hwp__pprof_line(struct hwp__pprof_builder *b, Perftools__Profiles__Location *loc,
					   uint64_t function_id, int64_t line)
{
	Perftools__Profiles__Line *ln = HWP_VEC_PUSH(b->lines, b->nlines, b->cap_lines);

	if (!ln) {
		b->oom = true;
		return NULL;
	}
	perftools__profiles__line__init(ln);
	ln->function_id = function_id;
	ln->line = line;
	/* the first line's index + 1, fixed into a pointer once the array
	   stops moving (a location's lines are consecutive) */
	if (!loc->n_line++)
		loc->line = (Perftools__Profiles__Line **)(uintptr_t)b->nlines;
	return ln;
}

/* The location of branch source L, made once per module and offset; its
   id. One line: the function, and the source line of L itself. */
static uint64_t location_for(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym, const struct hwp_code_loc *l)
{
	struct hwp_loc_fields f;
	bool made;
	Perftools__Profiles__Location *loc = hwp__pprof_location(b, sym, l->module, l->offset, HWP__PPROF_LOC_BRANCH,
								 &made);

	if (!loc || !made)
		return loc ? loc->id : 0;
	hwp_loc__fields(sym, l, &f);
	if (f.symbol)
		hwp__pprof_line(b, loc, hwp__pprof_function(b, f.demangled ? f.demangled : f.symbol, f.symbol, f.file),
				f.line);
	return loc->id;
}

static void builder_free(struct hwp__pprof_builder *b)
{
	hwp__pprof_strtab_free(&b->st);
	hwp__hashmap_free(&b->loc_map);
	hwp__hashmap_free(&b->func_map);
	free(b->maps);
	free(b->map_module);
	free(b->locs);
	free(b->loc_module);
	free(b->loc_kind);
	free(b->lines);
	free(b->funcs);
}

int hwp_export__write_pprof(const struct hwp_export *e, FILE *fp)
{
	static const char *const types[][2] = { { "branches", "count" }, { "mispredicts", "count" },
						{ "cycles", "count" } };
	enum { NB = 3, NMAX = 5 };
	struct hwp__pprof_builder b;
	struct hwp__pprof_stacks x = { 0 };
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[NMAX], *vtp[NMAX], period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	size_t nbranch = 0;
	int rc = 0;

	if (!e->sym)
		return hwp__set_error(EINVAL, "a pprof profile is made from a recording's rows (its binaries symbolize them)");
	for (size_t i = 0; i < e->nr; i++)
		nbranch += e->rows[i].kind == HWP_EXPORT_BRANCH;
	/* branch values, then with stacks samples and period; a profile of
	   stacks alone has no branch values. Without stacks the profile is
	   what it was before stacks were added, to the byte. */
	size_t nb = !e->calls || nbranch ? NB : 0, nv = nb + (e->calls ? 2 : 0);
	memset(&b, 0, sizeof(b));
	hwp__pprof_intern(&b.st, "", &b.oom);
	for (size_t k = 0; k < nb; k++) {
		perftools__profiles__value_type__init(&vt[k]);
		vt[k].type = hwp__pprof_intern(&b.st, types[k][0], &b.oom);
		vt[k].unit = hwp__pprof_intern(&b.st, types[k][1], &b.oom);
		vtp[k] = &vt[k];
	}
	Perftools__Profiles__Sample *samples = calloc(nbranch ? nbranch : 1, sizeof(*samples));
	uint64_t *ids = calloc(nbranch ? nbranch : 1, sizeof(*ids));
	int64_t *vals = calloc((nbranch ? nbranch : 1) * nv, sizeof(*vals));
	Perftools__Profiles__Label *labels = calloc((nbranch ? nbranch : 1) * 2, sizeof(*labels));
	Perftools__Profiles__Label **lp = calloc((nbranch ? nbranch : 1) * 2, sizeof(*lp));
	Perftools__Profiles__Sample *ssamples = NULL, **sp = NULL;
	int64_t *svals = NULL, k_target = 0, k_type = 0;
	size_t s = 0;

	if (nb) {
		k_target = hwp__pprof_intern(&b.st, "target", &b.oom);
		k_type = hwp__pprof_intern(&b.st, "type", &b.oom);
	}
	if (!samples || !ids || !vals || !labels || !lp)
		b.oom = true;
	for (size_t i = 0; i < e->nr && !b.oom; i++) {
		const struct hwp_export_row *r = &e->rows[i];
		char target[1200], tname[16];

		if (r->kind != HWP_EXPORT_BRANCH)
			continue;
		perftools__profiles__sample__init(&samples[s]);
		ids[s] = location_for(&b, e->sym, &e->locs[i]);
		samples[s].n_location_id = 1;
		samples[s].location_id = &ids[s];
		vals[s * nv] = (int64_t)r->count;
		vals[s * nv + 1] = (int64_t)r->mispred;
		vals[s * nv + 2] = (int64_t)r->cycles_sum;
		samples[s].n_value = nv;
		samples[s].value = &vals[s * nv];
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
		s++;
	}
	if (e->calls && !b.oom) {
		if ((rc = hwp__pprof_stacks(&b, e->sym, e->calls, &x)) < 0)
			goto out;
		/* a type name once (pprof -sample_index picks by name): an event
		   named as another value ("cycles") is "cycles_period" */
		char pname[256];
		bool clash = !strcmp(x.period_name, "samples");
		for (size_t k = 0; k < nb; k++)
			clash |= !strcmp(x.period_name, types[k][0]);
		snprintf(pname, sizeof(pname), clash ? "%s_period" : "%s", x.period_name);
		for (size_t k = 0; k < 2; k++) {
			perftools__profiles__value_type__init(&vt[nb + k]);
			vt[nb + k].type = hwp__pprof_intern(&b.st, k ? pname : "samples", &b.oom);
			vt[nb + k].unit = hwp__pprof_intern(&b.st, k ? x.period_unit : "count", &b.oom);
			vtp[nb + k] = &vt[nb + k];
		}
		if (!(ssamples = calloc(x.nr + 1, sizeof(*ssamples))) || !(svals = calloc((x.nr + 1) * nv, sizeof(*svals))))
			b.oom = true;
		for (size_t j = 0; j < x.nr && !b.oom; j++) {
			perftools__profiles__sample__init(&ssamples[j]);
			ssamples[j].location_id = x.ids + x.v[j].first;
			ssamples[j].n_location_id = x.v[j].n;
			svals[j * nv + nb] = (int64_t)x.v[j].samples;
			svals[j * nv + nb + 1] = (int64_t)x.v[j].period;
			ssamples[j].n_value = nv;
			ssamples[j].value = &svals[j * nv];
		}
	}
	Perftools__Profiles__Mapping **mp = calloc(b.nmaps + 1, sizeof(*mp));
	Perftools__Profiles__Location **locp = calloc(b.nlocs + 1, sizeof(*locp));
	Perftools__Profiles__Line **linep = calloc(b.nlines + 1, sizeof(*linep));
	Perftools__Profiles__Function **fp_ = calloc(b.nfuncs + 1, sizeof(*fp_));
	uint8_t *buf = NULL;

	sp = calloc(s + x.nr + 1, sizeof(*sp));
	if (b.oom || !mp || !locp || !linep || !fp_ || !sp) {
		rc = hwp__set_error(ENOMEM, "out of memory making the pprof profile");
		goto out2;
	}
	for (size_t i = 0; i < s; i++)
		sp[i] = &samples[i];
	for (size_t j = 0; j < x.nr; j++)
		sp[s + j] = &ssamples[j];
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
	prof.n_sample_type = nv;
	prof.sample_type = vtp;
	prof.n_sample = s + x.nr;
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
	/* pprof shows the period by default (its last value anyway) */
	if (e->calls)
		prof.default_sample_type = vt[nv - 1].type;
	prof.time_nanos = e->window_start * 1000000000LL;
	prof.duration_nanos = (e->window_end - e->window_start) * 1000000000LL;
	prof.n_string_table = b.st.nr;
	prof.string_table = b.st.s;
	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	if (!(buf = malloc(len ? len : 1))) {
		rc = hwp__set_error(ENOMEM, "out of memory making the pprof profile");
		goto out2;
	}
	perftools__profiles__profile__pack(&prof, buf);
	rc = hwp__pprof_write_gzip(buf, len, fp);
out2:
	free(buf);
	free(mp), free(locp), free(linep), free(fp_);
out:
	free(samples), free(sp), free(ids), free(vals), free(labels), free(lp), free(ssamples), free(svals);
	hwp__pprof_stacks_free(&x);
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
