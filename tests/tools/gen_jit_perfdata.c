/* SPDX-License-Identifier: MIT */
/*
 * gen_jit_perfdata: a recording of a JIT whose truth is known, for
 * tests/e2e/jit_names.sh. Writes DIR/jit-PID.dump (perf's jitdump format,
 * byte by byte from Documentation/jitdump-specification.txt) and OUT.data
 * (with hwprof's writer, every event on CLOCK_MONOTONIC as perf record -k
 * mono records), whose samples run in the dump's code:
 *
 *   time  what
 *   +1    MMAP2 //anon rwx [0x7f0000010000, +0x30000): the code heap
 *   +2    MMAP2 DIR/jit-PID.dump r-x: the JIT's marker
 *   +9    (dump) DEBUG_INFO for the next load: /src/loop.js lines 10-13
 *   +10   (dump) LOAD jit_loop_a at 0x7f0000010000: xor; L: inc; cmp; jne L; ret
 *   +11   (dump) LOAD jit_callee_b at 0x7f0000020000: nop; nop; ret
 *   +50   MMAP2 //anon over the heap again (perf inject drops it: its process
 *         has a jitdump)
 *   +100  samples in jit_loop_a: branch stacks of its loop (8 x jne taken;
 *         every 4th sample leaves it: ret, then 7 x jne), called from B
 *   +1000 (dump) LOAD jit_replaced_c at jit_loop_a's address:
 *         mov ecx, 10; L: dec ecx; jnz L; ret
 *   +1100 samples in jit_replaced_c (8 x jnz taken)
 *   +2000 (dump) MOVE of jit_callee_b to 0x7f0000030000
 *   +2100 samples in the moved jit_callee_b (its ret to C, 7 x jnz)
 *
 * With --mem the samples are precise loads (DATA_SRC, WEIGHT, ADDR) at the
 * same addresses, without stacks. With --realtime the events use
 * CLOCK_REALTIME (a jitdump cannot be placed on that clock). With
 * --no-marker the recording has no marker (nor the second //anon): its
 * code is named by a perf map, if any; the samples' addresses then spread
 * over the first 0x100 bytes of each function's place. With --tsc the dump's
 * timestamps are the CPU's (JITDUMP_FLAGS_ARCH_TIMESTAMP): 2 * (t - TZ)
 * cycles for perf time t, and the recording has the TIME_CONV record that
 * converts them back (time_shift 1, time_mult 1, time_zero TZ).
 *
 * Prints the truth as KEY=VALUE lines: per phase the samples, and the
 * loops' conditional branches' taken and not-taken counts as `hwprof
 * probs` counts them (ranges between consecutive entries: the one a range
 * ends at was taken, one inside it was not).
 *
 *   gen_jit_perfdata DIR PID OUT.data [--mem] [--realtime] [--no-marker] [--tsc] [--samples N]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

#define A 0x7f0000010000ULL
#define B 0x7f0000020000ULL
#define BM 0x7f0000030000ULL
#define T0 1000000000ULL
#define CONTEXT_USER ((uint64_t)-512)
#define TZ (T0 - 5000)

static const uint8_t code_a[] = { 0x31, 0xc0, 0xff, 0xc0, 0x83, 0xf8, 0x64, 0x75, 0xf9, 0xc3 };
static const uint8_t code_b[] = { 0x90, 0x90, 0xc3 };
static const uint8_t code_c[] = { 0xb9, 0x0a, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

static FILE *dump;
static uint32_t pid;
static bool tsc;

/* A dump timestamp for perf time T. */
static uint64_t ts_of(uint64_t t)
{
	return tsc ? 2 * (t - TZ) : t;
}

static void u32(uint32_t v)
{
	fwrite(&v, 4, 1, dump);
}

static void u64(uint64_t v)
{
	fwrite(&v, 8, 1, dump);
}

static void prefix(uint32_t id, uint32_t size, uint64_t ts)
{
	u32(id);
	u32(size);
	u64(ts_of(ts));
}

static void load(uint64_t ts, uint64_t addr, uint64_t index, const char *name, const uint8_t *code, size_t n)
{
	prefix(0, (uint32_t)(56 + strlen(name) + 1 + n), ts);
	u32(pid);
	u32(pid);
	u64(addr);
	u64(addr);
	u64(n);
	u64(index);
	fwrite(name, strlen(name) + 1, 1, dump);
	fwrite(code, n, 1, dump);
}

