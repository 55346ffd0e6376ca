/* The memory report as parts of a parallel pass (mem_internal.h,
   mem_merge.c): the samples of a recording dealt out to 2 or 3 parts
   round-robin in batches, each part resolving through a resolver of its
   own, then merged. Every output of the merged report (each grouping in
   every format with every field of its rows, the histogram and its chart,
   the overview, c2c's lines and accesses, advise's memory findings) must
   be the bytes of the report that added every sample in order, on: a
   recording written here (this test's own executable mapped as the
   program, so that symbols, lines and data objects are real; libraries
   mapped, replaced and forked while sampled; three events, one without
   addresses, one without memory data), a bench/gen_mem_perfdata
   recording, and every corpus recording; and on 2-3 threads of the
   parallel pass (session/parallel_pass.c). The parts never register a
   module nor resolve through the session's resolver. Skid's parts
   (skid_internal.h) likewise against hwp_skid__new().
   With file arguments, compares on those (tests/e2e/mem_parts.sh). */
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "analysis/mem_internal.h"
#include "analysis/skid_internal.h"
#include "hwprof/advise.h"
#include "hwprof/c2c.h"
#include "hwprof/data_src.h"
#include "hwprof/mem.h"
#include "hwprof/perf_writer.h"
#include "hwprof/report.h"
#include "hwprof/session.h"
#include "hwprof/skid.h"
#include "hwprof/symbolize.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "symbolize/maps_internal.h"
#include "testlib.h"

static char path_gen[PATH_MAX], path_bench[PATH_MAX], path_skid[PATH_MAX];

static uint64_t rs = 1;
/* data objects of this executable the recording's samples touch (in
   .data: initialized) */
static uint64_t hot_counters[64] = { 1 };
static char hot_name[96] = "test_mem_parts";
static uint32_t hot_flags[16] = { 2 };

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

/* ---- the recording written here */

/* One PT_LOAD segment of this executable. */
struct seg {
	uint64_t vaddr, filesz, memsz, offset;
};

/* This executable's path, its first executable and first writable segment. */
static int self_segments(char *path, size_t size, struct seg *text, struct seg *data)
{
	ssize_t n = readlink("/proc/self/exe", path, size - 1);
	Elf64_Ehdr eh;
	int fd, found = 0;

	if (n <= 0)
		return -1;
	path[n] = 0;
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD)
			continue;
		struct seg s = { ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_offset };
		if ((ph.p_flags & PF_X) && !(found & 1)) {
			*text = s;
			found |= 1;
		} else if ((ph.p_flags & PF_W) && !(found & 2)) {
			*data = s;
			found |= 2;
		}
	}
	close(fd);
	return found == 3 ? 0 : -1;
}

/* Where this executable is loaded, against its link-time addresses. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

static uint64_t load_bias(void)
{
	uint64_t bias = 0;

	dl_iterate_phdr(first_object, &bias);
	return bias;
}

#define SELF_BASE 0x555555554000ULL
#define LIB_TEXT 0x7f1000000000ULL /* liba.so, later libc.so over it */
#define LIB_DATA 0x7f1000200000ULL
#define LIBB_TEXT 0x7f1100000000ULL
#define LIBB_TEXT2 0x7f1180000000ULL /* libb.so in process 300 */
#define HEAP 0x555570000000ULL
#define ANON 0x7f2000000000ULL
#define STACK 0x7ffd00000000ULL
#define KADDR 0xffffffff81000000ULL

enum { EV_LOADS, EV_STORES, EV_CYCLES };

struct gen {
	struct hwp_writer *w;
	int err;
	uint64_t time;
};

static struct hwp_sample id_of(uint32_t pid, uint32_t tid, uint64_t time)
{
	struct hwp_sample id;

	memset(&id, 0, sizeof(id));
	id.pid = pid;
	id.tid = tid;
	id.time = time;
	id.id = 7;
	return id;
}

static void map(struct gen *g, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, const uint8_t *bid,
		uint32_t prot, const char *name)
{
	struct hwp_sample id = id_of(pid, pid, g->time);

	g->err |= hwp_writer__add_mmap2(g->w, 0, pid, pid, addr, len, pgoff, bid, bid ? 20 : 0, prot, 0, name,
					HWP_MISC_USER, &id) < 0;
}

/* SEG of this executable mapped at SELF_BASE + its address, as a loader maps it. */
static void map_self(struct gen *g, uint32_t pid, const char *path, const struct seg *s, uint32_t prot)
{
	uint64_t start = (SELF_BASE + s->vaddr) & ~0xfffULL, end = (SELF_BASE + s->vaddr + s->memsz + 0xfff) & ~0xfffULL;

	map(g, pid, start, end - start, s->offset & ~0xfffULL, NULL, prot, path);
}

static void fork_exit(struct gen *g, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct hwp_sample id = id_of(pid, tid, g->time);

	g->err |= hwp_writer__add_fork_exit(g->w, 0, type, pid, ppid, tid, ptid, g->time, &id) < 0;
}

/*
 * N samples of process 300 (threads 300-302) running this executable with
 * liba.so and libb.so, which forks process 400 (which maps libb.so
 * elsewhere: one instruction, two addresses) soon after the start; at
 * three fifths libc.so replaces liba.so; 400 exits at four fifths.
 * Three events: loads with addresses, stores without (WEIGHT_STRUCT), and
 * cycles (no memory data: skipped). Code in the executable, the libraries,
 * nowhere and the kernel; data in the executable's data and .bss, the
 * library's data, heap, anonymous memory, stack, nowhere and the kernel;
 * CPUs past 63 too. The same seed gives the same samples.
 */
