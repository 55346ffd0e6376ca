/* SPDX-License-Identifier: MIT */
/*
 * gen_roundtrip: writes a random (seeded, deterministic) perf.data with
 * hwprof's writer, and the text `perf script -F ip,brstack -G` (perf 6.1)
 * must print for it.
 *
 *   gen_roundtrip SEED OUT.data EXPECTED.txt [EXPECTED_EVLIST.txt] [--samples N]
 *
 * The file has 1-4 attrs (routed by ID or IDENTIFIER ids), branch stacks of
 * depth 0-64 with every flag field random (mispred, predicted, in_tx, abort,
 * cycles, type, spec, new_type, priv), with and without HW_INDEX, callchains,
 * and most other sample fields (ADDR, CPU, STREAM_ID, PERIOD, READ, RAW,
 * REGS_USER, STACK_USER, WEIGHT/WEIGHT_STRUCT, DATA_SRC, TRANSACTION,
 * REGS_INTR, PHYS_ADDR, CGROUP, DATA/CODE_PAGE_SIZE) so that any layout slip
 * before or after the branch stack shows up as a parse error or wrong text.
 * Non-sample records (COMM, MMAP2, FORK, EXIT, FINISHED_ROUND) are mixed in.
 * Samples are written in increasing time order, so perf's time ordering
 * keeps file order.
 */
#include <errno.h>
#include <inttypes.h>
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