static int die(const char *what)
{
	fprintf(stderr, "gen_jit_perfdata: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	bool mem = false, realtime = false, marker = true;
	unsigned n = 400;
	char path[4096];

	if (argc < 4) {
		fprintf(stderr, "usage: gen_jit_perfdata DIR PID OUT.data [--mem] [--realtime] [--no-marker] [--tsc] "
				"[--samples N]\n");
		return 2;
	}
	pid = (uint32_t)strtoul(argv[2], NULL, 0);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--mem"))
			mem = true;
		else if (!strcmp(argv[i], "--realtime"))
			realtime = true;
		else if (!strcmp(argv[i], "--no-marker"))
			marker = false;
		else if (!strcmp(argv[i], "--tsc"))
			tsc = true;
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			n = (unsigned)strtoul(argv[++i], NULL, 0);
	}

	/* the dump */
	snprintf(path, sizeof(path), "%s/jit-%u.dump", argv[1], pid);
	if (!(dump = fopen(path, "wb")))
		return die(strerror(errno));
	u32(0x4A695444);
	u32(1);
	u32(40);
	u32(62); /* EM_X86_64 */
	u32(0);
	u32(pid);
	u64(ts_of(T0));
	u64(tsc ? 1 : 0); /* JITDUMP_FLAGS_ARCH_TIMESTAMP */
	static const struct {
		uint64_t off;
		uint32_t line;
	} lines[] = { { 0, 10 }, { 2, 11 }, { 7, 12 }, { 9, 13 } };
	const char *src = "/src/loop.js";
	uint32_t dsize = 32;
	for (size_t i = 0; i < 4; i++)
		dsize += 16 + (uint32_t)strlen(src) + 1;
	prefix(2, dsize, T0 + 9);
	u64(A);
	u64(4);
	for (size_t i = 0; i < 4; i++) {
		u64(A + lines[i].off);
		u32(lines[i].line);
		u32(0);
		fwrite(src, strlen(src) + 1, 1, dump);
	}
	load(T0 + 10, A, 1, "jit_loop_a", code_a, sizeof(code_a));
	load(T0 + 11, B, 2, "jit_callee_b", code_b, sizeof(code_b));
	load(T0 + 1000, A, 3, "jit_replaced_c", code_c, sizeof(code_c));
	prefix(1, 64, T0 + 2000);
	u32(pid);
	u32(pid);
	u64(BM);
	u64(B);
	u64(BM);
	u64(sizeof(code_b));
	u64(2);
	prefix(3, 16, T0 + 3000);
	if (fclose(dump))
		return die(strerror(errno));

	/* the recording */
	struct hwp_writer *w = hwp_writer__open(argv[3]);
	if (!w)
		return die(hwp_errmsg());
	struct hwp_attr a = { 0 };
	a.size = 128;
	a.sample_period = 100003;
	if (mem) {
		a.type = 4; /* raw: MEM_TRANS_RETIRED.LOAD_LATENCY */
		a.config = 0x1cd;
		a.config1 = 0x40;
		a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR |
				HWP_SAMPLE_PERIOD | HWP_SAMPLE_DATA_SRC | HWP_SAMPLE_WEIGHT;
	} else {
		a.type = 0; /* cycles */
		a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
				HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = HWP_BRANCH_ANY | HWP_BRANCH_USER;
	}
	a.clockid = realtime ? 0 : 1; /* CLOCK_MONOTONIC */
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2) | (1ULL << HWP_ATTR_EXCLUDE_KERNEL) | (1ULL << HWP_ATTR_USE_CLOCKID) |
		  (mem ? 2ULL << HWP_ATTR_PRECISE_IP : 0);
	int idx = hwp_writer__add_attr(w, &a, NULL, 0, mem ? "cpu/mem-loads,ldlat=30/Pu" : "cycles:u");
	if (idx < 0)
		return die(hwp_errmsg());
	hwp_writer__set_host_features(w);
	if (!mem)
		hwp_writer__set_flag_feature(w, HWP_FEAT_BRANCH_STACK);

	if (tsc) {
		/* PERF_RECORD_TIME_CONV with cap_user_time_zero */
		uint8_t rec[56] = { 0 };
		uint64_t f[5] = { 1, 1, TZ, 0, 0 };
		uint32_t type = 79;
		uint16_t misc = 0, size = sizeof(rec);

		memcpy(rec, &type, 4);
		memcpy(rec + 4, &misc, 2);
		memcpy(rec + 6, &size, 2);
		memcpy(rec + 8, f, sizeof(f));
		rec[48] = 1;
		if (hwp_writer__add_raw(w, rec, sizeof(rec)) < 0)
			return die(hwp_errmsg());
	}
	struct hwp_sample id = { .pid = pid, .tid = pid, .sample_type = a.sample_type };
	id.time = T0;
	hwp_writer__add_comm(w, idx, pid, pid, "jitprog", true, &id);
	id.time = T0 + 1;
	hwp_writer__add_mmap2(w, idx, pid, pid, A, 0x30000, A, NULL, 0, 7, 0x22, "//anon", HWP_MISC_USER, &id);
	if (marker) {
		id.time = T0 + 2;
		hwp_writer__add_mmap2(w, idx, pid, pid, 0x7f00000f0000ULL, 0x1000, 0, NULL, 0, 5, 2, path,
				      HWP_MISC_USER, &id);
		id.time = T0 + 50;
		hwp_writer__add_mmap2(w, idx, pid, pid, A, 0x30000, A, NULL, 0, 7, 0x22, "//anon", HWP_MISC_USER, &id);
	}

	struct hwp_branch_entry ent[8];
	uint64_t chain[3];
	unsigned na = n, nc = n / 2, nb = n / 4, exits = 0;
	for (unsigned phase = 0; phase < 3; phase++) {
		unsigned count = phase == 0 ? na : phase == 1 ? nc : nb;
		uint64_t t = T0 + (phase == 0 ? 100 : phase == 1 ? 1100 : 2100);

		for (unsigned i = 0; i < count; i++) {
			struct hwp_sample s = { 0 };
			unsigned depth = 8;

			memset(ent, 0, sizeof(ent));
			for (unsigned d = 0; d < 8; d++) {
				/* the loops' back edges: A's jne (A+7 -> A+2), C's jnz (A+7 -> A+5) */
				ent[d].from = A + 7;
				ent[d].to = phase == 0 ? A + 2 : A + 5;
				ent[d].predicted = 1;
			}
			if (phase == 0 && i % 4 == 0) {
				/* leaving the loop: ret to B */
				ent[0].from = A + 9;
				ent[0].to = B + 1;
				exits++;
			} else if (phase == 2) {
				/* the moved B returns into C's loop */
				ent[0].from = BM + 2;
				ent[0].to = A + 5;
			}
			s.sample_type = a.sample_type;
			s.cpumode = HWP_MISC_USER;
			s.pid = s.tid = pid;
			s.time = t + i;
			s.period = 100003;
			s.ip = phase == 2 ? BM + 1 : ent[0].to == B + 1 ? A + 9 : ent[0].to;
			if (!marker)
				s.ip = (phase == 2 ? BM : A) + (i * 13) % 0x100;
			chain[0] = CONTEXT_USER;
			chain[1] = s.ip;
			chain[2] = phase == 2 ? A + 5 : B + 1;
			struct hwp_sample_in in = { .s = &s };
			if (mem) {
				s.addr = 0x5555aaaa0000ULL + 64 * (i % 16);
				s.weight = 30 + i % 50;
				s.data_src = 0x68100142ULL; /* a load, L1 hit */
			} else {
				s.callchain_nr = 3;
				s.branch_nr = depth;
				in.branches = ent;
				in.callchain = chain;
			}
			if (hwp_writer__add_sample(w, idx, &in) < 0)
				return die(hwp_errmsg());
		}
	}
	if (hwp_writer__close(w) < 0)
		return die(hwp_errmsg());
	/* ranges of a stack: 7 (its 8 entries); A's: [A+2, A+7] ends at the jne
	   (taken), an exit stack's newest [A+2, A+9] runs over it (not taken) */
	printf("samples_a=%u\nsamples_c=%u\nsamples_b=%u\n", na, nc, nb);
	printf("a_taken=%u\na_not_taken=%u\n", 7 * (na - exits) + 6 * exits, exits);
	/* C: 7 ranges [A+5, A+7] per stack in phase 1; phase 2's newest range
	   is [A+5, BM+2] across modules (not C's), its 6 others are C's */
	printf("c_taken=%u\nc_not_taken=0\n", 7 * nc + 6 * nb);
	return 0;
}
