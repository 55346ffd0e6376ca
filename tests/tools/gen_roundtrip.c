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

/*
 * The lines `perf report -D` (6.1) prints for a record, less the file offset
 * and size ("TIME 0x1f0 [0x48]: " becomes "TIME "). Only the lines that do
 * not depend on perf's own state are produced: e2e filters perf's dump the
 * same way.
 */
static uint64_t g_combined;
static int g_sample_id_all;

static void dump_prefix(FILE *f, uint64_t st, const struct hwp_sample *id, int is_sample)
{
	if (!is_sample && !g_sample_id_all) {
		fputs("-1 -1 ", f);
		return;
	}
	if (g_combined & HWP_SAMPLE_CPU)
		fprintf(f, "%u ", (st & HWP_SAMPLE_CPU) ? id->cpu : 4294967295u);
	if (g_combined & HWP_SAMPLE_TIME)
		fprintf(f, "%" PRIu64 " ", (st & HWP_SAMPLE_TIME) ? id->time : UINT64_MAX);
}

/* perf's unit_number__scnprintf / get_page_size_name */
static void page_size_name(char *buf, size_t len, uint64_t n)
{
	const char *unit = "BKMG";
	int i = 0;

	if (!n) {
		snprintf(buf, len, "N/A");
		return;
	}
	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", n, unit[i]);
}

