/* SPDX-License-Identifier: MIT */
/*
 * emu_check PERF.DATA: checks that the branch stacks of a recording are
 * consistent with the code, as a real LBR is:
 *   - for two consecutive entries (older, newer), execution leads from
 *     older.to to newer.from through straight-line code (not-taken
 *     conditional branches allowed, nothing else that transfers control);
 *   - each entry's from is a control-transfer instruction, and a direct
 *     branch's to is its target (with -j save_type: of the recorded type);
 *     signal entries (type IRQ / ERET) are exempt from both.
 * Code is read from the files the MMAP2 records name. Exit 0 when every
 * pair checks, 1 otherwise, 77 when built without Capstone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>

struct map {
	uint64_t start, len, pgoff;
	uint8_t *data; /* whole file */
	size_t size;
};

static struct map *maps;
static size_t nmaps;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)n)) && fread(p, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static void add_mmap2(const uint8_t *rec, uint32_t size)
{
	uint64_t start, len, pgoff;
	const char *name = (const char *)rec + 72;
	struct map *m;

	if (size < 80)
		return;
	memcpy(&start, rec + 16, 8);
	memcpy(&len, rec + 24, 8);
	memcpy(&pgoff, rec + 32, 8);
	if (!memchr(name, 0, size - 72))
		return;
	for (size_t i = 0; i < nmaps; i++)
		if (maps[i].start == start && maps[i].len == len)
			return;
	maps = realloc(maps, (nmaps + 1) * sizeof(*maps));
	m = &maps[nmaps];
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	m->data = slurp(name, &m->size);
	if (m->data)
		nmaps++;
}

/* Up to 16 code bytes at ADDR, or NULL. */
static const uint8_t *code_at(uint64_t addr, size_t *avail)
{
	for (size_t i = nmaps; i-- > 0;) {
		struct map *m = &maps[i];
		uint64_t off;

		if (addr < m->start || addr - m->start >= m->len)
			continue;
		off = addr - m->start + m->pgoff;
		if (off >= m->size)
			return NULL;
		*avail = m->size - off < 16 ? m->size - off : 16;
		return m->data + off;
	}
	return NULL;
}

enum cls { CL_OTHER, CL_COND, CL_JMP, CL_CALL, CL_IJMP, CL_ICALL, CL_RET, CL_SYS, CL_BAD };

static csh cs;

static enum cls classify(uint64_t addr, uint64_t *next, uint64_t *target)
{
	size_t avail;
	const uint8_t *code = code_at(addr, &avail);
	cs_insn *insn;
	enum cls c = CL_OTHER;

	*target = 0;
	if (!code || cs_disasm(cs, code, avail, addr, 1, &insn) != 1)
		return CL_BAD;
	*next = addr + insn->size;
	if (cs_insn_group(cs, insn, CS_GRP_RET) || cs_insn_group(cs, insn, CS_GRP_IRET)) {
		c = CL_RET;
	} else if (cs_insn_group(cs, insn, CS_GRP_INT) || insn->id == X86_INS_SYSCALL ||
		   insn->id == X86_INS_SYSENTER) {
		c = CL_SYS;
	} else if (cs_insn_group(cs, insn, CS_GRP_CALL) || cs_insn_group(cs, insn, CS_GRP_JUMP)) {
		const cs_x86 *x = &insn->detail->x86;
		bool call = cs_insn_group(cs, insn, CS_GRP_CALL);
		bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

		if (direct)
			*target = (uint64_t)x->operands[0].imm;
		if (call)
			c = direct ? CL_CALL : CL_ICALL;
		else if (insn->id == X86_INS_JMP || insn->id == X86_INS_LJMP)
			c = direct ? CL_JMP : CL_IJMP;
		else
			c = CL_COND;
	}
	cs_free(insn, 1);
	return c;
}

/* Straight-line from A to B? */
static bool straight(uint64_t a, uint64_t b, const char **why)
{
	for (int n = 0; n < 100000; n++) {
		uint64_t next, target;
		enum cls c;

		if (a == b)
			return true;
		c = classify(a, &next, &target);
		if (c == CL_BAD) {
			*why = "no code";
			return false;
		}
		if (c != CL_OTHER && c != CL_COND && c != CL_SYS) {
			*why = "passes an unconditional transfer";
			return false;
		}
		a = next;
	}
	*why = "too far";
	return false;
}

int main(int argc, char **argv)
{
	struct hwp_reader *r;
	struct hwp_event ev;
	uint64_t samples = 0, pairs = 0, entries = 0, bad = 0, async = 0;
	bool check_types = false;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: emu_check PERF.DATA\n");
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		fprintf(stderr, "emu_check: cs_open failed\n");
		return 2;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	r = hwp_reader__open(argv[1], NULL);
	if (!r) {
		fprintf(stderr, "emu_check: %s\n", hwp_errmsg());
		return 2;
	}
	if (hwp_reader__nr_evsels(r))
		check_types = hwp_reader__evsel(r, 0)->attr.branch_sample_type & (1u << 16);
	while ((rc = hwp_reader__next(r, &ev)) > 0) {
		const struct hwp_sample *s = &ev.sample;

		if (ev.type == 10) {
			add_mmap2(ev.data, ev.size);
			continue;
		}
		if (ev.type != 9 || !s->branch_nr)
			continue;
		samples++;
		for (uint64_t i = 0; i < s->branch_nr; i++) {
			struct hwp_branch_entry e;
			uint64_t next, target;
			enum cls c;
			const char *why = NULL;

			hwp_sample__branch(s, i, &e);
			entries++;
			if (e.type == 11 || e.type == 12) { /* ERET, IRQ: signal entries */
				async++;
			} else {
				c = classify(e.from, &next, &target);
				if (c == CL_BAD || c == CL_OTHER || c == CL_SYS)
					why = "from is not a branch";
				else if (target && target != e.to)
					why = "to is not the direct target";
				else if (check_types &&
					 !((e.type == 1 && c == CL_COND) || (e.type == 2 && c == CL_JMP) ||
					   (e.type == 3 && c == CL_IJMP) || (e.type == 4 && c == CL_CALL) ||
					   (e.type == 5 && c == CL_ICALL) || (e.type == 6 && c == CL_RET)))
					why = "type differs from the instruction";
			}
			if (!why && i + 1 < s->branch_nr) {
				struct hwp_branch_entry older;

				hwp_sample__branch(s, i + 1, &older);
				pairs++;
				straight(older.to, e.from, &why);
				if (why && bad < 10)
					fprintf(stderr, "  sample %llu: entry %llu from %#llx: %#llx -> %#llx: %s\n",
						(unsigned long long)samples, (unsigned long long)i,
						(unsigned long long)older.from,
						(unsigned long long)older.to,
						(unsigned long long)e.from, why);
			} else if (why && bad < 10) {
				fprintf(stderr, "  sample %llu: entry %llu %#llx -> %#llx (type %u): %s\n",
					(unsigned long long)samples, (unsigned long long)i,
					(unsigned long long)e.from, (unsigned long long)e.to, e.type, why);
			}
			if (why)
				bad++;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "emu_check: %s\n", hwp_errmsg());
		return 2;
	}
	printf("%llu samples, %llu entries (%llu signal), %llu pairs checked, %llu bad\n",
	       (unsigned long long)samples, (unsigned long long)entries, (unsigned long long)async,
	       (unsigned long long)pairs, (unsigned long long)bad);
	hwp_reader__delete(r);
	cs_close(&cs);
	return bad || !pairs ? 1 : 0;
}

#else

int main(void)
{
	printf("emu_check: built without Capstone (install libcapstone-dev)\n");
	return 77;
}

#endif