static int write_mixed(const char *path, unsigned n)
{
	static const uint8_t bid_a[20] = { 0xa1, 1, 2, 3 }, bid_b[20] = { 0xb2, 4, 5, 6 }, bid_c[20] = { 0xc3, 7, 8 };
	static const uint64_t lvl[5] = { HWP_MEM_LVL_L1, HWP_MEM_LVL_LFB, HWP_MEM_LVL_L2, HWP_MEM_LVL_L3,
					 HWP_MEM_LVL_LOC_RAM };
	char self[PATH_MAX];
	struct seg text, data;
	struct gen g = { 0 };
	struct hwp_attr a;
	uint64_t ids[3][1] = { { 7 }, { 8 }, { 9 } };
	static const char *const names[3] = { "cpu/mem-loads,ldlat=30/P", "cpu/mem-stores/P", "cycles" };
	uint64_t types[3] = {
		HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR |
			HWP_SAMPLE_CPU | HWP_SAMPLE_WEIGHT | HWP_SAMPLE_DATA_SRC,
		HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_CPU |
			HWP_SAMPLE_WEIGHT_STRUCT | HWP_SAMPLE_DATA_SRC,
		HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_CPU,
	};
	uint64_t ips[48], addrs[40];
	bool forked = false, replaced = false, exited = false;

	if (self_segments(self, sizeof(self), &text, &data) < 0)
		return -1;
	if (!(g.w = hwp_writer__open(path)))
		return -1;
	rs = 0x9e3779b97f4a7c15ULL;
	for (int e = 0; e < 3; e++) {
		memset(&a, 0, sizeof(a));
		a.type = e < 2 ? 4 : 0;
		a.config = e == 0 ? 0x1cd : e == 1 ? 0x2cd : 0;
		a.sample_period = 1000;
		a.sample_type = types[e];
		a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
			  (1ULL << HWP_ATTR_MMAP2) | (1ULL << HWP_ATTR_TASK) |
			  ((e < 2 ? 2ULL : 0) << HWP_ATTR_PRECISE_IP);
		g.err |= hwp_writer__add_attr(g.w, &a, ids[e], 1, names[e]) < 0;
	}
	/* the keys: instructions of the executable, data of its .data and .bss
	   (half in variables of this file, which have symbols) */
	const struct {
		const void *p;
		size_t size;
	} vars[] = { { &rs, sizeof(rs) }, { hot_counters, sizeof(hot_counters) }, { hot_name, sizeof(hot_name) },
		     { hot_flags, sizeof(hot_flags) }, { path_gen, sizeof(path_gen) } };
	uint64_t bias = load_bias();
	for (unsigned i = 0; i < 48; i++)
		ips[i] = SELF_BASE + text.vaddr + rnd() % text.filesz;
	for (unsigned i = 0; i < 40; i++) {
		unsigned v = i % 5;
		addrs[i] = SELF_BASE + (i % 2 ? data.vaddr + (rnd() % data.memsz & ~7ULL)
					  : (uintptr_t)vars[v].p - bias + (rnd() % vars[v].size & ~7ULL));
	}
	struct hwp_sample id = id_of(300, 300, 0);
	g.err |= hwp_writer__add_comm(g.w, 0, 300, 300, "prog", false, &id) < 0;
	map_self(&g, 300, self, &text, PROT_READ | PROT_EXEC);
	map_self(&g, 300, self, &data, PROT_READ | PROT_WRITE);
	map(&g, 300, LIB_TEXT, 0x100000, 0, bid_a, PROT_READ | PROT_EXEC, "/fake/liba.so");
	map(&g, 300, LIB_DATA, 0x10000, 0x200000, bid_a, PROT_READ | PROT_WRITE, "/fake/liba.so");
	map(&g, 300, LIBB_TEXT2, 0x100000, 0, bid_b, PROT_READ | PROT_EXEC, "/fake/libb.so");
	map(&g, 300, HEAP, 0x100000, 0, NULL, PROT_READ | PROT_WRITE, "[heap]");
	map(&g, 300, ANON, 0x100000, 0, NULL, PROT_READ | PROT_WRITE, "//anon");
	map(&g, 300, STACK, 0x100000, 0, NULL, PROT_READ | PROT_WRITE, "[stack]");
	for (uint32_t t = 301; t <= 302; t++)
		fork_exit(&g, HWP_RECORD_FORK, 300, 300, t, 300);
	for (unsigned i = 0; i < n && !g.err; i++) {
		uint64_t r = rnd(), r2 = rnd();
		struct hwp_sample s;
		struct hwp_sample_in in = { .s = &s };
		unsigned ev = r % 20 < 12 ? EV_LOADS : r % 20 < 17 ? EV_STORES : EV_CYCLES;
		bool child = forked && !exited && (r >> 5) % 3 == 0;
		unsigned where = (unsigned)(r >> 8) % 20, dwhere = (unsigned)(r >> 13) % 20;
		unsigned src = (unsigned)(r2 % 5);
		bool store = ev == EV_STORES || (ev == EV_LOADS && r2 % 11 == 0), hitm = src == 3 && (r2 >> 4) % 3 == 0;

		g.time = 1000 + 10 * (uint64_t)i;
		if (!forked && i == n / 200) {
			fork_exit(&g, HWP_RECORD_FORK, 400, 300, 400, 300);
			id = id_of(400, 400, g.time);
			g.err |= hwp_writer__add_comm(g.w, 0, 400, 400, "child", false, &id) < 0;
			map(&g, 400, LIBB_TEXT, 0x100000, 0, bid_b, PROT_READ | PROT_EXEC, "/fake/libb.so");
			forked = true;
		}
		if (!replaced && i == 3 * n / 5) {
			map(&g, 300, LIB_TEXT, 0x100000, 0, bid_c, PROT_READ | PROT_EXEC, "/fake/libc.so");
			map(&g, 300, LIB_DATA, 0x10000, 0x200000, bid_c, PROT_READ | PROT_WRITE, "/fake/libc.so");
			replaced = true;
		}
		if (!exited && i == 4 * n / 5) {
			fork_exit(&g, HWP_RECORD_EXIT, 400, 300, 400, 300);
			exited = true;
		}
		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.id = ids[ev][0];
		s.pid = child ? 400 : 300;
		s.tid = child ? 400 : 300 + (uint32_t)(r >> 16) % 3;
		s.cpu = (uint32_t)(r >> 20) % 6 + ((r >> 24) % 7 == 0 ? 64 : 0) + ((r >> 24) % 13 == 0 ? 130 : 0);
		s.time = g.time;
		if (where < 10)
			s.ip = ips[(r >> 28) % 48];
		else if (where < 14)
			s.ip = LIB_TEXT + 0x40 * ((r >> 28) % 16);
		else if (where < 17)
			s.ip = child ? LIBB_TEXT + 0x40 * ((r >> 28) % 8)
				: LIBB_TEXT2 + 0x40 * ((r >> 28) % 8);
		else if (where < 19)
			s.ip = 0x1000 + 4 * ((r >> 28) % 8); /* no map */
		else {
			s.ip = KADDR + 0x100 * ((r >> 28) % 4);
			s.cpumode = HWP_MISC_KERNEL;
		}
		if (dwhere < 6)
			s.addr = addrs[(r >> 32) % 40];
		else if (dwhere < 8)
			s.addr = LIB_DATA + 8 * ((r >> 32) % 64);
		else if (dwhere < 12)
			s.addr = HEAP + 24 * ((r >> 32) % 200);
		else if (dwhere < 15)
			s.addr = ANON + 40 * ((r >> 32) % 100);
		else if (dwhere < 17)
			s.addr = STACK + 0x800 + 8 * ((r >> 32) % 30);
		else if (dwhere < 19)
			s.addr = 0x10 + 8 * ((r >> 32) % 4);
		else
			s.addr = KADDR + 0x200000 + 64 * ((r >> 32) % 4);
		s.weight = (r2 >> 8) % 9 == 0 ? 0 : 4 + (r2 >> 12) % 700;
		s.weight_var1 = (uint32_t)s.weight;
		s.weight_var2 = (uint16_t)((r2 >> 24) % 50);
		if (ev != EV_CYCLES && (r2 >> 40) % 29 != 0) /* now and then a sample of no known op */
			s.data_src = (store ? HWP_MEM_OP_STORE : HWP_MEM_OP_LOAD) |
				     ((src == 4 && (r2 >> 44) % 2 ? HWP_MEM_LVL_MISS : HWP_MEM_LVL_HIT) | lvl[src]) << 5 |
				     (uint64_t)(hitm ? HWP_MEM_SNOOP_HITM : HWP_MEM_SNOOP_NONE) << 19;
		g.err |= hwp_writer__add_sample(g.w, (int)ev, &in) < 0;
		if (i % 500 == 499)
			g.err |= hwp_writer__add_finished_round(g.w) < 0;
	}
	g.err |= hwp_writer__add_finished_round(g.w) < 0;
	if (g.err) {
		hwp_writer__abort(g.w);
		return -1;
	}
	return hwp_writer__close(g.w);
}

