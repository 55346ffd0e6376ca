/* SPDX-License-Identifier: MIT */
/*
 * Exact per-branch-site counts of an emulated run, as JSON lines: one object
 * per (module, offset, kind) with executed/taken counts, and for indirect
 * branches every target with its count. Each process's last complete
 * snapshot counts; sites of all processes merge by module offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/emu_internal.h"
#include "hwprof/hwprof.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "util/error.h"
#include "util/vec.h"

struct xtarget {
	const struct hwp__emu_module *mod;
	uint64_t off;
	uint64_t count;
};

struct xsite {
	const struct hwp__emu_module *mod;
	uint64_t off;
	uint32_t kind;
	uint64_t executed, taken;
	struct xtarget *t;
	size_t nt, capt;
};

static int mod_cmp(const struct hwp__emu_module *x, const struct hwp__emu_module *y)
{
	return strcmp(x ? x->path : "", y ? y->path : "");
}

static int xsite_cmp(const void *a, const void *b)
{
	const struct xsite *x = a, *y = b;
	int r = mod_cmp(x->mod, y->mod);

	if (r)
		return r;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* Most frequent target first. */
static int xtarget_cmp(const void *a, const void *b)
{
	const struct xtarget *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->mod != y->mod)
		return mod_cmp(x->mod, y->mod);
	return x->off < y->off ? -1 : x->off > y->off;
}

static const char *kind_name(uint32_t k)
{
	static const char *const n[HWP_EMU_K_COUNT] = {
		[HWP_EMU_K_COND] = "cond",       [HWP_EMU_K_JMP] = "jmp",
		[HWP_EMU_K_CALL] = "call",       [HWP_EMU_K_IJMP] = "ijmp",
		[HWP_EMU_K_ICALL] = "icall",     [HWP_EMU_K_RET] = "ret",
		[HWP_EMU_K_SYSCALL] = "syscall", [HWP_EMU_K_TRAP] = "trap",
		[HWP_EMU_K_FAR] = "far",
	};
	return k < HWP_EMU_K_COUNT && n[k] ? n[k] : "other";
}

static void json_loc(struct hwp_json_writer *j, const struct hwp__emu_module *mod, uint64_t off)
{
	hwp__json_writer_kv_string(j, "module", mod ? mod->path : "[unknown]");
	if (mod && mod->bid_size) {
		char hex[2 * sizeof(mod->build_id) + 1];

		for (unsigned i = 0; i < mod->bid_size; i++)
			snprintf(hex + 2 * i, 3, "%02x", mod->build_id[i]);
		hwp__json_writer_kv_string(j, "build_id", hex);
	}
	hwp__json_writer_kv_hex(j, "offset", off);
	if (mod) {
		int64_t va = hwp__emu_module_vaddr(mod, off);

		if (va >= 0)
			hwp__json_writer_kv_hex(j, "vaddr", (uint64_t)va);
	}
}

static void print_site(struct hwp_json_writer *j, struct xsite *x)
{
	hwp__json_writer_begin_object(j);
	json_loc(j, x->mod, x->off);
	hwp__json_writer_kv_string(j, "kind", kind_name(x->kind));
	hwp__json_writer_kv_u64(j, "executed", x->executed);
	hwp__json_writer_kv_u64(j, "taken", x->taken);
	if (x->kind == HWP_EMU_K_COND)
		hwp__json_writer_kv_u64(j, "not_taken", x->executed - x->taken);
	if (x->kind == HWP_EMU_K_IJMP || x->kind == HWP_EMU_K_ICALL) {
		if (x->nt)
			qsort(x->t, x->nt, sizeof(*x->t), xtarget_cmp);
		hwp__json_writer_key(j, "targets");
		hwp__json_writer_begin_array(j);
		for (size_t i = 0; i < x->nt; i++) {
			hwp__json_writer_begin_object(j);
			json_loc(j, x->t[i].mod, x->t[i].off);
			hwp__json_writer_kv_u64(j, "count", x->t[i].count);
			hwp__json_writer_end_object(j);
		}
		hwp__json_writer_end_array(j);
	}
	hwp__json_writer_end_object(j);
}

