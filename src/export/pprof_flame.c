/* SPDX-License-Identifier: MIT */
/*
 * A flame graph's stacks as a gzipped pprof profile (hwprof flame --pprof):
 * what pprof, speedscope, Pyroscope and Parca read for call stacks. Frames
 * are known by name here (the flame graph's, inline frames and unresolved
 * "module+0xOFFSET" included), so each distinct name is one function and
 * one location of that function; each stack is one sample, leaf first, its
 * count the one value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/flame.h"
#include "util/error.h"

#ifdef HAVE_PPROF
#include "export/pprof_internal.h"
#include "output/flame_tree.h"
#include "profile.pb-c.h"
#include "util/vec.h"

struct stacks {
	struct hwp__pprof_strtab st;
	bool oom;
	uint32_t *parent;  /* per node */
	uint64_t *self;    /* per node */
	uint64_t *loc;     /* per node: its name's location id */
	uint64_t *loc_of;  /* per string: its location id, 0 when none yet */
	size_t cap_loc_of;
	Perftools__Profiles__Function *funcs;
	Perftools__Profiles__Location *locs;
	Perftools__Profiles__Line *lines;
	size_t nfuncs, cap_funcs, cap_locs, cap_lines, nlocs, nlines;
};

static int take_node(void *ctx, uint32_t node, uint32_t parent, const char *name, uint64_t self)
{
	struct stacks *x = ctx;
	int64_t s = hwp__pprof_intern(&x->st, name, &x->oom);

	size_t had = x->cap_loc_of;

	if (x->oom || hwp__vec_reserve((void **)&x->loc_of, &x->cap_loc_of, (size_t)s + 1, sizeof(*x->loc_of)))
		return -ENOMEM;
	if (x->cap_loc_of > had) /* new strings have no location yet */
		memset(x->loc_of + had, 0, (x->cap_loc_of - had) * sizeof(*x->loc_of));
	x->parent[node] = parent;
	x->self[node] = self;
	if (!x->loc_of[s]) {
		Perftools__Profiles__Function *fu = HWP_VEC_PUSH(x->funcs, x->nfuncs, x->cap_funcs);
		Perftools__Profiles__Location *lo = HWP_VEC_PUSH(x->locs, x->nlocs, x->cap_locs);
		Perftools__Profiles__Line *li = HWP_VEC_PUSH(x->lines, x->nlines, x->cap_lines);

		if (!fu || !lo || !li)
			return -ENOMEM;
		perftools__profiles__function__init(fu);
		fu->id = x->nfuncs;
		fu->name = fu->system_name = s;
		perftools__profiles__line__init(li);
		li->function_id = fu->id;
		perftools__profiles__location__init(lo);
		lo->id = x->nlocs;
		x->loc_of[s] = lo->id;
	}
	x->loc[node] = x->loc_of[s];
	return 0;
}

int hwp_flame__write_pprof(struct hwp_flame *f, const char *unit, FILE *fp)
{
	size_t n = hwp__flame_nodes(f), nsamples = 0, nids = 0;
	struct stacks x;
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *vtp = &vt,
				       period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	Perftools__Profiles__Sample *samples = NULL, **sp = NULL;
	Perftools__Profiles__Location **locp = NULL;
	Perftools__Profiles__Line **linep = NULL;
	Perftools__Profiles__Function **funcp = NULL;
	uint64_t *ids = NULL;
	int64_t *vals = NULL;
	uint8_t *buf = NULL;
	int rc = -ENOMEM;

	memset(&x, 0, sizeof(x));
	hwp__pprof_intern(&x.st, "", &x.oom);
	vt.type = hwp__pprof_intern(&x.st, unit ? unit : "samples", &x.oom);
	vt.unit = hwp__pprof_intern(&x.st, "count", &x.oom);
	if (x.oom || !(x.parent = calloc(n + 1, sizeof(*x.parent))) || !(x.self = calloc(n + 1, sizeof(*x.self))) ||
	    !(x.loc = calloc(n + 1, sizeof(*x.loc))) || hwp__flame_each_node(f, take_node, &x))
		goto out;
	/* each stack that ends somewhere: its locations, leaf first */
	size_t depth_sum = 0;
	for (size_t k = 1; k < n; k++)
		if (x.self[k]) {
			nsamples++;
			for (uint32_t p = (uint32_t)k; p; p = x.parent[p])
				depth_sum++;
		}
	if (!(samples = calloc(nsamples + 1, sizeof(*samples))) || !(sp = calloc(nsamples + 1, sizeof(*sp))) ||
	    !(ids = calloc(depth_sum + 1, sizeof(*ids))) || !(vals = calloc(nsamples + 1, sizeof(*vals))) ||
	    !(locp = calloc(x.nlocs + 1, sizeof(*locp))) || !(linep = calloc(x.nlines + 1, sizeof(*linep))) ||
	    !(funcp = calloc(x.nfuncs + 1, sizeof(*funcp))))
		goto out;
	size_t s = 0;
	for (size_t k = 1; k < n; k++) {
		if (!x.self[k])
			continue;
		perftools__profiles__sample__init(&samples[s]);
		samples[s].location_id = &ids[nids];
		for (uint32_t p = (uint32_t)k; p; p = x.parent[p])
			ids[nids++] = x.loc[p], samples[s].n_location_id++;
		vals[s] = (int64_t)x.self[k];
		samples[s].n_value = 1;
		samples[s].value = &vals[s];
		sp[s] = &samples[s];
		s++;
	}
	/* the vectors stopped moving: their elements can be pointed at now */
	for (size_t i = 0; i < x.nlocs; i++) {
		linep[i] = &x.lines[i];
		x.locs[i].n_line = 1;
		x.locs[i].line = &linep[i];
		locp[i] = &x.locs[i];
	}
	for (size_t i = 0; i < x.nfuncs; i++)
		funcp[i] = &x.funcs[i];
	prof.n_sample_type = 1;
	prof.sample_type = &vtp;
	prof.n_sample = nsamples;
	prof.sample = sp;
	prof.n_location = x.nlocs;
	prof.location = locp;
	prof.n_function = x.nfuncs;
	prof.function = funcp;
	period_type.type = vt.type;
	period_type.unit = vt.unit;
	prof.period_type = &period_type;
	prof.period = 1;
	prof.n_string_table = x.st.nr;
	prof.string_table = x.st.s;
	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	if (!(buf = malloc(len ? len : 1)))
		goto out;
	perftools__profiles__profile__pack(&prof, buf);
	rc = hwp__pprof_write_gzip(buf, len, fp);
out:
	if (rc == -ENOMEM)
		hwp__set_error(ENOMEM, "out of memory making the pprof profile");
	free(buf), free(samples), free(sp), free(ids), free(vals), free(locp), free(linep), free(funcp);
	free(x.parent), free(x.self), free(x.loc), free(x.loc_of), free(x.funcs), free(x.locs), free(x.lines);
	hwp__pprof_strtab_free(&x.st);
	return rc;
}
#else
/* Built without protobuf-c or zlib (mk/config.mk). */
int hwp_flame__write_pprof(struct hwp_flame *f, const char *unit, FILE *fp)
{
	(void)f, (void)unit, (void)fp;
	return hwp__set_error(ENOTSUP, "pprof: built without protobuf-c; install libprotobuf-c-dev "
				      "protobuf-c-compiler zlib1g-dev and rebuild");
}
#endif