/* ---- every output of a report, as one string */

static const enum hwp_table_format formats[] = { HWP_TABLE_TEXT, HWP_TABLE_JSON, HWP_TABLE_CSV, HWP_TABLE_HTML };
#define NR_FORMATS (sizeof(formats) / sizeof(formats[0]))

static void print_table(struct hwp_table *t, enum hwp_table_format f, FILE *out)
{
	if (!t) {
		fprintf(out, "(no table: %s)\n", hwp_errmsg());
		return;
	}
	hwp_table__print(t, f, out);
	hwp_table__delete(t);
}

static void print_stats(const struct hwp_mem_stats *st, FILE *out)
{
	fprintf(out, " %llu %llu %llu %llu %llu %llu |", (unsigned long long)st->samples,
		(unsigned long long)st->loads, (unsigned long long)st->stores, (unsigned long long)st->hitm,
		(unsigned long long)st->lat_sum, (unsigned long long)st->lat_max);
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		fprintf(out, " %llu/%llu", (unsigned long long)st->by_source[s],
			(unsigned long long)st->lat_by_source[s]);
	fputs(" |", out);
	for (int b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		fprintf(out, " %llu", (unsigned long long)st->hist[b]);
	fputc('\n', out);
}

static void print_loc(const struct hwp_code_loc *l, FILE *out)
{
	fprintf(out, " code %d:%#llx@%#llx/%u", l->module, (unsigned long long)l->offset, (unsigned long long)l->addr,
		l->cpumode);
}

static void print_rows(const struct hwp_mem_group *g, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		print_loc(&g[i].code, out);
		fprintf(out, " sym %s+%#llx %s:%u data %d:%#llx@%#llx %s src %d", g[i].symbol ? g[i].symbol : "-",
			(unsigned long long)g[i].sym_offset, g[i].file ? g[i].file : "-", g[i].line, g[i].data_module,
			(unsigned long long)g[i].data_offset, (unsigned long long)g[i].data_addr,
			g[i].region ? g[i].region : "-", (int)g[i].source);
		print_stats(&g[i].st, out);
	}
}

