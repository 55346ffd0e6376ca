/* SPDX-License-Identifier: MIT */
/*
 * One function's code with the recording's numbers on it (see
 * include/hwprof/annotate.h). The functions come from the sampled IPs
 * (each symbolized once); a function's instructions are decoded from its
 * binary as objdump decodes a symbol, and each is matched by module offset
 * with the rows of the analyses that ran: a function has a few hundred
 * instructions, so the analyses' rows are filtered to it once and searched
 * there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "decode/disasm.h"
#include "decode/insn_starts.h"
#include "hwprof/annotate.h"
#include "hwprof/branch_table.h"
#include "report/annotate_internal.h"
#include "symbolize/symbolizer_internal.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/vec.h"

struct hwp_annotation {
	struct hwp_annotate_func *funcs;
	size_t nfuncs, funcs_cap;
	struct hwp_annotate_insn *insns;
	size_t ninsns, insns_cap;
	struct hwp__disasm_insn *text; /* the instructions' text, parallel to insns */
	size_t text_cap;
	uint64_t total;
	/* several events sampled: their names, per event the samples of each
	   instruction (ninsns x nevents), of each function and in all */
	size_t nevents;
	const char *events[16];
	char *event_keys[16];
	uint64_t *ev_insn, *ev_func, ev_total[16];
};

/* A sampled function: (module, start) and its samples. */
struct sampled {
	int32_t module;
	uint64_t vaddr, size;
	const char *name;
	uint64_t samples;
};

