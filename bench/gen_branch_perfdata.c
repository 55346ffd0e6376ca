/* SPDX-License-Identifier: MIT */
/*
 * gen_branch_perfdata: writes a large, realistic branch-stack perf.data for
 * benchmarks.
 *
 *   gen_branch_perfdata OUT.data SIZE_MB [DEPTH=32] [--seed N] [--blocks N]
 *                       [--elf FILE]
 *
 * A synthetic control-flow graph of a few thousand basic blocks inside one
 * fake module (mapped with MMAP2, build-id in the header) is walked like a
 * running program: every block ends in a branch to one of two successors,
 * taken with a per-block bias, or rarely to a third, far one. Each sample's stack holds the last DEPTH taken
 * branches of the walk, most recent first, with cycles, mispredict and
 * predicted flags set. So the file has millions of entries but only a few
 * thousand distinct (from, to) pairs: aggregation memory stays bounded.
 *
 * --elf FILE also writes the fake module as an x86-64 ELF file with that
 * build-id (give its directory as --symfs with the module's path under it),
 * so that the reports that decode code (probs, blocks, paths) have
 * instructions to walk: each block is one-byte nops with a two-byte
 * conditional jump every 8 bytes (not taken inside a range) and ends in a
 * two-byte conditional jump (the taken branch), plus one function symbol per
 * block. The walk and so the perf.data are the same with or without it.
 *
 * --callchain writes call stacks instead of branch stacks (as perf record -g):
 * a fixed set of 4096 call paths through the block functions (a random tree,
 * 2 to 60 frames deep), each sample on one of them, picked with a skew (few
 * hot paths, a long tail): return addresses are the callers' last
 * instructions, the IP lies in the path's last function. Distinct stacks stay
 * bounded, as in a real program. Needs --elf for names.
 *
 * Samples carry IP, TID, TIME, PERIOD, BRANCH_STACK (or CALLCHAIN); a FINISHED_ROUND is
 * written every 5000 samples (about 4 MB). Deterministic for a given seed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

#define MOD_BASE 0x7f3a5c000000ULL
#define MOD_TEXT 0x1000ULL
#define MOD_LEN (64ULL << 20)
#define MOD_PATH "/usr/lib/hwprof-bench/libbenchfake.so"
/* perf record ends a round after each pass over the per-CPU ring buffers:
   a few MB at a time, so rounds are kept about that size. */
#define ROUND_SAMPLES 5000
#define MAX_DEPTH 64

struct block {
	uint64_t start, end; /* [start, end]: end is the branch instruction */
	uint32_t succ[3];    /* taken-branch targets; [2] is a rare far exit */
	uint16_t bias;       /* P(succ[0]) in 1/65536 */
	uint16_t mispred;    /* P(mispredict) in 1/65536 */
	uint16_t base_cycles;
};

static uint64_t rs;