static uint64_t rnd(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

static int chance(unsigned pct)
{
	return rnd(100) < pct;
}

/* perf 6.1's branch type names (util/branch.c). */
static const char *const type_names[16] = {
	"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
};
static const char *const new_type_names[8] = {
	"FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
#ifdef __aarch64__
	"ARM64_FIQ", "ARM64_DEBUG_HALT", "ARM64_DEBUG_EXIT", "ARM64_DEBUG_INST",
	"ARM64_DEBUG_DATA",
#else
	"ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5",
#endif
};

/* What perf 6.1 prints after the cycles: get_branch_type(). */
static const char *perf_type_str(const struct hwp_branch_entry *e)
{
	if (e->type == 0)
		return "";
	if (e->type == 15) /* PERF_BR_EXTEND_ABI: named by new_type */
		return e->new_type < 8 ? new_type_names[e->new_type] : "(null)";
	return type_names[e->type];
}

static uint64_t rnd_addr(void)
{
	switch (rnd(6)) {
	case 0:
		return 0;
	case 1:
		return 0xffffffff81000000ULL + rnd(1 << 24);
	case 2:
		return rnd64();
	case 3:
		return 0x7f0000000000ULL + rnd(1ULL << 32);
	default:
		return 0x400000 + rnd(1 << 20);
	}
}

static void rnd_entry(struct hwp_branch_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->from = rnd_addr();
	e->to = rnd_addr();
	e->mispred = (uint8_t)rnd(2);
	e->predicted = (uint8_t)rnd(2);
	e->in_tx = chance(10);
	e->abort = chance(10);
	switch (rnd(3)) {
	case 0:
		e->cycles = 0;
		break;
	case 1:
		e->cycles = (uint16_t)rnd(64);
		break;
	default:
		e->cycles = (uint16_t)rnd(65536);
	}
	e->type = chance(40) ? 0 : (uint8_t)rnd(16);
	e->spec = (uint8_t)rnd(4);
	e->new_type = (uint8_t)rnd(16);
	e->priv = (uint8_t)rnd(8);
}

static void print_expected(FILE *f, uint64_t ip, const struct hwp_branch_entry *br, uint64_t n)
{
	fprintf(f, " %16" PRIx64, ip);
	for (uint64_t i = 0; i < n; i++) {
		const struct hwp_branch_entry *e = &br[i];
		char mp = (e->mispred || e->predicted) ? (e->predicted ? 'P' : 'M') : '-';

		fprintf(f, " 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%s ", e->from, e->to, mp,
			e->in_tx ? 'X' : '-', e->abort ? 'A' : '-', (unsigned)e->cycles,
			perf_type_str(e));
	}
	fputc('\n', f);
}

#define MAX_ATTRS 4
#define MAX_IDS 3

struct gattr {
	struct hwp_attr attr;
	uint64_t ids[MAX_IDS];
	size_t nr_ids;
	char name[64];
	int idx;
};

static const char *const event_names[] = {
	"cycles:u", "br_inst_retired.near_taken:upp", "instructions:ppp",
	"r534088", "cycles:P", "branch-misses", "mem_load_retired.l3_miss:pp",
};

static int die(const char *what)
{
	fprintf(stderr, "gen_roundtrip: %s: %s\n", what, hwp_errmsg());
	return 1;
}

int main(int argc, char **argv)
{
	const char *out, *exp_path, *evl_path = NULL;
	unsigned long long seed;
	long nsamples = -1;
	struct gattr ga[MAX_ATTRS];
	int nattrs, routing; /* 0 none, 1 ID, 2 IDENTIFIER */
	uint64_t read_format, common;
	int sample_id_all;
	struct hwp_writer *w;
	FILE *exp, *evl = NULL;
	int i, pos = 0;
	char *args[8];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			nsamples = strtol(argv[++i], NULL, 0);
		else if (pos < 8)
			args[pos++] = argv[i];
	}
	if (pos < 3) {
		fprintf(stderr, "usage: gen_roundtrip SEED OUT.data EXPECTED.txt "
				"[EXPECTED_EVLIST.txt] [--samples N]\n");
		return 2;
	}
	seed = strtoull(args[0], NULL, 0);
	out = args[1];
	exp_path = args[2];
	if (pos > 3)
		evl_path = args[3];
	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	if (nsamples < 0)
		nsamples = 50 + (long)rnd(400);

	nattrs = 1 + (int)rnd(MAX_ATTRS);
	routing = nattrs > 1 ? 1 + (int)rnd(2) : (int)rnd(3);
	sample_id_all = (int)rnd(2);
	read_format = chance(30) ? (HWP_FORMAT_TOTAL_TIME_ENABLED * rnd(2) |
				    HWP_FORMAT_TOTAL_TIME_RUNNING * rnd(2) |
				    HWP_FORMAT_ID | HWP_FORMAT_LOST * rnd(2))
				 : 0; /* perf wants ID whenever samples carry READ */
	/* Bits that decide where the id sits: shared by every attr under ID. */
	common = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME;
	if (chance(40))
		common |= HWP_SAMPLE_ADDR;
	if (chance(50))
		common |= HWP_SAMPLE_CPU;
	if (chance(25))
		common |= HWP_SAMPLE_STREAM_ID;
	if (routing == 1)
		common |= HWP_SAMPLE_ID;
	if (routing == 2)
		common |= HWP_SAMPLE_IDENTIFIER | (chance(50) ? HWP_SAMPLE_ID : 0);

	memset(ga, 0, sizeof(ga));
	for (i = 0; i < nattrs; i++) {
		struct hwp_attr *a = &ga[i].attr;
		uint64_t st = common;

		if (routing == 2) { /* IDENTIFIER: the rest may differ per attr */
			st &= ~(uint64_t)(HWP_SAMPLE_ADDR | HWP_SAMPLE_CPU | HWP_SAMPLE_STREAM_ID);
			st |= chance(40) ? HWP_SAMPLE_ADDR : 0;
			st |= chance(50) ? HWP_SAMPLE_CPU : 0;
			st |= chance(25) ? HWP_SAMPLE_STREAM_ID : 0;
		}
		st |= HWP_SAMPLE_BRANCH_STACK;
		if (chance(70))
			st |= HWP_SAMPLE_PERIOD;
		if (read_format && chance(50))
			st |= HWP_SAMPLE_READ;
		if (chance(35))
			st |= HWP_SAMPLE_CALLCHAIN;
		if (chance(20))
			st |= HWP_SAMPLE_RAW;
		if (chance(15))
			st |= HWP_SAMPLE_REGS_USER;
		if (chance(15))
			st |= HWP_SAMPLE_STACK_USER;
		switch (rnd(3)) {
		case 0:
			st |= HWP_SAMPLE_WEIGHT;
			break;
		case 1:
			st |= HWP_SAMPLE_WEIGHT_STRUCT;
			break;
		}
		if (chance(40))
			st |= HWP_SAMPLE_DATA_SRC;
		if (chance(20))
			st |= HWP_SAMPLE_TRANSACTION;
		if (chance(15))
			st |= HWP_SAMPLE_REGS_INTR;
		if (chance(30))
			st |= HWP_SAMPLE_PHYS_ADDR;
		if (chance(15))
			st |= HWP_SAMPLE_CGROUP;
		if (chance(15))
			st |= HWP_SAMPLE_DATA_PAGE_SIZE;
		if (chance(15))
			st |= HWP_SAMPLE_CODE_PAGE_SIZE;

		a->type = (uint32_t)rnd(2) ? 0 : 4;
		a->config = a->type == 0 ? rnd(2) : 0x534088 + rnd(16);
		a->sample_period = 1000 + rnd(1000000);
		a->sample_type = st;
		a->read_format = read_format;
		a->flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_INHERIT |
			   rnd(2) << HWP_ATTR_EXCLUDE_KERNEL |
			   (uint64_t)rnd(4) << HWP_ATTR_PRECISE_IP;
		if (i == 0)
			a->flags |= 1ULL << HWP_ATTR_MMAP | 1ULL << HWP_ATTR_COMM |
				    1ULL << HWP_ATTR_MMAP2 | 1ULL << HWP_ATTR_COMM_EXEC |
				    1ULL << HWP_ATTR_TASK;
		if (sample_id_all)
			a->flags |= 1ULL << HWP_ATTR_SAMPLE_ID_ALL;
		a->branch_sample_type = rnd(3) == 0 ? 0 : HWP_BRANCH_ANY;
		if (a->branch_sample_type)
			a->branch_sample_type |= chance(50) ? HWP_BRANCH_USER : 0;
		if (chance(50))
			a->branch_sample_type |= HWP_BRANCH_HW_INDEX;
		if (st & HWP_SAMPLE_REGS_USER)
			a->sample_regs_user = rnd64() & 0xffffff;
		if (st & HWP_SAMPLE_REGS_INTR)
			a->sample_regs_intr = rnd64() & 0xffffff;
		if (st & HWP_SAMPLE_STACK_USER)
			a->sample_stack_user = 64 + 8 * (uint32_t)rnd(64);
		a->sample_max_stack = (st & HWP_SAMPLE_CALLCHAIN) ? 127 : 0;

		/* READ values carry an id perf looks up: it must be in the header */
		ga[i].nr_ids = routing || (st & HWP_SAMPLE_READ) ? 1 + rnd(MAX_IDS) : rnd(2);
		for (size_t j = 0; j < ga[i].nr_ids; j++)
			ga[i].ids[j] = 1000 * (uint64_t)(i + 1) + j + rnd(3) * 100000;
		snprintf(ga[i].name, sizeof(ga[i].name), "%s",
			 event_names[rnd(sizeof(event_names) / sizeof(event_names[0]))]);
	}

	w = hwp_writer__open(out);
	if (!w)
		return die(out);
	for (i = 0; i < nattrs; i++) {
		ga[i].idx = hwp_writer__add_attr(w, &ga[i].attr, ga[i].ids, ga[i].nr_ids,
						 ga[i].name);
		if (ga[i].idx < 0)
			return die("add_attr");
	}
	if (hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "roundtrip-host") ||
	    hwp_writer__set_string(w, HWP_FEAT_OSRELEASE, "6.1.0-roundtrip") ||
	    hwp_writer__set_string(w, HWP_FEAT_VERSION, "6.1.0") ||
	    hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUDESC, "Fake CPU @ 3.00GHz") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUID, "GenuineIntel,6,85,4") ||
	    hwp_writer__set_nrcpus(w, 8, 8) || hwp_writer__set_total_mem(w, 16318412))
		return die("features");
	{
		const char *cmd[] = { "perf", "record", "-b", "--", "./roundtrip" };

		if (hwp_writer__set_cmdline(w, 5, cmd))
			return die("cmdline");
	}

	exp = fopen(exp_path, "w");
	if (!exp) {
		perror(exp_path);
		return 1;
	}
	if (evl_path) {
		evl = fopen(evl_path, "w");
		if (!evl) {
			perror(evl_path);
			return 1;
		}
		for (i = 0; i < nattrs; i++)
			fprintf(evl, "%s\n", ga[i].name);
		fclose(evl);
	}

	{
		uint64_t t = 1000000000ULL + rnd(1ULL << 40);
		uint32_t pids[4];
		int npids = 1 + (int)rnd(4);
		struct hwp_branch_entry br[64];
		uint64_t cc[32], rd[5];
		uint8_t bytes[512];
		uint32_t next_pid = 5000;

		for (i = 0; i < 512; i++)
			bytes[i] = (uint8_t)rnd(256);
		for (i = 0; i < npids; i++) {
			struct hwp_sample id;
			uint8_t bid[20];

			memset(&id, 0, sizeof(id));
			pids[i] = 100 + (uint32_t)i * 37;
			id.pid = id.tid = pids[i];
			id.time = t++;
			id.id = ga[0].nr_ids ? ga[0].ids[0] : 0;
			if (hwp_writer__add_comm(w, 0, pids[i], pids[i], "roundtrip", true, &id))
				return die("comm");
			for (int k = 0; k < 20; k++)
				bid[k] = (uint8_t)rnd(256);
			id.time = t++;
			if (hwp_writer__add_mmap2(w, 0, pids[i], pids[i], 0x400000, 0x100000, 0,
						  chance(50) ? bid : NULL, 20, 5, 2,
						  "/tmp/roundtrip.bin", HWP_MISC_USER, &id))
				return die("mmap2");
			if (hwp_writer__add_build_id(w, (int32_t)pids[i], HWP_MISC_USER, bid,
						     (uint8_t)(i == 0 ? 20 : 8 + rnd(13)),
						     "/tmp/roundtrip.bin"))
				return die("build_id");
		}

		for (long n = 0; n < nsamples; n++) {
			int ai = (int)rnd((uint64_t)nattrs);
			const struct gattr *g = &ga[ai];
			uint64_t st = g->attr.sample_type;
			struct hwp_sample s;
			struct hwp_sample_in in;
			uint64_t depth;

			/* non-sample records now and then */
			if (chance(5)) {
				struct hwp_sample id;
				uint32_t child = next_pid++;

				memset(&id, 0, sizeof(id));
				id.pid = id.tid = child;
				id.time = t += 1 + rnd(100);
				id.cpu = (uint32_t)rnd(8);
				id.id = g->nr_ids ? g->ids[0] : 0;
				if (hwp_writer__add_fork_exit(w, ai, HWP_RECORD_FORK, child, pids[0],
							      child, pids[0], id.time, &id))
					return die("fork");
				id.time = t += 1 + rnd(100);
				if (hwp_writer__add_comm(w, ai, child, child, "child", false, &id))
					return die("comm");
				id.time = t += 1 + rnd(100);
				if (hwp_writer__add_fork_exit(w, ai, HWP_RECORD_EXIT, child, pids[0],
							      child, pids[0], id.time, &id))
					return die("exit");
			}
			if (chance(3) && hwp_writer__add_finished_round(w))
				return die("finished_round");

			memset(&s, 0, sizeof(s));
			s.pid = s.tid = pids[rnd((uint64_t)npids)];
			s.time = t += 1 + rnd(100000);
			if (chance(20)) {
				s.cpumode = HWP_MISC_KERNEL;
				s.ip = 0xffffffff81000000ULL + rnd(1 << 24);
			} else {
				s.cpumode = HWP_MISC_USER;
				s.ip = 0x400000 + rnd(1 << 20);
			}
			s.id = g->nr_ids ? g->ids[rnd(g->nr_ids)] : 0;
			s.addr = rnd64();
			s.stream_id = rnd64();
			s.cpu = (uint32_t)rnd(8);
			s.period = 1 + rnd(1 << 20);
			if (st & HWP_SAMPLE_READ) {
				/* value, [enabled], [running], id, [lost]: perf looks the
				   id up, so it must be one of the attr's */
				uint64_t nv = 0;

				rd[nv++] = rnd(1 << 30);
				if (read_format & HWP_FORMAT_TOTAL_TIME_ENABLED)
					rd[nv++] = rnd(1 << 30);
				if (read_format & HWP_FORMAT_TOTAL_TIME_RUNNING)
					rd[nv++] = rnd(1 << 30);
				rd[nv++] = s.id;
				if (read_format & HWP_FORMAT_LOST)
					rd[nv++] = rnd(10);
				s.read.data = (const uint8_t *)rd;
				s.read.size = 8 * nv;
			}
			depth = chance(5) ? 0 : chance(5) ? 64 : rnd(65);
			for (uint64_t k = 0; k < depth; k++)
				rnd_entry(&br[k]);
			s.branch_nr = depth;
			s.branch_hw_idx = chance(50) ? rnd(depth + 1) : rnd64();
			s.callchain_nr = rnd(33);
			for (uint64_t k = 0; k < s.callchain_nr; k++)
				cc[k] = k == 0 ? HWP_CONTEXT_USER : 0x400000 + rnd(1 << 20);
			s.raw.data = bytes;
			s.raw.size = rnd(200);
			s.regs_user_abi = rnd(3);
			s.regs_user.data = bytes;
			s.regs_user.size = 8 * 24;
			s.stack_user.data = bytes;
			s.stack_user.size = chance(20) ? 0 : g->attr.sample_stack_user;
			s.stack_user_dyn_size = s.stack_user.size ? rnd(s.stack_user.size) : 0;
			s.weight = rnd(2000);
			if (st & HWP_SAMPLE_WEIGHT_STRUCT)
				s.weight |= rnd(1 << 16) << 32;
			s.data_src = rnd64() & 0xffffffffffULL;
			s.transaction = rnd(1 << 10);
			s.regs_intr_abi = rnd(3);
			s.regs_intr.data = bytes + 64;
			s.regs_intr.size = 8 * 24;
			s.phys_addr = rnd64() & 0xfffffffff000ULL;
			s.cgroup = rnd(1000);
			s.data_page_size = 4096;
			s.code_page_size = chance(50) ? 4096 : 2 << 20;

			memset(&in, 0, sizeof(in));
			in.s = &s;
			in.branches = br;
			in.callchain = cc;
			if (hwp_writer__add_sample(w, g->idx, &in))
				return die("sample");
			print_expected(exp, s.ip, br, depth);
		}
	}
	if (hwp_writer__add_finished_round(w))
		return die("finished_round");
	if (hwp_writer__close(w))
		return die("close");
	if (fclose(exp)) {
		perror(exp_path);
		return 1;
	}
	return 0;
}