static int by_place(const void *a, const void *b)
{
	const struct sampled *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int by_samples(const void *a, const void *b)
{
	const struct sampled *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return by_place(a, b);
}

/* The sampled IPs' functions, summed (*N of them, by place), and the
   samples over every IP into *TOTAL. */
static struct sampled *sampled_functions(struct hwp_symbolizer *sym, const struct hwp_branch_table *ips, size_t *n,
					 uint64_t *total)
{
	size_t rows, nr = 0, cap = 0;
	const struct hwp_branch_row *r = ips ? hwp_branch_table__rows(ips, &rows) : NULL;
	struct sampled *v = NULL;

	*total = 0;
	for (size_t i = 0; r && i < rows; i++) {
		struct hwp_symbol_info si;

		*total += r[i].c.count;
		if (r[i].key.from.module < 0 ||
		    hwp_symbolizer__lookup(sym, r[i].key.from.module, r[i].key.from.offset, &si) < 0 || !si.symbol)
			continue;
		struct sampled *s = HWP_VEC_PUSH(v, nr, cap);
		if (!s) {
			free(v);
			return NULL;
		}
		*s = (struct sampled){ r[i].key.from.module, si.sym_start, si.sym_size, si.symbol, r[i].c.count };
	}
	hwp__sort(v, nr, sizeof(*v), by_place);
	size_t out = 0;
	for (size_t i = 0; i < nr; i++) {
		if (out && v[out - 1].module == v[i].module && v[out - 1].vaddr == v[i].vaddr)
			v[out - 1].samples += v[i].samples;
		else
			v[out++] = v[i];
	}
	*n = out;
	if (!v)
		v = malloc(1);
	return v;
}

struct walk {
	struct hwp_annotation *a;
	struct hwp__code_file *file;
	struct hwp__code_cache *cc;
	int32_t module;
	int err;
};

static uint8_t kind_of(unsigned cls)
{
	switch (cls) {
	case HWP_INSN_COND:
		return HWP_ANNOTATE_COND;
	case HWP_INSN_JUMP:
		return HWP_ANNOTATE_JUMP;
	case HWP_INSN_IND_JUMP:
		return HWP_ANNOTATE_IND_JUMP;
	case HWP_INSN_CALL:
		return HWP_ANNOTATE_CALL;
	case HWP_INSN_IND_CALL:
		return HWP_ANNOTATE_IND_CALL;
	case HWP_INSN_RET:
		return HWP_ANNOTATE_RET;
	default:
		return HWP_ANNOTATE_OTHER;
	}
}

static int one_insn(void *ctx, const struct hwp__disasm_insn *d)
{
	struct walk *w = ctx;
	struct hwp_annotation *a = w->a;
	struct hwp_annotate_insn *in = HWP_VEC_PUSH(a->insns, a->ninsns, a->insns_cap);

	if (!in || HWP_VEC_RESERVE(a->text, a->text_cap, a->ninsns) < 0)
		return -ENOMEM;
	a->text[a->ninsns - 1] = *d;
	memset(in, 0, sizeof(*in));
	in->vaddr = d->vaddr;
	in->len = d->len;
	in->loc.module = w->module;
	in->loc.addr = d->vaddr;
	if (hwp__code_file_vaddr_to_offset(w->file, d->vaddr, &in->loc.offset) < 0)
		return 0;
	struct hwp__insn ci;
	if (w->cc && hwp__code_cache_insn(w->cc, w->module, in->loc.offset, &ci) == 0) {
		in->kind = kind_of(ci.cls);
		in->has_target = ci.has_target &&
				 hwp__code_file_offset_to_vaddr(w->file, ci.target, &in->target) == 0;
	}
	return 0;
}

/* Decodes F's instructions into A (their text pointers are set at the end:
   the vectors move while they grow). */
static int decode(struct hwp_annotation *a, struct hwp_symbolizer *sym, struct hwp__code_cache *cc,
		  struct hwp_annotate_func *f)
{
	struct hwp__code_file *file = hwp__symbolizer_code_file(sym, f->module);
	struct walk w = { a, file, cc, f->module, 0 };

	f->first = a->ninsns;
	if (!file)
		return f->decoded = -ENOENT, 0;
	int r = hwp__code_file_disasm(file, f->vaddr, f->size ? f->size : 1, one_insn, &w);
	f->n = a->ninsns - f->first;
	if (r == -ENOMEM)
		return r;
	f->decoded = r < 0 ? r : 0;
	return 0;
}

static bool same_loc(const struct hwp_code_loc *x, const struct hwp_code_loc *y)
{
	return x->module == y->module && x->offset == y->offset;
}

/* The function's instructions matched with the analyses' rows. */
/* The instruction of IN[0..N) (one function's) at L, NULL when none is. */
static struct hwp_annotate_insn *insn_at(struct hwp_annotate_insn *in, size_t n, const struct hwp_code_loc *l)
{
	if (!n || l->module != in[0].loc.module || l->offset < in[0].loc.offset ||
	    l->offset >= in[n - 1].loc.offset + in[n - 1].len)
		return NULL;
	for (size_t k = 0; k < n; k++)
		if (in[k].loc.offset == l->offset)
			return &in[k];
	return NULL;
}

static void match(struct hwp_annotation *a, struct hwp_pipeline *p, const struct hwp_branch_table *ips,
		  const struct hwp_branch_table *ips_ev, const struct hwp_annotate_func *f)
{
	size_t nipe = 0;
	const struct hwp_branch_row *ipe = ips_ev && a->nevents ? hwp_branch_table__rows(ips_ev, &nipe) : NULL;
	struct hwp_symbolizer *sym = hwp_pipeline__symbolizer(p);
	struct hwp_flow *flow = hwp_pipeline__flow(p);
	struct hwp_timing *tm = hwp_pipeline__timing(p);
	struct hwp_mem_report *mem = hwp_pipeline__mem(p);
	size_t nips = 0, nind = 0, nblk = 0, ntb = 0, nmem = 0;
	const struct hwp_branch_row *ip = ips ? hwp_branch_table__rows(ips, &nips) : NULL;
	const struct hwp_flow_indirect *ind = flow ? hwp_flow__indirect(flow, &nind) : NULL;
	const struct hwp_flow_block *blk = flow ? hwp_flow__blocks(flow, &nblk) : NULL;
	const struct hwp_timing_block *tb = tm ? hwp_timing__blocks(tm, &ntb) : NULL;
	const struct hwp_mem_group *mg = NULL;

	if (mem)
		nmem = hwp_mem_report__groups(mem, HWP_MEM_BY_IP, &mg);
	if (!f->n)
		return;
	struct hwp_annotate_insn *in = a->insns + f->first;
	for (size_t k = 0; k < f->n; k++) {
		struct hwp_symbol_info si;

		if (hwp_symbolizer__lookup(sym, f->module, in[k].loc.offset, &si) == 0 && si.file) {
			in[k].file = si.file;
			in[k].line = si.line;
		}
		if (flow && in[k].kind == HWP_ANNOTATE_COND)
			in[k].cond = hwp_flow__cond_at(flow, &in[k].loc);
	}
	/* each analysis's rows once over the function, looked up per row */
	struct hwp_annotate_insn *x;
	for (size_t i = 0; i < nips; i++)
		if ((x = insn_at(in, f->n, &ip[i].key.from)))
			x->samples += ip[i].c.count;
	for (size_t i = 0; i < nipe; i++)
		if (ipe[i].key.type < a->nevents && (x = insn_at(in, f->n, &ipe[i].key.from))) {
			size_t fi = (size_t)(f - a->funcs);

			a->ev_insn[(size_t)(x - a->insns) * a->nevents + ipe[i].key.type] += ipe[i].c.count;
			a->ev_func[fi * a->nevents + ipe[i].key.type] += ipe[i].c.count;
		}
	for (size_t i = 0; i < nind; i++)
		if ((x = insn_at(in, f->n, &ind[i].site)))
			x->indirect = &ind[i];
	for (size_t i = 0; i < nblk; i++)
		if ((x = insn_at(in, f->n, &blk[i].start)) && !x->block)
			x->block = &blk[i];
	/* a timed range from a block's start may end at its last instruction
	   or run on over branches not taken: the block's own is the one that
	   ends where it does, else the most sampled */
	for (size_t i = 0; i < ntb; i++) {
		if (!(x = insn_at(in, f->n, &tb[i].start)))
			continue;
		const struct hwp_timing_block *cur = x->timing;
		bool own = x->block && same_loc(&tb[i].end, &x->block->last);
		bool cur_own = cur && x->block && same_loc(&cur->end, &x->block->last);
		if (!cur || (own && !cur_own) || (own == cur_own && tb[i].d.samples > cur->d.samples))
			x->timing = &tb[i];
	}
	for (size_t i = 0; i < nmem; i++)
		if ((x = insn_at(in, f->n, &mg[i].code)))
			x->mem = &mg[i];
}

/* The functions holding opts' ALSO locations not chosen yet, with their
   samples when sampled (V[0..N)). */
static int add_also(struct hwp_annotation *a, struct hwp_symbolizer *sym, const struct sampled *v, size_t n,
		    const struct hwp_annotate_opts *o)
{
	for (size_t j = 0; j < o->nalso; j++) {
		struct hwp_symbol_info si;
		const struct hwp_code_loc *l = &o->also[j];
		bool have = false;

		if (l->module < 0 || hwp_symbolizer__lookup(sym, l->module, l->offset, &si) < 0 || !si.symbol)
			continue;
		for (size_t k = 0; k < a->nfuncs && !have; k++)
			have = a->funcs[k].module == l->module && a->funcs[k].vaddr == si.sym_start;
		if (have)
			continue;
		struct hwp_annotate_func *f = HWP_VEC_PUSH(a->funcs, a->nfuncs, a->funcs_cap);
		if (!f)
			return -ENOMEM;
		*f = (struct hwp_annotate_func){ .name = si.symbol, .module = l->module, .vaddr = si.sym_start,
						 .size = si.sym_size };
		for (size_t i = 0; i < n; i++)
			if (v[i].module == l->module && v[i].vaddr == si.sym_start) {
				f->samples = v[i].samples;
				break;
			}
	}
	return 0;
}

/* The functions OPTS asks for, among SAMPLED[0..N) (by samples). */
static int choose(struct hwp_annotation *a, struct hwp_symbolizer *sym, struct sampled *v, size_t n,
		  const struct hwp_annotate_opts *o, const char *input)
{
	size_t limit = o->limit ? o->limit : 5;

	for (size_t i = 0; i < n; i++) {
		bool want = o->sym ? !strcmp(v[i].name, o->sym)
			  : o->has_addr ? o->addr >= v[i].vaddr && o->addr < v[i].vaddr + (v[i].size ? v[i].size : 1)
					: a->nfuncs < limit;
		if (!want)
			continue;
		struct hwp_annotate_func *f = HWP_VEC_PUSH(a->funcs, a->nfuncs, a->funcs_cap);
		if (!f)
			return -ENOMEM;
		*f = (struct hwp_annotate_func){ .name = v[i].name, .module = v[i].module, .vaddr = v[i].vaddr,
						 .size = v[i].size, .samples = v[i].samples };
	}
	if (add_also(a, sym, v, n, o) < 0)
		return -ENOMEM;
	if (a->nfuncs)
		return 0;
	if (o->sym)
		return hwp__set_error(ENOENT, "%s: no sample in a function named '%s' (%zu functions sampled)", input,
				      o->sym, n);
	if (o->has_addr)
		return hwp__set_error(ENOENT, "%s: no sampled function holds 0x%llx (an ELF address, as objdump "
				      "prints it)", input, (unsigned long long)o->addr);
	return hwp__set_error(ENODATA, "%s: no sample in a function with a symbol", input);
}

/* The events of C's samples when there are several (each gets columns
   of its own), with their totals; none for one. 0 or -ENOMEM. */
static int events(struct hwp_annotation *a, const struct hwp_branch_collector *c)
{
	size_t n = 0, nr = 0;
	const struct hwp_evsel *const *ev = hwp__branch_collector_ip_events(c, &n);
	const struct hwp_branch_table *ipe = hwp__branch_collector_ip_samples_by_event(c);
	const struct hwp_branch_row *r = ipe ? hwp_branch_table__rows(ipe, &nr) : NULL;

	if (n < 2 || !ipe)
		return 0;
	for (size_t e = 0; e < n; e++) {
		char name[32];
		const char *shown = ev[e]->name;
		size_t len;

		if (!shown) {
			snprintf(name, sizeof(name), "event%d", ev[e]->idx);
			shown = name;
		}
		len = strlen(shown);
		if (!(a->event_keys[e] = malloc(2 * len + 10)))
			return -ENOMEM;
		/* the name, then the JSON key: samples_ and the name in [a-z0-9_] */
		memcpy(a->event_keys[e], shown, len + 1);
		a->events[e] = a->event_keys[e];
		char *key = a->event_keys[e] + len + 1;
		strcpy(key, "samples_");
		for (size_t i = 0; i < len; i++) {
			char ch = shown[i];

			key[8 + i] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch
				     : ch >= 'A' && ch <= 'Z'			     ? (char)(ch - 'A' + 'a')
											     : '_';
		}
		key[8 + len] = 0;
	}
	a->nevents = n;
	if (!(a->ev_insn = calloc(a->ninsns * n + 1, sizeof(*a->ev_insn))) ||
	    !(a->ev_func = calloc(a->nfuncs * n + 1, sizeof(*a->ev_func))))
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		if (r[i].key.type < n)
			a->ev_total[r[i].key.type] += r[i].c.count;
	return 0;
}

struct hwp_annotation *hwp_annotate__new(struct hwp_pipeline *p, const struct hwp_annotate_opts *opts)
{
	struct hwp_annotate_opts o;
	struct hwp_annotation *a = NULL;
	struct sampled *v = NULL;
	size_t n = 0;
	int err = -ENOMEM;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_annotate_opts)) {
		errno = EINVAL;
		return NULL;
	}
	struct hwp_branch_collector *c = hwp_pipeline__branches(p);
	struct hwp_symbolizer *sym = hwp_pipeline__symbolizer(p);
	const struct hwp_branch_table *ips = c ? hwp__branch_collector_ip_samples(c) : NULL;
	const char *input = hwp_session__path(hwp_pipeline__session(p));

	if (!(a = calloc(1, sizeof(*a))))
		goto fail;
	if (!ips) {
		err = hwp__set_error(EINVAL, "%s: annotate: the pipeline counted no sample IPs (ip_samples)", input);
		goto fail;
	}
	if (!(v = sampled_functions(sym, ips, &n, &a->total)))
		goto fail;
	hwp__sort(v, n, sizeof(*v), by_samples);
	if ((err = choose(a, sym, v, n, &o, input)) < 0)
		goto fail;
	struct hwp__code_cache *cc = c ? hwp__branch_collector_code_cache(c) : NULL;
	for (size_t k = 0; k < a->nfuncs; k++)
		if ((err = decode(a, sym, cc, &a->funcs[k])) < 0)
			goto fail;
	for (size_t i = 0; i < a->ninsns; i++) {
		a->insns[i].mnemonic = a->text[i].mnemonic;
		a->insns[i].operands = a->text[i].operands;
	}
	if ((err = events(a, c)) < 0)
		goto fail;
	const struct hwp_branch_table *ips_ev = hwp__branch_collector_ip_samples_by_event(c);
	for (size_t k = 0; k < a->nfuncs; k++)
		match(a, p, ips, ips_ev, &a->funcs[k]);
	for (size_t i = 0; a->nevents && i < a->ninsns; i++)
		a->insns[i].event_samples = &a->ev_insn[i * a->nevents];
	for (size_t k = 0; a->nevents && k < a->nfuncs; k++)
		a->funcs[k].event_samples = &a->ev_func[k * a->nevents];
	free(v);
	return a;