static inline uint64_t rnd64(void)
{
	/* xorshift64* */
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

static inline uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes the module as an ELF file (see the header comment): file offset =
   vaddr = address - MOD_BASE, one R+X PT_LOAD from offset 0. */
static int write_elf(const char *path, const struct block *blk, long nblocks, const uint8_t bid[20])
{
	uint64_t text_end = blk[nblocks - 1].end + 2 - MOD_BASE;
	size_t strtab_size = 1, sym_off, str_off, shstr_off, sh_off, size;
	static const char shstr[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab";
	uint8_t *img;
	FILE *fp;
	int ok;

	for (long i = 0; i < nblocks; i++)
		strtab_size += (size_t)snprintf(NULL, 0, "b%ld", i) + 1;
	sym_off = (text_end + 7) & ~7ULL;
	str_off = sym_off + 24 * (size_t)(nblocks + 1);
	shstr_off = str_off + strtab_size;
	sh_off = (shstr_off + sizeof(shstr) + 7) & ~(size_t)7;
	size = sh_off + 6 * 64;
	if (!(img = calloc(1, size)))
		return -1;
#define W16(o, v) (img[o] = (uint8_t)(v), img[(o) + 1] = (uint8_t)((v) >> 8))
#define W32(o, v) (W16(o, (v) & 0xffff), W16((o) + 2, (uint32_t)(v) >> 16))
#define W64(o, v) (W32(o, (uint64_t)(v) & 0xffffffff), W32((o) + 4, (uint64_t)(v) >> 32))
	memcpy(img, "\177ELF\2\1\1", 7);
	W16(16, 3);      /* ET_DYN */
	W16(18, 62);     /* EM_X86_64 */
	W32(20, 1);
	W64(32, 64);     /* e_phoff */
	W64(40, sh_off); /* e_shoff */
	W16(52, 64);
	W16(54, 56);
	W16(56, 2);      /* e_phnum */
	W16(58, 64);
	W16(60, 6);      /* e_shnum */
	W16(62, 5);      /* e_shstrndx */
	/* PT_LOAD R+X over the text, PT_NOTE over the build-id */
	W32(64, 1), W32(68, 5), W64(72, 0), W64(80, 0), W64(88, 0), W64(96, text_end), W64(104, text_end),
		W64(112, 0x1000);
	W32(120, 4), W32(124, 4), W64(128, 0x100), W64(136, 0x100), W64(144, 0x100), W64(152, 36),
		W64(160, 36), W64(168, 4);
	W32(0x100, 4), W32(0x104, 20), W32(0x108, 3);
	memcpy(img + 0x10c, "GNU", 4);
	memcpy(img + 0x110, bid, 20);
	memset(img + MOD_TEXT, 0xcc, text_end - MOD_TEXT);
	for (long i = 0; i < nblocks; i++) {
		uint64_t a = blk[i].start - MOD_BASE, end = blk[i].end - MOD_BASE;

		while (a < end) {
			if ((a - (blk[i].start - MOD_BASE)) % 8 == 0 && end - a >= 2) {
				img[a++] = 0x74; /* je +0 */
				img[a++] = 0x00;
			} else {
				img[a++] = 0x90;
			}
		}
		img[end] = 0x75; /* jne +0: the block's taken branch */
		img[end + 1] = 0x00;
	}
	/* symbols: b<i> = block i, global functions */
	size_t name = 1;
	for (long i = 0; i < nblocks; i++) {
		size_t o = sym_off + 24 * (size_t)(i + 1);
		int len = sprintf((char *)img + str_off + name, "b%ld", i);

		W32(o, name);
		img[o + 4] = 0x12; /* STB_GLOBAL, STT_FUNC */
		W16(o + 6, 2);     /* .text */
		W64(o + 8, blk[i].start - MOD_BASE);
		W64(o + 16, blk[i].end + 2 - blk[i].start);
		name += (size_t)len + 1;
	}
	memcpy(img + shstr_off, shstr, sizeof(shstr));
	/* section headers: null, .note.gnu.build-id, .text, .symtab, .strtab, .shstrtab */
	struct { uint32_t name, type; uint64_t flags, addr, off, size; uint32_t link, info; uint64_t align, entsize; } sh[6] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 1, 7, 2, 0x100, 0x100, 36, 0, 0, 4, 0 },
		{ 20, 1, 6, MOD_TEXT, MOD_TEXT, text_end - MOD_TEXT, 0, 0, 16, 0 },
		{ 26, 2, 0, 0, sym_off, 24 * (uint64_t)(nblocks + 1), 4, 1, 8, 24 },
		{ 34, 3, 0, 0, str_off, strtab_size, 0, 0, 1, 0 },
		{ 42, 3, 0, 0, shstr_off, sizeof(shstr), 0, 0, 1, 0 },
	};
	for (int i = 0; i < 6; i++) {
		size_t o = sh_off + 64 * (size_t)i;

		W32(o, sh[i].name), W32(o + 4, sh[i].type), W64(o + 8, sh[i].flags), W64(o + 16, sh[i].addr);
		W64(o + 24, sh[i].off), W64(o + 32, sh[i].size), W32(o + 40, sh[i].link), W32(o + 44, sh[i].info);
		W64(o + 48, sh[i].align), W64(o + 56, sh[i].entsize);
	}
#undef W16
#undef W32
#undef W64
	fp = fopen(path, "wb");
	ok = fp && fwrite(img, 1, size, fp) == size;
	ok = fp && !fclose(fp) && ok;
	free(img);
	return ok ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: gen_branch_perfdata OUT.data SIZE_MB [DEPTH=32] [--seed N] "
			"[--blocks N] [--elf FILE] [--callchain]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *elf = NULL;
	int callchain = 0;
	enum { NPATHS = 4096, PATH_MAX_DEPTH = 60 };
	static uint32_t paths[NPATHS][PATH_MAX_DEPTH]; /* function (block) per frame, outermost first */
	static uint8_t path_len[NPATHS];
	uint64_t chain[PATH_MAX_DEPTH + 2];
	double size_mb = -1;
	long depth = 32, nblocks = 2048;
	unsigned long long seed = 1;
	int pos = 0;
	struct block *blk;
	struct hwp_writer *w;
	struct hwp_attr a;
	uint64_t id = 1;
	uint8_t bid[20];
	struct hwp_branch_entry ring[MAX_DEPTH], br[MAX_DEPTH];
	unsigned head = 0; /* ring[head] is the most recent branch */
	uint32_t cur;
	uint64_t t = 1000000000ULL, target, nsamples = 0, nentries = 0;
	const uint32_t tids[4] = { 4242, 4243, 4244, 4245 };
	double t0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--blocks") && i + 1 < argc)
			nblocks = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--elf") && i + 1 < argc)
			elf = argv[++i];
		else if (!strcmp(argv[i], "--callchain"))
			callchain = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (pos == 0)
			out = argv[i], pos++;
		else if (pos == 1)
			size_mb = strtod(argv[i], NULL), pos++;
		else if (pos == 2)
			depth = strtol(argv[i], NULL, 0), pos++;
		else
			usage();
	}
	if (!out || size_mb < 0 || depth < 0 || depth > MAX_DEPTH || nblocks < 2 ||
	    nblocks > 1000000)
		usage();
	rs = seed * 0x9e3779b97f4a7c15ULL + 0x1234567;
	target = (uint64_t)(size_mb * 1048576.0);

	/* The CFG: blocks laid out back to back in the module's text. */
	blk = calloc((size_t)nblocks, sizeof(*blk));
	if (!blk) {
		perror("calloc");
		return 1;
	}
	{
		uint64_t addr = MOD_BASE + MOD_TEXT;

		for (long i = 0; i < nblocks; i++) {
			uint64_t len = 8 + rnd32() % 120;

			blk[i].start = addr;
			blk[i].end = addr + len - 2;
			addr += len + (rnd32() % 4 == 0 ? 16 + rnd32() % 64 : 0);
			/* mostly local jumps (loops, ifs), some calls far away */
			for (int k = 0; k < 3; k++) {
				long d = k < 2 && rnd32() % 8 ? (long)(rnd32() % 32) - 16
							       : (long)(rnd32() % (uint32_t)nblocks);
				long s = (i + d) % nblocks;

				blk[i].succ[k] = (uint32_t)(s < 0 ? s + nblocks : s);
			}
			blk[i].bias = (uint16_t)(rnd32() % 2 ? 65535 - rnd32() % 6000 : rnd32());
			blk[i].mispred = (uint16_t)(rnd32() % 4 ? rnd32() % 1500 : rnd32() % 20000);
			blk[i].base_cycles = (uint16_t)(1 + rnd32() % 40);
		}
	}

	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0x40 + 7 * i);
	if (elf && write_elf(elf, blk, nblocks, bid)) {
		perror(elf);
		free(blk);
		return 1;
	}
	w = hwp_writer__open(out);
	if (!w) {
		fprintf(stderr, "gen_branch_perfdata: %s\n", hwp_errmsg());
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.type = 0; /* cycles */
	a.config = 0;
	a.sample_period = 100003;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
			(callchain ? HWP_SAMPLE_CALLCHAIN : HWP_SAMPLE_BRANCH_STACK);
	if (callchain) {
		/* the call paths: path i extends one of the few before it (deep
		   chains), or any earlier one once it is deep */
		path_len[0] = 1;
		paths[0][0] = 0;
		for (long i = 1; i < NPATHS; i++) {
			long p = i - 1 - (long)(rnd32() % (uint32_t)(i < 8 ? i : 8));
			while (path_len[p] >= PATH_MAX_DEPTH) /* path 0 is 1 deep: this ends */
				p = (long)(rnd32() % (uint32_t)i) / 4;
			memcpy(paths[i], paths[p], sizeof(paths[i][0]) * path_len[p]);
			paths[i][path_len[p]] = rnd32() % (uint32_t)nblocks;
			path_len[i] = (uint8_t)(path_len[p] + 1);
		}
	}
	a.flags = 1ULL << HWP_ATTR_DISABLED | 1ULL << HWP_ATTR_INHERIT |
		  1ULL << HWP_ATTR_EXCLUDE_KERNEL | 1ULL << HWP_ATTR_EXCLUDE_HV |
		  1ULL << HWP_ATTR_MMAP | 1ULL << HWP_ATTR_COMM | 1ULL << HWP_ATTR_ENABLE_ON_EXEC |
		  1ULL << HWP_ATTR_TASK | 1ULL << HWP_ATTR_SAMPLE_ID_ALL | 1ULL << HWP_ATTR_MMAP2 |
		  1ULL << HWP_ATTR_COMM_EXEC;
	a.branch_sample_type = HWP_BRANCH_USER | HWP_BRANCH_ANY;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0x40 + 7 * i);
	if (hwp_writer__add_attr(w, &a, &id, 1, "cycles:u") < 0 ||
	    hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "bench-host") ||
	    hwp_writer__set_string(w, HWP_FEAT_OSRELEASE, "6.1.0-bench") ||
	    hwp_writer__set_string(w, HWP_FEAT_VERSION, "6.1.0") ||
	    hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUDESC, "Synthetic CPU @ 3.00GHz") ||
	    hwp_writer__set_string(w, HWP_FEAT_CPUID, "GenuineIntel,6,85,4") ||
	    hwp_writer__set_nrcpus(w, 8, 8) ||
	    hwp_writer__add_build_id(w, -1, HWP_MISC_USER, bid, 20, MOD_PATH))
		goto fail;
	for (int i = 0; i < 4; i++) {
		struct hwp_sample sid;

		memset(&sid, 0, sizeof(sid));
		sid.pid = tids[0];
		sid.tid = tids[i];
		sid.time = t++;
		if (hwp_writer__add_comm(w, 0, tids[0], tids[i], "benchfake", i == 0, &sid))
			goto fail;
	}
	{
		struct hwp_sample sid;

		memset(&sid, 0, sizeof(sid));
		sid.pid = sid.tid = tids[0];
		sid.time = t++;
		if (hwp_writer__add_mmap2(w, 0, tids[0], tids[0], MOD_BASE, MOD_LEN, 0, bid, 20,
					  5 /* r-x */, 2 /* private */, MOD_PATH, HWP_MISC_USER,
					  &sid))
			goto fail;
	}

	/* Warm the ring so the first samples are full. */
	cur = rnd32() % (uint32_t)nblocks;
	memset(ring, 0, sizeof(ring));

	t0 = now();
	while (hwp_writer__size(w) < target) {
		struct hwp_sample s;
		struct hwp_sample_in in;
		unsigned steps = 1 + rnd32() % 24; /* branches since the last sample */

		if (nsamples == 0)
			steps += MAX_DEPTH;
		for (unsigned k = 0; k < steps; k++) {
			const struct block *b = &blk[cur];
			uint64_t r64 = rnd64();
			uint32_t r = (uint32_t)r64;
			/* 1 in 64: leave through the far exit (a call, return or
			   exception), so the walk does not stay in one hot loop */
			uint32_t next = b->succ[(r64 >> 58) == 0 ? 2
						: (r & 0xffff) < b->bias ? 0 : 1];
			struct hwp_branch_entry *e;
			int mis = (r >> 16) < b->mispred;

			head = (head + MAX_DEPTH - 1) % MAX_DEPTH;
			e = &ring[head];
			e->from = b->end;
			e->to = blk[next].start;
			e->mispred = (uint8_t)mis;
			e->predicted = (uint8_t)!mis;
			e->cycles = (uint16_t)(b->base_cycles + (mis ? 15 + (r & 15) : (r & 3)));
			e->type = 0;
			cur = next;
		}
		for (long k = 0; k < depth; k++)
			br[k] = ring[(head + (unsigned)k) % MAX_DEPTH];

		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.ip = blk[cur].start + (rnd32() % (uint32_t)(blk[cur].end - blk[cur].start + 1));
		s.pid = tids[0];
		s.tid = tids[nsamples & 3];
		s.time = t += 20000 + rnd32() % 20000;
		s.period = 100003;
		s.branch_nr = (uint64_t)depth;
		memset(&in, 0, sizeof(in));
		in.s = &s;
		in.branches = br;
		if (callchain) {
			/* skewed: the low paths are hot */
			uint32_t p = (uint32_t)(((uint64_t)(rnd32() % NPATHS) * (rnd32() % NPATHS)) / NPATHS);
			unsigned n = path_len[p];
			const struct block *leaf = &blk[paths[p][n - 1]];

			s.ip = leaf->start + rnd32() % (uint32_t)(leaf->end - leaf->start + 1);
			chain[0] = (uint64_t)-512; /* PERF_CONTEXT_USER */
			chain[1] = s.ip;
			for (unsigned k = 1; k < n; k++)
				chain[1 + k] = blk[paths[p][n - 1 - k]].end;
			s.callchain_nr = n + 1;
			s.branch_nr = 0;
			in.callchain = chain;
			in.branches = NULL;
		}
		if (hwp_writer__add_sample(w, 0, &in))
			goto fail;
		nsamples++;
		nentries += callchain ? s.callchain_nr : (uint64_t)depth;
		if (nsamples % ROUND_SAMPLES == 0 && hwp_writer__add_finished_round(w))
			goto fail;
	}
	if (hwp_writer__add_finished_round(w))
		goto fail;
	{
		uint64_t bytes = hwp_writer__size(w);

		if (hwp_writer__close(w)) {
			fprintf(stderr, "gen_branch_perfdata: %s\n", hwp_errmsg());
			free(blk);
			return 1;
		}
		double dt = now() - t0;

		printf("%s: %" PRIu64 " bytes, %" PRIu64 " samples, %" PRIu64
		       " %s, %ld blocks, %.2f s, %.0f MB/s\n",
		       out, bytes, nsamples, nentries, callchain ? "callchain words" : "branch entries", nblocks, dt,
		       dt > 0 ? (double)bytes / 1048576.0 / dt : 0.0);
	}
	free(blk);
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_branch_perfdata: stdout");
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "gen_branch_perfdata: %s\n", hwp_errmsg());
	hwp_writer__abort(w);
	free(blk);
	return 1;
}
