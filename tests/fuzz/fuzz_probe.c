/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the pseudo probe reader (src/export/pseudo_probe.c).
 * The input is split: byte 0 picks how many function starts (0-7) are read
 * from its front (16 bytes each: GUID, address; then sorted), bytes 1-2
 * (little-endian) the length of .pseudo_probe_desc, the rest is
 * .pseudo_probe. Checks: errors are one line naming the input; every name
 * lies inside the descriptor bytes; descriptors are sorted by GUID; a
 * node's parent comes before it; probes are sorted by address and name a
 * node that exists, with a known type; no sentinel probe is kept.
 */
#include "fuzz_common.h"
#include "export/pseudo_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_guid(const void *a, const void *b)
{
	const struct hwp__probe_start *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwp__probe_start starts[7];
	struct hwp__pseudo_probes *pp = NULL;
	size_t nstarts, ndesc;

	if (size < 3)
		return 0;
	nstarts = data[0] % 8;
	ndesc = (size_t)data[1] | (size_t)data[2] << 8;
	data += 3;
	size -= 3;
	if (nstarts * 16 > size)
		nstarts = size / 16;
	for (size_t i = 0; i < nstarts; i++) {
		memcpy(&starts[i].guid, data + 16 * i, 8);
		memcpy(&starts[i].addr, data + 16 * i + 8, 8);
	}
	qsort(starts, nstarts, sizeof(*starts), by_guid);
	data += 16 * nstarts;
	size -= 16 * nstarts;
	if (ndesc > size)
		ndesc = size;
	int rc = hwp__pseudo_probes_parse(data, ndesc, data + ndesc, size - ndesc, starts, nstarts, FUZZ_NAME, &pp);
	if (rc < 0) {
		fz_check_error(rc);
		if (pp)
			abort();
		return 0;
	}
	for (size_t i = 0; i < pp->ndescs; i++) {
		const struct hwp__probe_desc *d = &pp->descs[i];
		const uint8_t *n = (const uint8_t *)d->name;

		if (d->name_len && (n < data || n > data + ndesc || d->name_len > (size_t)(data + ndesc - n)))
			abort();
		fz_bytes(d->name, d->name_len);
		if (i && pp->descs[i - 1].guid > d->guid)
			abort();
		if (hwp__pseudo_probes_desc(pp, d->guid)->guid != d->guid)
			abort();
	}
	for (size_t i = 0; i < pp->nnodes; i++)
		if (pp->nodes[i].parent != UINT32_MAX && pp->nodes[i].parent >= i)
			abort();
	for (size_t i = 0; i < pp->nprobes; i++) {
		const struct hwp__probe *p = &pp->probes[i];

		if (p->node >= pp->nnodes || p->type > HWP__PROBE_DIRECT_CALL || (p->attr & HWP__PROBE_ATTR_SENTINEL) ||
		    (i && pp->probes[i - 1].addr > p->addr))
			abort();
		fz_sink += p->addr ^ p->index ^ p->discriminator;
	}
	hwp__pseudo_probes_free(pp);
	return 0;
}