static void print_c2c(struct hwp_mem_report *r, FILE *out)
{
	struct hwp_c2c *c = hwp_c2c__new(r);
	const struct hwp_c2c_line *l;

	if (!c) {
		fprintf(out, "(no c2c: %s)\n", hwp_errmsg());
		return;
	}
	size_t n = hwp_c2c__lines(c, &l);
	const struct hwp_c2c_access *acc = hwp_c2c__accesses(c);
	fprintf(out, "c2c: %zu lines of %llu\n", n, (unsigned long long)hwp_c2c__nr_lines_seen(c));
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "line %#llx %d:%#llx %s pid %d: %llu %llu %llu %llu %llu tids %u cpus %u offsets %u\n",
			(unsigned long long)l[i].addr, l[i].data_module, (unsigned long long)l[i].data_offset,
			l[i].region ? l[i].region : "-", l[i].pid, (unsigned long long)l[i].samples,
			(unsigned long long)l[i].loads, (unsigned long long)l[i].stores,
			(unsigned long long)l[i].hitm, (unsigned long long)l[i].lat_sum, l[i].nr_tids, l[i].nr_cpus,
			l[i].nr_offsets);
		for (size_t j = l[i].first; j < l[i].first + l[i].nr; j++) {
			fprintf(out, "  +%u", acc[j].offset);
			print_loc(&acc[j].code, out);
			fprintf(out, " %s %llu %llu %llu %llu %llu tids %u cpus %u\n", acc[j].symbol ? acc[j].symbol : "-",
				(unsigned long long)acc[j].samples, (unsigned long long)acc[j].loads,
				(unsigned long long)acc[j].stores, (unsigned long long)acc[j].hitm,
				(unsigned long long)acc[j].lat_sum, acc[j].nr_tids, acc[j].nr_cpus);
		}
	}
	for (size_t f = 0; f < NR_FORMATS; f++) {
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = formats[f] };
		print_table(hwp_report__c2c(r, c, &ro), formats[f], out);
	}
	hwp_report__print_c2c_header(r, c, "in", out);
	hwp_c2c__delete(c);
}

static void print_findings(struct hwp_mem_report *r, struct hwp_symbolizer *sym, FILE *out)
{
	struct hwp_advisor *a = hwp_advisor__new(NULL);
	const struct hwp_finding *f;
	size_t n;

	if (!a || hwp_advisor__add_mem(a, r) < 0) {
		fprintf(out, "(no findings: %s)\n", hwp_errmsg());
		hwp_advisor__delete(a);
		return;
	}
	f = hwp_advisor__findings(a, &n);
	for (size_t fi = 0; fi < NR_FORMATS; fi++) {
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = formats[fi] };
		print_table(hwp_report__findings(sym, f, n, -1, &ro), formats[fi], out);
	}
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = HWP_TABLE_TEXT };
	hwp_report__print_findings(sym, f, n, -1, &ro, out);
	hwp_advisor__delete(a);
}

/* Everything R (collecting COLLECT, 0: all) shows; free it. */
static char *render(struct hwp_mem_report *r, struct hwp_session *s, unsigned collect)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const uint64_t(*hs)[HWP_MEM_SRC__COUNT] = hwp_mem_report__hist_by_source(r);
	unsigned want = collect ? collect : ~0u;

	if (!out)
		return NULL;
	fprintf(out, "entries %zu skipped %llu modelled %d\ntotals", hwp__mem_report_entries(r),
		(unsigned long long)hwp__mem_report_skipped(r), hwp_mem_report__modelled(r));
	print_stats(hwp_mem_report__totals(r), out);
	for (int b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		for (int src = 0; src < HWP_MEM_SRC__COUNT; src++)
			fprintf(out, "%llu%c", (unsigned long long)hs[b][src], src + 1 < HWP_MEM_SRC__COUNT ? ' ' : '\n');
	hwp_report__print_mem_overview(r, "in", out);
	for (size_t f = 0; f < NR_FORMATS; f++)
		print_table(hwp_report__mem_histogram(r), formats[f], out);
	struct hwp_chart *chart = hwp_report__mem_chart(r, "in");
	if (chart)
		hwp_report__write_svg(chart, out);
	for (int k = 0; k < HWP_MEM_KEY__COUNT; k++) {
		const struct hwp_mem_group *g;
		size_t n;

		if (!(want & HWP_MEM_COLLECT_KEY(k)))
			continue;
		n = hwp_mem_report__groups(r, (enum hwp_mem_key)k, &g);
		fprintf(out, "grouping %d: %zu rows\n", k, n);
		if (n != (size_t)-1)
			print_rows(g, n, out);
		for (size_t f = 0; f < NR_FORMATS; f++) {
			struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = formats[f] };
			print_table(hwp_report__mem_groups(r, k, &ro), formats[f], out);
		}
	}
	if (want & HWP_MEM_COLLECT_C2C)
		print_c2c(r, out);
	if (!collect)
		print_findings(r, hwp_session__symbolizer(s), out);
	fclose(out);
	return buf;
}

