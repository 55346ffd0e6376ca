/* SPDX-License-Identifier: MIT */
/*
 * gen_mem_perfdata: writes a perf.data of precise load samples whose
 * data_src values cover every bit of every perf_mem_data_src field alone,
 * then random combinations (seeded), with addresses and weights, for perf
 * 6.1 to decode as the oracle of hwprof's decoding.
 *
 *   gen_mem_perfdata SEED OUT.data [--weight-struct] [--random N]
 *   gen_mem_perfdata SEED OUT.data --ibs [--short]
 *
 * --ibs writes AMD IBS op samples instead (event "ibs_op//", RAW = a u32 of
 * capabilities + 7 registers): loads that hit L1 (IbsDcMiss 0) at
 * IbsDcLinAd 0x1000 + 64 * i with tag-to-retire i; --short cuts the last
 * sample's registers (a malformed recording).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	bool wstruct = false, ibs = false, cut = false;
	unsigned nrandom = 500;
	struct hwp_attr a = { 0 };
	struct hwp_writer *w;
	uint64_t id = 1;
	int idx;

	if (argc < 3) {
		fprintf(stderr, "usage: gen_mem_perfdata SEED OUT.data [--weight-struct] [--random N]\n");
		return 2;
	}
	rng_state = strtoull(argv[1], NULL, 0);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--weight-struct"))
			wstruct = true;
		else if (!strcmp(argv[i], "--ibs"))
			ibs = true;
		else if (!strcmp(argv[i], "--short"))
			cut = true;
		else if (!strcmp(argv[i], "--random") && i + 1 < argc)
			nrandom = (unsigned)strtoul(argv[++i], NULL, 0);
	}
	a.type = 4; /* PERF_TYPE_RAW: MEM_TRANS_RETIRED.LOAD_LATENCY */
	a.config = 0x1cd;
	a.config1 = 0x40;
	a.sample_period = 10007;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR |
			HWP_SAMPLE_ID | HWP_SAMPLE_CPU | HWP_SAMPLE_DATA_SRC |
			(wstruct ? HWP_SAMPLE_WEIGHT_STRUCT : HWP_SAMPLE_WEIGHT);
	a.flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_SAMPLE_ID_ALL | 2ULL << HWP_ATTR_PRECISE_IP;
	if (ibs) {
		a.type = 11; /* the ibs_op PMU's type on a typical AMD host */
		a.config = 0;
		a.config1 = 0;
		a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ID |
				HWP_SAMPLE_CPU | HWP_SAMPLE_RAW;
		a.flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_SAMPLE_ID_ALL;
		w = hwp_writer__open(argv[2]);
		if (!w || (idx = hwp_writer__add_attr(w, &a, &id, 1, "ibs_op//")) < 0)
			goto fail;
		for (unsigned i = 0; i < 100; i++) {
			struct hwp_sample s = { 0 };
			struct hwp_sample_in in = { .s = &s };
			uint8_t raw[4 + 56] = { 0 };
			uint64_t regs[7] = { 0 };

			regs[1] = 0x401000 + i;                 /* IbsOpRip */
			regs[2] = (uint64_t)i << 16;            /* IbsTagToRetCtr */
			regs[4] = 1 | 1ull << 17;               /* IbsLdOp, IbsDcLinAddrValid */
			regs[5] = 0x1000 + 64 * (uint64_t)i;    /* IbsDcLinAd */
			memcpy(raw + 4, regs, sizeof(regs));
			s.sample_type = a.sample_type;
			s.cpumode = 2;
			s.id = id;
			s.ip = 0x401000 + i;
			s.pid = s.tid = 77;
			s.time = 1000 + i;
			s.raw.data = raw;
			s.raw.size = cut && i == 99 ? 20 : sizeof(raw);
			if (hwp_writer__add_sample(w, idx, &in) < 0)
				goto fail;
		}
		if (hwp_writer__close(w) < 0)
			goto fail;
		return 0;
	}
	w = hwp_writer__open(argv[2]);
	if (!w || (idx = hwp_writer__add_attr(w, &a, &id, 1, "cpu/mem-loads,ldlat=64/P")) < 0 ||
	    hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "mem-host") ||
	    hwp_writer__set_string(w, HWP_FEAT_OSRELEASE, "6.1.0-mem") ||
	    hwp_writer__set_string(w, HWP_FEAT_VERSION, "6.1.0") ||
	    hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUID, "GenuineIntel,6,85,4") ||
	    hwp_writer__set_nrcpus(w, 8, 8)) {
		fprintf(stderr, "gen_mem_perfdata: %s\n", hwp_errmsg());
		return 1;
	}
	/* 46 defined bits alone, then random values over those bits */
	unsigned n = 46 + nrandom;
	for (unsigned i = 0; i < n; i++) {
		struct hwp_sample s = { 0 };
		struct hwp_sample_in in = { .s = &s };
		uint64_t r = rnd64();

		s.sample_type = a.sample_type;
		s.cpumode = 2; /* user */
		s.id = id;
		s.ip = 0x401000 + (r & 0xfff);
		s.pid = s.tid = 1000 + (uint32_t)(r >> 60);
		s.time = 1000000 + i * 1000;
		s.addr = (r & 1) ? 0x7ffc00000000ULL + (r >> 20 & 0xffff) : 0x600000 + (r >> 30 & 0xffff);
		s.cpu = (uint32_t)(r >> 40 & 7);
		s.data_src = i < 46 ? 1ULL << i : rnd64() & ((1ULL << 46) - 1);
		if (wstruct) {
			s.weight_var1 = (uint32_t)(rnd64() % 2000);
			s.weight_var2 = (uint16_t)(rnd64() % 300);
		} else {
			s.weight = rnd64() % 5000;
		}
		if (hwp_writer__add_sample(w, idx, &in) < 0) {
			fprintf(stderr, "gen_mem_perfdata: %s\n", hwp_errmsg());
			return 1;
		}
	}
	if (hwp_writer__close(w) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "gen_mem_perfdata: %s\n", hwp_errmsg());
	return 1;
}