/* Sites of every process, merged by (module, offset, kind), sorted. */
static int collect_sites(const struct hwp__emu_conv *c, struct xsite **out, size_t *nr)
{
	struct xsite *xs = NULL;
	size_t n = 0, cap = 0, m = 0;

	for (size_t pi = 0; pi < c->nprocs; pi++) {
		const struct hwp__emu_proc *p = &c->procs[pi];

		for (size_t i = 0; i < p->nsnap; i++) {
			const struct hwp_emu_site *r = (const void *)p->snap[i];
			struct xsite *x;

			if (r->h.type != HWP_EMU_SITE)
				continue;
			if (!(x = HWP_VEC_PUSH(xs, n, cap))) {
				free(xs);
				return hwp__set_error(ENOMEM, "out of memory");
			}
			hwp__emu_locate_addr(c, p, r->addr, &x->mod, &x->off);
			x->kind = r->kind;
			x->executed = r->executed;
			x->taken = r->taken;
		}
	}
	if (n)
		qsort(xs, n, sizeof(*xs), xsite_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && !xsite_cmp(&xs[m - 1], &xs[i])) {
			xs[m - 1].executed += xs[i].executed;
			xs[m - 1].taken += xs[i].taken;
		} else {
			xs[m++] = xs[i];
		}
	}
	*out = xs;
	*nr = m;
	return 0;
}

/* Indirect-branch targets, added to their (sorted) sites. */
static int collect_targets(const struct hwp__emu_conv *c, struct xsite *xs, size_t n)
{
	for (size_t pi = 0; pi < c->nprocs; pi++) {
		const struct hwp__emu_proc *p = &c->procs[pi];

		for (size_t i = 0; i < p->nsnap; i++) {
			const struct hwp_emu_target *r = (const void *)p->snap[i];
			struct xsite key, *site = NULL;
			struct xtarget t, *slot;
			size_t j;

			if (r->h.type != HWP_EMU_TARGET)
				continue;
			memset(&key, 0, sizeof(key));
			hwp__emu_locate_addr(c, p, r->site, &key.mod, &key.off);
			for (uint32_t k = HWP_EMU_K_IJMP; k <= HWP_EMU_K_ICALL && !site; k++) {
				key.kind = k;
				site = n ? bsearch(&key, xs, n, sizeof(*xs), xsite_cmp) : NULL;
			}
			if (!site)
				continue;
			hwp__emu_locate_addr(c, p, r->target, &t.mod, &t.off);
			for (j = 0; j < site->nt; j++)
				if (site->t[j].mod == t.mod && site->t[j].off == t.off)
					break;
			if (j < site->nt) {
				site->t[j].count += r->count;
				continue;
			}
			if (!(slot = HWP_VEC_PUSH(site->t, site->nt, site->capt)))
				return hwp__set_error(ENOMEM, "out of memory");
			*slot = t;
			slot->count = r->count;
		}
	}
	return 0;
}

int hwp__emu_write_exact(struct hwp__emu_conv *c, uint64_t *nr_sites)
{
	struct xsite *xs = NULL;
	struct hwp_json_writer *j = NULL;
	struct hwp_outbuf o;
	size_t n = 0;
	int err;

	if ((err = collect_sites(c, &xs, &n)))
		return err;
	if ((err = collect_targets(c, xs, n)))
		goto out;
	if (hwp__outbuf_init(&o, c->s->exact) < 0) {
		err = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	if (!(j = hwp__json_writer_new(&o))) {
		err = -errno;
		hwp__outbuf_finish(&o);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		print_site(j, &xs[i]);
	err = hwp__json_writer_finish(j);
	int werr = hwp__outbuf_finish(&o);

	if (!err && werr)
		err = hwp__set_error(-werr, "%s: write failed: %s", c->s->o.exact, strerror(-werr));
	*nr_sites = n;
out:
	hwp__json_writer_delete(j);
	for (size_t i = 0; i < n; i++)
		free(xs[i].t);
	free(xs);
	return err;
}