/* ---- the sequential report and the parted one */

struct config {
	unsigned collect;      /* HWP_MEM_COLLECT_* or 0 */
	unsigned cache_line;
	bool loads_only, stores_only;
	unsigned parts, batch; /* samples dealt to PARTS parts, BATCH at a time */
};

static struct hwp_mem_report_opts opts_of(const struct config *c)
{
	struct hwp_mem_report_opts o = { .sz = sizeof(o), .collect = c->collect, .cache_line = c->cache_line,
					 .loads_only = c->loads_only, .stores_only = c->stores_only };
	return o;
}

/* PATH read in order: its output in *OUT (NULL when reading failed). */
static int sequential(const char *path, const struct config *c, char **out)
{
	struct hwp_mem_report_opts o = opts_of(c);
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_mem_report *r = s ? hwp_mem_report__new(s, &o) : NULL;
	int rc = r ? hwp_mem_report__read(r) : -1;

	*out = rc < 0 ? NULL : render(r, s, c->collect);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return s ? rc : -2;
}

#define MAX_PARTS 3

static size_t nr_modules(struct hwp_symbolizer *y)
{
	struct hwp_symbolizer_stats st = { .sz = sizeof(st) };

	hwp_symbolizer__stats(y, &st);
	return st.modules + st.modules_loaded + st.lookups;
}

/* PATH's samples dealt to parts, merged: its output in *OUT (NULL when
   reading failed); *UNTOUCHED: no part changed the symbolizer or the
   session's resolver. */
static int parted(const char *path, const struct config *c, char **out, bool *untouched)
{
	struct hwp_mem_report_opts o = opts_of(c);
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_mem_report *dst = NULL, *parts[MAX_PARTS] = { NULL };
	struct hwp__module_ids *ids[MAX_PARTS] = { NULL };
	struct hwp__resolver res[MAX_PARTS];
	struct hwp_symbolizer *y;
	struct hwp_event ev;
	const struct hwp_thread *th;
	uint64_t seq = 0;
	size_t before;
	int rc = -1;

	*out = NULL;
	*untouched = true;
	if (!s)
		return -2;
	for (unsigned k = 0; k < c->parts; k++) {
		if (!(ids[k] = hwp__module_ids_new()))
			goto done;
		hwp__resolver_init(&res[k], s, ids[k]);
		res[k].pinned = true;
		if (!(parts[k] = hwp__mem_report_new_part(s, &o, &res[k])))
			goto done;
	}
	if (!(dst = hwp_mem_report__new(s, &o)) || !(y = hwp_session__symbolizer(s)))
		goto done;
	before = nr_modules(y);
	while ((rc = hwp_session__next(s, &ev, &th)) > 0) {
		unsigned k = (unsigned)(seq / c->batch % c->parts);
		struct hwp_machine *m = hwp_session__machine(s);

		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		/* as the parallel pass pins it: the generation the sample met */
		res[k].generation = m ? hwp__machine_generation(m) : 0;
		if ((rc = hwp__mem_report_add_at(parts[k], &ev, th, seq++)) < 0)
			break;
	}
	if (rc < 0)
		goto done;
	/* the parts registered no module, looked no symbol up, and left the
	   session's resolver as it was */
	*untouched = nr_modules(y) == before && !hwp__session_resolver(s)->cache_filled;
	if ((rc = hwp__module_ids_register(ids, c->parts, y)) < 0 ||
	    (rc = hwp__mem_report_merge(dst, parts, ids, c->parts)) < 0)
		goto done;
	*out = render(dst, s, c->collect);
done:
	if (rc < 0)
		fprintf(stderr, "%s: parted read: %s\n", path, hwp_errmsg());
	for (unsigned k = 0; k < c->parts; k++) {
		hwp_mem_report__delete(parts[k]);
		hwp__module_ids_delete(ids[k]);
	}
	hwp_mem_report__delete(dst);
	hwp_session__delete(s);
	return rc;
}

/* The first line where A and B differ, on stderr. */
static void show_difference(const char *a, const char *b)
{
	size_t line = 1, i = 0, start = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	fprintf(stderr, "  line %zu differs:\n  in order: %.200s\n  merged:   %.200s\n", line, a + start, b + start);
}

/* PATH read with C both ways: the same output. 1 same, 0 different, -1
   neither could read it (not a recording), -2 only one could. */
static int compare(const char *path, const struct config *c)
{
	char *a, *b;
	bool untouched;
	int ra = sequential(path, c, &a), rb = parted(path, c, &b, &untouched), same;

	if (ra == -2 && rb == -2)
		return -1;
	if (!a || !b) {
		fprintf(stderr, "%s: in order %s, merged %s\n", path, a ? "read" : "failed", b ? "read" : "failed");
		free(a);
		free(b);
		return a || b ? -2 : -1;
	}
	same = !strcmp(a, b) && untouched;
	if (!untouched)
		fprintf(stderr, "%s: a part changed the symbolizer or the session's resolver\n", path);
	if (strcmp(a, b)) {
		fprintf(stderr, "%s: collect %#x, %u parts of batches of %u: outputs differ\n", path, c->collect,
			c->parts, c->batch);
		show_difference(a, b);
	}
	free(a);
	free(b);
	return same;
}

