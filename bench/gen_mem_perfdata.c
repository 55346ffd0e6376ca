/* SPDX-License-Identifier: MIT */
/*
 * gen_mem_perfdata: writes a large perf.data of precise memory samples (as
 * perf mem record on Intel: a PEBS load-latency event and a store event,
 * with ADDR, WEIGHT and DATA_SRC) for benchmarks of hwprof mem and c2c.
 *
 *   gen_mem_perfdata OUT.data SAMPLES [--addrs K] [--cpus C] [--threads T] [--seed N] [--callchain]
 *
 * One process of T threads (default 8) on C CPUs (default 8; thread i on CPU i * C / T) runs a fake binary (one module, mapped
 * with MMAP2, build-id in the header: 4096 load/store instructions) over K
 * distinct data addresses (default 100000): a quarter in the binary's
 * file-backed data mapping (module + offset), half on [heap], the rest in
 * anonymous memory and on [stack], 40 bytes apart so that a cache line holds
 * one or two of them. Half of the samples pick an address uniformly, half
 * with a skew (a few hot ones), so a million samples touch nearly all K;
 * each address is accessed by one of 4 instructions of its own. One address
 * in three is shared by every thread (the others each belong to one thread),
 * and only shared ones see HITMs. Data sources (L1 to remote DRAM) and
 * latencies follow a fixed mix; a quarter of the samples are stores.
 *
 * So the file grows with SAMPLES but its distinct keys (addresses, cache
 * lines, instructions, address x instruction pairs, threads per line) stay
 * bounded by K: a report whose memory follows the keys needs about the same
 * for 1 M and 10 M samples. A FINISHED_ROUND is written every 5000 samples;
 * 80 bytes a sample. Deterministic for a given seed. --callchain adds each
 * sample's call stack (perf record -g): the instruction's function is
 * called from one of 32 places, each called from one of 4 (the tests of
 * call graphs of memory samples).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/data_src.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

#define PID 5000
#define NTHREADS 8 /* by default */
#define NCODE 4096
#define ROUND_SAMPLES 5000
#define STRIDE 40
#define BIN_PATH "/usr/lib/hwprof-bench/memfake"

/* The mappings: the binary's text and data, heap, anonymous memory, stack. */
enum { R_DATA, R_HEAP, R_ANON, R_STACK, NR_REGIONS };
static const struct {
	uint64_t base, len, pgoff;
	uint32_t prot;
	const char *name;
} regions[NR_REGIONS] = {
	{ 0x555556000000ULL, 256ULL << 20, 0x1000000, 3, BIN_PATH },
	{ 0x555570000000ULL, 1ULL << 30, 0, 3, "[heap]" },
	{ 0x7f2000000000ULL, 1ULL << 30, 0, 3, "//anon" },
	{ 0x7ffd00000000ULL, 256ULL << 20, 0, 3, "[stack]" },
};
#define TEXT_BASE 0x555555554000ULL
#define TEXT_LEN (16ULL << 20)

static uint64_t rs;

