/* SPDX-License-Identifier: MIT */
/*
 * Writes a perf.data whose branch stacks use a real binary's real branch
 * instructions: every (from, to) is a jump or call found by Capstone in the
 * binary's executable segments, with its real target (returns go back to a
 * call site's next instruction). The binary is mapped by MMAP2 records as the
 * loader would, in one or two processes at different load bases, so perf and
 * hwprof both symbolize the same addresses from the same ELF.
 *
 * usage: gen_fixture_branches BINARY OUT [--seed N] [--samples N] [--depth N]
 *                             [--processes 1|2] [--build-id] [--tx]
 * --tx also sets the in_tx bit on about one entry in 5 and abort on one in
 * 20 (transactional memory: perf's in_tx and abort keys).
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"

struct seg {
	uint64_t vaddr, memsz, offset;
};

struct branch {
	uint64_t from, to; /* link-time addresses */
};

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static int die(const char *msg)
{
	fprintf(stderr, "gen_fixture_branches: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	const char *bin, *out;
	unsigned samples = 400, depth = 16, processes = 1;
	int with_build_id = 0;
	bool tx = false;

	if (argc < 3)
		return die("usage: BINARY OUT [--seed N] [--samples N] [--depth N] [--processes 1|2] [--build-id] [--tx]");
	bin = argv[1];
	out = argv[2];
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng ^= strtoull(argv[++i], NULL, 0) * 0x9e3779b97f4a7c15ULL;
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			depth = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--processes") && i + 1 < argc)
			processes = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--tx"))
			tx = true;
		else if (!strcmp(argv[i], "--build-id"))
			with_build_id = 1;
		else
			return die("unknown option");
	}
	if (depth == 0 || depth > 64 || processes < 1 || processes > 2)
		return die("bad --depth or --processes");

	elf_version(EV_CURRENT);
	int fd = open(bin, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh))
		return die("cannot read the ELF");
	int pie = eh.e_type == ET_DYN;

	/* Decode every executable segment, collecting direct branches. */
	struct seg segs[8];
	size_t nsegs = 0, phnum;
	struct branch *br = NULL;
	size_t nbr = 0, capbr = 0;
	uint64_t *rets = NULL; /* call-site return addresses */
	size_t nrets = 0, caprets = 0;
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return die("capstone");
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	elf_getphdrnum(e, &phnum);
	size_t fsize;
	char *image = elf_rawfile(e, &fsize);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (nsegs < 8)
			segs[nsegs++] = (struct seg){ ph.p_vaddr, ph.p_memsz, ph.p_offset };
		if (ph.p_offset + ph.p_filesz > fsize)
			return die("truncated segment");
		const uint8_t *code = (const uint8_t *)image + ph.p_offset;
		size_t size = ph.p_filesz;
		uint64_t addr = ph.p_vaddr;
		cs_insn *insn = cs_malloc(cs);
		while (cs_disasm_iter(cs, &code, &size, &addr, insn)) {
			bool jump = cs_insn_group(cs, insn, CS_GRP_JUMP), call = cs_insn_group(cs, insn, CS_GRP_CALL);
			if (!jump && !call)
				continue;
			cs_x86 *x = &insn->detail->x86;
			if (call) {
				if (nrets == caprets) {
					caprets = caprets ? caprets * 2 : 256;
					rets = realloc(rets, caprets * sizeof(*rets));
				}
				rets[nrets++] = insn->address + insn->size;
			}
			if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
				continue;
			if (nbr == capbr) {
				capbr = capbr ? capbr * 2 : 256;
				br = realloc(br, capbr * sizeof(*br));
			}
			br[nbr++] = (struct branch){ insn->address, (uint64_t)x->operands[0].imm };
		}
		cs_free(insn, 1);
	}
	if (!nbr || !nsegs)
		return die("no direct branches found");

	/* Build-id note, for --build-id. */
	uint8_t bid[20];
	size_t bid_len = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 20) {
				memcpy(bid, (char *)d->d_buf + desc_off, nh.n_descsz);
				bid_len = nh.n_descsz;
			}
	}

	struct hwp_writer *w = hwp_writer__open(out);
	if (!w)
		return die(hwp_errmsg());
	struct hwp_attr a = { 0 };
	a.type = 0; /* hardware */
	a.config = 0; /* cycles */
	a.size = 128;
	a.sample_period = 100003;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
			HWP_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = HWP_BRANCH_ANY | HWP_BRANCH_USER;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2) | (1ULL << HWP_ATTR_EXCLUDE_KERNEL);
	int idx = hwp_writer__add_attr(w, &a, NULL, 0, "cycles:u");
	hwp_writer__set_host_features(w);
	if (idx < 0)
		return die(hwp_errmsg());

	uint64_t bases[2] = { pie ? 0x555555554000ULL : 0, pie ? 0x5600aa000000ULL : 0 };
	uint32_t pids[2] = { 4242, 4343 };
	uint64_t t = 1000000;
	const char *slash = strrchr(bin, '/');
	const char *comm = slash ? slash + 1 : bin;
	for (unsigned p = 0; p < processes; p++) {
		struct hwp_sample id = { 0 };
		id.pid = id.tid = pids[p];
		id.time = t++;
		id.sample_type = a.sample_type;
		hwp_writer__add_comm(w, idx, pids[p], pids[p], comm, true, &id);
		for (size_t s = 0; s < nsegs; s++) {
			uint64_t start = bases[p] + (segs[s].vaddr & ~0xfffULL);
			uint64_t end = bases[p] + ((segs[s].vaddr + segs[s].memsz + 0xfff) & ~0xfffULL);
			id.time = t++;
			hwp_writer__add_mmap2(w, idx, pids[p], pids[p], start, end - start, segs[s].offset & ~0xfffULL,
					      with_build_id ? bid : NULL, with_build_id ? (uint8_t)bid_len : 0,
					      5 /* r-x */, 2 /* MAP_PRIVATE */, bin, HWP_MISC_USER, &id);
		}
	}
	if (with_build_id && bid_len)
		hwp_writer__add_build_id(w, -1, HWP_MISC_USER, bid, (uint8_t)bid_len, bin);

	/* Hot branches: a skewed choice so rows have distinct counts. */
	struct hwp_branch_entry *ent = calloc(depth, sizeof(*ent));
	for (unsigned n = 0; n < samples; n++) {
		unsigned p = n % processes;
		for (unsigned d = 0; d < depth; d++) {
			struct hwp_branch_entry *x = &ent[d];
			memset(x, 0, sizeof(*x));
			if (nrets && rnd(8) == 0) {
				/* a return: from some branch site to a call's return address */
				x->from = br[rnd(nbr)].from;
				x->to = rets[rnd(nrets)];
			} else {
				size_t k = rnd(rnd(4) ? (nbr < 24 ? nbr : 24) : nbr);
				x->from = br[k].from;
				x->to = br[k].to;
			}
			x->from += bases[p];
			x->to += bases[p];
			/* Always one of the two bits, as Intel LBR sets them: perf 6.1
			   prints a row with neither bit with the previous row's Y/N (its
			   mispredict column keeps the last value in a static). */
			unsigned m = (unsigned)rnd(10);
			x->mispred = m == 0;
			x->predicted = m != 0;
			x->cycles = (uint16_t)(rnd(3) ? rnd(40) : 0);
			if (tx) {
				x->in_tx = rnd(5) == 0;
				x->abort = rnd(20) == 0;
			}
		}
		struct hwp_sample s = { 0 };
		s.sample_type = a.sample_type;
		s.cpumode = HWP_MISC_USER;
		s.ip = ent[0].to;
		s.pid = s.tid = pids[p];
		s.time = t++;
		s.period = 100003;
		s.branch_nr = depth;
		struct hwp_sample_in in = { .s = &s, .branches = ent };
		if (hwp_writer__add_sample(w, idx, &in) < 0)
			return die(hwp_errmsg());
	}
	if (hwp_writer__close(w) < 0)
		return die(hwp_errmsg());
	printf("%s: %u samples x %u entries from %zu branch sites of %s (%s, %u process%s)\n", out,
	       samples, depth, nbr, bin, pie ? "PIE" : "non-PIE", processes, processes > 1 ? "es" : "");
	free(ent);
	free(br);
	free(rets);
	cs_close(&cs);
	elf_end(e);
	close(fd);
	return 0;
}