static void dump_sample(FILE *f, const struct gattr *g, const struct hwp_sample *s,
			const struct hwp_branch_entry *br, const uint64_t *cc)
{
	uint64_t st = g->attr.sample_type;
	static const char *const abi[] = { "none", "32-bit", "64-bit" };
	char pbuf[32];

	if (!f)
		return;
	dump_prefix(f, st, s, 1);
	fprintf(f, "PERF_RECORD_SAMPLE(IP, %#x): %d/%d: %#" PRIx64 " period: %" PRIu64
		   " addr: %#" PRIx64 "\n",
		(unsigned)s->cpumode, (int)s->pid, (int)s->tid, s->ip,
		(st & HWP_SAMPLE_PERIOD) ? s->period : g->attr.sample_period,
		(st & HWP_SAMPLE_ADDR) ? s->addr : 0);
	if (st & HWP_SAMPLE_CALLCHAIN) {
		fprintf(f, "... FP chain: nr:%" PRIu64 "\n", s->callchain_nr);
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			fprintf(f, "..... %2d: %016" PRIx64 "\n", (int)i, cc[i]);
	}
	if (st & HWP_SAMPLE_BRANCH_STACK) {
		fprintf(f, "... branch stack: nr:%" PRIu64 "\n", s->branch_nr);
		for (uint64_t i = 0; i < s->branch_nr; i++) {
			const struct hwp_branch_entry *e = &br[i];

			fprintf(f, "..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
				   " %u cycles %s%s%s%s %x %s\n",
				i, e->from, e->to, (unsigned)e->cycles, e->mispred ? "M" : " ",
				e->predicted ? "P" : " ", e->abort ? "A" : " ",
				e->in_tx ? "T" : " ", 0u, perf_type_str(e));
		}
	}
	if ((st & HWP_SAMPLE_REGS_USER) && s->regs_user_abi)
		fprintf(f, "... user regs: mask %#" PRIx64 " ABI %s\n", g->attr.sample_regs_user,
			abi[s->regs_user_abi]);
	if ((st & HWP_SAMPLE_REGS_INTR) && s->regs_intr_abi)
		fprintf(f, "... intr regs: mask %#" PRIx64 " ABI %s\n", g->attr.sample_regs_intr,
			abi[s->regs_intr_abi]);
	if (st & HWP_SAMPLE_WEIGHT)
		fprintf(f, "... weight: %" PRIu64 "\n", s->weight);
	if (st & HWP_SAMPLE_WEIGHT_STRUCT) /* perf fills var3 (p_stage_cyc) on powerpc only */
		fprintf(f, "... weight: %u,0x%x,0x%x\n", (unsigned)(s->weight & 0xffffffff),
			(unsigned)(s->weight >> 32 & 0xffff),
#if defined(__powerpc__) || defined(__powerpc64__)
			(unsigned)(s->weight >> 48)
#else
			0u
#endif
		);
	if (st & HWP_SAMPLE_DATA_SRC)
		fprintf(f, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (st & HWP_SAMPLE_PHYS_ADDR)
		fprintf(f, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (st & HWP_SAMPLE_DATA_PAGE_SIZE) {
		page_size_name(pbuf, sizeof(pbuf), s->data_page_size);
		fprintf(f, " .. data page size: %s\n", pbuf);
	}
	if (st & HWP_SAMPLE_CODE_PAGE_SIZE) {
		page_size_name(pbuf, sizeof(pbuf), s->code_page_size);
		fprintf(f, " .. code page size: %s\n", pbuf);
	}
	if (st & HWP_SAMPLE_TRANSACTION)
		fprintf(f, "... transaction: %" PRIx64 "\n", s->transaction);
}

static int rec_comm(struct hwp_writer *w, FILE *f, const struct gattr *g, uint32_t pid,
		    uint32_t tid, const char *comm, bool exec, const struct hwp_sample *id)
{
	if (hwp_writer__add_comm(w, g->idx, pid, tid, comm, exec, id))
		return -1;
	if (f) {
		dump_prefix(f, g->attr.sample_type, id, 0);
		fprintf(f, "PERF_RECORD_COMM%s: %s:%d/%d\n", exec ? " exec" : "", comm, (int)pid,
			(int)tid);
	}
	return 0;
}

static int rec_mmap2(struct hwp_writer *w, FILE *f, const struct gattr *g, uint32_t pid,
		     uint64_t addr, uint64_t len, uint64_t pgoff, const uint8_t *bid,
		     uint8_t bid_size, const char *filename, const struct hwp_sample *id)
{
	/* prot r-x, MAP_PRIVATE */
	if (hwp_writer__add_mmap2(w, g->idx, pid, pid, addr, len, pgoff, bid, bid_size, 5, 2,
				  filename, HWP_MISC_USER, id))
		return -1;
	if (f) {
		dump_prefix(f, g->attr.sample_type, id, 0);
		fprintf(f, "PERF_RECORD_MMAP2 %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64,
			(int)pid, (int)pid, addr, len, pgoff);
		if (bid) {
			fputs(" <", f);
			for (int i = 0; i < bid_size; i++)
				fprintf(f, "%02x", bid[i]);
			fputc('>', f);
		} else {
			fputs(" 00:00 0 0", f);
		}
		fprintf(f, "]: r-xp %s\n", filename);
	}
	return 0;
}

static int rec_fork_exit(struct hwp_writer *w, FILE *f, const struct gattr *g, uint32_t type,
			 uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
			 const struct hwp_sample *id)
{
	if (hwp_writer__add_fork_exit(w, g->idx, type, pid, ppid, tid, ptid, time, id))
		return -1;
	if (f) {
		dump_prefix(f, g->attr.sample_type, id, 0);
		fprintf(f, "PERF_RECORD_%s(%d:%d):(%d:%d)\n", type == HWP_RECORD_FORK ? "FORK" : "EXIT",
			(int)pid, (int)tid, (int)ppid, (int)ptid);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: gen_roundtrip SEED OUT.data EXPECTED.txt [--samples N]\n"
			"         [--evlist NAMES.txt] [--dump-samples S.txt] [--dump-records R.txt]\n");
	exit(2);
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void close_out(FILE *f, const char *path)
{
	if (f && fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *exp_path = NULL, *evl_path = NULL, *ds_path = NULL,
		   *dr_path = NULL;
	unsigned long long seed = 0;
	long nsamples = -1;
	struct gattr ga[MAX_ATTRS];
	int nattrs, routing; /* 0 none, 1 ID, 2 IDENTIFIER */
	uint64_t read_format, common, combined = 0;
	int sample_id_all;
	struct hwp_writer *w;
	FILE *exp, *ds, *dr;
	int i, pos = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--samples") && i + 1 < argc)
			nsamples = strtol(argv[++i], NULL, 0);
		else if (!strcmp(a, "--evlist") && i + 1 < argc)
			evl_path = argv[++i];
		else if (!strcmp(a, "--dump-samples") && i + 1 < argc)
			ds_path = argv[++i];
		else if (!strcmp(a, "--dump-records") && i + 1 < argc)
			dr_path = argv[++i];
		else if (a[0] == '-' && a[1])
			usage();
		else if (pos == 0)
			seed = strtoull(a, NULL, 0), pos++;
		else if (pos == 1)
			out = a, pos++;
		else if (pos == 2)
			exp_path = a, pos++;
		else
			usage();
	}
	if (pos < 3)
		usage();
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

	exp = open_out(exp_path);
	ds = open_out(ds_path);
	dr = open_out(dr_path);
	if (evl_path) {
		FILE *evl = open_out(evl_path);

		for (i = 0; i < nattrs; i++)
			fprintf(evl, "%s\n", ga[i].name);
		close_out(evl, evl_path);
	}
	for (i = 0; i < nattrs; i++)
		combined |= ga[i].attr.sample_type;
	g_combined = combined;
	g_sample_id_all = sample_id_all;

	{
		uint64_t t = 1000000000ULL + rnd(1ULL << 40);
		uint32_t pids[4];
		int npids = 1 + (int)rnd(4);
		struct hwp_branch_entry br[64];
		uint64_t cc[32], rd[5];
		/* sample_stack_user goes up to 568 bytes: room for it (the random
		   fill stays 512 bytes so every seed makes the same file) */
		uint8_t bytes[1024] = { 0 };
		uint32_t next_pid = 5000;

		for (i = 0; i < 512; i++)
			bytes[i] = (uint8_t)rnd(256);
		for (i = 0; i < npids; i++) {
			struct hwp_sample id;
			uint8_t bid[20];
			int with_bid = chance(50);

			memset(&id, 0, sizeof(id));
			pids[i] = 100 + (uint32_t)i * 37;
			id.pid = id.tid = pids[i];
			id.time = t++;
			id.cpu = (uint32_t)rnd(8);
			id.id = ga[0].nr_ids ? ga[0].ids[0] : 0;
			if (rec_comm(w, dr, &ga[0], pids[i], pids[i], "roundtrip", true, &id))
				return die("comm");
			for (int k = 0; k < 20; k++)
				bid[k] = (uint8_t)rnd(256);
			id.time = t++;
			if (rec_mmap2(w, dr, &ga[0], pids[i], 0x400000 + 0x1000 * (uint64_t)i,
				      0x100000, 0x1000 * rnd(4), with_bid ? bid : NULL,
				      (uint8_t)(with_bid ? 20 - 12 * rnd(2) : 0),
				      "/tmp/roundtrip.bin", &id))
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
				id.stream_id = rnd64();
				id.id = g->nr_ids ? g->ids[0] : 0;
				if (rec_fork_exit(w, dr, g, HWP_RECORD_FORK, child, pids[0], child,
						  pids[0] + 1, id.time, &id))
					return die("fork");
				id.time = t += 1 + rnd(100);
				if (rec_comm(w, dr, g, child, child, "child", false, &id))
					return die("comm");
				id.time = t += 1 + rnd(100);
				if (rec_fork_exit(w, dr, g, HWP_RECORD_EXIT, child, pids[0], child,
						  pids[0] + 2, id.time, &id))
					return die("exit");
			}
			if (chance(3) && hwp_writer__add_finished_round(w))
				return die("finished_round");

			memset(&s, 0, sizeof(s));
			s.pid = pids[rnd((uint64_t)npids)];
			s.tid = s.pid + (uint32_t)rnd(2);
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
				s.weight |= rnd(1 << 16) << 32 | rnd(1 << 16) << 48;
			s.data_src = rnd64() & 0xffffffffffULL;
			s.transaction = rnd(1 << 10);
			s.regs_intr_abi = rnd(3);
			s.regs_intr.data = bytes + 64;
			s.regs_intr.size = 8 * 24;
			s.phys_addr = rnd64() & 0xfffffffff000ULL;
			s.cgroup = rnd(1000);
			s.data_page_size = chance(50) ? 4096 : rnd(2) << 21;
			s.code_page_size = chance(50) ? 4096 : 2 << 20;

			memset(&in, 0, sizeof(in));
			in.s = &s;
			in.branches = br;
			in.callchain = cc;
			if (hwp_writer__add_sample(w, g->idx, &in))
				return die("sample");
			print_expected(exp, s.ip, br, depth);
			dump_sample(ds, g, &s, br, cc);
		}
	}
	if (hwp_writer__add_finished_round(w))
		return die("finished_round");
	if (hwp_writer__close(w))
		return die("close");
	close_out(exp, exp_path);
	close_out(ds, ds_path);
	close_out(dr, dr_path);
	return 0;
}
