/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"
#include "hwprof/maps.h"
#include "util/bytes.h"

/* Kernel addresses on x86-64 and arm64 start here. */
#define KERNEL_START 0xffff800000000000ULL

/* The last map used, by process: from and to mostly fall in one module. */
struct map_cache {
	uint64_t generation;
	int32_t pid;
	bool valid;
	uint64_t start, end, pgoff;
	bool identity, kernel;
	int32_t module;
};

struct hwp_branch_collector {
	struct hwp_symbolizer *sym;
	const struct hwp_header_info *hdr;
	struct hwp_machine *machine;
	struct hwp_branch_table *table;
	struct hwp_branch_collect_stats st;
	struct map_cache cache[2];
	int32_t kernel_module;
	bool drop_meaningless_prediction;
};

struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_symbolizer *sym, unsigned split,
						       const struct hwp_header_info *hdr)
{
	struct hwp_branch_collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sym = sym;
	c->hdr = hdr;
	c->machine = hwp_machine__new();
	c->table = hwp_branch_table__new(split);
	c->kernel_module = hwp_symbolizer__kernel_module(sym);
	if (!c->machine || !c->table || c->kernel_module < 0) {
		hwp_branch_collector__delete(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void hwp_branch_collector__delete(struct hwp_branch_collector *c)
{
	if (!c)
		return;
	hwp_machine__delete(c->machine);
	hwp_branch_table__delete(c->table);
	free(c);
}

/* Build-id of FILENAME from the header's BUILD_ID list, when the MMAP had none. */
static const struct hwp_build_id *header_build_id(const struct hwp_header_info *h, const char *f)
{
	for (size_t i = 0; h && i < h->nr_build_ids; i++)
		if (strcmp(h->build_ids[i].filename, f) == 0)
			return &h->build_ids[i];
	return NULL;
}

static int32_t module_of(struct hwp_branch_collector *c, const struct hwp_map *m)
{
	if (m->kernel)
		return c->kernel_module;
	if (m->build_id_size)
		return hwp_symbolizer__module(c->sym, m->filename, m->build_id, m->build_id_size);
	const struct hwp_build_id *b = header_build_id(c->hdr, m->filename);
	return hwp_symbolizer__module(c->sym, m->filename, b ? b->id : NULL, b ? b->size : 0);
}

static void resolve(struct hwp_branch_collector *c, const struct hwp_thread *th, uint64_t addr,
		    struct map_cache *mc, struct hwp_code_loc *loc)
{
	uint64_t gen = hwp_machine__generation(c->machine);
	int32_t pid = th ? hwp_thread__pid(th) : -1;

	loc->addr = addr;
	if (!(mc->valid && mc->generation == gen && mc->pid == pid && addr >= mc->start &&
	      addr < mc->end)) {
		const struct hwp_map *m = NULL;
		if (th) {
			m = hwp_thread__find_map(th, HWP_MISC_USER, addr);
			if (!m)
				m = hwp_thread__find_map(th, HWP_MISC_KERNEL, addr);
		}
		if (!m) {
			mc->valid = false;
			/* perf always has a kernel map; anything else stays unknown */
			loc->module = addr >= KERNEL_START ? c->kernel_module : -1;
			loc->cpumode = addr >= KERNEL_START ? HWP_MISC_KERNEL : HWP_MISC_USER;
			loc->offset = addr;
			return;
		}
		int32_t mod = module_of(c, m);
		*mc = (struct map_cache){ gen, pid, mod >= 0, m->start, m->end, m->pgoff,
					  m->identity || m->kernel, m->kernel, mod >= 0 ? mod : -1 };
		if (!mc->valid) {
			loc->module = -1;
			loc->cpumode = HWP_MISC_USER;
			loc->offset = addr;
			return;
		}
	}
	loc->module = mc->module;
	loc->cpumode = mc->kernel ? HWP_MISC_KERNEL : HWP_MISC_USER;
	loc->offset = mc->identity ? addr : addr - mc->start + mc->pgoff;
}

int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev)
{
	if (ev->type != HWP_RECORD_SAMPLE) {
		int err = hwp_machine__process_event(c->machine, ev);
		return err == -EINVAL ? 0 : err; /* a short record changes nothing */
	}
	if (!ev->evsel)
		return 0;
	const struct hwp_sample *s = &ev->sample;
	c->st.samples++;
	if (!(s->sample_type & HWP_SAMPLE_BRANCH_STACK))
		return 0;
	uint64_t bst = ev->evsel->attr.branch_sample_type;
	if (bst & HWP_BRANCH_NO_FLAGS)
		c->st.no_flags_filter = true;
	if (bst & HWP_BRANCH_CALL_STACK) {
		/* A call stack, not recent branches: not counted as branches. */
		c->st.call_stack_mode = true;
		return 0;
	}
	c->st.branch_samples++;
	/* perf record -b always selects a branch filter; stacks without one
	   were synthesized from an instruction trace. */
	bool synthesized = !(bst & ~(uint64_t)HWP_BRANCH_HW_INDEX);
	if (synthesized)
		c->st.synthesized_stacks = true;
	/* Their "predicted" bits mean nothing: dropped (when asked) so that
	   mispredict rates ignore them. */
	uint64_t flag_mask = ~0ULL;
	if (synthesized || (bst & HWP_BRANCH_NO_FLAGS)) {
		c->st.entries_without_prediction += s->branch_nr;
		if (c->drop_meaningless_prediction)
			flag_mask = ~3ULL;
	}
	const struct hwp_thread *th = hwp_machine__sample_thread(c->machine, ev);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const uint8_t *p = s->branch_entries + i * 24;
		struct hwp_code_loc from, to;
		uint64_t flags = ld64(p + 16) & flag_mask;

		resolve(c, th, ld64(p), &c->cache[0], &from);
		resolve(c, th, ld64(p + 8), &c->cache[1], &to);
		if (hwp_branch_table__add(c->table, &from, &to, flags) < 0)
			return hwp_set_error(ENOMEM, "out of memory counting branches");
		c->st.entries++;
		c->st.entries_with_flags += (flags & 3) != 0;
	}
	return 0;
}

int hwp_branch_collector__read(struct hwp_branch_collector *c, struct hwp_reader *r)
{
	struct hwp_ordered *q = hwp_ordered__new(r);
	struct hwp_event ev;
	int n, err = 0;

	if (!q)
		return -ENOMEM;
	while ((n = hwp_ordered__next(q, &ev)) > 0)
		if ((err = hwp_branch_collector__add(c, &ev)) < 0)
			break;
	hwp_ordered__delete(q);
	return n < 0 ? n : err;
}

void hwp_branch_collector__drop_meaningless_prediction(struct hwp_branch_collector *c)
{
	c->drop_meaningless_prediction = true;
}

const struct hwp_branch_table *hwp_branch_collector__table(const struct hwp_branch_collector *c)
{
	return c->table;
}

const struct hwp_branch_collect_stats *hwp_branch_collector__stats(const struct hwp_branch_collector *c)
{
	return &c->st;
}