/* Every configuration a command makes (hwprof mem -s KEY collects KEY
   alone, c2c its tables alone), with several ways to deal the samples. */
static const struct config configs[] = {
	{ .collect = 0, .parts = 3, .batch = 1 },
	{ .collect = 0, .parts = 2, .batch = 7 },
	{ .collect = 0, .parts = 3, .batch = 256 },
	{ .collect = 0, .cache_line = 128, .loads_only = true, .parts = 3, .batch = 5 },
	{ .collect = 0, .stores_only = true, .parts = 2, .batch = 3 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_SYMBOL), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_LINE), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_IP), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_ADDR), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_CACHELINE), .parts = 2, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_OBJECT), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_SOURCE), .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_TOTALS, .parts = 3, .batch = 5 },
	{ .collect = HWP_MEM_COLLECT_C2C, .cache_line = 32, .parts = 3, .batch = 2 },
};
#define NR_CONFIGS (sizeof(configs) / sizeof(configs[0]))

/* Every configuration on PATH; FIRST..: those to run. 1 all the same. */
static int compare_all(const char *path, size_t first, size_t last)
{
	int ok = 1;

	for (size_t i = first; i < last && i < NR_CONFIGS; i++) {
		int rc = compare(path, &configs[i]);

		if (rc == -1 && i == first)
			return -1;
		ok &= rc == 1;
	}
	return ok;
}

static void test_generated(void)
{
	if (write_mixed(path_gen, 8000) < 0) {
		fprintf(stderr, "writing %s: %s\n", path_gen, hwp_errmsg());
		CHECK(0);
		return;
	}
	/* it has what the checks are for: symbols, lines and data objects of
	   this executable, modules met late, HITMs, samples of no memory */
	struct hwp_session *s = hwp_session__open(path_gen, NULL);
	struct hwp_mem_report *r = s ? hwp_mem_report__new(s, NULL) : NULL;
	CHECK(r && hwp_mem_report__read(r) == 0);
	if (r) {
		const struct hwp_mem_group *g;
		size_t n = hwp_mem_report__groups(r, HWP_MEM_BY_OBJECT, &g), objects = 0;
		const struct hwp_mem_stats *t = hwp_mem_report__totals(r);

		for (size_t i = 0; n != (size_t)-1 && i < n; i++)
			objects += g[i].symbol != NULL;
		if (objects <= 3)
			fprintf(stderr, "%zu data objects\n", objects);
		CHECK(objects > 3);
		n = hwp_mem_report__groups(r, HWP_MEM_BY_LINE, &g);
		size_t lines = 0;
		for (size_t i = 0; n != (size_t)-1 && i < n; i++)
			lines += g[i].file != NULL;
		CHECK(lines > 10);
		CHECK(t->hitm > 0 && t->stores > 0 && t->loads > 0 && hwp__mem_report_skipped(r) > 0);
	}
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	CHECK(compare_all(path_gen, 0, NR_CONFIGS) == 1);
	if (!getenv("HWPROF_KEEP_TMP"))
		remove(path_gen);
}

/* bench/gen_mem_perfdata's recording (made by this build), smaller. */
static void test_bench_recording(void)
{
	const char *root = getenv("HWPROF_ROOT"), *build = getenv("BUILD");
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 64];

	snprintf(tool, sizeof(tool), "%s/%s/bench/gen_mem_perfdata", root ? root : ".", build ? build : "build");
	if (access(tool, X_OK) != 0)
		SKIP("no %.200s (make all builds it)", tool);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 120000 --addrs 6000 --cpus 80 >/dev/null", tool, path_bench);
	CHECK(system(cmd) == 0);
	/* everything, a command's grouping by address, c2c */
	CHECK(compare_all(path_bench, 2, 3) == 1);
	CHECK(compare_all(path_bench, 8, 9) == 1);
	CHECK(compare_all(path_bench, 13, 14) == 1);
	remove(path_bench);
}

/* Every corpus recording (memory samples or not: those count as skipped). */
static void test_corpus(void)
{
	static const char *const dirs[] = { "perf_data_converter", "autofdo", "linux-perf-data", "simpleperf",
					    "simpleperf/lbr", "simpleperf/etm", "perfparser/vector_static_gcc" };
	const char *corpus = tl_corpus();
	unsigned files = 0, mem = 0;

	if (!corpus)
		SKIP("no corpus (../shared/corpus or $HWPROF_CORPUS)");
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[PATH_MAX];
		DIR *dp;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "%s/%s", corpus, dirs[d]);
		if (!(dp = opendir(dir)))
			continue;
		while ((e = readdir(dp))) {
			char path[2 * PATH_MAX];
			struct stat st;
			size_t len = strlen(e->d_name);

			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
			    (len > 9 && !strcmp(e->d_name + len - 9, ".buildids")) || strstr(e->d_name, ".txt"))
				continue;
			int rc = compare_all(path, 0, 2);
			if (rc == -1)
				continue;
			files++;
			if (strstr(e->d_name, "weight_struct"))
				mem++;
			if (rc != 1) {
				fprintf(stderr, "corpus %s: differs\n", path);
				CHECK(0);
			}
		}
		closedir(dp);
	}
	CHECK(files > 5);
	CHECK(mem == 1); /* the PEBS load-latency recording */
}

