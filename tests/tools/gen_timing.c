/* SPDX-License-Identifier: MIT */
/*
 * Writes a perf.data whose branch stacks run a two-block loop with known
 * latency distributions, and the ground truth of what a block-timing
 * analysis must find. Block A [0x401000, 0x401010] ends in a jump to block
 * B [0x401100, 0x401120], whose last instruction jumps back to A (the back
 * edge 0x401120 -> 0x401000). A's latency is bimodal: 70% near 30 cycles,
 * 30% near 200 (a hit and a miss); B's is unimodal near 50. About 2% of the
 * entries have cycles 0 (unknown). The module is not on disk, so nothing is
 * decoded and every range is kept.
 *
 * usage: gen_timing OUT TRUTH [--samples N] [--emulated] [--no-cycles]
 *                   [--miss PCT] [--seed N]
 * --miss sets A's share of slow executions (default 30); --seed another
 * random stream (default 0: the fixed one).
 * TRUTH gets one line per histogram cell: "block START END CYCLES COUNT" and
 * "loop BRANCH HEAD CYCLES COUNT" (addresses in hex, as recorded).
 * --emulated names the event branches:emulated (hwprof's emulated
 * recordings); --no-cycles records with no_cycles and every count 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

#define A_START 0x401000ULL
#define A_END 0x401010ULL
#define B_START 0x401100ULL
#define B_END 0x401120ULL
#define DEPTH 16

static uint64_t rng = 88172645463325252ULL;
static double uni(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static uint16_t gauss(double mu, double sigma)
{
	double v = mu + sigma * sqrt(-2 * log(uni())) * cos(2 * M_PI * uni());
	return (uint16_t)(v < 1 ? 1 : v > 65535 ? 65535 : lround(v));
}

/* truth: cycles -> count per histogram (0: block A, 1: block B, 2: loop) */
static uint64_t truth[3][65536 * 2];

static int die(const char *msg)
{
	fprintf(stderr, "gen_timing: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned samples = 400;
	double miss = 0.3;
	bool emulated = false, no_cycles = false;

	if (argc < 3)
		return die("usage: OUT TRUTH [--samples N] [--emulated] [--no-cycles] [--miss PCT] [--seed N]");
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--emulated"))
			emulated = true;
		else if (!strcmp(argv[i], "--no-cycles"))
			no_cycles = true;
		else if (!strcmp(argv[i], "--miss") && i + 1 < argc)
			miss = strtod(argv[++i], NULL) / 100;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng += strtoull(argv[++i], NULL, 0) * 0x9e3779b97f4a7c15ULL;
		else
			return die("unknown option");
	}
	struct hwp_writer *w = hwp_writer__open(argv[1]);
	if (!w)
		return die(hwp_errmsg());
	struct hwp_attr a = { 0 };
	a.type = 0;
	a.config = emulated ? 4 : 0;
	a.size = 128;
	a.sample_period = 20011;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
			HWP_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = HWP_BRANCH_ANY | HWP_BRANCH_USER | (no_cycles ? HWP_BRANCH_NO_CYCLES : 0);
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2) | (1ULL << HWP_ATTR_EXCLUDE_KERNEL);
	int idx = hwp_writer__add_attr(w, &a, NULL, 0, emulated ? "branches:emulated" : "cycles:u");
	if (idx < 0)
		return die(hwp_errmsg());
	hwp_writer__set_host_features(w);
	struct hwp_sample id = { .pid = 4242, .tid = 4242, .time = 1000, .sample_type = a.sample_type };
	uint64_t t = 2000;
	hwp_writer__add_comm(w, idx, 4242, 4242, "timing_fixture", true, &id);
	hwp_writer__add_mmap2(w, idx, 4242, 4242, 0x400000, 0x10000, 0, NULL, 0, 5, 2,
			      "/nonexistent/timing_fixture", HWP_MISC_USER, &id);

	struct hwp_branch_entry x[DEPTH], e[DEPTH];
	for (unsigned n = 0; n < samples; n++) {
		/* oldest first: x[j] ends the block x[j-1] jumped to */
		bool a_end = uni() < 0.5;
		for (unsigned j = 0; j < DEPTH; j++, a_end = !a_end) {
			memset(&x[j], 0, sizeof(x[j]));
			x[j].from = a_end ? A_END : B_END;
			x[j].to = a_end ? B_START : A_START;
			x[j].predicted = 1;
			x[j].cycles = a_end ? (uni() >= miss ? gauss(30, 1.5) : gauss(200, 6)) : gauss(50, 3);
			if (no_cycles || uni() < 0.02)
				x[j].cycles = 0;
			if (j >= 1 && x[j].cycles)
				truth[a_end ? 0 : 1][x[j].cycles]++;
			/* an iteration: back edge x[j-2] ... back edge x[j] */
			if (!a_end && j >= 2 && x[j - 1].cycles && x[j].cycles)
				truth[2][x[j - 1].cycles + x[j].cycles]++;
		}
		for (unsigned j = 0; j < DEPTH; j++)
			e[j] = x[DEPTH - 1 - j];
		struct hwp_sample s = { 0 };
		s.sample_type = a.sample_type;
		s.cpumode = HWP_MISC_USER;
		s.ip = e[0].to;
		s.pid = s.tid = 4242;
		s.time = t++;
		s.period = 20011;
		s.branch_nr = DEPTH;
		struct hwp_sample_in in = { .s = &s, .branches = e };
		if (hwp_writer__add_sample(w, idx, &in) < 0)
			return die(hwp_errmsg());
	}
	if (hwp_writer__close(w) < 0)
		return die(hwp_errmsg());
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return die("cannot write the truth file");
	for (unsigned c = 1; c < 65536 * 2; c++) {
		if (truth[0][c])
			fprintf(f, "block %llx %llx %u %llu\n", A_START, A_END, c, (unsigned long long)truth[0][c]);
		if (truth[1][c])
			fprintf(f, "block %llx %llx %u %llu\n", B_START, B_END, c, (unsigned long long)truth[1][c]);
		if (truth[2][c])
			fprintf(f, "loop %llx %llx %u %llu\n", B_END, A_START, c, (unsigned long long)truth[2][c]);
	}
	return fclose(f) ? die("cannot write the truth file") : 0;
}
