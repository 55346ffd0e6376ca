/* SPDX-License-Identifier: MIT */
/*
 * Prints the pseudo probes of an ELF file as hwprof decodes them
 * (src/export/pseudo_probe.c), one per line, for tests/e2e/pseudo_probe.sh
 * to compare with llvm-profgen-19 --show-pseudo-probe:
 *   ADDR(hex) NAME INDEX TYPE DISCRIMINATOR CONTEXT
 * CONTEXT is the inline sites from the top-level function down,
 * "caller:site" joined by " @ ", or "-". Descriptors first, as
 *   desc GUID HASH NAME
 * usage: probe_dump ELF
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export/pseudo_probe.h"
#include "hwprof/hwprof.h"

static const char *const types[] = { "Block", "IndirectCall", "DirectCall" };

static void name(const struct hwp__pseudo_probes *pp, uint64_t guid)
{
	const struct hwp__probe_desc *d = hwp__pseudo_probes_desc(pp, guid);

	if (d)
		printf("%.*s", (int)d->name_len, d->name);
	else
		printf("%" PRIu64, guid);
}

static void context(const struct hwp__pseudo_probes *pp, uint32_t node)
{
	const struct hwp__probe_node *n = &pp->nodes[node];

	if (n->parent == UINT32_MAX)
		return;
	if (pp->nodes[n->parent].parent != UINT32_MAX) {
		context(pp, n->parent);
		printf(" @ ");
	}
	name(pp, pp->nodes[n->parent].guid);
	printf(":%u", n->site);
}

int main(int argc, char **argv)
{
	struct hwp__pseudo_probes *pp;

	if (argc != 2) {
		fprintf(stderr, "usage: probe_dump ELF\n");
		return 2;
	}
	if (hwp__pseudo_probes_load(argv[1], &pp) < 0) {
		fprintf(stderr, "probe_dump: %s\n", hwp_errmsg());
		return 1;
	}
	for (size_t i = 0; i < pp->ndescs; i++)
		printf("desc %" PRIu64 " %" PRIu64 " %.*s\n", pp->descs[i].guid, pp->descs[i].hash,
		       (int)pp->descs[i].name_len, pp->descs[i].name);
	for (size_t i = 0; i < pp->nprobes; i++) {
		const struct hwp__probe *p = &pp->probes[i];

		printf("%" PRIx64 " ", p->addr);
		name(pp, pp->nodes[p->node].guid);
		printf(" %u %s %u ", p->index, p->type < 3 ? types[p->type] : "?", p->discriminator);
		if (pp->nodes[p->node].parent == UINT32_MAX)
			printf("-");
		else
			context(pp, p->node);
		printf("\n");
	}
	hwp__pseudo_probes_free(pp);
	return 0;
}