/* ---- the parts on threads: session/parallel_pass.c's pass */

struct pass_ctx {
	struct hwp_session *s;
	struct hwp_mem_report_opts o;
	struct hwp_mem_report *dst;
};

static void *part_new(void *ctx, struct hwp__resolver *res)
{
	struct pass_ctx *c = ctx;

	return hwp__mem_report_new_part(c->s, &c->o, res);
}

static int part_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	int rc = hwp__mem_report_add_at(part, ev, th, seq);

	return rc < 0 ? rc : 0;
}

static int part_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	struct pass_ctx *c = ctx;

	return hwp__mem_report_merge(c->dst, (struct hwp_mem_report *const *)parts, ids, n);
}

static void part_delete(void *part)
{
	hwp_mem_report__delete(part);
}

/* PATH read by a parallel pass on JOBS threads into a memory report with
   C's options: the same output as in order. */
static int compare_threads(const char *path, const struct config *c, unsigned jobs)
{
	struct pass_ctx ctx = { .o = opts_of(c) };
	const struct hwp__parallel_ops ops = { &ctx, part_new, part_add, part_merge, part_delete, false };
	char *a, *b = NULL;
	int rc = -1, same;

	sequential(path, c, &a);
	if ((ctx.s = hwp_session__open(path, NULL)) && (ctx.dst = hwp_mem_report__new(ctx.s, &ctx.o)) &&
	    (rc = hwp__parallel_pass(ctx.s, &ops, jobs)) == 0)
		b = render(ctx.dst, ctx.s, c->collect);
	if (rc < 0)
		fprintf(stderr, "%s: parallel pass: %s\n", path, hwp_errmsg());
	same = a && b && !strcmp(a, b);
	if (a && b && !same) {
		fprintf(stderr, "%s: collect %#x on %u threads: outputs differ\n", path, c->collect, jobs);
		show_difference(a, b);
	}
	hwp_mem_report__delete(ctx.dst);
	hwp_session__delete(ctx.s);
	free(a);
	free(b);
	return same;
}

/* The parts on 2 and 3 threads of the parallel pass (what they share
   they only read: under the sanitizers too), on the recording written
   here and a bench/gen_mem_perfdata one. */
static void test_threads(void)
{
	const char *root = getenv("HWPROF_ROOT"), *build = getenv("BUILD");
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 64];

	if (write_mixed(path_gen, 20000) < 0) {
		CHECK(0);
		return;
	}
	CHECK(compare_threads(path_gen, &configs[0], 3) == 1);
	CHECK(compare_threads(path_gen, &configs[13], 2) == 1);
	remove(path_gen);
	snprintf(tool, sizeof(tool), "%s/%s/bench/gen_mem_perfdata", root ? root : ".", build ? build : "build");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 200000 --addrs 20000 --cpus 80 >/dev/null", tool, path_bench);
	if (access(tool, X_OK) == 0 && system(cmd) == 0) {
		CHECK(compare_threads(path_bench, &configs[0], 3) == 1);
		remove(path_bench);
	}
}

/* ---- skid (skid_internal.h): the same, with the precise and the other
   event's samples per instruction */

/* Everything K shows (or ERR's message); free it. */
static char *render_skid(struct hwp_skid *k, struct hwp_session *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	if (!k) {
		fprintf(out, "refused: %s\n", hwp_errmsg());
		fclose(out);
		return buf;
	}
	const char *const *labels;
	double median;
	const uint64_t *d = hwp_skid__distribution(k, &labels, &median);
	uint64_t tp, ti;
	const struct hwp_skid_line *l;
	size_t n = hwp_skid__lines(k, &l);

	hwp_skid__totals(k, &tp, &ti);
	fprintf(out, "totals %llu %llu median %.17g:", (unsigned long long)tp, (unsigned long long)ti, median);
	for (int b = 0; b < HWP_SKID_BUCKETS; b++)
		fprintf(out, " %s=%llu", labels[b], (unsigned long long)d[b]);
	fprintf(out, "\n%zu lines\n", n);
	for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
		print_loc(&l[i].code, out);
		fprintf(out, " %s:%u %llu %llu\n", l[i].file ? l[i].file : "-", l[i].line,
			(unsigned long long)l[i].precise, (unsigned long long)l[i].imprecise);
	}
	for (size_t f = 0; f < NR_FORMATS; f++) {
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = formats[f] };
		print_table(hwp_report__skid_distribution(k), formats[f], out);
		print_table(hwp_report__skid_lines(hwp_session__symbolizer(s), k, &ro), formats[f], out);
	}
	hwp_report__print_skid_header(k, "in", out);
	fclose(out);
	return buf;
}

