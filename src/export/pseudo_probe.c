/* SPDX-License-Identifier: MIT */
/*
 * The pseudo probe sections (pseudo_probe.h), as LLVM's MCPseudoProbe.h
 * documents them:
 *   .pseudo_probe_desc: per function GUID (u64), hash (u64), name length
 *     (ULEB128), name.
 *   .pseudo_probe: top-level function records, one after the other; a
 *     record is GUID (u64), probe count (ULEB128), inlinee count (ULEB128),
 *     the probes, then each inlinee as its call site's probe index
 *     (ULEB128) followed by its own record. A probe is index (ULEB128), a
 *     byte (type in bits 0-3, attributes in 4-6, bit 7: the address is a
 *     delta), the address (u64) or SLEB128 delta from the previous probe's
 *     address (across records), and a discriminator (ULEB128) when its
 *     attributes say so.
 * The tree is walked with an explicit stack (bounded depth) and every
 * count is checked against the bytes left before anything is allocated.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/pseudo_probe.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/elf_functions.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

#define MAX_DEPTH 512 /* inline nesting; real programs stay far below */

struct cur {
	const uint8_t *base, *p, *end;
	const char *name, *section;
	const char *why;
	size_t at;
};

static bool bad(struct cur *c, const uint8_t *at, const char *why)
{
	if (!c->why) {
		c->why = why;
		c->at = (size_t)(at - c->base);
	}
	return false;
}

static bool u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return bad(c, c->p, "an 8-byte field runs past the end");
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | c->p[i];
	c->p += 8;
	return true;
}

static bool uleb(struct cur *c, uint64_t *v)
{
	const uint8_t *start = c->p;

	*v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;

		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			return bad(c, start, "a ULEB128 number is longer than 64 bits");
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return bad(c, start, "a ULEB128 number runs past the end");
}

static bool uleb32(struct cur *c, uint32_t *v)
{
	const uint8_t *start = c->p;
	uint64_t x;

	if (!uleb(c, &x))
		return false;
	if (x > UINT32_MAX)
		return bad(c, start, "a 32-bit number is larger than 32 bits");
	*v = (uint32_t)x;
	return true;
}

static bool sleb(struct cur *c, int64_t *v)
{
	const uint8_t *start = c->p;
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (c->p >= c->end)
			return bad(c, start, "a SLEB128 number runs past the end");
		if (shift >= 64)
			return bad(c, start, "a SLEB128 number is longer than 64 bits");
		b = *c->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		x |= ~(uint64_t)0 << shift;
	*v = (int64_t)x;
	return true;
}

static int fail(struct cur *c)
{
	if (!c->why)
		return hwp__set_error(ENOMEM, "%s: out of memory reading %s", c->name, c->section);
	return hwp__set_error(EINVAL, "%s: %s at offset 0x%zx is malformed: %s", c->name, c->section, c->at,
			      c->why);
}