fail:
	if (err == -ENOMEM)
		hwp__set_error(ENOMEM, "annotate: out of memory");
	free(v);
	hwp_annotation__delete(a);
	errno = -err;
	return NULL;
}

void hwp_annotation__delete(struct hwp_annotation *a)
{
	if (!a)
		return;
	free(a->funcs);
	free(a->insns);
	free(a->text);
	free(a->ev_insn);
	free(a->ev_func);
	for (size_t e = 0; e < 16; e++)
		free(a->event_keys[e]);
	free(a);
}

size_t hwp_annotation__functions(const struct hwp_annotation *a, const struct hwp_annotate_func **out)
{
	*out = a->funcs;
	return a->nfuncs;
}

size_t hwp_annotation__insns(const struct hwp_annotation *a, const struct hwp_annotate_insn **out)
{
	*out = a->insns;
	return a->ninsns;
}

uint64_t hwp_annotation__total_samples(const struct hwp_annotation *a)
{
	return a->total;
}

size_t hwp_annotation__events(const struct hwp_annotation *a, const char *const **names, const uint64_t **totals)
{
	*names = a->events;
	*totals = a->ev_total;
	return a->nevents;
}

const char *hwp__annotation_event_key(const struct hwp_annotation *a, size_t e)
{
	return e < a->nevents ? a->event_keys[e] + strlen(a->event_keys[e]) + 1 : NULL;
}