/* PATH's skid both ways: 1 the same, 0 not, -1 not a recording. */
static int compare_skid(const char *path, unsigned nparts, unsigned batch)
{
	struct hwp_session *s1 = hwp_session__open(path, NULL), *s2 = hwp_session__open(path, NULL);
	struct hwp_skid *seq = s1 ? hwp_skid__new(s1, NULL) : NULL;
	char *a = s1 ? render_skid(seq, s1) : NULL, *b = NULL;
	struct hwp_skid *dst = NULL, *parts[MAX_PARTS] = { NULL };
	struct hwp__module_ids *ids[MAX_PARTS] = { NULL };
	struct hwp__resolver res[MAX_PARTS];
	struct hwp_event ev;
	const struct hwp_thread *th;
	uint64_t nr = 0;
	int rc = 0, same = -1;

	if (!s1 || !s2)
		goto out;
	struct hwp_symbolizer *y = hwp_session__symbolizer(s2);
	size_t before = y ? nr_modules(y) : 0;
	for (unsigned k = 0; k < nparts && rc == 0; k++) {
		if (!(ids[k] = hwp__module_ids_new()))
			rc = -1;
		hwp__resolver_init(&res[k], s2, ids[k]);
		res[k].pinned = true;
		if (!(parts[k] = hwp__skid_new_part(s2, NULL, &res[k])))
			rc = -1;
	}
	if (rc == 0 && !(dst = hwp__skid_new_part(s2, NULL, NULL)))
		rc = -1;
	while (rc == 0 && (rc = hwp_session__next(s2, &ev, &th)) > 0) {
		unsigned k = (unsigned)(nr / batch % nparts);
		struct hwp_machine *m = hwp_session__machine(s2);

		rc = 0;
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		res[k].generation = m ? hwp__machine_generation(m) : 0;
		rc = hwp__skid_add_at(parts[k], &ev, th, nr++);
	}
	bool untouched = !y || (nr_modules(y) == before && !hwp__session_resolver(s2)->cache_filled);
	if (!untouched)
		fprintf(stderr, "%s: a skid part changed the symbolizer or the session's resolver\n", path);
	if (rc == 0 && ((rc = hwp__module_ids_register(ids, nparts, y)) < 0 ||
			(rc = hwp__skid_merge(dst, parts, ids, nparts)) < 0))
		fprintf(stderr, "%s: skid merge: %s\n", path, hwp_errmsg());
	b = render_skid(rc < 0 ? NULL : dst, s2);
	same = a && b && !strcmp(a, b) && untouched;
	if (a && b && strcmp(a, b)) {
		fprintf(stderr, "%s: skid of %u parts of batches of %u differs\n", path, nparts, batch);
		show_difference(a, b);
	}
out:
	for (unsigned k = 0; k < nparts; k++) {
		hwp_skid__delete(parts[k]);
		hwp__module_ids_delete(ids[k]);
	}
	hwp_skid__delete(dst);
	hwp_skid__delete(seq);
	hwp_session__delete(s1);
	hwp_session__delete(s2);
	free(a);
	free(b);
	return same;
}

/* Skid as parts: on the recording written here (its precise loads against
   its cycles), on tests/tools/gen_skid_perfdata's, and on every corpus
   recording the sequential skid reads (the others: refused alike). */
static void test_skid_parts(void)
{
	const char *root = getenv("HWPROF_ROOT"), *build = getenv("BUILD");
	char tool[PATH_MAX], cmd[3 * PATH_MAX + 64], truth[PATH_MAX + 8];

	if (write_mixed(path_gen, 6000) < 0) {
		CHECK(0);
		return;
	}
	CHECK(compare_skid(path_gen, 3, 1) == 1);
	CHECK(compare_skid(path_gen, 2, 50) == 1);
	remove(path_gen);
	snprintf(tool, sizeof(tool), "%s/%s/tests/tools/gen_skid_perfdata", root ? root : ".", build ? build : "build");
	snprintf(truth, sizeof(truth), "%s.truth", path_skid);
	snprintf(cmd, sizeof(cmd), "'%s' 3 '%s' '%s' >/dev/null", tool, path_skid, truth);
	if (access(tool, X_OK) == 0 && system(cmd) == 0) {
		CHECK(compare_skid(path_skid, 3, 4) == 1);
		remove(path_skid);
		remove(truth);
	} else {
		fprintf(stderr, "no %s: skid's generated recording not compared\n", tool);
	}
	const char *corpus = tl_corpus();
	static const char *const files[] = { "perf_data_converter/perf.data.weight_struct",
					     "perf_data_converter/perf.data.hybrid_topology",
					     "autofdo/perf-kernel.data", "simpleperf/perf_b.data" };
	for (size_t i = 0; corpus && i < sizeof(files) / sizeof(files[0]); i++) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", corpus, files[i]);
		if (access(path, R_OK) == 0)
			CHECK(compare_skid(path, 3, 2) == 1);
	}
}

/* With arguments: each file compared, one check line each. */
static int files_mode(int argc, char **argv)
{
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		int rc = compare_all(argv[i], 0, NR_CONFIGS);

		if (rc == 1) {
			printf("PASS mem_parts_%s\n", base);
		} else {
			printf("FAIL mem_parts_%s: %s\n", base,
			       rc == -1 ? "not readable" : "the merged parts' output differs (stderr)");
			failed = 1;
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");

	if (argc > 1)
		return files_mode(argc, argv);
	tmp = tmp ? tmp : "/tmp";
	snprintf(path_gen, sizeof(path_gen), "%s/hwprof-memparts-%d.data", tmp, (int)getpid());
	snprintf(path_bench, sizeof(path_bench), "%s/hwprof-memparts-%d-bench.data", tmp, (int)getpid());
	snprintf(path_skid, sizeof(path_skid), "%s/hwprof-memparts-%d-skid.data", tmp, (int)getpid());
	RUN(test_generated);
	RUN(test_bench_recording);
	RUN(test_corpus);
	RUN(test_threads);
	RUN(test_skid_parts);
	TL_EXIT();
}
