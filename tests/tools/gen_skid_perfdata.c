/* SPDX-License-Identifier: MIT */
/*
 * gen_skid_perfdata: a perf.data with a precise event (precise_ip 2) and a
 * non-precise one over the same 40 instruction sites (64 bytes apart): the
 * precise samples at the sites, the non-precise ones at site + a skid drawn
 * from {0, 2, 5, 12, 24, 40} bytes (seeded), and one in 20 of them below
 * every site (no precise sample before it). Writes the true number of
 * non-precise samples per skid to EXPECTED, one "SKID COUNT" line each
 * ("none COUNT" for those below). N samples (default 20000; with N, a
 * FINISHED_ROUND every 5000, as perf writes them: bench/mem.sh's skid).
 *
 *   gen_skid_perfdata SEED OUT.data EXPECTED [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	static const unsigned skids[] = { 0, 2, 5, 12, 24, 40 };
	uint64_t truth[6] = { 0 }, none = 0;
	struct hwp_attr a[2];
	uint64_t ids[2] = { 1, 2 };
	int idx[2];
	struct hwp_writer *w;
	FILE *f;

	unsigned long long n = argc == 5 ? strtoull(argv[4], NULL, 0) : 20000;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: gen_skid_perfdata SEED OUT.data EXPECTED [N]\n");
		return 2;
	}
	rng_state = strtoull(argv[1], NULL, 0);
	w = hwp_writer__open(argv[2]);
	if (!w)
		goto err;
	for (int i = 0; i < 2; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].type = 0; /* cycles */
		a[i].sample_period = 100003;
		a[i].sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ID;
		a[i].flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_SAMPLE_ID_ALL |
			     (i == 0 ? 2ULL << HWP_ATTR_PRECISE_IP : 0);
		idx[i] = hwp_writer__add_attr(w, &a[i], &ids[i], 1, i == 0 ? "cycles:pp" : "cycles");
		if (idx[i] < 0)
			goto err;
	}
	if (hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64") || hwp_writer__set_nrcpus(w, 4, 4))
		goto err;
	for (unsigned long long i = 0; i < n; i++) {
		int which = (int)(i & 1);
		uint64_t site = 0x401000 + 64 * (rnd64() % 40);
		unsigned k = (unsigned)(rnd64() % 6);
		struct hwp_sample s = { 0 };
		struct hwp_sample_in in = { .s = &s };

		s.sample_type = a[which].sample_type;
		s.cpumode = 2;
		s.id = ids[which];
		s.pid = s.tid = 4242;
		s.time = 1000 + i;
		s.ip = which ? site + skids[k] : site;
		if (which && rnd64() % 20 == 0) {
			s.ip = 0x400000 + rnd64() % 256;
			none++;
		} else if (which) {
			truth[k]++;
		}
		if (hwp_writer__add_sample(w, idx[which], &in) < 0 ||
		    (argc == 5 && (i + 1) % 5000 == 0 && hwp_writer__add_finished_round(w) < 0))
			goto err;
	}
	if (hwp_writer__close(w) < 0)
		goto err;
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	for (int k = 0; k < 6; k++)
		fprintf(f, "%u %llu\n", skids[k], (unsigned long long)truth[k]);
	fprintf(f, "none %llu\n", (unsigned long long)none);
	return fclose(f) ? 1 : 0;
err:
	fprintf(stderr, "gen_skid_perfdata: %s\n", hwp_errmsg());
	return 1;
}
