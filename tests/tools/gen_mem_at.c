/* SPDX-License-Identifier: MIT */
/*
 * gen_mem_at: writes a perf.data of precise load samples (PEBS load latency,
 * L1 hits) whose IPs are the instructions of BINARY at the given file
 * offsets: BINARY mapped whole, executable, at 0x555555554000 in one
 * process, one sample per offset, each data address an anonymous one (no
 * map holds it). What hwprof names there comes from the binary alone, so
 * tests of data types run where no program can be recorded.
 *
 *   gen_mem_at OUT.data BINARY OFFSET...
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_writer.h"

#define BASE 0x555555554000ULL

int main(int argc, char **argv)
{
	struct hwp_attr a = { 0 };
	struct hwp_writer *w;
	struct hwp_sample id = { 0 };
	struct stat st;
	uint64_t aid = 1;
	int idx;

	if (argc < 4 || stat(argv[2], &st) < 0) {
		fprintf(stderr, "usage: gen_mem_at OUT.data BINARY OFFSET...\n");
		return 2;
	}
	a.type = 4; /* PERF_TYPE_RAW: MEM_TRANS_RETIRED.LOAD_LATENCY */
	a.config = 0x1cd;
	a.config1 = 0x40;
	a.sample_period = 10007;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR | HWP_SAMPLE_ID |
			HWP_SAMPLE_CPU | HWP_SAMPLE_DATA_SRC | HWP_SAMPLE_WEIGHT;
	a.flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_SAMPLE_ID_ALL | 2ULL << HWP_ATTR_PRECISE_IP |
		  1ULL << HWP_ATTR_MMAP2 | 1ULL << HWP_ATTR_COMM;
	if (!(w = hwp_writer__open(argv[1])) || (idx = hwp_writer__add_attr(w, &a, &aid, 1, "cpu/mem-loads,ldlat=64/P")) < 0)
		goto fail;
	id.id = aid;
	id.pid = id.tid = 4242;
	if (hwp_writer__add_comm(w, idx, 4242, 4242, "gen_mem_at", true, &id) < 0 ||
	    hwp_writer__add_mmap2(w, idx, 4242, 4242, BASE, ((uint64_t)st.st_size + 0xfff) & ~0xfffULL, 0, NULL, 0,
				  5 /* r-x */, 2 /* MAP_PRIVATE */, argv[2], HWP_MISC_USER, &id) < 0)
		goto fail;
	for (int i = 3; i < argc; i++) {
		struct hwp_sample s = { 0 };
		struct hwp_sample_in in = { .s = &s };

		s.sample_type = a.sample_type;
		s.cpumode = HWP_MISC_USER;
		s.id = aid;
		s.ip = BASE + strtoull(argv[i], NULL, 0);
		s.pid = s.tid = 4242;
		s.time = 1000 + (uint64_t)i;
		s.addr = 0x7f0000001000ULL + 64 * (uint64_t)i;
		/* PERF_MEM_OP_LOAD | PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1 */
		s.data_src = 0x2 | (0x2 | 0x8) << 5;
		s.weight = 4;
		if (hwp_writer__add_sample(w, idx, &in) < 0)
			goto fail;
	}
	if (hwp_writer__close(w) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "gen_mem_at: %s\n", hwp_errmsg());
	return 1;
}