static int by_guid(const void *a, const void *b)
{
	const struct hwp__probe_desc *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int parse_descs(struct cur *c, struct hwp__pseudo_probes *pp)
{
	size_t cap = 0;

	while (c->p < c->end) {
		struct hwp__probe_desc d;
		uint64_t len;

		if (!u64(c, &d.guid) || !u64(c, &d.hash) || !uleb(c, &len))
			return fail(c);
		if (len > (uint64_t)(c->end - c->p))
			return bad(c, c->p, "a function name runs past the end"), fail(c);
		d.name = (const char *)c->p;
		d.name_len = (uint32_t)len;
		c->p += len;
		struct hwp__probe_desc *slot = HWP_VEC_PUSH(pp->descs, pp->ndescs, cap);
		if (!slot)
			return fail(c);
		*slot = d;
	}
	if (pp->ndescs)
		qsort(pp->descs, pp->ndescs, sizeof(*pp->descs), by_guid);
	return 0;
}

struct frame {
	uint32_t node;
	uint64_t kids_left;
};

/* Function starts by GUID: where a top-level record's first delta counts
   from (LLVM 17 on), and a sentinel probe's address. */
struct starts {
	const struct hwp__probe_start *v;
	size_t n;
	bool addr_based; /* an absolute address was seen: the older encoding */
};

static bool start_of(const struct starts *st, uint64_t guid, uint64_t *addr)
{
	size_t lo = 0, hi = st->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->v[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->n && st->v[lo].guid == guid) {
		*addr = st->v[lo].addr;
		return true;
	}
	return false;
}

/* One function record's head and probes: node NODE. */
static bool read_record(struct cur *c, struct hwp__pseudo_probes *pp, size_t *cap, uint32_t node,
			uint64_t *last, uint64_t *kids, struct starts *st)
{
	uint64_t nprobes;

	if (!u64(c, &pp->nodes[node].guid) || !uleb(c, &nprobes) || !uleb(c, kids))
		return false;
	if (pp->nodes[node].parent == UINT32_MAX && !st->addr_based)
		start_of(st, pp->nodes[node].guid, last);
	/* a probe takes 3 bytes at least, an inlinee 11 */
	if (nprobes > (uint64_t)(c->end - c->p) / 3)
		return bad(c, c->p, "more probes than the bytes left can hold");
	if (*kids > (uint64_t)(c->end - c->p) / 11)
		return bad(c, c->p, "more inlined functions than the bytes left can hold");
	for (uint64_t i = 0; i < nprobes; i++) {
		struct hwp__probe pr = { .node = node };
		const uint8_t *at;
		uint8_t v;

		if (!uleb32(c, &pr.index))
			return false;
		if (c->p >= c->end)
			return bad(c, c->p, "a probe's type runs past the end");
		at = c->p;
		v = *c->p++;
		pr.type = v & 0xf;
		pr.attr = (v >> 4) & 7;
		if (v & 0x80) {
			int64_t d;

			if (!sleb(c, &d))
				return false;
			pr.addr = *last + (uint64_t)d;
		} else {
			if (!u64(c, &pr.addr))
				return false;
			if (pr.attr & HWP__PROBE_ATTR_SENTINEL)
				start_of(st, pr.addr, &pr.addr); /* the split part's GUID */
			else
				st->addr_based = true;
		}
		if ((pr.attr & HWP__PROBE_ATTR_DISCRIMINATOR) && !uleb32(c, &pr.discriminator))
			return false;
		if (pr.type > HWP__PROBE_DIRECT_CALL)
			return bad(c, at, "a probe type other than block, indirect call or direct call");
		*last = pr.addr;
		if (pr.attr & HWP__PROBE_ATTR_SENTINEL)
			continue; /* marks where a split part starts, no probe of its own */
		struct hwp__probe *slot = HWP_VEC_PUSH(pp->probes, pp->nprobes, *cap);
		if (!slot)
			return false;
		*slot = pr;
	}
	return true;
}

struct seq_probe {
	struct hwp__probe p;
	size_t seq;
};

static int seq_order(const void *a, const void *b)
{
	const struct seq_probe *x = a, *y = b;

	if (x->p.addr != y->p.addr)
		return x->p.addr < y->p.addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int parse_probes(struct cur *c, struct hwp__pseudo_probes *pp, struct starts *st)
{
	size_t ncap = 0, pcap = 0, depth = 0;
	struct frame stack[MAX_DEPTH];
	uint64_t last = 0;

	while (c->p < c->end || depth) {
		uint32_t parent = UINT32_MAX, site = 0;
		uint64_t kids;

		if (depth) {
			if (!stack[depth - 1].kids_left) {
				depth--;
				continue;
			}
			stack[depth - 1].kids_left--;
			parent = stack[depth - 1].node;
			if (!uleb32(c, &site))
				return fail(c);
		}
		if (pp->nnodes >= UINT32_MAX - 1)
			return bad(c, c->p, "too many functions"), fail(c);
		struct hwp__probe_node *n = HWP_VEC_PUSH(pp->nodes, pp->nnodes, ncap);
		if (!n)
			return fail(c);
		*n = (struct hwp__probe_node){ .parent = parent, .site = site };
		if (!read_record(c, pp, &pcap, (uint32_t)(pp->nnodes - 1), &last, &kids, st))
			return fail(c);
		if (kids) {
			if (depth == MAX_DEPTH)
				return bad(c, c->p, "inlined functions nested deeper than 512"), fail(c);
			stack[depth++] = (struct frame){ (uint32_t)(pp->nnodes - 1), kids };
		}
	}
	/* by address, section order kept at one address (qsort is not stable) */
	if (pp->nprobes) {
		struct seq_probe *tmp = malloc(pp->nprobes * sizeof(*tmp));

		if (!tmp)
			return fail(c);
		for (size_t i = 0; i < pp->nprobes; i++) {
			tmp[i].p = pp->probes[i];
			tmp[i].seq = i;
		}
		qsort(tmp, pp->nprobes, sizeof(*tmp), seq_order);
		for (size_t i = 0; i < pp->nprobes; i++)
			pp->probes[i] = tmp[i].p;
		free(tmp);
	}
	return 0;
}

void hwp__pseudo_probes_free(struct hwp__pseudo_probes *p)
{
	if (!p)
		return;
	free(p->descs);
	free(p->nodes);
	free(p->probes);
	free(p->owned);
	free(p);
}

int hwp__pseudo_probes_parse(const uint8_t *desc, size_t ndesc, const uint8_t *probe, size_t nprobe,
			     const struct hwp__probe_start *starts, size_t nstarts, const char *name,
			     struct hwp__pseudo_probes **out)
{
	struct starts st = { starts, nstarts, false };
	struct hwp__pseudo_probes *pp = calloc(1, sizeof(*pp));
	struct cur d = { desc, desc, desc + ndesc, name, ".pseudo_probe_desc", NULL, 0 };
	struct cur p = { probe, probe, probe + nprobe, name, ".pseudo_probe", NULL, 0 };
	int err;

	*out = NULL;
	if (!pp)
		return hwp__set_error(ENOMEM, "%s: out of memory reading pseudo probes", name);
	if ((err = parse_descs(&d, pp)) || (err = parse_probes(&p, pp, &st))) {
		hwp__pseudo_probes_free(pp);
		return err;
	}
	*out = pp;
	return 0;
}

uint32_t hwp__pseudo_probes_top(const struct hwp__pseudo_probes *p, uint32_t node)
{
	while (p->nodes[node].parent != UINT32_MAX)
		node = p->nodes[node].parent;
	return node;
}

const struct hwp__probe_desc *hwp__pseudo_probes_desc(const struct hwp__pseudo_probes *p, uint64_t guid)
{
	struct hwp__probe_desc key = { .guid = guid };

	return p->ndescs ? bsearch(&key, p->descs, p->ndescs, sizeof(key), by_guid) : NULL;
}

/* Section NAME's bytes (a copy), or NULL with *LEN 0 when absent. */
static int section(Elf *e, size_t shstrndx, const char *name, uint8_t **out, size_t *len)
{
	Elf_Scn *scn = NULL;

	*out = NULL;
	*len = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		if (sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			return 0;
		if (!(*out = malloc(d->d_size ? d->d_size : 1)))
			return -ENOMEM;
		memcpy(*out, d->d_buf, d->d_size);
		*len = d->d_size;
		return 0;
	}
	return 0;
}

static int by_start_guid(const void *a, const void *b)
{
	const struct hwp__probe_start *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct start_vec {
	struct hwp__probe_start *v;
	size_t n, cap;
};

static int add_start(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct start_vec *st = ctx;
	struct hwp__probe_start *slot = HWP_VEC_PUSH(st->v, st->n, st->cap);

	if (!slot)
		return -ENOMEM;
	*slot = (struct hwp__probe_start){ hwp__md5_guid(name, strlen(name)), sym->st_value };
	return 0;
}

/* Every defined function symbol's GUID and address, sorted by GUID. */
static int function_starts(Elf *e, struct hwp__probe_start **out, size_t *n)
{
	struct start_vec st = { 0 };
	int err = hwp__elf_each_function(e, add_start, &st);

	*out = st.v;
	*n = st.n;
	if (err)
		return err;
	if (*n)
		qsort(*out, *n, sizeof(**out), by_start_guid);
	return 0;
}

int hwp__pseudo_probes_load(const char *path, struct hwp__pseudo_probes **out)
{
	struct hwp__probe_start *starts = NULL;
	size_t nstarts = 0;
	Elf *e = hwp__elf_open(path);
	uint8_t *desc = NULL, *probe = NULL;
	size_t ndesc = 0, nprobe = 0, shstrndx;
	int err = 0;

	*out = NULL;
	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	if (elf_getshdrstrndx(e, &shstrndx) || section(e, shstrndx, ".pseudo_probe_desc", &desc, &ndesc) ||
	    section(e, shstrndx, ".pseudo_probe", &probe, &nprobe) || function_starts(e, &starts, &nstarts))
		err = hwp__set_error(ENOMEM, "%s: cannot read its sections", path);
	else if (!desc || !probe)
		err = hwp__set_error(ENOENT, "%s: no pseudo probes (build it with clang -fpseudo-probe-for-profiling)",
				     path);
	else if (!(err = hwp__pseudo_probes_parse(desc, ndesc, probe, nprobe, starts, nstarts, path, out)))
		(*out)->owned = desc, desc = NULL;
	elf_end(e);
	free(desc);
	free(probe);
	free(starts);
	return err;
}