static uint64_t rnd64(void)
{
	/* xorshift64* */
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

/* A data_src value: operation, level bits, snoop, level number. */
static uint64_t data_src(int store, uint64_t lvl, uint64_t snoop, uint64_t lvl_num)
{
	return (store ? HWP_MEM_OP_STORE : HWP_MEM_OP_LOAD) | (HWP_MEM_LVL_HIT | lvl) << 5 | snoop << 19 |
	       lvl_num << 33;
}

/* Address I: I % 8 picks the region (2 of 8 the binary's data, 4 the heap,
   1 anon, 1 stack), and the slot in it follows from I / 8, the addresses of
   a region packed STRIDE bytes apart. */
static uint64_t address(uint64_t i)
{
	static const struct { int region, slot, per; } where[8] = {
		{ R_DATA, 0, 2 }, { R_DATA, 1, 2 }, { R_HEAP, 0, 4 }, { R_HEAP, 1, 4 },
		{ R_HEAP, 2, 4 }, { R_HEAP, 3, 4 }, { R_ANON, 0, 1 }, { R_STACK, 0, 1 },
	};
	const int k = (int)(i % 8);

	return regions[where[k].region].base + 0x1000 +
	       ((i / 8) * (uint64_t)where[k].per + (uint64_t)where[k].slot) * STRIDE;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gen_mem_perfdata OUT.data SAMPLES [--addrs K] [--cpus C] [--threads T] [--seed N] [--callchain]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t nsamples = 0, naddrs = 100000, seed = 1, t = 1000000000ULL, ncpus = NTHREADS, nthreads = NTHREADS;
	int pos = 0, callchain = 0;
	struct hwp_writer *w;
	struct hwp_attr a;
	uint64_t ids[2] = { 101, 102 };
	int idx[2];
	uint8_t bid[20];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--addrs") && i + 1 < argc)
			naddrs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			ncpus = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--callchain"))
			callchain = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (pos == 0)
			out = argv[i], pos++;
		else if (pos == 1)
			nsamples = strtoull(argv[i], NULL, 0), pos++;
		else
			usage();
	}
	/* the heap holds half the addresses, the stack an eighth in 256 MiB */
	if (!out || naddrs < 1 || ncpus < 1 || ncpus > 4096 || nthreads < 1 || nthreads > 4096 ||
	    naddrs / 8 + 1 > (255ULL << 20) / STRIDE)
		usage();
	rs = seed * 0x9e3779b97f4a7c15ULL + 0x1234567;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0x31 + 11 * i);

	if (!(w = hwp_writer__open(out)))
		goto fail;
	memset(&a, 0, sizeof(a));
	a.type = 4; /* PERF_TYPE_RAW: MEM_TRANS_RETIRED.LOAD_LATENCY, ldlat 30 */
	a.config = 0x1cd;
	a.config1 = 30;
	a.sample_period = 10007;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR | HWP_SAMPLE_ID |
			HWP_SAMPLE_CPU | HWP_SAMPLE_PERIOD | HWP_SAMPLE_WEIGHT | HWP_SAMPLE_DATA_SRC |
			(callchain ? HWP_SAMPLE_CALLCHAIN : 0);
	a.flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_INHERIT | 1ULL << HWP_ATTR_MMAP |
		  1ULL << HWP_ATTR_COMM | 1ULL << HWP_ATTR_SAMPLE_ID_ALL | 1ULL << HWP_ATTR_MMAP2 |
		  1ULL << HWP_ATTR_MMAP_DATA | 1ULL << HWP_ATTR_EXCLUDE_KERNEL | 2ULL << HWP_ATTR_PRECISE_IP;
	if ((idx[0] = hwp_writer__add_attr(w, &a, &ids[0], 1, "cpu/mem-loads,ldlat=30/Pu")) < 0)
		goto fail;
	a.config = 0x82d0; /* MEM_INST_RETIRED.ALL_STORES */
	a.config1 = 0;
	if ((idx[1] = hwp_writer__add_attr(w, &a, &ids[1], 1, "cpu/mem-stores/Pu")) < 0 ||
	    hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "bench-host") ||
	    hwp_writer__set_string(w, HWP_FEAT_OSRELEASE, "6.1.0-bench") ||
	    hwp_writer__set_string(w, HWP_FEAT_VERSION, "6.1.0") ||
	    hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUDESC, "Synthetic CPU @ 3.00GHz") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUID, "GenuineIntel,6,85,4") ||
	    hwp_writer__set_nrcpus(w, (uint32_t)ncpus, (uint32_t)ncpus) ||
	    hwp_writer__add_build_id(w, -1, HWP_MISC_USER, bid, 20, BIN_PATH))
		goto fail;
	for (int i = 0; i < (int)nthreads; i++) {
		struct hwp_sample sid;

		memset(&sid, 0, sizeof(sid));
		sid.pid = PID;
		sid.tid = PID + (uint32_t)i;
		sid.time = t++;
		sid.id = ids[0];
		if (hwp_writer__add_comm(w, idx[0], PID, PID + (uint32_t)i, "memfake", i == 0, &sid))
			goto fail;
	}
	{
		struct hwp_sample sid;

		memset(&sid, 0, sizeof(sid));
		sid.pid = sid.tid = PID;
		sid.time = t++;
		sid.id = ids[0];
		if (hwp_writer__add_mmap2(w, idx[0], PID, PID, TEXT_BASE, TEXT_LEN, 0, bid, 20, 5 /* r-x */,
					  2 /* private */, BIN_PATH, HWP_MISC_USER, &sid))
			goto fail;
		for (int r = 0; r < NR_REGIONS; r++)
			if (hwp_writer__add_mmap2(w, idx[0], PID, PID, regions[r].base, regions[r].len, regions[r].pgoff,
						  r == R_DATA ? bid : NULL, r == R_DATA ? 20 : 0, regions[r].prot, 2,
						  regions[r].name, HWP_MISC_USER, &sid))
				goto fail;
	}

	for (uint64_t n = 0; n < nsamples; n++) {
		struct hwp_sample s;
		struct hwp_sample_in in = { .s = &s };
		uint64_t r = rnd64(), r2 = rnd64();
		/* half uniform, half skewed to the low (hot) addresses */
		uint64_t i = r & 1 ? r2 % naddrs : (r2 % naddrs) * ((r2 >> 32) % naddrs) / naddrs;
		int shared = i % 3 == 0, store = (r >> 1 & 3) == 0;
		unsigned th = shared ? (unsigned)((r >> 3) % nthreads) : (unsigned)(i % nthreads);
		unsigned lvl = (unsigned)(r >> 8 & 1023); /* per mille */
		uint64_t lat, src;

		if (lvl < 600)
			src = data_src(store, HWP_MEM_LVL_L1, HWP_MEM_SNOOP_NONE, HWP_MEM_LVLNUM_L1), lat = 4 + (r >> 20 & 3);
		else if (lvl < 650)
			src = data_src(store, HWP_MEM_LVL_LFB, HWP_MEM_SNOOP_NONE, HWP_MEM_LVLNUM_LFB), lat = 8 + (r >> 20 & 7);
		else if (lvl < 800)
			src = data_src(store, HWP_MEM_LVL_L2, HWP_MEM_SNOOP_NONE, HWP_MEM_LVLNUM_L2), lat = 12 + (r >> 20 & 7);
		else if (lvl < 900)
			src = data_src(store, HWP_MEM_LVL_L3, HWP_MEM_SNOOP_HIT, HWP_MEM_LVLNUM_L3), lat = 40 + (r >> 20 & 31);
		else if (lvl < 930 && shared)
			src = data_src(store, HWP_MEM_LVL_L3, HWP_MEM_SNOOP_HITM, HWP_MEM_LVLNUM_L3), lat = 80 + (r >> 20 & 63);
		else if (lvl < 1010)
			src = data_src(store, HWP_MEM_LVL_LOC_RAM, HWP_MEM_SNOOP_MISS, HWP_MEM_LVLNUM_RAM),
			lat = 200 + (r >> 20 & 255);
		else
			src = data_src(store, HWP_MEM_LVL_REM_RAM1, HWP_MEM_SNOOP_MISS, HWP_MEM_LVLNUM_RAM) | 1ULL << 37,
			lat = 300 + (r >> 20 & 511);
		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.ip = TEXT_BASE + 0x1000 + ((i * 7 + (r >> 40 & 3)) % NCODE) * 6;
		s.pid = PID;
		s.tid = PID + th;
		s.time = t += 1000 + (r >> 44 & 1023);
		s.addr = address(i);
		s.id = ids[store];
		/* a thread runs on its own CPU, now and then on another one */
		s.cpu = (uint32_t)((r >> 54 & 15) ? th * ncpus / nthreads : (r >> 58) % ncpus);
		s.period = 10007;
		s.weight = lat;
		s.data_src = src;
		/* the user context, the IP, then return addresses: its caller
		   (one of 32 by instruction) and that one's (one of 4) */
		uint64_t chain[4] = { 0xfffffffffffffe00ULL, s.ip,
				      TEXT_BASE + 0x100000 + (s.ip / 6 % 32) * 0x40 + 5,
				      TEXT_BASE + 0x200000 + (s.ip / 6 % 4) * 0x40 + 5 };
		if (callchain) {
			in.callchain = chain;
			s.callchain_nr = 4;
		}
		if (hwp_writer__add_sample(w, idx[store], &in))
			goto fail;
		if ((n + 1) % ROUND_SAMPLES == 0 && hwp_writer__add_finished_round(w))
			goto fail;
	}
	if (hwp_writer__add_finished_round(w))
		goto fail;
	{
		uint64_t bytes = hwp_writer__size(w);

		if (hwp_writer__close(w))
			goto fail_closed;
		printf("%s: %" PRIu64 " bytes, %" PRIu64 " samples over %" PRIu64 " addresses\n", out, bytes,
		       nsamples, naddrs);
	}
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_mem_perfdata: stdout");
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "gen_mem_perfdata: %s\n", hwp_errmsg());
	if (w)
		hwp_writer__abort(w);
	return 1;
fail_closed:
	fprintf(stderr, "gen_mem_perfdata: %s\n", hwp_errmsg());
	return 1;
}
